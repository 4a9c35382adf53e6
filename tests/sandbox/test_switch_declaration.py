"""Sandbox switches are declared once (:class:`solvelens.sandbox.options.SandboxOptions`): ``serve``'s
options, ``start_sandbox``'s and ``create_app``'s keywords and the choice checks come from the fields."""

from __future__ import annotations

import dataclasses

import pytest
from typer.testing import CliRunner

from solvelens.cli import app as cli
from solvelens.sandbox.faults import FaultConfig
from solvelens.sandbox.options import SandboxOptions
from solvelens.sandbox.switches import command_line, from_values, specs

SPECS = list(specs(SandboxOptions))


def test_every_field_is_a_switch_and_every_switch_is_a_serve_option() -> None:
    fields = {f.name for f in dataclasses.fields(SandboxOptions)} - {"faults"}
    fields |= {f"faults.{f.name}" for f in dataclasses.fields(FaultConfig)}
    assert {".".join(s.path) for s in SPECS} == fields
    help_text = CliRunner().invoke(cli, ["sandbox", "serve", "--help"], terminal_width=200).output
    for spec in SPECS:
        assert spec.flag in help_text and spec.envvar in help_text, spec.flag
        for choice in spec.choices:
            assert choice in help_text


def test_values_by_key_build_the_options_and_their_command_line() -> None:
    values = {
        "tie_order": "stable",
        "fault_rate": 0.5,
        "without": "activity, comparisons",
        "max_body_bytes": 0,
    }
    opts = from_values(SandboxOptions, values)
    assert opts.tie_order == "stable" and opts.faults.rate == 0.5 and opts.faults.max_body_bytes is None
    assert opts.without == ("activity", "comparisons")
    argv = command_line(SandboxOptions, {"without": ("activity",), "task_ttl_seconds": 5})
    assert argv == ["--without", "activity", "--task-ttl", "5"]
    with pytest.raises(TypeError, match="unknown sandbox option"):
        command_line(SandboxOptions, {"tie_ordre": "stable"})
    with pytest.raises(ValueError, match=r"--tie-order must be stable or shuffle, got 'random'"):
        from_values(SandboxOptions, {"tie_order": "random"})


def test_a_bad_switch_value_is_one_line_and_exit_2(tmp_path) -> None:
    result = CliRunner().invoke(
        cli, ["sandbox", "serve", "--db", str(tmp_path / "x.sqlite"), "--tasks", "free"]
    )
    assert result.exit_code == 2
    assert "--tasks must be typed or content, got 'free'" in result.output
    assert not (tmp_path / "x.sqlite").exists()
