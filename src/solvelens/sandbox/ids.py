"""Public identifiers: UUID-shaped strings that map one-to-one onto compact integer row ids.

The database stores integer ids (small, fast joins, cheap at a million rows). The API shows UUID strings like
the real platform: ``<prefix of kind and seed>-<48-bit scrambled row id>``. The scramble is an invertible
multiplication modulo 2**48, so the tail looks random while decoding stays exact. A string that is not a
valid id of the expected kind decodes to ``None`` (the routes answer 404, never 500).
"""

from __future__ import annotations

import hashlib
import re
from typing import Final, Literal

Kind = Literal["bot", "problem", "solution", "task", "human", "comparison"]

_BITS: Final = 48
_MASK: Final = (1 << _BITS) - 1
_MUL: Final = 0x9E3779B97F4B  # odd, so invertible modulo 2**48
_ADD: Final = 0x5DEECE66D
_INV: Final = pow(_MUL, -1, 1 << _BITS)
_UUID_RE: Final = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


class IdCodec:
    """Encode/decode the public ids of one platform (the prefix depends on the platform's seed)."""

    def __init__(self, seed: int) -> None:
        self._prefix: dict[str, str] = {}
        for kind in ("bot", "problem", "solution", "task", "human", "comparison"):
            h = hashlib.sha256(f"solvelens-sandbox:{seed}:{kind}".encode()).hexdigest()
            self._prefix[kind] = f"{h[0:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-"
        self._kind_of = {v: k for k, v in self._prefix.items()}

    def encode(self, kind: Kind, n: int) -> str:
        """The UUID string of row ``n`` (>= 1) of ``kind``."""
        return self._prefix[kind] + f"{(n * _MUL + _ADD) & _MASK:012x}"

    def encode_opt(self, kind: Kind, n: int | None) -> str | None:
        """Like :meth:`encode`, passing ``None`` through."""
        return None if n is None else self.encode(kind, n)

    def decode(self, kind: Kind, value: str) -> int | None:
        """The row id behind ``value``, or ``None`` when ``value`` is not an id of ``kind`` (any malformed
        string)."""
        value = value.lower()
        if not _UUID_RE.match(value) or not value.startswith(self._prefix[kind]):
            return None
        n = ((int(value[24:], 16) - _ADD) * _INV) & _MASK
        return n if 1 <= n < (1 << 40) else None
