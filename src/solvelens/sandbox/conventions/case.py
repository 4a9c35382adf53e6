"""Field-name case of the convention modes: camelCase (the platform's records) to snake_case or PascalCase,
recursively through nested objects and lists, and any case back to snake_case (submit bodies)."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

__all__ = ["recase", "to_pascal", "to_snake"]

_BOUNDARY = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


@lru_cache(maxsize=1024)
def to_snake(name: str) -> str:
    """``solutionCount`` / ``SolutionCount`` / ``solution_count`` -> ``solution_count``; ``solutionAId`` ->
    ``solution_a_id``."""
    return _BOUNDARY.sub("_", name).lower()


@lru_cache(maxsize=1024)
def to_pascal(name: str) -> str:
    """``solutionCount`` / ``solution_count`` -> ``SolutionCount``."""
    return "".join(part[:1].upper() + part[1:] for part in to_snake(name).split("_"))


@lru_cache(maxsize=1024)
def to_camel(name: str) -> str:
    """``solution_count`` / ``SolutionCount`` -> ``solutionCount``."""
    pascal = to_pascal(name)
    return pascal[:1].lower() + pascal[1:]


def recase(value: Any, fn: Callable[[str], str]) -> Any:
    """``value`` with every object key renamed by ``fn`` (recursively through objects and lists)."""
    if isinstance(value, dict):
        return {fn(k): recase(v, fn) for k, v in value.items()}
    if isinstance(value, list):
        return [recase(v, fn) for v in value]
    return value
