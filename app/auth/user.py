"""Who is asking: the result of authentication, handed to the authorizer."""
from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field

ANONYMOUS_USER = "system:anonymous"
UNAUTHENTICATED_GROUP = "system:unauthenticated"
AUTHENTICATED_GROUP = "system:authenticated"
MASTERS_GROUP = "system:masters"


@dataclass(frozen=True)
class UserInfo:
    username: str
    uid: str = ""
    groups: tuple[str, ...] = ()
    extra: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def with_authenticated_group(self) -> UserInfo:
        if AUTHENTICATED_GROUP in self.groups:
            return self
        return UserInfo(self.username, self.uid, self.groups + (AUTHENTICATED_GROUP,), self.extra)


ANONYMOUS = UserInfo(ANONYMOUS_USER, groups=(UNAUTHENTICATED_GROUP,))


#: The user of the request being served; set by the HTTP layer, read by strategies that record
#: the requester (CSR spec.username, ...). A contextvar keeps lower layers free of Flask.
current_user: ContextVar[UserInfo | None] = ContextVar("current_user", default=None)
