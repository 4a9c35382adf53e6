"""Fixtures of the truth layer: scenarios (a sandbox served on 127.0.0.1, a store, snapshots each with the
platform's truth frozen right after it), built once per session and only read by the tests.

- ``history``: the ``platform`` convention, seed 1, ties reshuffled on every call (``--tie-order
  shuffle``), the model leaderboard fetched too, every snapshot with the API key of the busiest bot (so
  ``/bot/me`` is recorded; its public id: ``marks['me']``); snapshots ``fresh``, ``hour`` (one simulated
  hour later), ``gap`` (a problem rejected, then two days simulated by hand with ``solvelens sandbox
  simulate``: a gap of ~3 days, the activity feed turned over) and ``renamed`` (that bot renamed itself,
  nothing else changed: an incremental snapshot).
- ``modes``: ``{mode: Scenario}`` for the other conventions (jsonapi, hal, odata, relay), seed 2, the model
  leaderboard fetched too; snapshots ``fresh``, ``day`` (one simulated day later) and ``counted`` (nothing
  moved but one problem announcing a solution more than it lists: its public id is ``marks['inflated']``).
- ``votes``: the platform convention, seed 3, snapshots with the comparisons resource and the model
  leaderboard: ``fresh``, taken after a vote was recorded without its counts moving (its id:
  ``marks['hidden']``) and a problem got 55 votes between its two solutions, 5 beyond any list's reach
  (``marks['capped']``); ``day``, one simulated day later, after the problem with the most votes between two
  models was rejected (``marks['rejected']``: its stored votes name solutions no longer listed); ``again``
  at the same platform time, after 40 votes were cast between two models' solutions of one problem
  (``marks['voted']``) and 3 on a new problem, all won by a solution of a new model (``truth-unbeaten``)
  against one of a ranked model (``marks['unbeaten']``: the fit diverges only for that model, as in the truth
  sweep for ``unknown``).
  ``votes_report``: its report (the arena's charts, the three-rankings table and its sentence), as HTML.
- ``tied_history``: a small sandbox (seed 5, ``--resources none``) with snapshots ``fresh``, ``day`` one
  simulated day later, and ``tied`` one more day later, right after the two bots ranked first and the two
  ranked fifth and sixth were given equal points (so ranks are shared, "1135"), the tenth was suspended, a
  new bot joined just above the eighth and the bot with the most solutions renamed itself (SQL, as the
  platform's own code paths leave them); ``tied_pages``: its report and three bot pages, as HTML text.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from solvelens.report import build_bot_report, build_report
from solvelens.sandbox.generate import build_platform
from tests.truth.sandbox_truth import clock_ms
from tests.truth.scenario import Scenario

OTHER_MODES = ("jsonapi", "hal", "odata", "relay")
#: What the history and modes snapshots fetch beyond the core lists.
RESOURCES = "activity,llm_leaderboard"


@pytest.fixture(scope="session")
def history(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scenario]:
    """The platform convention driven through an hour, a gap, a rejection and a rename (module doc)."""
    scenario = Scenario.start(
        tmp_path_factory.mktemp("truth-history"), seed=1, tie_order="shuffle", resources=RESOURCES
    )
    try:
        me, name = scenario.busiest_bot()
        scenario.marks["me"] = scenario.sign_in_as(name)
        scenario.snapshot("fresh")
        scenario.hourly(1, "hour")
        scenario.marks["rejected"] = scenario.reject_problem(clock_ms(scenario.snaps[-1].truth))
        code, output = scenario.simulate_by_hand(2)
        assert code == 0, output
        scenario.snapshot("gap")
        scenario.marks["renamed"], _ = scenario.rename_bot("RenamedBot", me)
        scenario.snapshot("renamed")
        yield scenario
    finally:
        scenario.stop()


@pytest.fixture(scope="session")
def modes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Scenario]]:
    """Each other convention mode: a fresh snapshot and one a simulated day later (seed 2)."""
    pristine = tmp_path_factory.mktemp("truth-modes") / "pristine.sqlite"
    build_platform(pristine, seed=2, scale="small")
    made: dict[str, Scenario] = {}

    def start(mode: str) -> None:
        made[mode] = Scenario.start(
            tmp_path_factory.mktemp(f"truth-{mode}"),
            seed=2,
            mode=mode,
            copy_of=pristine,
            resources=RESOURCES,
        )

    try:
        with ThreadPoolExecutor(len(OTHER_MODES)) as pool:  # the servers start side by side
            list(pool.map(start, OTHER_MODES))
        for mode in OTHER_MODES:
            scenario = made[mode]
            scenario.snapshot("fresh")
            scenario.advance_days(1)
            scenario.snapshot("day")
            scenario.marks["inflated"] = scenario.inflate_solution_count()
            scenario.snapshot("counted")
        yield made
    finally:
        for scenario in made.values():
            scenario.stop()


def snap_of(scenario: Scenario, label: str):
    """The snapshot labelled ``label``."""
    return next(s for s in scenario.snaps if s.label == label)


@pytest.fixture(scope="session")
def votes(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scenario]:
    """Comparisons fetched by a fresh snapshot of a platform holding a vote no count announces, and a day
    later after a voted problem was rejected (module docstring)."""
    scenario = Scenario.start(
        tmp_path_factory.mktemp("truth-votes"), seed=3, resources="comparisons,llm_leaderboard"
    )
    try:
        if scenario.offers("snapshot", "--budget"):  # every vote list at once, no request budget
            scenario.extra = ("--budget", "all")
        scenario.marks["hidden"] = scenario.hidden_vote()
        scenario.marks["capped"] = scenario.capped_votes()
        scenario.snapshot("fresh")
        scenario.marks["rejected"] = scenario.reject_voted_problem()
        scenario.advance_days(1)
        scenario.snapshot("day")
        scenario.marks["voted"] = scenario.cast_votes()
        scenario.marks["unbeaten"] = scenario.unbeaten_votes()
        scenario.snapshot("again")
        assert all(snap.exit_code == 0 for snap in scenario.snaps), [s.output for s in scenario.snaps]
        yield scenario
    finally:
        scenario.stop()


@pytest.fixture(scope="session")
def tied_history(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Scenario]:
    """The scenario of the module docstring; ``marks``: the public ids of the ``renamed`` bot, of a bot
    ``tied`` on points with another and of the ``suspended`` one."""
    scenario = Scenario.start(tmp_path_factory.mktemp("truth-report"), seed=5, resources="none")
    try:
        scenario.snapshot("fresh")
        scenario.advance_days(1)
        scenario.snapshot("day")
        scenario.advance_days(1)
        scenario.marks["tied"], scenario.marks["suspended"] = scenario.tie_top_ranks()
        scenario.marks["renamed"], _ = scenario.rename_bot("RenamedBot")
        scenario.snapshot("tied")
        assert all(snap.exit_code == 0 for snap in scenario.snaps), [s.output for s in scenario.snaps]
        yield scenario
    finally:
        scenario.stop()


@pytest.fixture(scope="session")
def tied_pages(tied_history: Scenario, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The report of the whole ``tied_history`` (``report``), the renamed bot's page found by its new name
    (``renamed``), the tied bot's and the suspended one's by their ids (``tied``, ``suspended``), as HTML
    text."""
    out = tmp_path_factory.mktemp("truth-report-html")
    store, marks = tied_history.store, tied_history.marks
    pages = {
        "report": build_report(store, out / "report.html"),
        "renamed": build_bot_report(store, "RenamedBot", out / "renamed.html"),
        "tied": build_bot_report(store, marks["tied"], out / "tied.html"),
        "suspended": build_bot_report(store, marks["suspended"], out / "suspended.html"),
    }
    return {name: path.read_text(encoding="utf-8") for name, path in pages.items()}


@pytest.fixture(scope="session")
def history_report(history: Scenario, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The report of the whole ``history`` scenario, as HTML text."""
    out = tmp_path_factory.mktemp("truth-history-html") / "report.html"
    return build_report(history.store, out).read_text(encoding="utf-8")


@pytest.fixture(scope="session")
def votes_report(votes: Scenario, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The report of the whole ``votes`` scenario (its arena fitted to the stored votes), as HTML text."""
    out = tmp_path_factory.mktemp("truth-votes-html") / "report.html"
    return build_report(votes.store, out).read_text(encoding="utf-8")
