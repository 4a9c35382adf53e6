"""Turn a polars frame into chart-ready data: timestamps as ISO-8601 UTC strings (``...Z``) and dates as
``YYYY-MM-DD``, which every Vega runtime parses the same way, plus a guard for Altair's row limit."""

from __future__ import annotations

import polars as pl

#: Altair refuses inline data above this many rows; builders aggregate first (checked by chart_data).
MAX_ROWS = 5000


class TooManyRowsError(ValueError):
    """A chart was given more rows than :data:`MAX_ROWS` (aggregate or thin the frame first)."""


def chart_data(frame: pl.DataFrame, *, max_rows: int = MAX_ROWS) -> pl.DataFrame:
    """Return ``frame`` with Datetime columns as ISO strings in UTC and Date columns as ISO dates.

    Raises :class:`TooManyRowsError` when the frame has more than ``max_rows`` rows.
    """
    if frame.height > max_rows:
        raise TooManyRowsError(f"chart data has {frame.height} rows (limit {max_rows}): aggregate it first")
    conversions = []
    for name, dtype in frame.schema.items():
        if isinstance(dtype, pl.Datetime):
            column = pl.col(name)
            if dtype.time_zone is None:
                column = column.dt.replace_time_zone("UTC")
            conversions.append(
                column.dt.convert_time_zone("UTC").dt.strftime("%Y-%m-%dT%H:%M:%SZ").alias(name)
            )
        elif dtype == pl.Date:
            conversions.append(pl.col(name).dt.strftime("%Y-%m-%d").alias(name))
    return frame.with_columns(conversions) if conversions else frame


def span_days(frame: pl.DataFrame, field: str = "taken_at") -> float | None:
    """Days from the earliest to the latest value of the Datetime/Date column ``field`` (None if empty)."""
    if frame.is_empty() or field not in frame.columns:
        return None
    seconds = frame.select((pl.col(field).max() - pl.col(field).min()).dt.total_seconds()).item()
    return None if seconds is None else float(seconds) / 86400
