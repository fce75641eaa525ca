"""Where a request's credentials come from: the config's token / token file / client certificate, or a plugin."""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from .config import ClientConfig, ConfigError


@dataclass(frozen=True)
class Credentials:
    token: str | None = None
    cert_pem: bytes | None = None
    key_pem: bytes | None = None
    expires: datetime | None = None  # aware UTC; None: until a 401 or process exit

    @property
    def tls_pair(self) -> tuple[bytes, bytes] | None:
        return (self.cert_pem, self.key_pem) if self.cert_pem and self.key_pem else None


class StaticCredentials:
    """The config's token (or token file, re-read when it changes, as client-go does) and client certificate."""

    def __init__(self, config: ClientConfig) -> None:
        self._config = config
        self._lock = threading.Lock()
        self._file_token: tuple[tuple[float, int], str] | None = None  # ((mtime, size), token)

    def _token(self) -> str | None:
        if self._config.token:
            return self._config.token
        path = self._config.token_file
        if not path:
            return None
        try:
            stat = os.stat(path)
            stamp = (stat.st_mtime, stat.st_size)
            with self._lock:
                if self._file_token is None or self._file_token[0] != stamp:
                    self._file_token = (stamp, Path(path).read_text().strip())
                return self._file_token[1]
        except OSError as err:
            raise ConfigError(f"cannot read token file {path}: {err}") from None

    def get(self) -> Credentials:
        return Credentials(
            token=self._token(), cert_pem=self._config.client_cert_data, key_pem=self._config.client_key_data
        )

    def invalidate(self, used: Credentials) -> bool:
        """Nothing to refresh except a token file that changed since: retry only then."""
        if self._config.token_file and used.token is not None:
            return self._token() != used.token
        return False
