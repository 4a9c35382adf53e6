"""``prefect_imported``: Prefect imports without building jsonschema's IRI grammar (rfc3987-syntax, 1.7-2.8 s
of CPU) nor the other format checkers no flow parameter of ours uses (rfc3986-validator's URI regular
expressions, isoduration with arrow), the packages stay importable afterwards, a process that imported
jsonschema before keeps its checkers, and no flow of ours declares a format left unchecked. The import cases
run in a fresh interpreter (imports are process-wide)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from solvelens.flows.prefect_import import UNUSED_FORMAT_MODULES

needs_iri_grammar = pytest.mark.skipif(
    importlib.util.find_spec("rfc3987_syntax") is None,
    reason="rfc3987-syntax is not installed (JupyterLab brings it): nothing to leave out",
)


def _run(code: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


@needs_iri_grammar
def test_prefect_imports_without_the_iri_grammar_which_imports_afterwards() -> None:
    lines = _run(
        "import sys\n"
        "from solvelens.flows.prefect_import import prefect_imported\n"
        "with prefect_imported():\n"
        "    from prefect import flow\n"
        "    from prefect.utilities.schema_tools.validation import _VALIDATOR\n"
        "print('grammar built:', 'rfc3987_syntax' in sys.modules)\n"
        "print('iri checked:', 'iri' in _VALIDATOR.FORMAT_CHECKER.checkers)\n"
        "import rfc3987_syntax\n"
        "print('importable after:', rfc3987_syntax.is_valid_syntax('iri', 'https://example.org/ä'))\n"
    )
    assert lines == ["grammar built: False", "iri checked: False", "importable after: True"]


@needs_iri_grammar
def test_nothing_changes_when_jsonschema_was_imported_before() -> None:
    lines = _run(
        "import sys, jsonschema\n"
        "from solvelens.flows.prefect_import import prefect_imported\n"
        "with prefect_imported():\n"
        "    print('hidden:', sys.modules['rfc3987_syntax'] is None)\n"
        "print('iri checked:', 'iri' in jsonschema.FormatChecker().checkers)\n"
    )
    assert lines == ["hidden: False", "iri checked: True"]


def test_every_unused_format_checker_is_left_out_and_its_package_imports_afterwards() -> None:
    installed = [m for m in sorted(UNUSED_FORMAT_MODULES) if importlib.util.find_spec(m) is not None]
    if not installed:
        pytest.skip("none of the optional format packages is installed: nothing to leave out")
    formats = [f for m in installed for f in UNUSED_FORMAT_MODULES[m]]
    lines = _run(
        "import sys, importlib\n"
        "from solvelens.flows.prefect_import import prefect_imported\n"
        "with prefect_imported():\n"
        "    from prefect import flow\n"
        "    from prefect.utilities.schema_tools.validation import _VALIDATOR\n"
        f"print('imported:', [m for m in {installed!r} if m in sys.modules])\n"
        f"print('checked:', [f for f in {formats!r} if f in _VALIDATOR.FORMAT_CHECKER.checkers])\n"
        f"print('importable after:', [importlib.import_module(m).__name__ for m in {installed!r}])\n"
    )
    assert lines == ["imported: []", "checked: []", f"importable after: {installed!r}"]


def _formats(schema: object) -> set[str]:
    """Every ``format`` a JSON schema declares, at any depth."""
    if isinstance(schema, dict):
        own = {schema["format"]} if isinstance(schema.get("format"), str) else set()
        return own.union(*(_formats(v) for v in schema.values()))
    if isinstance(schema, list):
        return set().union(*(_formats(v) for v in schema))
    return set()


def test_no_flow_of_ours_declares_a_format_left_unchecked() -> None:
    from solvelens.flows.compact import compact_flow
    from solvelens.flows.report import report_flow
    from solvelens.flows.snapshot import snapshot_flow

    unchecked = {f for formats in UNUSED_FORMAT_MODULES.values() for f in formats}
    for flow in (snapshot_flow, report_flow, compact_flow):
        schema = flow.parameters.model_dump(mode="json")
        assert "plan" in schema["properties"] or "db_path" in schema["properties"], schema
        assert not _formats(schema) & unchecked, (flow.name, _formats(schema))


def test_prefect_imports_with_fewer_collections_and_the_collector_is_restored_after() -> None:
    lines = _run(
        "import gc\n"
        "from solvelens.flows.gc_tuning import FETCH_GC_THRESHOLD\n"
        "from solvelens.flows.prefect_import import prefect_imported\n"
        "before = gc.get_threshold()\n"
        "counts = []\n"
        "gc.callbacks.append(lambda phase, info: phase == 'start' and counts.append(info['generation']))\n"
        "with prefect_imported():\n"
        "    during = gc.get_threshold()\n"
        "    frozen = gc.get_freeze_count()\n"
        "    import prefect.flows\n"
        "print('young threshold during:', during[0] == FETCH_GC_THRESHOLD)\n"
        "print('objects alive before are frozen:', frozen > 0)\n"
        "print('collections during the import:', len(counts) < 100)\n"
        "print('restored after:', gc.get_threshold() == before, gc.get_freeze_count() == 0)\n"
    )
    assert lines == [
        "young threshold during: True",
        "objects alive before are frozen: True",
        "collections during the import: True",
        "restored after: True True",
    ]


_SPAWNING_PARENT = """
import multiprocessing
import sys

{first_import}

CHILD = (
    "import atexit, gc, sys\\n"
    "import prefect.flow_engine\\n"
    "built = 'rfc3987_syntax' in sys.modules\\n"
    "hooked = getattr(sys.unraisablehook, 'redelivers_termination', False)\\n"
    "atexit._run_exitfuncs()\\n"
    "sys.exit(10 + built + 2 * (gc.get_freeze_count() > 0) + 4 * hooked)\\n"
)

if __name__ == "__main__":
    child = multiprocessing.get_context("spawn").Process(target=exec, args=(CHILD,))
    child.start()
    child.join(120)
    code = child.exitcode - 10
    print("grammar built in the child:", bool(code & 1))
    print("frozen at its exit:", bool(code & 2))
    print("a SIGTERM swallowed by a callback is sent again:", bool(code & 4))
"""


@needs_iri_grammar
@pytest.mark.parametrize(
    ("first_import", "built"),
    [("import solvelens.cli", False), ("import typer", True)],
    ids=["solvelens-command", "another-program"],
)
def test_a_process_spawned_by_the_command_imports_prefect_without_the_iri_grammar(
    tmp_path: Path, first_import: str, built: bool
) -> None:
    """Prefect's runner (``solvelens schedule``) runs each flow run in a process ``multiprocessing`` spawns,
    which runs the parent's main script (the ``solvelens`` command imports ``solvelens.cli``) before it
    imports Prefect; that process also skips the collection at its exit (``gc.freeze`` in ``atexit``) and
    has the hook of :mod:`solvelens.flows.termination` from its start (before Prefect's engine sets up). A
    parent that imports no module of ours is the control: its child builds the grammar, freezes nothing."""
    script = tmp_path / "parent.py"
    script.write_text(_SPAWNING_PARENT.format(first_import=first_import))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == [
        f"grammar built in the child: {built}",
        f"frozen at its exit: {not built}",
        f"a SIGTERM swallowed by a callback is sent again: {not built}",
    ]
