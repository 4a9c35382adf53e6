"""``solvelens sandbox ...``: serve the sandbox platform, manage its bots and API keys, simulate days.

Heavy libraries (FastAPI, uvicorn) are imported inside the commands so ``solvelens --help`` stays fast.
"""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from starlette.types import ASGIApp

    from solvelens.sandbox.options import SandboxOptions

from solvelens.cli.common import DEFAULT_SANDBOX_DB, BadInputError, CommandFailedError, SandboxDbPath
from solvelens.sandbox.options import VOTE_DEADLOCKS

app = typer.Typer(
    rich_markup_mode=None,
    help="The sandbox platform: a local stand-in for the real platform (SQLite file + HTTP server).",
    no_args_is_help=True,
)

# -- serve: its options -----------------------------------------------------------------------------------

Host = Annotated[str, typer.Option(envvar="SOLVELENS_SANDBOX_HOST", help="Interface to listen on.")]
Port = Annotated[
    int,
    typer.Option(envvar="SOLVELENS_SANDBOX_PORT", help="Port, 0-65535 (0 = any free port)."),
]
Seed = Annotated[
    int, typer.Option(envvar="SOLVELENS_SANDBOX_SEED", help="Seed used when the DB must be built.")
]
Scale = Annotated[
    str,
    typer.Option(
        envvar="SOLVELENS_SANDBOX_SCALE", help="empty|small|medium|large, used when the DB must be built."
    ),
]


def _switch_parameters() -> list[inspect.Parameter]:
    """The typer options of every server switch, derived from their declaration
    (:class:`~solvelens.sandbox.options.SandboxOptions`, :func:`solvelens.sandbox.switches.specs`): flag,
    ``SOLVELENS_SANDBOX_*`` variable, type, default and help."""
    from solvelens.sandbox.options import SandboxOptions
    from solvelens.sandbox.switches import specs

    return [
        inspect.Parameter(
            spec.key,
            inspect.Parameter.KEYWORD_ONLY,
            default=spec.default,
            annotation=Annotated[spec.kind, typer.Option(spec.flag, envvar=spec.envvar, help=spec.help)],
        )
        for spec in specs(SandboxOptions)
    ]


def serve(
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    db: Path = DEFAULT_SANDBOX_DB,
    seed: int = 0,
    scale: str = "small",
    **switches: object,
) -> None:
    """Serve the platform in DB on HOST:PORT (builds it first when the file does not exist).

    Ctrl-C and SIGTERM (systemd, docker stop, the demo) stop it alike: the SQLite WAL is folded into DB,
    which is then whole by itself.

    Exit codes: 0 stopped (Ctrl-C or SIGTERM); 1 the server failed (e.g. --db is an SQLite file that
    cannot be read); 2 bad input (an option's value, --db not a sandbox database, the port in use or out
    of range).
    """
    from solvelens.sandbox.app import check_options
    from solvelens.sandbox.options import SandboxOptions
    from solvelens.sandbox.switches import from_values

    try:
        opts = from_values(SandboxOptions, switches)
        check_options(opts)
    except ValueError as exc:
        raise BadInputError(str(exc)) from exc
    port = _ready(db, seed, scale, host, port)
    _run_server(_app(db, opts), host, port, db)


_SERVE_PARAMETERS = [
    inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
    for name, default, annotation in (
        ("host", "127.0.0.1", Host),
        ("port", 8000, Port),
        ("db", DEFAULT_SANDBOX_DB, SandboxDbPath),
        ("seed", 0, Seed),
        ("scale", "small", Scale),
    )
]
serve.__signature__ = inspect.Signature([*_SERVE_PARAMETERS, *_switch_parameters()])  # type: ignore[attr-defined]
app.command()(serve)


def _ready(db: Path, seed: int, scale: str, host: str, port: int) -> int:
    """The port to serve on (checked bindable, :func:`_bindable_port`) once ``db`` is a sandbox platform:
    checked when it exists, else built (``scale`` checked before the port, the build after it)."""
    from solvelens.sandbox.generate import SCALES, build_platform

    if db.exists():
        _check_sandbox_file(db)
    elif scale not in SCALES:
        raise BadInputError(f"--scale must be one of {', '.join(SCALES)}, got {scale!r}")
    port = _bindable_port(host, port)
    if not db.exists():
        summary = build_platform(db, seed=seed, scale=scale)
        typer.echo(
            f"Built a {scale} platform (seed {seed}) in {db}: {summary['problems']} problems.", err=True
        )
    return port


