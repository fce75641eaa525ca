"""Bootstrap tokens (--enable-bootstrap-token-auth): `<id>.<secret>` checked against the secret
`bootstrap-token-<id>` of type `bootstrap.<domain>/token` in the system namespace."""

from __future__ import annotations

import hmac
import logging
import re
from dataclasses import dataclass
from datetime import UTC, datetime

from ..naming import Naming
from ..user import UserInfo
from .authn import TokenResult
from .lookup import CoreObjects, metadata, secret_value

log = logging.getLogger(__name__)

TOKEN = re.compile(r"^([a-z0-9]{6})\.([a-z0-9]{16})$")
EXTRA_GROUP = re.compile(r"^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$")
SECRET_PREFIX = "bootstrap-token-"
USER_PREFIX = "system:bootstrap:"
GROUP = "system:bootstrappers"


def secret_type(naming: Naming) -> str:
    return naming.key_group("bootstrap") + "/token"


def expired(secret: dict, now: datetime) -> bool:
    """Past its `expiration`; an unreadable expiration counts as expired (the safe reading)."""
    text = secret_value(secret, "expiration")
    if not text:
        return False
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return True
    if moment.tzinfo is None:
        return True  # RFC 3339 requires an offset
    return moment <= now


def token_groups(secret: dict) -> tuple[str, ...] | None:
    """system:bootstrappers plus auth-extra-groups; None when an extra group is malformed."""
    groups = [GROUP]
    for group in (g.strip() for g in secret_value(secret, "auth-extra-groups").split(",")):
        if not group:
            continue
        if not EXTRA_GROUP.match(group):
            return None
        if group not in groups:
            groups.append(group)
    return tuple(groups)


@dataclass(frozen=True)
class BootstrapTokens:
    objects: CoreObjects
    naming: Naming

    def authenticate_token(self, token: str, audiences: tuple[str, ...]) -> TokenResult | None:
        match = TOKEN.match(token)
        if match is None:
            return None  # not a bootstrap token: another authenticator's business
        token_id, token_secret = match.groups()
        secret = self.objects.get("secrets", self.naming.system_namespace, SECRET_PREFIX + token_id)
        if secret is None or metadata(secret).get("deletionTimestamp"):
            return None
        name = f"{self.naming.system_namespace}/{SECRET_PREFIX}{token_id}"
        if secret.get("type") != secret_type(self.naming):
            log.info("bootstrap token secret %s has the wrong type", name)
            return None
        if not hmac.compare_digest(secret_value(secret, "token-secret").encode(), token_secret.encode()):
            log.info("bootstrap token secret %s does not match the token", name)
            return None
        if secret_value(secret, "token-id") != token_id:
            log.info("bootstrap token secret %s has another token-id", name)
            return None
        if expired(secret, datetime.now(UTC)):
            return None
        if secret_value(secret, "usage-bootstrap-authentication") != "true":
            log.info("bootstrap token secret %s is not marked usage-bootstrap-authentication=true", name)
            return None
        groups = token_groups(secret)
        if groups is None:
            log.info("bootstrap token secret %s has an invalid auth-extra-groups", name)
            return None
        return TokenResult(UserInfo(USER_PREFIX + token_id, groups=groups))
