"""The platform's rules for an answer's fields, read where the platform states them, never assumed.

A :class:`FieldRule` is one stated bound on one body field (a length range, or the values it may take) with
where it was read (``source``). Rules come from three places:

- the task itself: machine-readable ``constraints`` (``{"content": {"minLength": 60, "maxLength": 2000}}``,
  JSON Schema keywords in any field case; :func:`rules_from_constraints`) and bounds stated in its text
  (the instruction or ``response_format``: ``"(50-5000 characters)"``, ``"title 5-200"``, ``"at most 2000
  characters"``; :func:`rules_from_text`);
- the platform's validation answers: a 400/422 naming a field and its bound (Zod's ``"String must contain
  at most 2000 character(s)"``, pydantic's ``"String should have at most 2000 characters"``, ``"Invalid
  enum value. Expected 'a' | 'b'"``, ``"Input should be 'A' or 'B'"``) in any of the error shapes the
  client reads (``details``, FastAPI's ``detail``, JSON:API ``errors``, RFC 9457 ``invalid_params``, OData
  ``error.details``; :func:`rules_from_error`);
- the solver's own declaration (its ``limits`` attribute; :func:`rules_from_declared`).

:func:`check_rules` names every broken rule and its source in one line. Nothing here knows a platform's
numbers: a rule that was never stated is never applied.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from solvelens.client.pagination import norm_key

__all__ = [
    "FieldRule",
    "Guidance",
    "check_rules",
    "guidance_from_text",
    "rules_from_constraints",
    "rules_from_declared",
    "rules_from_error",
    "rules_from_text",
]


@dataclass(frozen=True)
class FieldRule:
    """One stated rule on one body field.

    ``field``: the body field (``content``, ``solution_text``, ...); ``min_length`` / ``max_length``:
    bounds in characters (``None``: not stated); ``choices``: the values the field may take (``None``: not
    stated);
    ``stated``: ``False`` for a solver's own declared limit (never called the platform's rule);
    ``source``: where the rule was read, in words (``"the task's instruction"``, ``"the platform's 400 answer
    to task …9f3a1c2e"``).
    """

    field: str
    min_length: int | None = None
    max_length: int | None = None
    choices: tuple[str, ...] | None = None
    source: str = ""
    #: Whether the platform stated the rule (its task, its validation answer); ``False``: the solver's own.
    stated: bool = True

    def describe(self) -> str:
        """The rule in words: ``10-2000 characters``, ``at most 2000 characters``, ``one of A, B``."""
        if self.choices is not None:
            return "one of " + ", ".join(self.choices)
        if self.min_length is not None and self.max_length is not None:
            return f"{self.min_length}-{self.max_length} characters"
        if self.max_length is not None:
            return f"at most {self.max_length} characters"
        return f"at least {self.min_length} characters"

    def problem(self, value: Any) -> str | None:
        """Why ``value`` breaks this rule (one clause naming the rule and its source), or ``None``."""
        broken = self._broken(value)
        if broken is None:
            return None
        whose = "the platform's rule" if self.stated else "the solver's own limit"
        return f"{self.field} {broken}; {whose}: {self.describe()} ({self.source})"

    def _broken(self, value: Any) -> str | None:
        if self.choices is not None:
            return None if value in self.choices else f"is {_short(value)}"
        if not isinstance(value, str):
            return None  # a length rule says nothing about a non-string
        size = len(value)
        if self.min_length is not None and size < self.min_length:
            return f"has {size} characters"
        if self.max_length is not None and size > self.max_length:
            return f"has {size} characters"
        return None


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…'"


def check_rules(body: Mapping[str, Any], rules: Iterable[FieldRule]) -> list[str]:
    """Every broken rule of ``body`` (fields absent from the body are not checked), one clause each."""
    problems: list[str] = []
    for rule in rules:
        if rule.field in body and body[rule.field] is not None:
            problem = rule.problem(body[rule.field])
            if problem is not None and problem not in problems:
                problems.append(problem)
    return problems


# ----------------------------------------------------------------------------------------- from the task
def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def _rule_from_schema(field: str, schema: Mapping[str, Any], source: str) -> FieldRule | None:
    """``{"minLength", "maxLength", "enum"}`` (any key case) -> a rule on ``field``; ``None`` when empty."""
    keys = {norm_key(str(k)): v for k, v in schema.items()}
    low = _int(keys.get("minlength", keys.get("min")))
    high = _int(keys.get("maxlength", keys.get("max")))
    listed = keys.get("enum", keys.get("choices", keys.get("oneof")))
    choices = tuple(str(c) for c in listed) if isinstance(listed, list) and listed else None
    if low is None and high is None and choices is None:
        return None
    return FieldRule(field, low, high, choices, source)


def rules_from_constraints(
    constraints: Any, *, default_field: str = "content", source: str = "the task's constraints"
) -> tuple[FieldRule, ...]:
    """Rules from a task's machine-readable constraints: ``{field: {"minLength", "maxLength", "enum"}}`` per
    field, or one flat ``{"minLength", ...}`` for ``default_field``. Keys in any case (``max_length``,
    ``MaxLength``); anything else is ignored."""
    if not isinstance(constraints, Mapping):
        return ()
    flat = _rule_from_schema(default_field, constraints, source)
    if flat is not None:
        return (flat,)
    rules: list[FieldRule] = []
    for field, schema in constraints.items():
        if isinstance(schema, Mapping):
            rule = _rule_from_schema(_snake(str(field)), schema, source)
            if rule is not None:
                rules.append(rule)
    return tuple(rules)


_NUM = r"(\d{1,3}(?:,\d{3})+|\d+)"
_CHARS = r"(?:characters?|chars?)\b"
_RANGE = re.compile(rf"(?:between\s+)?{_NUM}\s*(?:-|–|—|to|and)\s*{_NUM}\s*({_CHARS})?", re.IGNORECASE)
_MAX = re.compile(
    rf"(?:at most|up to|no more than|maximum(?: of)?|max\.?)\s*{_NUM}\s*{_CHARS}", re.IGNORECASE
)
_MIN = re.compile(rf"(?:at least|no fewer than|minimum(?: of)?|min\.?)\s*{_NUM}\s*{_CHARS}", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z_]+")


def _n(text: str) -> int:
    return int(text.replace(",", ""))


def _field_before(window: str, fields: Mapping[str, str]) -> tuple[str | None, bool]:
    """The field named by the last known word of ``window`` (the text between the previous bound, or the
    sentence's start, and this bound), and whether it is right there (among the last three words)."""
    words = _WORD.findall(window)
    for back, word in enumerate(reversed(words)):
        field = fields.get(word.lower())
        if field is not None:
            return field, back < 3
    return None, False


def _bounds(text: str) -> list[tuple[int, int, int | None, int | None, bool]]:
    """(start, end, min, max, says characters) of every stated bound in ``text``, in order."""
    found: list[tuple[int, int, int | None, int | None, bool]] = []
    for match in _RANGE.finditer(text):
        low, high = _n(match.group(1)), _n(match.group(2))
        if low <= high:
            found.append((match.start(), match.end(), low, high, match.group(3) is not None))
    for pattern, is_max in ((_MAX, True), (_MIN, False)):
        for match in pattern.finditer(text):
            bound = _n(match.group(1))
            if not any(s <= match.start() < e for s, e, *_ in found):
                found.append(
                    (match.start(), match.end(), None if is_max else bound, bound if is_max else None, True)
                )
    return sorted(found)


#: Words that make a stated bound advice to the solver, not a rule the platform validates.
_GUIDANCE = re.compile(
    r"\b(?:aim(?:s|ing)? (?:for|at)|ideal(?:ly)?|sweet spot|recommend\w*|suggest\w*|target\w*|try to|"
    r"prefer\w*|roughly|around|typically|guidelines?|best (?:results|scores?))\b",
    re.IGNORECASE,
)
#: Where a task's text states the answer it takes ("Respond with:"): bounds after it are the rule, bounds
#: before it are guidance.
_RESPOND = re.compile(r"\b(?:respond with|response format|submit format|reply with)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Guidance:
    """A length a task advises for one field, never enforced (the platform does not validate it).

    ``field``: the body field; ``min_length`` / ``max_length``: the advised bounds in characters
    (``None``: not stated); ``text``: the line that states it (``"- Aim for 400-1200 characters. This is
    the sweet spot ..."``); ``source``: where it was read (``"the task's instruction"``).
    """

    field: str
    min_length: int | None = None
    max_length: int | None = None
    text: str = ""
    source: str = ""

    def describe(self) -> str:
        """The advice in words: ``400-1200 characters``, ``at most 1500 characters``."""
        return FieldRule(self.field, self.min_length, self.max_length).describe()


_Bound = tuple[str, int | None, int | None, bool, str]  # field, min, max, is guidance, its line


def _stated(text: str, fields: Mapping[str, str], single: str | None) -> list[_Bound]:
    """Every length bound ``text`` states for a known field, in order, with whether it is guidance: in a
    text that says how to respond ("Respond with: ... (10-2000 characters)"), bounds before that are
    guidance; elsewhere a bound whose line advises ("Aim for 400-1200 characters") is."""
    respond = _RESPOND.search(text)
    found: list[_Bound] = []
    previous = 0
    for start, end, low, high, says_chars in _bounds(text):
        sentence = max(text.rfind(mark, 0, start) for mark in ".;:\n")
        line_start = text.rfind("\n", 0, start) + 1
        field, near = _field_before(text[max(previous, sentence + 1) : start], fields)
        if field is None:  # "- problem_description: context, constraints, and scope (20-1000 characters)"
            field, _ = _field_before(text[max(previous, line_start) : start], fields)
        previous = end
        if not says_chars and not near:
            continue
        field = field or single
        if field is None:
            continue
        line_end = text.find("\n", end)
        line = text[line_start : len(text) if line_end < 0 else line_end].strip()
        if respond is not None:
            guidance = start < respond.start()
        else:
            guidance = _GUIDANCE.search(text[max(sentence + 1, line_start) : end]) is not None
        found.append((field, low, high, guidance, line))
    return found


def _merged(bounds: Iterable[_Bound]) -> dict[str, tuple[int | None, int | None, str]]:
    """Per field, its first stated bound, completed (never replaced) by later ones (at most ..., at least
    ...)."""
    merged: dict[str, tuple[int | None, int | None, str]] = {}
    for field, low, high, _, line in bounds:
        known = merged.get(field)
        if known is None:
            merged[field] = (low, high, line)
        else:
            merged[field] = (
                known[0] if known[0] is not None else low,
                known[1] if known[1] is not None else high,
                known[2],
            )
    return merged


def rules_from_text(
    text: Any, fields: Mapping[str, str], *, single: str | None = None, source: str
) -> tuple[FieldRule, ...]:
    """Length bounds a task's text states as its rule: ``"(50-5000 characters)"``, ``"title 5-200"``,
    ``"between 10 and 2000 characters"``, ``"at most 2000 characters"``, ``"at least 60 chars"``. Guidance is
    never a rule: in a text that says how to respond ("Respond with: - solution_text: ... (10-2000
    characters)") only the bounds after that count; elsewhere a bound whose line advises ("Aim for 400-1200
    characters", "ideally", "recommended") does not (:func:`guidance_from_text` reads those).

    ``fields``: words that name a body field (``{"title": "problem_title"}``); a bound is the field's whose
    word comes last between the previous bound (or the sentence's start, else the line's) and it; with none,
    ``single`` (the task's one text field), else the bound is not used. A bare range (``5-200``, no
    "characters") counts only right after a field's word. A bound stated first for a field wins.
    """
    if not isinstance(text, str) or not text:
        return ()
    rules = _merged(b for b in _stated(text, fields, single) if not b[3])
    return tuple(FieldRule(field, low, high, None, source) for field, (low, high, _) in rules.items())


def guidance_from_text(
    text: Any, fields: Mapping[str, str], *, single: str | None = None, source: str
) -> tuple[Guidance, ...]:
    """The lengths a task's text advises, never enforced: the bounds :func:`rules_from_text` leaves out as
    guidance ("Aim for 400-1200 characters", a create instruction's "Title: 10-100 characters" above its
    "Respond with"), each with the line that states it."""
    if not isinstance(text, str) or not text:
        return ()
    advised = _merged(b for b in _stated(text, fields, single) if b[3])
    return tuple(Guidance(field, low, high, line, source) for field, (low, high, line) in advised.items())


def rules_from_declared(
    declared: Any, *, source: str = "the solver's declared limits"
) -> tuple[FieldRule, ...]:
    """Rules a solver declares (its ``limits`` attribute): ``{field: {"max_length": 2000, ...}}`` (as task
    constraints) or ``{field: (min, max)}``."""
    if not isinstance(declared, Mapping):
        return ()
    rules: list[FieldRule] = []
    for field, spec in declared.items():
        if isinstance(spec, Sequence) and not isinstance(spec, str) and len(spec) == 2:
            rules.append(FieldRule(str(field), _int(spec[0]), _int(spec[1]), None, source, stated=False))
        elif isinstance(spec, Mapping):
            rule = _rule_from_schema(str(field), spec, source)
            if rule is not None:
                rules.append(replace(rule, stated=False))
    return tuple(rules)


# ------------------------------------------------------------------------------- from validation answers
_AT_MOST = re.compile(
    r"(?:at most|no more than|shorter than or equal to|maximum(?: length)?(?: of| is)?|max(?:imum)?_?length"
    rf"(?: of| is)?|up to)\s*:?\s*{_NUM}",
    re.IGNORECASE,
)
_AT_LEAST = re.compile(
    r"(?:at least|no fewer than|longer than or equal to|minimum(?: length)?(?: of| is)?|min(?:imum)?_?length"
    rf"(?: of| is)?)\s*:?\s*{_NUM}",
    re.IGNORECASE,
)
_LENGTHISH = re.compile(r"charact|string|length|too_big|too_small|too_long|too_short", re.IGNORECASE)
_QUOTED = re.compile(r"'([^']*)'|\"([^\"]*)\"")
_ENUMISH = re.compile(r"enum|expected\s+'|input should be\s+'|one of", re.IGNORECASE)


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _field_name(path: Any) -> str | None:
    """The body field an error item names: ``solution_text``, ``/data/attributes/content`` ->
    ``content``, ``["body", "content"]`` -> ``content``, ``Content`` -> ``content``."""
    if isinstance(path, list | tuple):
        parts = [str(p) for p in path if not isinstance(p, int)]
        path = parts[-1] if parts else None
    if not isinstance(path, str) or not path.strip():
        return None
    last = re.split(r"[/.]", path.strip())[-1]
    return _snake(last) if last and last != "body" else None


def _items(body: Any) -> list[tuple[Any, str, Mapping[str, Any]]]:
    """(field path, message, extra) of every field error in a validation answer, in any known shape."""
    if not isinstance(body, Mapping):
        return []
    found: list[tuple[Any, str, Mapping[str, Any]]] = []
    error = body.get("error")
    lists = [
        body.get("details"),
        body.get("detail"),
        body.get("errors"),
        body.get("invalid_params"),
        error.get("details") if isinstance(error, Mapping) else None,
    ]
    for items in lists:
        if not isinstance(items, list):
            continue
        for item in items:
            if not isinstance(item, Mapping):
                continue
            source = item.get("source")
            path = (
                item.get("field")
                or item.get("loc")
                or item.get("name")
                or item.get("target")
                or item.get("path")
                or (source.get("pointer") or source.get("parameter") if isinstance(source, Mapping) else None)
            )
            message = item.get("message") or item.get("msg") or item.get("reason") or item.get("detail") or ""
            found.append((path, str(message), item))
    return found


def _rule_from_message(field: str, message: str, extra: Mapping[str, Any], source: str) -> FieldRule | None:
    ctx = extra.get("ctx") if isinstance(extra.get("ctx"), Mapping) else {}
    assert isinstance(ctx, Mapping)
    if _ENUMISH.search(message) or "expected" in ctx:
        quoted = [a or b for a, b in _QUOTED.findall(message.split("received")[0])]
        if quoted:
            return FieldRule(field, None, None, tuple(quoted), source)
    if not _LENGTHISH.search(message) and not ctx:
        return None
    high = _int(ctx.get("max_length"))
    low = _int(ctx.get("min_length"))
    if high is None and (m := _AT_MOST.search(message)):
        high = _n(m.group(1))
    if low is None and (m := _AT_LEAST.search(message)):
        low = _n(m.group(1))
    if high is None and low is None:
        return None
    return FieldRule(field, low, high, None, source)


def rules_from_error(body: Any, *, message: str = "", source: str) -> tuple[FieldRule, ...]:
    """Rules a validation answer (400/422) states: each field error naming a length bound or the allowed
    values becomes a rule on that field. ``message``: the error's one-line message, read too when the body
    holds no field list (``"solution_text: String must contain at most 2000 character(s)"``). ``()`` when
    the answer names no field with a bound."""
    rules: list[FieldRule] = []
    items = _items(body)
    if not items and message:
        named = re.match(r"\s*([A-Za-z_][\w.]*)\s*:\s*(.+)", message.split("(", 1)[-1])
        if named:
            items = [(named.group(1), named.group(2), {})]
    for path, text, extra in items:
        field = _field_name(path)
        if field is None:
            continue
        rule = _rule_from_message(field, text, extra, source)
        if rule is not None:
            rules.append(rule)
    return tuple(rules)


#: Sources of the rules a task states, in words (used in refusals).
SOURCES: Final = {
    "constraints": "the task's constraints",
    "instruction": "the task's instruction",
    "prompt": "the task's prompt",
    "response_format": "the task's response_format",
}
