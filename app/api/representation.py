"""What a response is encoded as: JSON, YAML, protobuf (our media type), or a server-side Table.

One function per shape (object, list, watch event) so handlers never branch on the media type.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import orjson

from ..catalog import ResourceType
from ..errors import NotAcceptable
from ..naming import Naming
from .negotiation import parse_accept
from .render import JSON, YAML, encode

TABLE_VERSIONS = ("v1", "v1beta1")
LIST_PIECE = 1000  # items per piece of a raw JSON list body (about 1 MB of typical objects)


@dataclass(frozen=True)
class Representation:
    media_type: str
    table_version: str | None = None  # set when the client asked for a meta.<domain> Table
    pretty: bool = False

    def is_protobuf(self, naming: Naming) -> bool:
        return self.media_type == naming.protobuf_media_type

    @property
    def splices_stored_text(self) -> bool:
        """Compact JSON without a Table: a list's body is the stored texts spliced, no item decoded."""
        return self.media_type == JSON and not self.pretty and not self.table_version


def negotiate(
    header: str | None, naming: Naming, *, table: bool, protobuf: bool, watch: bool = False, pretty: bool = False
) -> Representation:
    """The first clause of Accept we can produce; 406 when there is none.

    A Table clause in a group we do not serve (stock clients ask `g=meta.k8s.io`) is skipped, so
    such clients fall through to their next clause (plain JSON).
    """
    offered = [JSON] + ([] if watch else [YAML]) + ([naming.protobuf_media_type] if protobuf else [])
    if not header:
        return Representation(JSON, pretty=pretty)
    for rng in parse_accept(header):
        if rng.params.get("q") == "0":
            continue
        wanted = rng.params.get("as")
        if wanted:
            if (
                wanted == "Table"
                and table
                and rng.type == JSON
                and rng.params.get("g") == naming.meta_group
                and rng.params.get("v") in TABLE_VERSIONS
            ):
                return Representation(JSON, rng.params["v"], pretty)
            continue
        if rng.type in ("*/*", "application/*"):
            return Representation(JSON, pretty=pretty)
        if rng.type in offered:
            return Representation(rng.type, pretty=pretty)
    raise NotAcceptable(offered)


def object_body(
    rep: Representation, naming: Naming, rt: ResourceType, obj: dict, include_object: str = "Metadata"
) -> bytes:
    if rep.table_version:
        from ..tables import render_table

        rv = (obj.get("metadata") or {}).get("resourceVersion", "")
        table = render_table(
            rt,
            naming,
            [obj],
            list_meta={"resourceVersion": rv},
            include_object=include_object,
            version=rep.table_version,
        )
        return encode(table, JSON, rep.pretty)
    if rep.is_protobuf(naming):
        from ..schema import encode_object, encode_status

        if obj.get("kind") == "Status" and obj.get("apiVersion") == "v1":
            return encode_status(obj)
        return encode_object(obj, naming)
    return encode(obj, rep.media_type, rep.pretty)


def list_body(
    rep: Representation,
    naming: Naming,
    rt: ResourceType,
    list_meta: dict,
    items: list[str],
    include_object: str = "Metadata",
) -> bytes | list[bytes]:
    """The body of a list; raw JSON (the common case) as a list of pieces, which a response sends one by one."""
    if rep.splices_stored_text:
        # splice the stored JSON text: no decode/encode of the items
        head = orjson.dumps({"kind": rt.list_kind, "apiVersion": rt.group_version, "metadata": list_meta})
        # in pieces of LIST_PIECE items: the rows' text and one copy as bytes at the peak, no body-sized buffer
        prefix = head[:-1] + b',"items":['
        pieces = [prefix]
        for start in range(0, len(items), LIST_PIECE):
            joined = ",".join(items[start : start + LIST_PIECE])
            pieces.append(("," + joined if start else joined).encode())
        pieces.append(b"]}\n")
        return pieces
    decoded = [orjson.loads(i) for i in items]
    if rep.table_version:
        from ..tables import render_table

        table = render_table(
            rt, naming, decoded, list_meta=list_meta, include_object=include_object, version=rep.table_version
        )
        return encode(table, JSON, rep.pretty)
    doc = {"kind": rt.list_kind, "apiVersion": rt.group_version, "metadata": list_meta, "items": decoded}
    if rep.is_protobuf(naming):
        from ..schema import encode_list

        return encode_list(doc, naming)
    return encode(doc, rep.media_type, rep.pretty)


class WatchFramer:
    """Turns (type, object) events into the negotiated framing, keeping per-stream state (Table headers)."""

    def __init__(self, rep: Representation, naming: Naming, rt: ResourceType, include_object: str = "Metadata"):
        self.rep, self.naming, self.rt, self.include_object = rep, naming, rt, include_object
        self.headers_sent = False

    @property
    def content_type(self) -> str:
        if self.rep.is_protobuf(self.naming):
            return f"{self.naming.protobuf_media_type};stream=watch"
        return JSON

    @property
    def shared_key(self) -> str | None:
        """Frames of the same event are the same for every watcher of this key (Tables carry per-stream state)."""
        if self.rep.is_protobuf(self.naming):
            return "protobuf"
        return None if self.rep.table_version else "json"

    def __call__(self, event: tuple[str, str | bytes | dict]) -> bytes:
        from .watch import event_line

        kind, obj = event
        if self.rep.is_protobuf(self.naming):
            from ..schema import encode_watch_event

            return encode_watch_event(kind, _as_dict(obj), self.naming)
        if self.rep.table_version and kind != "ERROR":
            from ..tables import render_table

            decoded = _as_dict(obj)
            rv = (decoded.get("metadata") or {}).get("resourceVersion", "")
            table = render_table(
                self.rt,
                self.naming,
                [decoded],
                list_meta={"resourceVersion": rv},
                include_object=self.include_object,
                include_headers=not self.headers_sent,
                version=self.rep.table_version,
                now=datetime.now(UTC),
            )
            self.headers_sent = True
            return event_line(kind, table)
        return event_line(kind, obj)


def _as_dict(obj: str | bytes | dict) -> dict:
    return obj if isinstance(obj, dict) else orjson.loads(obj)
