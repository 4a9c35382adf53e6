"""Settings shared by every part of solvelens, read from arguments or ``SOLVELENS_*`` environment variables.

- ``base_url`` (``SOLVELENS_BASE_URL``, default ``None``): platform base URL, ending in ``/api/v1``.
- ``api_key`` (``SOLVELENS_API_KEY``, default ``None``): bot API key, a ``SecretStr`` that is never logged.
- ``api_key_file`` (``SOLVELENS_API_KEY_FILE``, default ``None``): file holding the key (first line).

Paths (``--db`` / ``SOLVELENS_DB`` and the others) are options of the commands that use them, with their
defaults in :mod:`solvelens.cli.common`; they are not settings here (nothing read them from ``Settings``).

The API key is a :class:`pydantic.SecretStr`: its ``repr`` and ``str`` print ``**********``; call
``get_secret_value()`` only where the header is built.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

# The key's form check lives in its own light module (no pydantic-settings), so a command can check a key
# before importing the settings machinery; re-exported here where callers have always found it.
from solvelens.apikey import API_KEY_FORM, API_KEY_PATTERN, InvalidApiKeyError, check_api_key

# The least span a rate is taken over lives in its own light module (the snapshot reads it without
# pydantic-settings); re-exported here.
from solvelens.ratespan import MIN_RATE_SPAN

__all__ = [
    "API_KEY_FORM",
    "API_KEY_PATTERN",
    "MIN_RATE_SPAN",
    "InvalidApiKeyError",
    "Settings",
    "check_api_key",
]


class Settings(BaseSettings):
    """solvelens settings; every field also reads ``SOLVELENS_<FIELD>`` (see the module docstring)."""

    model_config = SettingsConfigDict(env_prefix="SOLVELENS_", extra="ignore")

    base_url: str | None = None
    api_key: SecretStr | None = None
    api_key_file: Path | None = None

    def resolved_api_key(self) -> SecretStr | None:
        """The API key from ``api_key``, else the first line of ``api_key_file``, form-checked; or ``None``.

        Raises :class:`InvalidApiKeyError` for a malformed key, :class:`FileNotFoundError` for a missing file.
        """
        if self.api_key is not None and self.api_key.get_secret_value():
            return check_api_key(self.api_key)
        if self.api_key_file is not None:
            lines = self.api_key_file.read_text(encoding="utf-8").splitlines()
            return check_api_key(lines[0] if lines else "")
        return None
