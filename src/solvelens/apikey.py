"""The API key's form: ``<prefix>_key_<random>``, checked before any request is made.

A key is a service-specific prefix ending in ``_key_`` (``os_key_...`` on the real platform, ``sl_key_...`` on
the sandbox) followed by URL-safe random characters. The check never echoes the key. This module imports
pydantic's ``SecretStr`` only when a key is checked (no settings machinery), so a command without a key never
imports pydantic before its first request.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import SecretStr

API_KEY_PATTERN = re.compile(r"^[A-Za-z0-9]+_key_[A-Za-z0-9_-]{16,}$")
API_KEY_FORM = "<prefix>_key_<random characters>, e.g. os_key_... (real platform) or sl_key_... (sandbox)"


class InvalidApiKeyError(ValueError):
    """The API key does not have the form ``<prefix>_key_<random>``; the message never contains the key."""


def check_api_key(key: SecretStr | str) -> SecretStr:
    """Check an API key's form before any request is made.

    Returns the key as a :class:`SecretStr`. Raises :class:`InvalidApiKeyError` naming the expected form
    (never echoing the key itself) when the key is empty, has whitespace or lacks the ``_key_`` prefix.
    """
    from pydantic import SecretStr

    value = (key if isinstance(key, str) else key.get_secret_value()).strip()
    if not API_KEY_PATTERN.match(value):
        raise InvalidApiKeyError(
            f"The API key does not have the expected form {API_KEY_FORM} "
            f"(got {len(value)} characters). Copy the key exactly as the account settings showed it."
        )
    return SecretStr(value)
