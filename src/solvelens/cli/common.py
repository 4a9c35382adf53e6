"""What every ``solvelens`` command shares: the options used by more than one command (defined once, as
``Annotated`` types, each reading ``SOLVELENS_<NAME>``), the path defaults, and the one table that turns an
exception into an exit code and a one-line error.

Exit codes (every command): 0 done; 1 failed (platform unreachable or failing, store busy, nothing to
report, ...); 2 bad input (a malformed option, a file that is not what the option needs); 130 interrupted.
A command does not catch exceptions to print them: it raises (:class:`BadInputError` for a check of its own,
or the library's error), and :func:`exit_for` -- run by the root app for every command -- looks the
exception up in :data:`EXIT_RULES` and prints ``error: <one line>`` on stderr. A command that writes
something names what a failure leaves unchanged with :func:`on_failure` (e.g. ``no snapshot was written``).

This module imports only typer, so ``solvelens --help`` stays fast: the rules name exception classes by
their qualified name and match them along the exception's MRO, without importing the modules that define
them (``tests/cli/test_common.py`` checks that every name resolves to a class).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
import typer.core

#: Default paths of the snapshot store, the report and the sandbox database (relative to the cwd): what the
#: README gives for real use.
DEFAULT_DB = Path("data/solvelens.duckdb")
DEFAULT_REPORTS_DIR = Path("data/reports")
DEFAULT_REPORT = DEFAULT_REPORTS_DIR / "leaderboard.html"
DEFAULT_SANDBOX_DB = Path("data/sandbox.sqlite")
#: The demo's own folder: its store, sandbox database and report, never the paths above.
DEFAULT_DEMO_DIR = Path("data/demo")

# -- options shared by several commands ------------------------------------------------------------------

#: ``--db PATH`` (``SOLVELENS_DB``): the DuckDB snapshot store.
DbPath = Annotated[Path, typer.Option("--db", envvar="SOLVELENS_DB", help="DuckDB snapshot store.")]
#: ``--base-url URL`` (``SOLVELENS_BASE_URL``), required.
BaseUrl = Annotated[
    str,
    typer.Option("--base-url", envvar="SOLVELENS_BASE_URL", help="Platform API base URL, ending in /api/v1."),
]
#: ``--api-key KEY`` (``SOLVELENS_API_KEY``); never printed.
ApiKey = Annotated[
    str | None,
    typer.Option(
        "--api-key",
        envvar="SOLVELENS_API_KEY",
        show_default=False,
        help="Bot API key (<prefix>_key_...); never printed. Snapshots also record /bot/me with it.",
    ),
]
#: ``--full`` (``SOLVELENS_FULL``): refetch every solution list and bot profile.
Full = Annotated[
    bool,
    typer.Option(
        "--full",
        envvar="SOLVELENS_FULL",
        help="Refetch every solution list and bot profile (default: only where the listing changed).",
    ),
]
#: ``--allow-missing-bot-me`` (``SOLVELENS_ALLOW_MISSING_BOT_ME``): a rejected API key is a warning.
AllowMissingBotMe = Annotated[
    bool,
    typer.Option(
        "--allow-missing-bot-me",
        envvar="SOLVELENS_ALLOW_MISSING_BOT_ME",
        help="When the platform rejects the API key, snapshot without /bot/me (a warning) instead of failing "
        "with nothing written.",
    ),
]
#: ``--profile FILE`` (``SOLVELENS_PROFILE``): a platform profile written by ``solvelens probe``.
ProfileFile = Annotated[
    Path | None,
    typer.Option(
        "--profile",
        envvar="SOLVELENS_PROFILE",
        show_default=False,
        help="Platform profile (TOML, written by `solvelens probe`): every setting in it overrides "
        "detection for its endpoint (where the records are, record style, id field, paginator).",
    ),
]
#: ``--max-rps`` of the commands that talk to a platform (snapshot, bot run, probe).
MaxRps = Annotated[
    float | None,
    typer.Option(
        "--max-rps",
        envvar="SOLVELENS_MAX_RPS",
        min=0.001,
        max=1000.0,
        show_default=False,
        help="Send at most this many requests per second. Requests are paced anyway by the quota the "
        "platform announces (X-RateLimit-*, RateLimit, Retry-After), to stay within it.",
    ),
]
#: ``--platform ID|URL`` (``SOLVELENS_PLATFORM``): which platform of a store to analyse (default: the newest
#: snapshot's).
PlatformOption = Annotated[
    str | None,
    typer.Option(
        "--platform",
        envvar="SOLVELENS_PLATFORM",
        show_default=False,
        help="Which platform of the store (it may hold several): its id (X-Platform-Id), a unique id prefix "
        "or a base URL. Default: the newest snapshot's platform.",
    ),
]
#: ``--db PATH`` of the sandbox commands (``SOLVELENS_SANDBOX_DB``): the sandbox's SQLite file.
SandboxDbPath = Annotated[
    Path, typer.Option("--db", envvar="SOLVELENS_SANDBOX_DB", help="SQLite file of the sandbox platform.")
]


def db_option(help: str = "DuckDB snapshot store.") -> Any:
    """``--db PATH`` as a default value (for command modules not yet on :data:`DbPath`)."""
    return typer.Option(DEFAULT_DB, "--db", envvar="SOLVELENS_DB", help=help)


def base_url_option() -> Any:
    """``--base-url URL`` as a default value (for command modules not yet on :data:`BaseUrl`)."""
    return typer.Option(
        ..., "--base-url", envvar="SOLVELENS_BASE_URL", help="Platform API base URL, ending in /api/v1."
    )


def api_key_option(help: str) -> Any:
    """``--api-key KEY`` as a default value (for command modules not yet on :data:`ApiKey`)."""
    return typer.Option(None, "--api-key", envvar="SOLVELENS_API_KEY", show_default=False, help=help)


# -- errors ----------------------------------------------------------------------------------------------


class BadInputError(ValueError):
    """A command's own input check failed (exit 2); the message names the problem and the fix."""


