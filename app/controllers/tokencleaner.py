"""tokencleaner: deletes bootstrap-token secrets past their `expiration` (off unless named in --controllers)."""

from __future__ import annotations

from ..auth.bootstrap import expired, secret_type
from ..errors import Conflict, NotFound
from ..registry.keys import collection_prefix
from .base import Context, Controller


class TokenCleaner(Controller):
    name = "tokencleaner"
    account = "token-cleaner"
    resync_seconds = 30.0

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.secrets = ctx.kind("", "secrets")

    def watches(self) -> list:
        return [self.secrets]

    def watched_keys(self) -> list[str]:
        return [collection_prefix(self.secrets, self.naming.system_namespace)]  # where tokens live

    def sync(self) -> None:
        namespace = self.naming.system_namespace
        wanted = secret_type(self.naming)
        now = self.now()
        for secret in self.client.list(self.secrets, namespace, field_selector=f"type={wanted}"):
            md = secret.get("metadata") or {}
            if secret.get("type") == wanted and not md.get("deletionTimestamp") and expired(secret, now):
                try:
                    self.client.delete(self.secrets, namespace, md.get("name", ""), md.get("uid", ""))
                except (Conflict, NotFound):
                    pass
