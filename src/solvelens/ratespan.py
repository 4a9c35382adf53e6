"""The least span of platform time a rate is taken over (:data:`MIN_RATE_SPAN`), shared by the analysis, the
report and the snapshot summary.

A module of its own, standard library only, so the snapshot's steps read it without the settings machinery
(:mod:`solvelens.config` imports pydantic-settings); :mod:`solvelens.config` re-exports it.
"""

from __future__ import annotations

import datetime as dt

__all__ = ["MIN_RATE_SPAN"]

#: The least platform time (``taken_at``, the platform's clock where it declares one) any rate is taken over:
#: a change, a bucket's events or a feed page spanning less is "too short to rate", never extrapolated to an
#: hour (a burst of 50 events in 3 seconds is not 58,000 events per hour).
MIN_RATE_SPAN = dt.timedelta(minutes=10)