class CommandFailedError(RuntimeError):
    """A command's own step failed for a reason that is not bad input (exit 1); the message says why."""


def fail(message: str, code: int = 1) -> NoReturn:
    """Print ``error: <message>`` (one line, red, on stderr) and exit with ``code`` (1 failed, 2 bad
    input). Prefer raising :class:`BadInputError` / :class:`CommandFailedError` in new code."""
    typer.secho(f"error: {message}", err=True, fg=typer.colors.RED)
    raise typer.Exit(code)


def _creatable_under(path: Path, option: str, shown: Path) -> None:
    """The nearest existing folder above ``path`` must be a writable folder (not a file)."""
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise BadInputError(f"{option} {shown}: {parent} is a file, not a folder; give a path under a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise BadInputError(f"{option} {shown}: the folder {parent} is not writable; give a writable path")


def check_output_file(path: Path, option: str, example_name: str = "leaderboard.html") -> Path:
    """Check, before any work, that ``path`` can be written as a file (``option`` names it in the message,
    ``example_name`` is the file the fix suggests inside a folder given instead): not a folder, and under a
    writable folder (missing folders are created later). Raises :class:`BadInputError` (exit 2) with one
    line naming the problem and the fix; nothing is written."""
    if path.is_dir():
        example = path / example_name
        raise BadInputError(f"{option} {path} is a folder; give a file path, e.g. {example}")
    if path.exists() and not os.access(path, os.W_OK):
        raise BadInputError(f"{option} {path} is not writable; give a path you can write")
    _creatable_under(path, option, path)
    return path


def check_output_dir(path: Path, option: str) -> Path:
    """Check, before any work, that ``path`` can be used as a folder to write into (it is created when
    missing): not a file, and under a writable folder. Raises :class:`BadInputError` (exit 2)."""
    if path.exists() and not path.is_dir():
        raise BadInputError(f"{option} {path} is a file; give a folder (created when missing)")
    if path.is_dir():
        if not os.access(path, os.W_OK | os.X_OK):
            raise BadInputError(f"{option} {path} is not writable; give a folder you can write")
        return path
    _creatable_under(path, option, path)
    return path


@dataclass(frozen=True)
class ExitRule:
    """How one family of exceptions ends a command: ``code`` (the exit code) and ``kind``: ``bad-input``
    (the message alone), ``failure`` (with the failing command's context from :func:`on_failure`:
    ``<what> failed (<Type>): <message>; <unchanged>``) or ``interrupt``."""

    code: int
    kind: str


BAD_INPUT = ExitRule(2, "bad-input")
FAILURE = ExitRule(1, "failure")
INTERRUPT = ExitRule(130, "interrupt")

#: Exception class (qualified name) -> how it ends a command. The most specific class of the exception's MRO
#: that is listed decides; an exception matching none is a bug and keeps its traceback, unless the command
#: declared :func:`on_failure` (then it is a failure, in one line).
EXIT_RULES: dict[str, ExitRule] = {
    "builtins.KeyboardInterrupt": INTERRUPT,
    # bad input: exit 2
    "solvelens.cli.common.BadInputError": BAD_INPUT,
    "solvelens.flows.preflight.PreflightError": BAD_INPUT,
    "solvelens.apikey.InvalidApiKeyError": BAD_INPUT,
    "solvelens.store.errors.NotAStoreError": BAD_INPUT,
    "solvelens.store.errors.StoreInputError": BAD_INPUT,
    "solvelens.client.errors.ConfigurationError": BAD_INPUT,
    "solvelens.alerts.rules.AlertRuleError": BAD_INPUT,
    "solvelens.alerts.deliver.NotifyTargetError": BAD_INPUT,
    "builtins.FileExistsError": BAD_INPUT,
    "solvelens.sandbox.accounts.InvalidBotNameError": BAD_INPUT,
    "solvelens.sandbox.accounts.BotNameTakenError": BAD_INPUT,
    "solvelens.sandbox.generate.PlatformExistsError": BAD_INPUT,
    "builtins.FileNotFoundError": BAD_INPUT,
    "builtins.IsADirectoryError": BAD_INPUT,
    "builtins.NotADirectoryError": BAD_INPUT,
    # failed: exit 1
    "solvelens.cli.common.CommandFailedError": FAILURE,
    "solvelens.flows.preflight.PlatformUnreachableError": FAILURE,
    "solvelens.store.errors.StoreError": FAILURE,
    "solvelens.client.errors.PlatformError": FAILURE,
    "solvelens.analysis.bot.BotNotFoundError": FAILURE,
    "solvelens.sandbox.accounts.AccountError": FAILURE,
    "solvelens.demo.DemoError": FAILURE,
    "builtins.OSError": FAILURE,
}

_FAILURE_KEY = "solvelens.on_failure"


def on_failure(ctx: typer.Context, what: str, unchanged: str) -> None:
    """Declare, at the start of a command, what it is (``snapshot``) and what a failure leaves unchanged
    (``no snapshot was written``): its error lines then read ``<what> failed (<Type>): <message>;
    <unchanged>``, ``interrupted; <unchanged>``, and any unexpected exception is a failure too (one line,
    exit 1) instead of a traceback."""
    ctx.meta[_FAILURE_KEY] = (what, unchanged)


def rule_for(exc: BaseException) -> ExitRule | None:
    """The :data:`EXIT_RULES` entry of ``exc``'s most specific listed class, or ``None``."""
    for cls in type(exc).__mro__:
        rule = EXIT_RULES.get(f"{cls.__module__}.{cls.__qualname__}")
        if rule is not None:
            return rule
    return None


#: errno values of a full disk (or the process's file size limit, RLIMIT_FSIZE, or a quota).
_DISK_FULL = {28, 27, 122}  # ENOSPC, EFBIG, EDQUOT


def _first_line(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.errno in _DISK_FULL:
        where = f" writing {exc.filename}" if exc.filename is not None else ""
        return f"the disk is full{where} ({exc.strerror}); free space and retry"
    if isinstance(exc, OSError) and exc.strerror and exc.filename is not None:  # not "[Errno 17] ..."
        return f"{exc.filename}: {exc.strerror}"
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def exit_for(exc: BaseException, ctx: typer.Context) -> tuple[int, str] | None:
    """``(exit code, one-line message)`` for an exception that ended a command, or ``None`` when it is not
    ours to print (a bug in a command that declared no :func:`on_failure`: the traceback is kept)."""
    context: tuple[str, str] | None = ctx.meta.get(_FAILURE_KEY)
    rule = rule_for(exc)
    if rule is None and context is None:
        return None
    rule = rule or FAILURE
    if rule.kind == "interrupt":
        return rule.code, "interrupted" + (f"; {context[1]}" if context else "")
    if rule.kind == "bad-input" or context is None:
        return rule.code, _first_line(exc)
    what, unchanged = context
    return rule.code, f"{what} failed ({type(exc).__name__}): {_first_line(exc)}; {unchanged}"


def _usage_line(exc: Exception) -> str | None:
    """typer's usage error (``No such option: --x``, ``Invalid value for '--n'``, ``Missing option``) as one
    line naming the command's ``--help``; ``None`` for typer's other errors."""
    if getattr(exc, "exit_code", None) != 2 or not hasattr(exc, "format_message"):
        return None
    command = getattr(getattr(exc, "ctx", None), "command_path", "solvelens")
    return f"{exc.format_message()} (see `{command} --help`)"


class SolvelensGroup(typer.core.TyperGroup):
    """The root command group: every command's exception goes through :func:`exit_for` (one line on
    stderr and the rule's exit code, no traceback); a usage error of a command (an unknown option, a value of
    the wrong type, a missing option) is one line and exit 2 too, as is one of the root command itself
    (``solvelens --nope``)."""

    def make_context(self, info_name: str | None, args: list[str], parent: Any = None, **extra: Any) -> Any:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except typer.TyperException as exc:  # a usage error of the root command: one line, exit 2
            usage = None if type(exc).__name__ == "NoArgsIsHelpError" else _usage_line(exc)
            if usage is None:
                raise
            fail(usage, 2)

    def invoke(self, ctx: typer.Context) -> Any:  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except (typer.Exit, typer.Abort):
            raise
        except typer.TyperException as exc:  # a usage error (bad or missing option): one line, exit 2
            usage = _usage_line(exc)
            if usage is None:
                raise
            fail(usage, 2)
        except (Exception, KeyboardInterrupt) as exc:
            outcome = exit_for(exc, ctx)
            if outcome is None:
                raise
            fail(outcome[1], outcome[0])
