"""discovery/v1 declarations: field names and numbers as the reference's v0.36.3 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import core_volume, meta
from .types import BOOL, INT32, STRING, Field, ListOf, MapOf, Struct

_PKG = "discovery/v1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = "discovery"
GROUP_IN_DOMAIN = True
VERSION = "v1"


EndpointConditions = Struct(
    _PKG,
    "EndpointConditions",
    [
        Field("ready", 1, BOOL, nullable=True),
        Field("serving", 2, BOOL, nullable=True),
        Field("terminating", 3, BOOL, nullable=True),
    ],
)

ForZone = Struct(_PKG, "ForZone", [Field("name", 1, STRING, omitempty=False, required=True)])

ForNode = Struct(_PKG, "ForNode", [Field("name", 1, STRING, omitempty=False, required=True)])

EndpointHints = Struct(
    _PKG,
    "EndpointHints",
    [
        Field("forZones", 1, ListOf(ForZone), list_type="atomic"),
        Field("forNodes", 2, ListOf(ForNode), list_type="atomic"),
    ],
)

Endpoint = Struct(
    _PKG,
    "Endpoint",
    [
        Field("addresses", 1, ListOf(STRING), omitempty=False, required=True, list_type="set"),
        Field("conditions", 2, EndpointConditions),
        Field("hostname", 3, STRING, nullable=True),
        Field("targetRef", 4, core_volume.ObjectReference, nullable=True),
        Field("deprecatedTopology", 5, MapOf(STRING)),
        Field("nodeName", 6, STRING, nullable=True),
        Field("zone", 7, STRING, nullable=True),
        Field("hints", 8, EndpointHints, nullable=True),
    ],
)

EndpointPort = Struct(
    _PKG,
    "EndpointPort",
    [
        Field("name", 1, STRING, nullable=True),
        Field("protocol", 2, STRING, nullable=True),
        Field("port", 3, INT32, nullable=True),
        Field("appProtocol", 4, STRING, nullable=True),
    ],
    struct_type="atomic",
)

EndpointSlice = Struct(
    _PKG,
    "EndpointSlice",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("addressType", 4, STRING, omitempty=False, required=True),
        Field("endpoints", 2, ListOf(Endpoint), omitempty=False, list_type="atomic"),
        Field("ports", 3, ListOf(EndpointPort), omitempty=False, list_type="atomic"),
    ],
    kind=True,
)

EndpointSliceList = Struct(
    _PKG,
    "EndpointSliceList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(EndpointSlice), omitempty=False, required=True)],
    kind=True,
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {"EndpointSlice": EndpointSlice, "EndpointSliceList": EndpointSliceList}
