"""``prefect_imported``: Prefect imports without building jsonschema's IRI grammar (rfc3987-syntax, 1.7-2.8 s
of CPU), the package stays importable afterwards, and a process that imported jsonschema before keeps its
checkers. Each case runs in a fresh interpreter (imports are process-wide)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("rfc3987_syntax") is None,
    reason="rfc3987-syntax is not installed (JupyterLab brings it): nothing to leave out",
)


def _run(code: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


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


def test_nothing_changes_when_jsonschema_was_imported_before() -> None:
    lines = _run(
        "import sys, jsonschema\n"
        "from solvelens.flows.prefect_import import prefect_imported\n"
        "with prefect_imported():\n"
        "    print('hidden:', sys.modules['rfc3987_syntax'] is None)\n"
        "print('iri checked:', 'iri' in jsonschema.FormatChecker().checkers)\n"
    )
    assert lines == ["hidden: False", "iri checked: True"]
