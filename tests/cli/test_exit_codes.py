"""Every exit code a command's ``--help`` names is produced by a test, by running the real command.

:data:`PRODUCED_BY` is the table: for each command whose help has an "Exit codes:" part, each code it names
and the test that makes the command exit with it. The codes no other test produced are produced here;
:func:`test_the_table_holds_every_code_each_help_names` reads every command's help from the app and fails
when a help names a code the table does not (or the table a code the help does not name).

=================  ====  ================================================================================
command            code  produced by
=================  ====  ================================================================================
demo               0     tests/test_demo.py::test_the_readmes_real_use_then_the_demo_loses_nothing
demo               1     tests/test_demo.py::test_demo_cli_refuses_in_one_line
demo               2     tests/cli/test_bad_input.py::test_a_bad_input_is_one_line_and_exit_2[demo-days-0]
demo               130   here: test_demo_ctrl_c_exits_130
snapshot           0     tests/flows/test_cli_snapshot.py::test_snapshot_command_runs_in_process_and_exits...
snapshot           1     tests/flows/test_cli_snapshot.py::test_snapshot_command_fails_in_one_line_when_th...
snapshot           2     tests/flows/test_cli_snapshot.py::test_malformed_api_key_is_refused_before_any_re...
snapshot           130   tests/flows/test_cli_snapshot.py::test_ctrl_c_stops_the_run_writes_nothing_and_ex...
snapshot           N     tests/flows/test_alerts.py::test_each_rule_fires_exactly_once_per_transition (3)
schedule           0     tests/flows/test_schedule.py::test_schedule_stops_cleanly_and_cancels_stale_runs
schedule           1     here: test_schedule_exits_1_when_the_platform_is_unreachable
schedule           2     tests/cli/test_bad_input.py::...[schedule-cron]
probe              0     tests/cli/test_max_rps.py::test_probe_max_rps
probe              1     here: test_probe_exits_1_when_the_platform_is_unreachable
probe              2     tests/cli/test_bad_input.py::...[probe-base-url-not-a-url], [probe-api-key-malformed]
report             0     tests/report/test_report.py::test_cli_writes_the_report
report             1     tests/report/test_report.py::test_cli_fails_with_one_line_naming_the_db_and_the_fix
report             2     tests/cli/test_bad_input.py::...[report-foreign-duckdb]
diff               0     tests/cli/test_diff.py::test_json_parses_and_matches_the_analysis
diff               1     tests/cli/test_diff.py::test_an_empty_store_is_exit_1_as_for_the_report
diff               2     tests/cli/test_diff.py::test_bad_input_is_one_line_and_exit_2
db compact         0     tests/store/test_cli_db_inputs.py::test_db_compact_prints_the_space_given_back
db compact         1     tests/store/test_cli_db_inputs.py::test_db_compact_prints_the_space_given_back (m...
db compact         2     tests/cli/test_bad_input.py::...[db-compact-not-a-store]
db prune           0     tests/store/test_cli_db_inputs.py::test_prune_with_yes_and_bad_keep
db prune           1     tests/store/test_cli_db_inputs.py::test_prune_says_what_it_removes_and_asks_first
db prune           2     tests/store/test_cli_db_inputs.py::test_prune_with_yes_and_bad_keep
db delete          0     tests/store/test_cli_db.py::test_delete_one_snapshot_keeps_the_others_and_later_...
db delete          1     tests/store/test_cli_db.py::test_delete_one_snapshot_keeps_the_others_and_later_...
db delete          2     tests/cli/test_bad_input.py::...[db-delete-not-a-store]
db check           0     tests/store/test_cli_db_check.py::test_a_snapshot_holding_what_was_announced_chec...
db check           1     tests/store/test_cli_db_check.py::test_bad_input_and_an_empty_store
db check           2     tests/store/test_cli_db_check.py::test_bad_input_and_an_empty_store
db check           3     tests/store/test_cli_db_check.py::test_gaps_and_pending_votes_exit_3_and_name_why
sandbox serve      0     tests/sandbox/test_serve.py::test_ctrl_c_and_sigterm_stop_the_server_quietly_with_...
sandbox serve      1     tests/sandbox/test_serve.py::test_an_unreadable_sqlite_file_makes_the_server_fail_...
sandbox serve      2     tests/sandbox/test_serve.py::test_a_port_out_of_range_is_one_line_naming_the_range
bot run            0     tests/client/test_runner.py::test_cli_runs_tasks
bot run            1     tests/client/test_runner.py::test_cli_connection_refused_is_one_clear_line
bot run            2     tests/cli/test_bad_input.py::...[bot-run-solver-no-such-module]
bot run            130   tests/client/test_runner.py::test_cli_second_signal_aborts_and_names_the_task_in_hand
=================  ====  ================================================================================

The commands whose help names no codes (``db info``, ``db snapshots``, ``db export``, the ``sandbox``
key and bot commands, ``sandbox simulate``/``build``) follow the common rules (0 done, 1 failed, 2 bad
input; ``solvelens.cli.common``); each gets a bad input in tests/cli/test_bad_input.py.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

#: command -> the codes its help names -> the test that produces it (the table above, as data).
PRODUCED_BY: dict[str, dict[int, str]] = {
    "demo": {
        0: "tests/test_demo.py::test_the_readmes_real_use_then_the_demo_loses_nothing",
        1: "tests/test_demo.py::test_demo_cli_refuses_in_one_line",
        2: "tests/cli/test_bad_input.py::test_a_bad_input_is_one_line_and_exit_2[demo-days-0]",
        130: "tests/cli/test_exit_codes.py::test_demo_ctrl_c_exits_130",
    },
    "snapshot": {
        0: (
            "tests/flows/test_cli_snapshot.py::"
            "test_snapshot_command_runs_in_process_and_exits_0_when_complete"
        ),
        1: (
            "tests/flows/test_cli_snapshot.py::"
            "test_snapshot_command_fails_in_one_line_when_the_store_is_locked"
        ),
        2: "tests/flows/test_cli_snapshot.py::test_malformed_api_key_is_refused_before_any_request",
        130: "tests/flows/test_cli_snapshot.py::test_ctrl_c_stops_the_run_writes_nothing_and_exits_130",
    },
    "schedule": {
        0: "tests/flows/test_schedule.py::test_schedule_stops_cleanly_and_cancels_stale_runs",
        1: "tests/cli/test_exit_codes.py::test_schedule_exits_1_when_the_platform_is_unreachable",
        2: "tests/cli/test_bad_input.py::test_a_bad_input_is_one_line_and_exit_2[schedule-cron]",
    },
    "probe": {
        0: "tests/cli/test_max_rps.py::test_probe_max_rps",
        1: "tests/cli/test_exit_codes.py::test_probe_exits_1_when_the_platform_is_unreachable",
        2: "tests/cli/test_bad_input.py::test_a_bad_input_is_one_line_and_exit_2[probe-base-url-not-a-url]",
    },
    "report": {
        0: "tests/report/test_report.py::test_cli_writes_the_report",
        1: "tests/report/test_report.py::test_cli_fails_with_one_line_naming_the_db_and_the_fix",
        2: "tests/cli/test_bad_input.py::test_a_bad_input_is_one_line_and_exit_2[report-foreign-duckdb]",
    },
    "diff": {
        0: "tests/cli/test_diff.py::test_json_parses_and_matches_the_analysis",
        1: "tests/cli/test_diff.py::test_an_empty_store_is_exit_1_as_for_the_report",
        2: "tests/cli/test_diff.py::test_bad_input_is_one_line_and_exit_2",
    },
    "db compact": {
        0: "tests/store/test_cli_db_inputs.py::test_db_compact_prints_the_space_given_back",
        1: "tests/store/test_cli_db_inputs.py::test_db_compact_prints_the_space_given_back",
        2: "tests/cli/test_bad_input.py::test_a_bad_input_is_one_line_and_exit_2[db-compact-not-a-store]",
    },
    "db prune": {
        0: "tests/store/test_cli_db_inputs.py::test_prune_with_yes_and_bad_keep",
        1: "tests/store/test_cli_db_inputs.py::test_prune_says_what_it_removes_and_asks_first",
        2: "tests/store/test_cli_db_inputs.py::test_prune_with_yes_and_bad_keep",
    },
    "db delete": {
        0: (
            "tests/store/test_cli_db.py::"
            "test_delete_one_snapshot_keeps_the_others_and_later_snapshots_carry_over"
        ),
        1: (
            "tests/store/test_cli_db.py::"
            "test_delete_one_snapshot_keeps_the_others_and_later_snapshots_carry_over"
        ),
        2: "tests/cli/test_bad_input.py::test_a_bad_input_is_one_line_and_exit_2[db-delete-not-a-store]",
    },
    "db check": {
        0: "tests/store/test_cli_db_check.py::test_a_snapshot_holding_what_was_announced_checks_clean",
        1: "tests/store/test_cli_db_check.py::test_bad_input_and_an_empty_store",
        2: "tests/store/test_cli_db_check.py::test_bad_input_and_an_empty_store",
        3: "tests/store/test_cli_db_check.py::test_gaps_and_pending_votes_exit_3_and_name_why",
    },
    "sandbox serve": {
        0: (
            "tests/sandbox/test_serve.py::"
            "test_ctrl_c_and_sigterm_stop_the_server_quietly_with_exit_0_and_a_whole_file[sigterm]"
        ),
        1: "tests/sandbox/test_serve.py::test_an_unreadable_sqlite_file_makes_the_server_fail_with_exit_1",
        2: "tests/sandbox/test_serve.py::test_a_port_out_of_range_is_one_line_naming_the_range",
    },
    "bot run": {
        0: "tests/client/test_runner.py::test_cli_runs_tasks",
        1: "tests/client/test_runner.py::test_cli_connection_refused_is_one_clear_line",
        2: (
            "tests/cli/test_bad_input.py::"
            "test_a_bad_input_is_one_line_and_exit_2[bot-run-solver-no-such-module]"
        ),
        130: "tests/client/test_runner.py::test_cli_second_signal_aborts_and_names_the_task_in_hand",
    },
}

#: A port nothing listens on (connections to it are refused at once).
UNREACHABLE = "http://127.0.0.1:1/api/v1"


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SOLVELENS_", "PREFECT_API"))}
    return {**env, "COLUMNS": "200", "PYTHONUNBUFFERED": "1"}


def _solvelens(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "solvelens", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=_env(), cwd=cwd)


def _one_error_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    return lines[0]


def _codes_named(help_text: str) -> set[int]:
    """The codes an "Exit codes: 0 ...; 1 ...; 130 ..." (or "Exit code 0 ...") part names: the number that
    opens each ``;``-separated item, read up to the sentence's end outside parentheses."""
    start = re.search(r"Exit codes?:?\s", help_text)
    if start is None:
        return set()
    text, depth, end = help_text[start.end() :], 0, None
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and char == "." and (i + 1 == len(text) or text[i + 1].isspace()):
            end = i
            break
    items = re.split(r";\s*", " ".join(text[:end].split()))
    return {int(m.group(1)) for item in items if (m := re.match(r"(\d+)\s", item))}


