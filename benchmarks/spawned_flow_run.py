"""Benchmark: the CPU of the process Prefect's runner spawns for each scheduled flow run (`schedule`).

``solvelens schedule`` serves its deployments with Prefect's ``Runner``, which executes every scheduled run
with ``prefect.flow_engine.run_flow_in_subprocess``: a process ``multiprocessing`` spawns, which runs the
parent's main script first, then imports Prefect to unpickle the run. This script makes that call the way
the runner does, from two parents, alternately (``--repeats`` each):

- ``solvelens command``: a parent whose main script imports ``solvelens.cli`` at its top, as the ``solvelens``
  console script does (``from solvelens.cli import app``);
- ``control``: the same parent without that import (what every scheduled run was before
  ``solvelens.flows.prefect_import.lean_spawned_child``).

The flow is empty: its body records the child's CPU seconds (user + system) when it starts; after the join
the parent reads the child's total. Printed per parent, best and median: CPU before the flow body (start-up:
interpreter, the parent's main script, Prefect's import, the flow-run set-up), CPU after it (the flow run's
end and the process's exit) and the total; and the machine's load average (CPU seconds are steadier than
wall time on a busy machine, but not immune). A local ``prefect server start`` (bench-only ``PREFECT_HOME``)
runs for the script; its start-up is not counted. No asserts (``tests/flows/test_prefect_import.py`` checks
what the child imports). Run: ``.venv/bin/python benchmarks/spawned_flow_run.py [--repeats 5]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

FLOW_MODULE = """
import json, os, resource
from prefect import flow


@flow(persist_result=False)
def empty_flow() -> None:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    with open(os.environ["BENCH_BODY_FILE"], "w") as f:
        json.dump({"cpu_s": usage.ru_utime + usage.ru_stime}, f)
"""

PARENT = """
import json, resource, sys
{first_import}


def main() -> None:
    from solvelens.flows.prefect_import import prefect_imported

    with prefect_imported():  # as `solvelens schedule` imports Prefect
        from prefect.flow_engine import run_flow_in_subprocess

        import bench_flows
    child = run_flow_in_subprocess(bench_flows.empty_flow)
    child.join()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(json.dumps({{"exitcode": child.exitcode, "cpu_s": usage.ru_utime + usage.ru_stime}}))


if __name__ == "__main__":
    main()
"""

PARENTS = {"solvelens command": "from solvelens.cli import app  # noqa: F401", "control": ""}


def _one(parent: Path, work: Path, env: dict[str, str]) -> tuple[float, float]:
    body = work / "body.json"
    body.unlink(missing_ok=True)
    done = subprocess.run(
        [sys.executable, str(parent)],
        env={**env, "BENCH_BODY_FILE": str(body)},
        capture_output=True,
        text=True,
        check=True,
    )
    total = json.loads(done.stdout.strip().splitlines()[-1])
    if total["exitcode"] != 0:
        raise RuntimeError(f"the flow run's process exited with {total['exitcode']}: {done.stderr[-500:]}")
    before = float(json.loads(body.read_text())["cpu_s"])
    return before, float(total["cpu_s"]) - before


def _line(name: str, values: list[tuple[float, float]]) -> str:
    def fig(xs: list[float]) -> str:
        return f"{min(xs):.2f} / {statistics.median(xs):.2f}"

    before = [b for b, _ in values]
    after = [a for _, a in values]
    total = [b + a for b, a in values]
    return f"{name:<18} {fig(before):>13} {fig(after):>13} {fig(total):>13}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="runs per parent, alternated (default 5)")
    args = parser.parse_args()
    from solvelens.flows.deployments import local_prefect_server

    with tempfile.TemporaryDirectory(prefix="solvelens-spawned-") as tmp:
        work = Path(tmp)
        (work / "bench_flows.py").write_text(FLOW_MODULE)
        parents = {}
        for name, first_import in PARENTS.items():
            parents[name] = work / f"parent_{len(parents)}.py"
            parents[name].write_text(PARENT.format(first_import=first_import))
        env = {
            **os.environ,
            "PREFECT_HOME": str(work / "prefect-home"),
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
            "DO_NOT_TRACK": "1",
            "PREFECT_LOGGING_LEVEL": "WARNING",
            "PYTHONPATH": os.pathsep.join([str(work), os.environ.get("PYTHONPATH", "")]),
        }
        print("starting a local Prefect server (not counted) ...", flush=True)
        with local_prefect_server(env=env, start_timeout_s=180, stop_timeout_s=20) as url:
            env["PREFECT_API_URL"] = url
            runs: dict[str, list[tuple[float, float]]] = {name: [] for name in parents}
            for i in range(args.repeats):
                for name, parent in parents.items():
                    runs[name].append(_one(parent, work, env))
                print(f"  round {i + 1} of {args.repeats} done", flush=True)
    print(f"\nCPU seconds of the spawned flow-run process, best / median of {args.repeats}:")
    print(f"{'parent':<18} {'before body':>13} {'after body':>13} {'total':>13}")
    for name, values in runs.items():
        print(_line(name, values))
    print(f"load average: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