def _app(db: Path, opts: SandboxOptions) -> ASGIApp:
    """The app serving ``db``: an SQLite file that is no sandbox platform is bad input (exit 2), one that
    cannot be read (corrupt) makes the server fail (exit 1)."""
    import sqlite3

    from solvelens.sandbox.app import build_app

    try:
        return build_app(db, opts)
    except ValueError as exc:
        raise BadInputError(
            f"--db {exc}; give the sandbox's SQLite file, or a new path to build one"
        ) from exc
    except sqlite3.DatabaseError as exc:
        raise CommandFailedError(f"the server failed: cannot read --db {db} ({exc})") from exc


def _terminated(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM ends the server as Ctrl-C does


def _checkpoint(db: Path) -> None:
    """Fold the SQLite WAL into ``db`` and empty it (``PRAGMA wal_checkpoint(TRUNCATE)``), so the file is
    whole by itself (copied alone, it holds every committed change)."""
    import sqlite3

    con = sqlite3.connect(db)
    try:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        con.close()


def _run_server(application: ASGIApp, host: str, port: int, db: Path) -> None:
    """Serve ``application`` with uvicorn until Ctrl-C or SIGTERM, which end it quietly (exit 0, as the
    help says): uvicorn shuts down gracefully, then re-raises the signal, which ends in ``KeyboardInterrupt``
    for both (SIGTERM's default action would end the process at once); then the WAL of ``db`` is
    checkpointed (:func:`_checkpoint`)."""
    import signal

    import uvicorn

    typer.echo(f"http://{host}:{port}/api/v1")
    config = uvicorn.Config(
        application, host=host, port=port, log_level="warning", access_log=False, lifespan="off"
    )
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        uvicorn.Server(config).run()
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        _checkpoint(db)


@app.command("create-bot")
def create_bot(
    name: str = typer.Argument(..., help="Unique bot name (3-50 characters)."),
    db: SandboxDbPath = DEFAULT_SANDBOX_DB,
    description: str = typer.Option("", envvar="SOLVELENS_BOT_DESCRIPTION", help="Bot description."),
) -> None:
    """Create a bot and print its API key once (store it now: it is not shown again)."""
    from solvelens.sandbox.accounts import create_bot as create

    _need(db)
    typer.echo(create(db, name, description=description or None))


@app.command("rotate-key")
def rotate_key(
    name: str = typer.Argument(..., help="Bot name."), db: SandboxDbPath = DEFAULT_SANDBOX_DB
) -> None:
    """Revoke the bot's keys and print a new one (shown once)."""
    from solvelens.sandbox.accounts import rotate_key as rotate

    _need(db)
    typer.echo(rotate(db, name))


@app.command("revoke-key")
def revoke_key(
    name: str = typer.Argument(..., help="Bot name."), db: SandboxDbPath = DEFAULT_SANDBOX_DB
) -> None:
    """Revoke every key of the bot."""
    from solvelens.sandbox.accounts import revoke_key as revoke

    _need(db)
    typer.echo(f"Revoked {revoke(db, name)} key(s) of {name}.")


@app.command("rename-bot")
def rename_bot(
    name: str = typer.Argument(..., help="The bot's current name."),
    new_name: str = typer.Argument(..., help="Its new name (3-50 characters, unique)."),
    db: SandboxDbPath = DEFAULT_SANDBOX_DB,
) -> None:
    """Rename a bot, as the platform's settings route does (PUT /user/bot-profile): the new name shows at
    once everywhere, votes included; activity rows keep the name of their time."""
    from solvelens.sandbox.accounts import rename_bot as rename

    _need(db)
    rename(db, name, new_name)
    typer.echo(f"Renamed {name} to {new_name.strip()}.")


@app.command()
def suspend(
    name: str = typer.Argument(..., help="Bot name."), db: SandboxDbPath = DEFAULT_SANDBOX_DB
) -> None:
    """Suspend the bot (its key then answers 403 'Bot is suspended')."""
    from solvelens.sandbox.accounts import suspend_bot

    _need(db)
    suspend_bot(db, name)
    typer.echo(f"Suspended {name}.")


@app.command()
def activate(
    name: str = typer.Argument(..., help="Bot name."), db: SandboxDbPath = DEFAULT_SANDBOX_DB
) -> None:
    """Reinstate a suspended or banned bot (its current key works again)."""
    from solvelens.sandbox.accounts import set_status

    _need(db)
    set_status(db, name, "active")
    typer.echo(f"Activated {name}.")


@app.command()
def simulate(
    db: SandboxDbPath = DEFAULT_SANDBOX_DB,
    days: int = typer.Option(1, min=1, envvar="SOLVELENS_SANDBOX_DAYS", help="Simulated days to advance."),
    seed: int = typer.Option(
        None,
        envvar="SOLVELENS_SANDBOX_SIM_SEED",
        help="Simulator seed (default: derived from the platform seed).",
    ),
    step_minutes: float | None = typer.Option(
        None,
        envvar="SOLVELENS_SANDBOX_STEP_MINUTES",
        help="Commit each day in steps of this many simulated minutes (default: one step a day). A small "
        "platform logs ~300 activity events a simulated day, a medium one ~1,800.",
    ),
    vote_deadlocks: float = typer.Option(
        VOTE_DEADLOCKS,
        "--vote-deadlocks",
        min=0.0,
        max=1.0,
        envvar="SOLVELENS_SANDBOX_VOTE_DEADLOCKS",
        help="Share of the simulated votes lost to a database deadlock after their row was written, as on "
        "the real platform (the vote row exists, no count moved). 0 = none.",
    ),
    step_seconds: float = typer.Option(
        0.0,
        min=0.0,
        envvar="SOLVELENS_SANDBOX_STEP_SECONDS",
        help="Wall-clock seconds to wait after each step (needs --step-minutes).",
    ),
) -> None:
    """Advance the platform's simulated clock by DAYS days (new bots, problems, solutions, votes).

    With --step-minutes the days are committed in steps (a server shows each step as it lands) and
    --step-seconds waits that long (wall clock) after each, so the platform moves while snapshots watch it.
    """
    import time

    from solvelens.sandbox.simulate import advance

    _need(db)
    if step_minutes is not None and not 0 < step_minutes <= 1440:
        raise BadInputError(f"--step-minutes must be in (0, 1440], got {step_minutes}")
    if step_seconds and step_minutes is None:
        raise BadInputError("--step-seconds needs --step-minutes (the pause is between steps)")

    def pause(clock: str) -> None:
        typer.echo(f"simulated clock {clock}", err=True)
        time.sleep(step_seconds)

    on_step = pause if step_minutes is not None else None
    result = advance(
        db, days=days, seed=seed, step_minutes=step_minutes, on_step=on_step, vote_deadlocks=vote_deadlocks
    )
    typer.echo(json.dumps(result, indent=2))


@app.command()
def build(
    db: SandboxDbPath = DEFAULT_SANDBOX_DB,
    seed: int = typer.Option(0, envvar="SOLVELENS_SANDBOX_SEED", help="Generator seed."),
    scale: str = typer.Option("small", envvar="SOLVELENS_SANDBOX_SCALE", help="empty|small|medium|large."),
) -> None:
    """Build a new platform file (refuses to overwrite an existing one)."""
    from solvelens.sandbox.generate import SCALES, build_platform

    if scale not in SCALES:
        raise BadInputError(f"--scale must be one of {', '.join(SCALES)}, got {scale!r}")
    typer.echo(json.dumps(build_platform(db, seed=seed, scale=scale), indent=2))


def _need(db: Path) -> None:
    """Refuse a --db that does not exist (exit 1) or is not a sandbox database (exit 2)."""
    if not db.exists():
        raise CommandFailedError(
            f"No sandbox platform at {db} (build one with `solvelens sandbox build --db {db}`)."
        )
    _check_sandbox_file(db)


#: The first 16 bytes of every SQLite database file.
_SQLITE_MAGIC = b"SQLite format 3\x00"


def _check_sandbox_file(db: Path) -> None:
    """Refuse (bad input) a --db that is a folder or a file other than an SQLite database, e.g. a DuckDB
    snapshot store given by mistake."""
    if db.is_dir():
        raise BadInputError(
            f"--db {db} is a directory; give the sandbox's SQLite file, e.g. {DEFAULT_SANDBOX_DB}"
        )
    with db.open("rb") as f:
        header = f.read(16)
    if header != _SQLITE_MAGIC:
        kind = "a DuckDB file (a snapshot store?)" if header[8:12] == b"DUCK" else "not an SQLite database"
        raise BadInputError(
            f"--db {db} is {kind}, not a sandbox platform; give the sandbox's SQLite file, or a new path "
            "to build one"
        )


def _bindable_port(host: str, port: int) -> int:
    """``port`` (or, for 0, a free one) after checking it can be bound on ``host``, so a busy port is one line
    before anything is printed; uvicorn then binds it itself (its own sockets get TCP_NODELAY)."""
    import socket

    if not 0 <= port <= 65535:
        raise BadInputError(f"--port must be 0-65535 (0: any free port), got {port}")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn does
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise BadInputError(
                f"cannot listen on {host}:{port} ({exc.strerror}); pick another --port (0: any free port)"
            ) from None
        return int(probe.getsockname()[1])


def register(root: typer.Typer) -> None:
    """Add ``solvelens sandbox ...`` to the root app."""
    root.add_typer(app, name="sandbox")
