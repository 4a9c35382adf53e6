"""The options of ``solvelens snapshot`` and ``solvelens schedule``, each declared once as an ``Annotated``
alias (flag, environment variable, help); the commands (:mod:`solvelens.cli.snapshot`) give the defaults,
which are :class:`solvelens.flows.plan.SnapshotPlan`'s (``tests/cli/test_snapshot.py`` checks it). The
options both commands share with others (``--base-url``, ``--db``, ``--full``, ...) are in
:mod:`solvelens.cli.common`.

Imports no flow module (``--help`` stays fast): the optional resources' names come from
:mod:`solvelens.resources`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from solvelens.resources import optional_names

Quiet = Annotated[
    bool,
    typer.Option(
        "--quiet",
        "-q",
        envvar="SOLVELENS_QUIET",
        help="Print the summary as one line (for cron logs); errors are still one line on stderr.",
    ),
]
JsonOutput = Annotated[
    bool,
    typer.Option(
        "--json",
        envvar="SOLVELENS_JSON",
        help="Print the summary as one JSON object (every field of the snapshot's summary).",
    ),
]

BotMe = Annotated[
    bool,
    typer.Option(
        "--bot-me/--no-bot-me",
        envvar="SOLVELENS_BOT_ME",
        help="Snapshot /bot/me when an API key is configured.",
    ),
]
TakenAt = Annotated[
    str | None,
    typer.Option(
        "--taken-at",
        envvar="SOLVELENS_TAKEN_AT",
        help="Snapshot time, ISO-8601 UTC (default: now). Refused when older than the store's newest "
        "snapshot of this platform, unless --backfill.",
    ),
]
Backfill = Annotated[
    bool,
    typer.Option(
        "--backfill",
        envvar="SOLVELENS_BACKFILL",
        help="Allow a snapshot time older than the store's newest snapshot of this platform.",
    ),
]
UsePrefect = Annotated[
    bool | None,
    typer.Option(
        "--prefect/--no-prefect",
        envvar="SOLVELENS_PREFECT",
        show_default=False,
        help="Run as a Prefect flow run (--prefect) or in-process (--no-prefect). Default: a flow run when a "
        "Prefect API is configured (PREFECT_API_URL or the active Prefect profile), else in-process (no "
        "temporary Prefect server).",
    ),
]
Concurrency = Annotated[
    int,
    typer.Option(
        "--concurrency",
        envvar="SOLVELENS_CONCURRENCY",
        min=1,
        help="Requests in flight per fan-out (all steps together: at most twice this, fewer while answers "
        "only queue).",
    ),
]
ReadTimeout = Annotated[
    float | None,
    typer.Option(
        "--read-timeout",
        envvar="SOLVELENS_READ_TIMEOUT",
        help="Seconds to wait for each answer of the platform (default 30). The preflight waits this long "
        "for its first answer: a platform that answers slowly is slow, not down; one where nothing answers "
        "(refused, unknown host, no route) fails in seconds.",
    ),
]
LockTimeout = Annotated[
    float,
    typer.Option(
        "--lock-timeout",
        envvar="SOLVELENS_LOCK_TIMEOUT",
        help="Seconds to wait while another writer holds the store.",
    ),
]
#: The optional resources ``--resources`` names (declared in :mod:`solvelens.resources`, which imports
#: nothing: ``--help`` and the check import no flow module).
_OPTIONAL = optional_names()
Resources = Annotated[
    str | None,
    typer.Option(
        "--resources",
        envvar="SOLVELENS_RESOURCES",
        show_default=False,
        help="Optional resources beyond the interface's, comma-separated: "
        + ", ".join(_OPTIONAL)
        + " (activity: the event feed, kept as a history; comparisons: pairwise votes of the solutions whose "
        "vote count moved); 'none' for none. Default: every one the platform offers (one it does not is "
        "recorded 'not offered').",
    ),
]
BudgetOption = Annotated[
    str,
    typer.Option(
        "--budget",
        envvar="SOLVELENS_BUDGET",
        help="What a snapshot may spend on the optional resources: Nx (default 1.4x: the snapshot sends at "
        "most N full reads of the interface in all, its own requests included), a number of requests (200), "
        "or all. Under a quota the platform announces, a bounded budget spends only what the quota leaves "
        "without waiting, after a reserve for the next snapshot. Vote lists not read now are read by the "
        "next snapshots, most unseen votes first; the summary says how many snapshots that takes.",
    ),
]
Verbose = Annotated[
    bool, typer.Option("--verbose", envvar="SOLVELENS_VERBOSE", help="Show Prefect's flow and task logs.")
]

# -- alerts (shared by snapshot and schedule) ---------------------------------------------------------------

AlertRules = Annotated[
    list[str] | None,
    typer.Option(
        "--alert",
        metavar="<rule>",
        show_default=False,
        help="Alert rule, repeatable: new-leader, 'top N entered|left [BOT]', 'rank-drop >= K [BOT]', "
        "'my-bot rank > N' (needs an API key), 'problem matured', 'stale > H hours' (checked by schedule). "
        "Each fires once per change, never for a --backfill snapshot. In the environment: a rules file "
        "(--alerts-file).",
    ),
]
AlertsFile = Annotated[
    Path | None,
    typer.Option(
        "--alerts-file",
        envvar="SOLVELENS_ALERTS_FILE",
        show_default=False,
        dir_okay=False,
        help='Rules file (TOML): alerts = ["new-leader", ...] and notify = ["json://...", ...].',
    ),
]
Notify = Annotated[
    list[str] | None,
    typer.Option(
        "--notify",
        envvar="SOLVELENS_NOTIFY",
        metavar="<url>",
        show_default=False,
        help="Where alerts are sent, repeatable: an apprise URL (json://HOST/PATH webhook, slack://, "
        "discord://, mailto://, ntfy://, matrix:// ...). A secret: never printed, logged or stored "
        "(in SOLVELENS_NOTIFY: whitespace-separated).",
    ),
]
AlertExitCode = Annotated[
    int | None,
    typer.Option(
        "--alert-exit-code",
        envvar="SOLVELENS_ALERT_EXIT_CODE",
        show_default=False,
        help="Exit with this code (3-125) when the snapshot is complete and at least one alert fired (for "
        "cron); default 0.",
    ),
]


# -- schedule ---------------------------------------------------------------------------------------------

Cron = Annotated[str, typer.Option("--cron", envvar="SOLVELENS_CRON", help="Snapshot schedule (cron, UTC).")]
ReportCron = Annotated[
    str, typer.Option("--report-cron", envvar="SOLVELENS_REPORT_CRON", help="Report schedule (cron, UTC).")
]
CompactCron = Annotated[
    str,
    typer.Option(
        "--compact-cron",
        envvar="SOLVELENS_COMPACT_CRON",
        help="Store compaction schedule (cron, UTC; default weekly, Sundays 03:15: `solvelens db compact`, "
        "which keeps a year of hourly snapshots near a third of its uncompacted size).",
    ),
]
ReportOut = Annotated[
    Path,
    typer.Option("--report-out", envvar="SOLVELENS_REPORT_OUT", help="Where the daily report is written."),
]