def _helps() -> dict[str, str]:
    """command words ("db check") -> its help text, for every leaf command of the app."""
    import typer.main

    from solvelens.cli import app

    found: dict[str, str] = {}

    def walk(command: object, prefix: str) -> None:
        for name, sub in sorted((getattr(command, "commands", None) or {}).items()):
            words = f"{prefix} {name}".strip()
            if getattr(sub, "commands", None):
                walk(sub, words)
            else:
                found[words] = sub.help or ""

    walk(typer.main.get_command(app), "")
    return found


def test_the_table_holds_every_code_each_help_names() -> None:
    helps = _helps()
    named = {command: codes for command, text in helps.items() if (codes := _codes_named(text))}
    assert named["db check"] == {0, 1, 2, 3} and named["bot run"] == {0, 1, 2, 130}  # the reader reads them
    assert {command: set(codes) for command, codes in PRODUCED_BY.items()} == named


def test_every_test_the_table_names_exists() -> None:
    """Each test the table names is defined in its file (and its case id, for a parametrized one)."""
    root = Path(__file__).resolve().parents[2]
    for command, codes in PRODUCED_BY.items():
        for code, test in codes.items():
            path, name = test.split("::")
            function, _, case = name.rstrip("]").partition("[")
            source = (root / path).read_text()
            assert re.search(rf"^(async )?def {re.escape(function)}\(", source, re.M), (command, code, test)
            assert not case or f'"{case}"' in source, (command, code, test)


