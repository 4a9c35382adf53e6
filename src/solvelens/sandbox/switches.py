"""The sandbox's server switches, declared once: a switch is a dataclass field of
:class:`~solvelens.sandbox.options.SandboxOptions` (or of the
:class:`~solvelens.sandbox.faults.FaultConfig` it holds) made with :func:`switch`, which carries the
command-line flag, the accepted values, the default and the help. Everything that spells a switch is
derived from those fields (:func:`specs`): ``create_app``'s keyword arguments, the checks of
``check_options``, ``start_sandbox``'s keyword arguments and the command line it runs
(:func:`command_line`), the options of ``solvelens sandbox serve`` (their flag, ``SOLVELENS_SANDBOX_*``
variable, type, default and help) and :func:`from_values`, which turns those options back into the
options type. A new switch is one field plus its behaviour.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

__all__ = ["ENV_PREFIX", "Spec", "check", "command_line", "from_values", "specs", "switch"]

#: The environment variable of a switch is this prefix + its flag upper-cased (``--tie-order`` ->
#: ``SOLVELENS_SANDBOX_TIE_ORDER``).
ENV_PREFIX: Final = "SOLVELENS_SANDBOX_"
_META: Final = "switch"


@dataclass(frozen=True)
class _Meta:
    flag: str
    help: str
    choices: tuple[str, ...]
    key: str | None
    names: bool
    none_as: Any


def switch(
    default: Any,
    *,
    flag: str,
    help: str,
    choices: Sequence[str] = (),
    key: str | None = None,
    none_as: Any = None,
) -> Any:
    """A dataclass field that is a server switch. ``flag``: its command-line flag (``--tie-order``);
    ``choices``: the accepted values (checked by :func:`check`); ``key``: its keyword in ``start_sandbox``
    and ``serve`` when not the field's name; ``none_as``: the command-line value standing for a ``None``
    default (e.g. ``0``). A tuple default makes a comma-separated list on the command line."""
    meta = _Meta(flag, help, tuple(choices), key, isinstance(default, tuple), none_as)
    return dataclasses.field(default=default, metadata={_META: meta})


@dataclass(frozen=True)
class Spec:
    """One switch as the command line and the process see it: ``key`` (keyword of ``start_sandbox`` and
    parameter of ``serve``), ``path`` (field names from the options type down to the field), ``flag``,
    ``envvar``, ``kind`` (the command-line value's type: ``str``, ``int`` or ``float``; lists are ``str``),
    ``default`` (as the command line spells it), ``help`` (with the choices appended), ``choices``, ``names``
    (a comma-separated list) and ``none_as``."""

    key: str
    path: tuple[str, ...]
    flag: str
    envvar: str
    kind: type
    default: Any
    help: str
    choices: tuple[str, ...]
    names: bool
    none_as: Any

    def parse(self, value: Any) -> Any:
        """The field value of a command-line (or keyword) value: comma-separated names -> tuple,
        ``none_as`` -> ``None``."""
        if self.names and isinstance(value, str):
            return tuple(dict.fromkeys(n.strip() for n in value.split(",") if n.strip()))
        if self.names:
            return tuple(value)
        if self.none_as is not None and value == self.none_as:
            return None
        return value

    def check(self, value: Any) -> None:
        """Raise :class:`ValueError` naming the flag, the accepted values and ``value`` when ``value`` is
        not one of the choices."""
        if self.choices and value not in self.choices:
            names = ", ".join(self.choices[:-1]) + f" or {self.choices[-1]}"
            raise ValueError(f"{self.flag} must be {names}, got {value!r}")


def _kind(default: Any) -> type:
    if isinstance(default, bool):
        raise TypeError("a switch is a str, int, float or tuple of names, not a bool")
    for kind in (int, float):
        if isinstance(default, kind):
            return kind
    return str


def specs(options_type: type) -> Iterator[Spec]:
    """Every switch of ``options_type`` (a dataclass), nested dataclass fields included, in field order."""
    yield from _walk(options_type, ())


def _walk(cls: type, prefix: tuple[str, ...]) -> Iterator[Spec]:
    hints = {f.name: f for f in dataclasses.fields(cls)}
    for name, f in hints.items():
        meta = f.metadata.get(_META)
        if meta is None:
            nested = _nested(f)
            if nested is not None:
                yield from _walk(nested, (*prefix, name))
            continue
        default: Any = f.default
        shown = ",".join(default) if meta.names else (meta.none_as if default is None else default)
        hint = f" One of: {', '.join(meta.choices)}." if meta.choices else ""
        yield Spec(
            key=meta.key or name,
            path=(*prefix, name),
            flag=meta.flag,
            envvar=ENV_PREFIX + meta.flag.removeprefix("--").upper().replace("-", "_"),
            kind=str if meta.names else _kind(shown),
            default=shown,
            help=meta.help + hint,
            choices=meta.choices,
            names=meta.names,
            none_as=meta.none_as,
        )


def _nested(f: dataclasses.Field[Any]) -> type | None:
    """The dataclass type of a field holding a nested options dataclass (by its default factory)."""
    if f.default_factory is dataclasses.MISSING:
        return None
    made = f.default_factory()
    return type(made) if dataclasses.is_dataclass(made) else None


def check(options: Any) -> None:
    """Raise :class:`ValueError` (one line naming the flag, the accepted values and the value given) when a
    switch of ``options`` is not one of its choices."""
    for spec in specs(type(options)):
        value = options
        for part in spec.path:
            value = getattr(value, part)
        spec.check(value)


def from_values(options_type: type, values: Mapping[str, Any]) -> Any:
    """An ``options_type`` from switch values by key (as ``serve`` and ``start_sandbox`` take them; missing
    keys keep their default), nested dataclasses built from their own switches. Raises :class:`TypeError`
    for an unknown key, :class:`ValueError` (one line naming the flag) for a value not among the choices."""
    known = {s.key: s for s in specs(options_type)}
    unknown = sorted(set(values) - set(known))
    if unknown:
        raise TypeError(
            f"unknown sandbox option(s) {', '.join(map(repr, unknown))}; known: {', '.join(known)}"
        )
    tree: dict[str, Any] = {}
    for key, value in values.items():
        spec = known[key]
        parsed = spec.parse(value)
        spec.check(parsed)
        node = tree
        for part in spec.path[:-1]:
            node = node.setdefault(part, {})
        node[spec.path[-1]] = parsed
    return _build(options_type, tree)


def _build(cls: type, tree: dict[str, Any]) -> Any:
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        if f.name not in tree:
            continue
        value = tree[f.name]
        if isinstance(value, dict) and f.metadata.get(_META) is None:
            nested = _nested(f)
            assert nested is not None, f"{f.name} holds no nested options"
            value = _build(nested, value)
        kwargs[f.name] = value
    return cls(**kwargs)


def command_line(options_type: type, values: Mapping[str, Any]) -> list[str]:
    """The ``serve`` arguments of switch values by key (lists joined with commas); raises
    :class:`TypeError` for an unknown key."""
    known = {s.key: s for s in specs(options_type)}
    argv: list[str] = []
    for key, value in values.items():
        if key not in known:
            raise TypeError(f"unknown sandbox option {key!r}; known: {', '.join(known)}")
        if isinstance(value, Sequence) and not isinstance(value, str):
            value = ",".join(str(v) for v in value)
        argv += [known[key].flag, str(value)]
    return argv
