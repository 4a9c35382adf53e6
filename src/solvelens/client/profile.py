"""Profiles: what detection would find, declared per endpoint in a TOML file (dlt rest_api vocabulary).

Written by ``solvelens probe``, read by both clients (``profile=`` a path or a :class:`Profile`; else the file
named by ``SOLVELENS_PROFILE``) and by ``snapshot``/``schedule``/``bot run`` (``--profile FILE``). Every
setting overrides detection for its endpoint; a setting that does not fit the answers fails with an error
naming the endpoint and the setting. Example::

    [endpoints.problems]                   # problems, solutions, leaderboard, categories, problem, bot,
    data_selector = "_embedded.problems"   #   bot_me, stats, search, tasks_next
    record = "flat"                        # flat | resource_object | relay_node
    field_case = "snake"                   # camel | snake | pascal
    id_field = "problem_id"                # the field that holds the id, as sent
    total_path = "header:X-Total-Count"    # or a dot path into the body

    [endpoints.problems.paginator]
    type = "cursor"                        # page_number offset cursor json_link header_link single_page
    cursor_param = "page_token"            # page_number: page_param, base_page; offset: offset_param;
    cursor_path = "next_page_token"        # cursor: cursor_param, cursor_path ("$last.id": last record's id);
    limit_param = "limit"                  # json_link: next_url_path
    page_size = 50

``data_selector`` is a dot path to the list (``"$"``: the body is the list); for a single resource or
``tasks_next``, the path to the object.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from solvelens.client.endpoints import PROFILE_NAMES, canonical_id
from solvelens.client.errors import ConfigurationError
from solvelens.client.pagination import PAGINATOR_OPTIONS, PaginatorSpec
from solvelens.client.records import RecordStyle

__all__ = ["ENDPOINT_NAMES", "EndpointProfile", "Profile", "ProfileError", "resolve_profile"]

#: Endpoint names a profile may configure (the registry's, :data:`~solvelens.client.endpoints.PROFILE_NAMES`).
ENDPOINT_NAMES: tuple[str, ...] = PROFILE_NAMES
_ENDPOINT_KEYS = ("data_selector", "record", "field_case", "id_field", "total_path", "paginator")
_PAGINATOR_COMMON = ("type", "limit_param", "page_size", "total_path")


class ProfileError(ConfigurationError):
    """A profile file that cannot be read or holds an unknown endpoint, setting or value; the message names
    the file, the endpoint and the setting."""


@dataclass(slots=True)
class EndpointProfile:
    """The settings of one endpoint (``None``: detect). ``paginator``: the declared paginator, ``page_size``
    its page size."""

    data_selector: str | None = None
    record: str | None = None
    field_case: str | None = None
    id_field: str | None = None
    total_path: str | None = None
    paginator: PaginatorSpec | None = None
    page_size: int | None = None

    def record_style(self, name: str) -> RecordStyle | None:
        """The declared :class:`RecordStyle` (unset parts: flat, camel, the id found), or ``None``."""
        if self.record is None and self.field_case is None and self.id_field is None:
            return None
        return RecordStyle(
            self.record or "flat",
            self.field_case or "camel",
            self.id_field,
            canonical_id(name),
            declared=True,
        )


@dataclass(slots=True)
class Profile:
    """Per-endpoint settings (:class:`EndpointProfile` by name, see :data:`ENDPOINT_NAMES`), plus where it was
    probed (``base_url``, informational) and the file it came from (``source``)."""

    endpoints: dict[str, EndpointProfile] = field(default_factory=dict)
    base_url: str | None = None
    source: str | None = None

    @classmethod
    def load(cls, path: str | Path) -> Profile:
        """Read a profile file. Raises :class:`ProfileError` (unreadable, not TOML, unknown settings)."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise ProfileError(f"cannot read the profile {path}: {exc.strerror or exc}") from None
        return cls.loads(text, source=str(path))

    @classmethod
    def loads(cls, text: str, *, source: str = "<profile>") -> Profile:
        """Parse profile TOML. Raises :class:`ProfileError` naming ``source``, the endpoint and the
        setting."""
        import tomllib  # only when a TOML file is read (~0.01 s of regexes at import)

        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ProfileError(f"{source} is not valid TOML: {exc}") from None
        unknown = sorted(set(data) - {"base_url", "endpoints"})
        if unknown:
            raise ProfileError(
                f"{source}: unknown setting {unknown[0]!r} (a profile has base_url and [endpoints.*])"
            )
        endpoints: dict[str, EndpointProfile] = {}
        for name, settings in (data.get("endpoints") or {}).items():
            endpoints[name] = _endpoint(name, settings, source)
        base_url = data.get("base_url")
        return cls(endpoints, base_url if isinstance(base_url, str) else None, source)

    def dumps(self) -> str:
        """The profile as TOML text (what :meth:`load` reads back to an equal profile)."""
        lines = [
            "# solvelens profile: how this platform's endpoints answer. Every setting overrides detection",
            "# for its endpoint; delete a setting to let the client detect it. Read with --profile FILE,",
            "# SOLVELENS_PROFILE or PlatformClient(profile=...).",
        ]
        if self.base_url:
            lines.append(f"base_url = {_toml(self.base_url)}")
        for name in sorted(self.endpoints, key=lambda n: (*ENDPOINT_NAMES, n).index(n)):
            ep = self.endpoints[name]
            lines += ["", f"[endpoints.{name}]"]
            for key in ("data_selector", "record", "field_case", "id_field", "total_path"):
                value = getattr(ep, key)
                if value is not None:
                    lines.append(f"{key} = {_toml(value)}")
            if ep.paginator is not None:
                lines += ["", f"[endpoints.{name}.paginator]", f"type = {_toml(ep.paginator.type)}"]
                lines += [f"{k} = {_toml(v)}" for k, v in ep.paginator.options.items()]
                if ep.page_size is not None:
                    lines.append(f"page_size = {ep.page_size}")
        return "\n".join(lines) + "\n"

    def save(self, path: str | Path) -> None:
        """Write :meth:`dumps` to ``path``."""
        Path(path).write_text(self.dumps(), encoding="utf-8")


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(str(value), ensure_ascii=False)


