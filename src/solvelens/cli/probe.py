"""`solvelens probe`: inspect each endpoint of a platform with a few requests, print what detection found and
write it as a profile (TOML) that ``snapshot``, ``schedule``, ``bot run`` and both clients take with
``--profile`` / ``SOLVELENS_PROFILE`` / ``profile=``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from solvelens.cli.common import ApiKey, BaseUrl, MaxRps, check_output_file

if TYPE_CHECKING:
    from rich.table import Table

    from solvelens.client.probe import Finding

Out = Annotated[
    Path | None,
    typer.Option(
        "--out",
        envvar="SOLVELENS_PROBE_OUT",
        show_default=False,
        help="Write the profile to this file (TOML). Default: print it on stdout (the table goes to stderr), "
        "e.g. `solvelens probe --base-url URL > profile.toml`.",
    ),
]


def probe(base_url: BaseUrl, api_key: ApiKey = None, out: Out = None, max_rps: MaxRps = None) -> None:
    """Inspect each endpoint with a few requests (two small pages of each list, one problem, one bot,
    /stats; /bot/me with --api-key; the optional /activity, /llm-leaderboard, /solutions/{id} and its
    comparisons, "not offered" on a 404; /tasks/next is never polled) and print what was found: envelope,
    record style, paging style and parameter names, page size, where the total comes from, id field and a
    sample of fields. Then write it as a profile: every setting in it overrides detection for its endpoint
    (edit a line to fix a wrong detection).

    Exit codes: 0 probed; 1 the platform failed or could not be reached (nothing written); 2 a bad
    --base-url or --api-key, or an --out that cannot be written (checked before any request)."""
    from rich.console import Console

    from solvelens.client import PlatformClient
    from solvelens.client.probe import probe as run_probe

    if out is not None:
        check_output_file(out, "--out", "profile.toml")
    with PlatformClient(
        base_url, api_key=api_key, read_env=False, profile=None, max_attempts=2, max_rps=max_rps
    ) as client:
        findings, profile = run_probe(client)
    table_console = Console(stderr=out is None, width=min(Console().width, 80))
    table_console.print(_table(findings))
    for finding in findings:
        if finding.fields:
            line = f"{finding.name}: {', '.join(finding.fields)}"
            table_console.print(line if len(line) <= 78 else line[:77] + "…", highlight=False)
    text = profile.dumps()
    if out is None:
        sys.stdout.write(text)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    table_console.print(f"Profile written to {out} (use it with --profile {out})", highlight=False)


def _table(findings: list[Finding]) -> Table:
    from rich.table import Table

    table = Table(title="What detection found", title_justify="left", expand=False, show_lines=True)
    table.add_column("endpoint", no_wrap=True)
    table.add_column("records", overflow="fold", max_width=20)
    table.add_column("paging", overflow="fold", max_width=25)
    table.add_column("size", justify="right", no_wrap=True)
    table.add_column("total", overflow="fold", max_width=13)
    table.add_column("id", overflow="fold", max_width=11)
    for f in findings:
        if f.error is not None:
            table.add_row(f.name, f"[red]failed: {f.error}[/red]", "", "", "", "")
            continue
        records = f.record if f.envelope == "-" else f"{f.envelope}\n{f.record}"
        table.add_row(
            f.name,
            records,
            f.paging,
            "" if f.page_size is None else str(f.page_size),
            f.total or "-",
            f.id_field or "-",
        )
    return table


def register(app: typer.Typer) -> None:
    """Add ``solvelens probe`` to the root app."""
    app.command("probe")(probe)
