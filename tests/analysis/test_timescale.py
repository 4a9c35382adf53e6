"""solvelens.analysis.timescale: what counts as a gap in the history, and that no rate is taken across one."""

from __future__ import annotations

import datetime as dt

import polars as pl

from solvelens import analysis as an
from solvelens.analysis.timescale import GAP_FACTOR, MIN_GAP, gap_threshold_s, longest_stretch

T0 = dt.datetime(2026, 1, 1, 6, tzinfo=dt.UTC)


def _snapshots(hours: list[float]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "snapshot_id": list(range(1, len(hours) + 1)),
            "taken_at": [T0 + dt.timedelta(hours=h) for h in hours],
        },
        schema={"snapshot_id": pl.Int64, "taken_at": pl.Datetime("us", "UTC")},
    )


def _counts(solutions: list[int]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "snapshot_id": list(range(1, len(solutions) + 1)),
            "category": ["tech"] * len(solutions),
            "status": ["active"] * len(solutions),
            "author_type": ["bot"] * len(solutions),
            "problems": [10] * len(solutions),
            "solutions": solutions,
            "comparisons": [0] * len(solutions),
        }
    )


def test_a_missed_day_is_no_gap_but_295_days_are():
    daily = [24.0 * d for d in range(10)]
    missed = [h for h in daily if h != 24.0 * 4]  # one day missed: a 2-day interval
    assert an.history_gaps(_snapshots(missed)).is_empty()
    long = [*daily, daily[-1] + 295 * 24]
    gaps = an.history_gaps(_snapshots(long))
    assert gaps.height == 1
    row = gaps.row(0, named=True)
    assert (row["after_snapshot_id"], row["before_snapshot_id"]) == (10, 11)
    assert row["elapsed_s"] == 295 * 86400 and row["typical_s"] == 86400
    assert gap_threshold_s(_snapshots(long)) == GAP_FACTOR * 86400


def test_two_snapshots_cannot_tell_a_gap_and_minutes_need_an_hour():
    assert an.history_gaps(_snapshots([0, 5000])).is_empty()
    minutes = [0, 1 / 60, 2 / 60, 3 / 60, 40 / 60]  # a 37-minute pause between snapshots a minute apart
    assert an.history_gaps(_snapshots(minutes)).is_empty()
    assert gap_threshold_s(_snapshots(minutes)) == MIN_GAP.total_seconds()


def test_no_rate_is_taken_across_a_gap():
    hours = [0, 24, 48, 72, 72 + 295 * 24, 96 + 295 * 24]
    snaps = _snapshots(hours)
    growth = an.platform_growth(_counts([100, 110, 120, 130, 90_000, 90_010]), snaps)
    # the "+8,659.8 solutions per day over a 295-day gap" of the issue: null instead
    assert growth["solutions_rate"].to_list() == [None, 10.0, 10.0, 10.0, None, 10.0]
    activity = an.platform_stats_over_time(
        pl.DataFrame({"snapshot_id": [1, 4, 5], "metric": ["x"] * 3, "value": [1.0, 4.0, 900.0]}), snaps
    )
    assert activity["change_rate"].to_list()[-1] is None


def test_the_unit_follows_the_longest_stretch_without_a_gap():
    # snapshots minutes apart, then a pause of days, then minutes apart again: never extrapolated to a day
    hours = [0, 0.05, 0.1, 0.15, 72, 72.05, 72.1]
    snaps = _snapshots(hours)
    assert longest_stretch(snaps) == dt.timedelta(hours=0.15)
    unit = an.rate_unit(snaps)
    assert unit.name == "hour" and unit.max_elapsed_s == MIN_GAP.total_seconds()
    growth = an.platform_growth(_counts([1, 2, 3, 4, 100, 101, 102]), snaps)
    # 3-minute intervals are too short to rate; the days' pause is a gap: no rate anywhere
    assert growth["solutions_rate"].to_list() == [None] * 7


def _growth(minutes: list[float], problems: list[int]) -> pl.DataFrame:
    return pl.DataFrame(
        {"taken_at": [T0 + dt.timedelta(minutes=m) for m in minutes], "problems": problems},
        schema={"taken_at": pl.Datetime("us", "UTC"), "problems": pl.Int64},
    )


def test_rates_are_per_unit_of_platform_time_never_per_snapshot() -> None:
    """Issue 29 (+20.6 -> +17.2 problems per snapshot): a snapshot taken at the same platform time, with
    nothing changed, leaves the headline's rate as it was; a history shorter than the stated minimum span
    (:data:`MIN_RATE_SPAN`) gives no rate at all."""
    from solvelens.analysis.timescale import MIN_RATE_SPAN
    from solvelens.report.headline import growth_detail

    minutes = [0, 20, 40]
    snaps = _snapshots([m / 60 for m in minutes])
    unit = an.rate_unit(snaps)
    assert unit.name == "hour" and unit.seconds == 3600.0
    before = growth_detail(_growth(minutes, [100, 110, 120]), "problems", unit)
    after = growth_detail(_growth([*minutes, 40], [100, 110, 120, 120]), "problems", unit)
    assert before == after == "+30.0 per hour (over 40 min)"
    # every interval is platform time: two snapshots at the same clock give no rate, never a change "per 0"
    growth = an.platform_growth(_counts([1, 2, 3, 3]), _snapshots([0, 20 / 60, 40 / 60, 40 / 60]))
    assert growth["solutions_rate"].to_list() == [None, 3.0, 3.0, None]
    assert set(growth["rate_unit"]) == {"hour"}
    # a burst of minutes is too short to rate: no rate, said so, never extrapolated
    short = MIN_RATE_SPAN.total_seconds() / 60 / 2
    detail = growth_detail(
        _growth([0, short], [1, 50]), "problems", an.rate_unit(_snapshots([0, short / 60]))
    )
    assert detail.startswith("too short to rate"), detail
    burst = an.platform_growth(_counts([1, 50]), _snapshots([0, short / 60]))
    assert burst["solutions_rate"].to_list() == [None, None]