def test_probe_exits_1_when_the_platform_is_unreachable(tmp_path: Path) -> None:
    out = tmp_path / "profile.toml"
    done = _solvelens("probe", "--base-url", UNREACHABLE, "--out", str(out), cwd=tmp_path)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert f"cannot reach {UNREACHABLE}" in _one_error_line(done.stderr)
    assert not out.exists()  # nothing written


def test_schedule_exits_1_when_the_platform_is_unreachable(tmp_path: Path) -> None:
    db = tmp_path / "store.duckdb"
    done = _solvelens("schedule", "--base-url", UNREACHABLE, "--db", str(db), cwd=tmp_path)
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert f"cannot reach {UNREACHABLE}" in _one_error_line(done.stderr)
    assert not db.exists()


def test_demo_ctrl_c_exits_130(tmp_path: Path) -> None:
    """SIGINT once the demo has said it is building its sandbox (its first line): one line, exit 130."""
    command = [sys.executable, "-m", "solvelens", "demo", "--days", "1", "--db", "d.duckdb"]
    command += ["--sandbox-db", "s.sqlite", "--reports-dir", "reports"]
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(), cwd=tmp_path
    ) as proc:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("Building the sandbox platform"), first
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (proc.returncode, out, err)
    assert _one_error_line(err) == "error: interrupted"
    assert not (tmp_path / "reports" / "leaderboard.html").exists()


def test_demo_exits_1_on_a_db_it_did_not_make_in_one_readable_line(tmp_path: Path) -> None:
    """A --db that is no DuckDB file is kept (exit 1); the line names the problem once and the demo's fix."""
    notes = tmp_path / "notes.txt"
    notes.write_text("mine\n")
    done = _solvelens("demo", "--days", "1", "--db", str(notes), cwd=tmp_path)
    assert done.returncode == 1, (done.stdout, done.stderr)
    line = _one_error_line(done.stderr)
    assert line.startswith(f"error: {notes} holds something else ({notes} is not a DuckDB file"), line
    assert line.count("pass --db") == 0 and line.endswith("or --force to delete it."), line
    assert notes.read_text() == "mine\n"
