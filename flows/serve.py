"""Serve the scheduled snapshot and report deployments from this one process (no work pool, no worker).

    python flows/serve.py --base-url https://platform.example/api/v1 --db data/solvelens.duckdb

This is ``solvelens schedule`` (the same command, options and checks: ``python flows/serve.py --help``);
the code lives in the package (:mod:`solvelens.cli.snapshot`, :mod:`solvelens.flows.deployments`).
For deployments run by workers on a work pool, use ``flows/prefect.yaml`` (see ``flows/README.md``).
"""

from __future__ import annotations

import sys

from solvelens.cli import app


def main(argv: list[str] | None = None) -> None:
    """Run ``solvelens schedule`` with ``argv`` (default: this script's arguments)."""
    app(["schedule", *(sys.argv[1:] if argv is None else argv)], prog_name="flows/serve.py")


if __name__ == "__main__":
    main()
