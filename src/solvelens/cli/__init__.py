"""The ``solvelens`` command line (typer).

Each command or command group lives in its own module of this package as module-level functions, added to
the root app by the module's ``register(app)``; the options several commands share (``Annotated`` types)
and the one exception -> exit code table are in :mod:`solvelens.cli.common`: the root app's group
(:class:`~solvelens.cli.common.SolvelensGroup`) turns every command's exception into one line and its exit
code. Heavy libraries (Prefect,
DuckDB, Altair, FastAPI) are imported inside the command functions, so ``solvelens --help`` stays fast.

Every option also reads an environment variable ``SOLVELENS_<NAME>`` (e.g. ``--base-url`` reads
``SOLVELENS_BASE_URL``).
"""

from __future__ import annotations

import sys

import typer

from solvelens.cli import bot, db, demo, diff, probe, report, sandbox, snapshot
from solvelens.cli.common import SolvelensGroup

if "multiprocessing" in sys.modules:  # perhaps a flow run's process, spawned by `solvelens schedule`
    from solvelens.flows.prefect_import import lean_spawned_child
    from solvelens.flows.termination import redeliver_swallowed_termination

    if lean_spawned_child():  # from the process's start, not only from the flow body's
        redeliver_swallowed_termination()

app = typer.Typer(
    rich_markup_mode=None,
    name="solvelens",
    cls=SolvelensGroup,
    help=(
        "solvelens: API client, sandbox platform and analytics pipeline for a bot problem-solving "
        "platform.\n\n"
        "Quick start: `solvelens demo` runs the whole pipeline against an embedded sandbox platform."
    ),
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)
for module in (demo, snapshot, probe, report, diff, db, sandbox, bot):
    module.register(app)


def _print_version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"solvelens {version('solvelens')}")
        raise typer.Exit()


@app.callback()
def root(
    version: bool = typer.Option(
        False, "--version", callback=_print_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """The root command: only ``--version``; everything else is a command."""


def main() -> None:
    """Entry point for ``python -m solvelens``."""
    app()
