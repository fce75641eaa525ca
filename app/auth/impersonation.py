"""User impersonation: `Impersonate-User`, `-Group`, `-Uid`, `-Extra-<name>` headers.

Flow of the spec: the caller is authenticated first, then every impersonated value is checked with
verb `impersonate` through the authorizer, then the user is replaced for the rest of the request.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any

from ..errors import BadRequest
from ..naming import Naming
from ..user import (
    ANONYMOUS_USER,
    AUTHENTICATED_GROUP,
    UNAUTHENTICATED_GROUP,
    UserInfo,
    service_account_groups,
    service_account_username,
    split_service_account_username,
)
from . import headers
from .authz import Attributes, Authorizer, forbidden

USER_HEADER = "Impersonate-User"
GROUP_HEADER = "Impersonate-Group"
UID_HEADER = "Impersonate-Uid"
EXTRA_PREFIX = "Impersonate-Extra-"
_ANY_IMPERSONATION = headers.environ_key("Impersonate-")  # every header above starts with it


@dataclass(frozen=True)
class Wanted:
    """One impersonated value (the reference's ObjectReference per request)."""

    kind: str  # User, ServiceAccount, Group, UserExtra, UID
    name: str
    namespace: str = ""
    api_version: str = ""
    field_path: str = ""  # the extra key of a UserExtra

    def go_format(self) -> str:
        # Go's %v of a core/v1 ObjectReference: Kind Namespace Name UID APIVersion ResourceVersion FieldPath
        return f"{{{self.kind} {self.namespace} {self.name}  {self.api_version}  {self.field_path}}}"


def wanted_values(environ: dict[str, Any], naming: Naming) -> list[Wanted]:
    """The impersonation the request asks for; BadRequest for groups, extra or uid without a user."""
    if not any(key.startswith(_ANY_IMPERSONATION) for key in environ):
        return []  # the common case, in one pass over the environ
    auth_version = f"{naming.group('authentication')}/v1"
    wanted: list[Wanted] = []
    user = headers.header(environ, USER_HEADER)
    if user:
        account = split_service_account_username(user)
        wanted.append(Wanted("ServiceAccount", account[1], account[0]) if account else Wanted("User", user))
    groups = headers.header_values(environ, GROUP_HEADER)
    wanted.extend(Wanted("Group", g) for g in groups)
    extras = headers.prefixed(environ, EXTRA_PREFIX)
    for key, values in extras.items():
        wanted.extend(Wanted("UserExtra", v, api_version=auth_version, field_path=key) for v in values)
    uid = headers.header(environ, UID_HEADER)
    if uid:
        wanted.append(Wanted("UID", uid, api_version=auth_version))
    if (groups or extras or uid) and not user:
        listed = " ".join(w.go_format() for w in wanted)
        raise BadRequest(f"requested [{listed}] without impersonating a user")
    return wanted


def _attributes(caller: UserInfo, want: Wanted, naming: Naming) -> Attributes:
    impersonate = partial(Attributes, caller, "impersonate", name=want.name, version="v1")
    if want.kind == "ServiceAccount":
        return impersonate(resource="serviceaccounts", namespace=want.namespace)
    if want.kind in ("User", "Group"):
        return impersonate(resource="users" if want.kind == "User" else "groups")
    group = naming.group("authentication")
    if want.kind == "UserExtra":
        return impersonate(group=group, resource="userextras", subresource=want.field_path)
    return impersonate(group=group, resource="uids")


def impersonate(environ: dict[str, Any], caller: UserInfo, authorizer: Authorizer, naming: Naming) -> UserInfo:
    """The user to act as (the caller itself when nothing is asked); 403 when a value is not allowed."""
    wanted = wanted_values(environ, naming)
    if not wanted:
        return caller
    username, uid = "", ""
    groups: list[str] = []
    extra: dict[str, list[str]] = {}
    groups_given = any(w.kind == "Group" for w in wanted)
    for want in wanted:
        attributes = _attributes(caller, want, naming)
        decision = authorizer.authorize(attributes)
        if not decision.allowed:
            raise forbidden(attributes, decision.reason)
        if want.kind == "ServiceAccount":
            username = service_account_username(want.namespace, want.name)
            if not groups_given:
                groups = list(service_account_groups(want.namespace))  # the fixed mapping of service accounts
        elif want.kind == "User":
            username = want.name
        elif want.kind == "Group":
            groups.append(want.name)
        elif want.kind == "UserExtra":
            extra.setdefault(want.field_path, []).append(want.name)
        else:
            uid = want.name
    if username != ANONYMOUS_USER:
        if AUTHENTICATED_GROUP not in groups and UNAUTHENTICATED_GROUP not in groups:
            groups.append(AUTHENTICATED_GROUP)
    elif UNAUTHENTICATED_GROUP not in groups:
        groups.append(UNAUTHENTICATED_GROUP)
    headers.drop(environ, (USER_HEADER, GROUP_HEADER, UID_HEADER), (EXTRA_PREFIX,))
    return UserInfo(username, uid, tuple(groups), {k: tuple(v) for k, v in extra.items()})
