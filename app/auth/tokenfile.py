"""Static bearer tokens from --token-auth-file, read once at start-up.

CSV rows: token, user name, uid, then optionally one column of comma-separated groups
(quote it: `t0k3n,alice,1001,"dev,ops"`), as the reference reads the file.
"""

from __future__ import annotations

import csv
import hashlib
import logging
from dataclasses import dataclass

from ..user import UserInfo
from .authn import TokenResult

log = logging.getLogger(__name__)


def _digest(token: str) -> bytes:
    # looked up by digest: a dict probe on the secret itself could leak its prefix through timing
    return hashlib.sha256(token.encode()).digest()


@dataclass(frozen=True)
class StaticTokens:
    users: dict[bytes, UserInfo]

    @classmethod
    def from_csv(cls, path: str) -> StaticTokens:
        """Parse the file; ValueError names the file and the problem."""
        users: dict[bytes, UserInfo] = {}
        try:
            with open(path, newline="", encoding="utf-8") as handle:
                rows = list(csv.reader(handle))
        except (OSError, UnicodeDecodeError, csv.Error) as err:
            raise ValueError(f"token file {path!r}: {err}") from err
        for number, row in enumerate(rows, start=1):
            if not row or row == [""]:
                continue
            if len(row) < 3:
                raise ValueError(
                    f"token file {path!r} must have at least 3 columns (token, user name, user uid), found {len(row)}"
                )
            if not row[0]:
                log.warning("empty token in token file %r, record %d: skipped", path, number)
                continue
            key = _digest(row[0])
            if key in users:
                log.warning("duplicate token in token file %r, record %d: the later one wins", path, number)
            groups = tuple(row[3].split(",")) if len(row) >= 4 else ()
            users[key] = UserInfo(username=row[1], uid=row[2], groups=groups)
        return cls(users)

    def authenticate_token(self, token: str, audiences: tuple[str, ...]) -> TokenResult | None:
        user = self.users.get(_digest(token))
        return None if user is None else TokenResult(user)
