"""The client's memory of each endpoint: what it detected or a profile declared, kept across walks and calls.

One :class:`EndpointState` per endpoint (by the registry's name, :mod:`solvelens.client.endpoints`, or a path
template), created on first use by :class:`EndpointMemory` and seeded from the profile: where the records are
(``data_selector``), their :class:`~solvelens.client.records.RecordStyle` (decided once, from the first
record), a learned or declared paginator, the page size in effect, a rejected page size. The client hands the
state to each walk and each answer's record location; they never touch the client. No HTTP here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from solvelens.client.errors import PaginationError
from solvelens.client.pagination import PaginatorSpec
from solvelens.client.profile import Profile
from solvelens.client.records import RecordStyle, detect_record_style

__all__ = ["EndpointMemory", "EndpointState", "seed"]


@dataclass(slots=True)
class EndpointState:
    """What a client knows about one endpoint (``name``: ``problems``, ``solutions``, ``problem``, ``stats``,
    ``tasks_next``, ... or a path template), kept across walks and calls.

    ``paginator``: declared (profile) or learned (a fallback that worked) spec; ``paginator_declared``.
    ``page_size``: declared page size. ``data_selector`` / ``selector_declared``: where the records are.
    ``records``: the :class:`RecordStyle`, decided once (``record_settings``: the parts a profile declares,
    which win over what the first record shows). ``total_path``: declared place of the total.
    ``page_size_rejected``: the server refused our page size (its default is used). ``announced``: the style
    was logged. ``detection_requests``: extra requests detection spent here (at most
    :data:`~solvelens.client.detect.MAX_DETECTION_REQUESTS`). ``limit_param``: the size parameter a feed
    (``/activity``) answered to, once found (:func:`~solvelens.client.detect.size_param`). ``rereads``: pages
    read again, over every walk, to find records a tie group reshuffled between pages hid, in ``tie_rounds``
    rounds (:meth:`~solvelens.client.walk.PageWalk.next_round`).
    """

    name: str
    paginator: PaginatorSpec | None = None
    paginator_declared: bool = False
    page_size: int | None = None
    data_selector: str | None = None
    selector_declared: bool = False
    records: RecordStyle | None = None
    record_settings: dict[str, Any] = field(default_factory=dict)
    total_path: str | None = None
    page_size_rejected: bool = False
    announced: bool = False
    detection_requests: int = 0
    limit_param: str | None = None
    rereads: int = 0
    tie_rounds: int = 0

    def record_style(self, sample: Any) -> RecordStyle:
        """The endpoint's record style, detected from ``sample`` (one record as sent) the first time."""
        if self.records is None:
            detected = detect_record_style(sample, self.name)
            if self.record_settings:
                _check_declared_record(self, detected, sample)
                detected = replace(detected, declared=True, **self.record_settings)
            self.records = detected
        return self.records


@dataclass(slots=True)
class EndpointMemory:
    """The client's memory of every endpoint: one :class:`EndpointState` per name, created on first use and
    seeded from ``profile`` (a :class:`~solvelens.client.profile.Profile`, or ``None``)."""

    profile: Profile | None = None
    states: dict[str, EndpointState] = field(default_factory=dict)

    def __getitem__(self, name: str) -> EndpointState:
        state = self.states.get(name)
        if state is None:
            state = EndpointState(name)
            if self.profile is not None:
                seed(state, self.profile)
            self.states[name] = state
        return state

    @property
    def rejected_page_sizes(self) -> set[str]:
        """Names of the endpoints whose page size the server refused."""
        return {name for name, s in self.states.items() if s.page_size_rejected}

    @property
    def learned_styles(self) -> dict[str, str]:
        """Paginator type per endpoint that a walk learned or a profile declared."""
        return {name: s.paginator.type for name, s in self.states.items() if s.paginator is not None}


def seed(state: EndpointState, profile: Profile) -> None:
    """Apply ``profile``'s settings for ``state.name`` to a fresh endpoint state."""
    settings = profile.endpoints.get(state.name)
    if settings is None:
        return
    if settings.data_selector is not None:
        state.data_selector = settings.data_selector
        state.selector_declared = True
    state.record_settings = {
        key: value
        for key in ("record", "field_case", "id_field")
        if (value := getattr(settings, key)) is not None
    }
    if settings.paginator is not None:
        state.paginator = settings.paginator
        state.paginator_declared = True
        limit = settings.paginator.options.get("limit_param")
        state.limit_param = str(limit) if limit else None  # a feed's size parameter (/activity)
    state.page_size = settings.page_size
    state.total_path = settings.total_path


def _check_declared_record(state: EndpointState, detected: RecordStyle, sample: Any) -> None:
    """A profile's ``record`` the records do not have, or ``field_case = "camel"`` for records in another case
    (they would be stored as sent, not canonical): an error naming the setting."""
    settings = state.record_settings
    record = settings.get("record")
    fits = {
        None: True,
        "flat": True,
        "resource_object": isinstance(sample, dict) and isinstance(sample.get("attributes"), dict),
        "relay_node": isinstance(sample, dict) and isinstance(sample.get("node"), dict),
    }.get(record, True)
    problem = None
    if not fits:
        problem = f"record = {record!r} does not fit its records"
    elif settings.get("field_case") == "camel" and detected.field_case != "camel":
        problem = f'field_case = "camel" does not fit its records (they are {detected.field_case} case)'
    if problem is not None:
        keys = ", ".join(sorted(map(str, sample))) if isinstance(sample, dict) else type(sample).__name__
        raise PaginationError(
            f"{state.name}: the profile's [endpoints.{state.name}] {problem} (keys: {keys}); fix or remove it"
        )
