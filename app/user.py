"""Who is asking: the result of authentication, handed to the authorizer, admission and audit (a leaf module:
every layer that acts for a user imports it)."""

from __future__ import annotations

import re
from contextvars import ContextVar
from dataclasses import dataclass, field

ANONYMOUS_USER = "system:anonymous"
UNAUTHENTICATED_GROUP = "system:unauthenticated"
AUTHENTICATED_GROUP = "system:authenticated"
MASTERS_GROUP = "system:masters"

SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"
SERVICE_ACCOUNTS_GROUP = "system:serviceaccounts"
SERVICE_ACCOUNT_GROUP_PREFIX = "system:serviceaccounts:"

NODES_GROUP = "system:nodes"
NODE_USER_PREFIX = "system:node:"

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


@dataclass(frozen=True)
class UserInfo:
    username: str
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def with_authenticated_group(self) -> UserInfo:
        """Add system:authenticated, except to the anonymous user or one already in either catch-all group."""
        if self.username == ANONYMOUS_USER:
            return self
        if AUTHENTICATED_GROUP in self.groups or UNAUTHENTICATED_GROUP in self.groups:
            return self
        return UserInfo(self.username, self.uid, self.groups + (AUTHENTICATED_GROUP,), self.extra)

    def to_api(self) -> dict:
        """The `UserInfo` of the authentication API (token and self-subject reviews)."""
        out: dict = {"username": self.username}
        if self.uid:
            out["uid"] = self.uid
        if self.groups:
            out["groups"] = list(self.groups)
        if self.extra:
            out["extra"] = {key: list(values) for key, values in self.extra.items()}
        return out


ANONYMOUS = UserInfo(ANONYMOUS_USER, groups=(UNAUTHENTICATED_GROUP,))


def service_account_username(namespace: str, name: str) -> str:
    return f"{SERVICE_ACCOUNT_PREFIX}{namespace}:{name}"


def service_account_groups(namespace: str) -> tuple[str, ...]:
    return (SERVICE_ACCOUNTS_GROUP, SERVICE_ACCOUNT_GROUP_PREFIX + namespace)


def split_service_account_username(username: str) -> tuple[str, str] | None:
    """(namespace, name) of `system:serviceaccount:<ns>:<name>` with valid names, else None."""
    if not username.startswith(SERVICE_ACCOUNT_PREFIX):
        return None
    parts = username[len(SERVICE_ACCOUNT_PREFIX) :].split(":")
    if len(parts) != 2:
        return None
    namespace, name = parts
    if len(namespace) > 63 or not _DNS_LABEL.match(namespace):
        return None
    if len(name) > 253 or not _DNS_SUBDOMAIN.match(name):
        return None
    return namespace, name


#: The user of the request being served; set by the HTTP layer, read by strategies that record
#: the requester (CSR spec.username, ...). A contextvar keeps lower layers free of Flask.
current_user: ContextVar[UserInfo | None] = ContextVar("current_user", default=None)


def node_identity(user: UserInfo | None) -> str | None:
    """The node a user is (the reference's NodeIdentity): the name after `system:node:` for a member of
    `system:nodes` ("" when it names none), None for everyone else."""
    if user is None or NODES_GROUP not in user.groups or not user.username.startswith(NODE_USER_PREFIX):
        return None
    return user.username[len(NODE_USER_PREFIX) :]


def valid_node_name(name: str) -> bool:
    """A Node's name: a DNS subdomain (what the Node it registers must be named)."""
    return len(name) <= 253 and bool(_DNS_SUBDOMAIN.match(name))
