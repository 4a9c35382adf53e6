"""Settings shared by every part of solvelens, read from arguments or ``SOLVELENS_*`` environment variables.

- ``base_url`` (``SOLVELENS_BASE_URL``, default ``None``): platform base URL, ending in ``/api/v1``.
- ``api_key`` (``SOLVELENS_API_KEY``, default ``None``): bot API key, a ``SecretStr`` that is never logged.
- ``api_key_file`` (``SOLVELENS_API_KEY_FILE``, default ``None``): file holding the key (first line).
- ``db`` (``SOLVELENS_DB``, default ``data/solvelens.duckdb``): DuckDB snapshot store.
- ``sandbox_db`` (``SOLVELENS_SANDBOX_DB``, default ``data/sandbox.sqlite``): sandbox SQLite file.
- ``reports_dir`` (``SOLVELENS_REPORTS_DIR``, default ``data/reports``): where reports are written.

The API key is a :class:`pydantic.SecretStr`: its ``repr`` and ``str`` print ``**********``; call
``get_secret_value()`` only where the header is built.
"""

from __future__ import annotations

import re
from pathlib import Path

from pydantic import SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

#: An API key is ``<prefix>_key_<random>``: a service-specific prefix ending in ``_key_`` (``os_key_...`` on
#: the real platform, ``sl_key_...`` on the sandbox) followed by URL-safe random characters.
API_KEY_PATTERN = re.compile(r"^[A-Za-z0-9]+_key_[A-Za-z0-9_-]{16,}$")
API_KEY_FORM = "<prefix>_key_<random characters>, e.g. os_key_... (real platform) or sl_key_... (sandbox)"


class InvalidApiKeyError(ValueError):
    """The API key does not have the form ``<prefix>_key_<random>``; the message never contains the key."""


def check_api_key(key: SecretStr | str) -> SecretStr:
    """Check an API key's form before any request is made.

    Returns the key as a :class:`SecretStr`. Raises :class:`InvalidApiKeyError` naming the expected form
    (never echoing the key itself) when the key is empty, has whitespace or lacks the ``_key_`` prefix.
    """
    secret = key if isinstance(key, SecretStr) else SecretStr(key)
    value = secret.get_secret_value().strip()
    if not API_KEY_PATTERN.match(value):
        raise InvalidApiKeyError(
            f"The API key does not have the expected form {API_KEY_FORM} "
            f"(got {len(value)} characters). Copy the key exactly as the account settings showed it."
        )
    return SecretStr(value)


class Settings(BaseSettings):
    """solvelens settings; every field also reads ``SOLVELENS_<FIELD>`` (see the module docstring)."""

    model_config = SettingsConfigDict(env_prefix="SOLVELENS_", extra="ignore")

    base_url: str | None = None
    api_key: SecretStr | None = None
    api_key_file: Path | None = None
    db: Path = Path("data/solvelens.duckdb")
    sandbox_db: Path = Path("data/sandbox.sqlite")
    reports_dir: Path = Path("data/reports")

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