def _endpoint(name: str, settings: Any, source: str) -> EndpointProfile:
    where = f"{source}: [endpoints.{name}]"
    if name not in ENDPOINT_NAMES:
        raise ProfileError(f"{where}: unknown endpoint; profiles configure {', '.join(ENDPOINT_NAMES)}")
    if not isinstance(settings, Mapping):
        raise ProfileError(f"{where} must be a table")
    unknown = sorted(set(settings) - set(_ENDPOINT_KEYS))
    if unknown:
        raise ProfileError(f"{where}: unknown setting {unknown[0]!r} (settings: {', '.join(_ENDPOINT_KEYS)})")
    for key in ("data_selector", "record", "field_case", "id_field", "total_path"):
        if key in settings and not isinstance(settings[key], str):
            raise ProfileError(f"{where} {key} must be a string")
    ep = EndpointProfile(**{k: settings.get(k) for k in _ENDPOINT_KEYS if k != "paginator"})
    try:
        ep.record_style(name)
    except ValueError as exc:
        raise ProfileError(f"{where} {exc}") from None
    paginator = settings.get("paginator")
    if paginator is not None:
        ep.paginator, ep.page_size, total_path = _paginator(
            paginator, f"{source}: [endpoints.{name}.paginator]"
        )
        ep.total_path = ep.total_path or total_path
    return ep


def _paginator(table: Any, where: str) -> tuple[PaginatorSpec, int | None, str | None]:
    if isinstance(table, str):
        table = {"type": table}
    if not isinstance(table, Mapping) or not isinstance(table.get("type"), str):
        raise ProfileError(f"{where} needs type = one of {', '.join(PAGINATOR_OPTIONS)}")
    kind = {"page": "page_number", "link": "next_link"}.get(table["type"], table["type"])
    if kind not in PAGINATOR_OPTIONS:
        raise ProfileError(f"{where} type = {table['type']!r}: choose one of {', '.join(PAGINATOR_OPTIONS)}")
    allowed = PAGINATOR_OPTIONS[kind] + _PAGINATOR_COMMON
    unknown = sorted(set(table) - set(allowed))
    if unknown:
        raise ProfileError(f"{where}: type {kind!r} takes no {unknown[0]!r} (it takes {', '.join(allowed)})")
    page_size = table.get("page_size")
    if page_size is not None and (not isinstance(page_size, int) or page_size < 1):
        raise ProfileError(f"{where} page_size must be a positive integer")
    options = {k: v for k, v in table.items() if k not in ("type", "page_size", "total_path")}
    return PaginatorSpec(kind, options), page_size, table.get("total_path")


def resolve_profile(profile: str | Path | Profile | None, *, read_env: bool = True) -> Profile | None:
    """The profile to use: ``profile`` (a :class:`Profile` or a path to load), else the file named by
    ``SOLVELENS_PROFILE`` (when ``read_env``), else ``None``. Raises :class:`ProfileError`."""
    if isinstance(profile, Profile):
        return profile
    if profile is None and read_env:
        profile = os.environ.get("SOLVELENS_PROFILE") or None
    return Profile.load(profile) if profile else None
