"""core/v1 option kinds of the connect and proxy subresources (pods/exec, pods/attach, pods/portforward,
pods/proxy, services/proxy, nodes/proxy): field names and numbers as the reference's v0.23.0 generated.proto,
written by hand (they travel as query parameters; declared so discovery's kinds have schemas)."""

from __future__ import annotations

from .types import BOOL, INT32, STRING, Field, ListOf, Struct

_PKG = "core/v1"
GROUP = ""
GROUP_IN_DOMAIN = False
VERSION = "v1"


def _streams(name: str, *extra: Field) -> Struct:
    return Struct(
        _PKG,
        name,
        [
            Field("stdin", 1, BOOL),
            Field("stdout", 2, BOOL),
            Field("stderr", 3, BOOL),
            Field("tty", 4, BOOL),
            Field("container", 5, STRING),
            *extra,
        ],
        kind=True,
    )


def _path(name: str) -> Struct:
    return Struct(_PKG, name, [Field("path", 1, STRING)], kind=True)


PodExecOptions = _streams(
    "PodExecOptions", Field("command", 6, ListOf(STRING), omitempty=False, required=True, list_type="atomic")
)
PodAttachOptions = _streams("PodAttachOptions")
PodPortForwardOptions = Struct(
    _PKG, "PodPortForwardOptions", [Field("ports", 1, ListOf(INT32), list_type="atomic")], kind=True
)

KINDS: dict[str, Struct] = {
    "PodExecOptions": PodExecOptions,
    "PodAttachOptions": PodAttachOptions,
    "PodPortForwardOptions": PodPortForwardOptions,
    **{name: _path(name) for name in ("PodProxyOptions", "ServiceProxyOptions", "NodeProxyOptions")},
}
