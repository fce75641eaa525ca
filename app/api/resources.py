"""Resource endpoints: one blueprint per API group version, one handler per verb.

Paths are parsed like the reference's RequestInfoFactory; every kind is served by the same
handlers from its catalog entry.
"""

from __future__ import annotations

import dataclasses

import orjson
from flask import Blueprint, Response, after_this_request, current_app, request, stream_with_context

from .. import features
from ..catalog import ResourceType
from ..context import request_context, services
from ..errors import BadRequest, Invalid, MethodNotAllowed, NotFound, RouteNotFound, UnsupportedMediaType, forbidden
from ..faults import WATCH_CUT_KEY, cut_watch
from ..registry.connect import node_location, proxy_target
from ..registry.options import DeleteOptions, ListOptions, parse_bool, parse_dry_run
from ..registry.patch import APPLY_PATCH, JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH
from ..registry.store import ListResult
from ..request_info import RequestInfo, parse_resource_path
from ..tables import parse_include_object
from ..versions import deprecated_api, deprecation_warning, is_deprecated
from . import fieldvalidation, history
from .aggregation import proxy, remote_for
from .connect import proxy_to_node, proxy_to_target
from .handoff import DETACH_KEY, take_stream_end
from .negotiation import body_media_type, decode_object, read_body
from .render import wants_pretty, within_list_memory
from .representation import Representation, WatchFramer, list_body, negotiate, object_body
from .upgrade import upgrade_to_node
from .watch import Framing, framed, socket_closed_check

PATCH_TYPES = (JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH)


def group_version_blueprint(group: str, version: str) -> Blueprint:
    prefix = f"/apis/{group}/{version}" if group else f"/api/{version}"
    name = f"{group or 'core'}_{version}".replace(".", "_")
    bp = Blueprint(name, __name__, url_prefix=prefix)

    @bp.route("/<path:rest>", methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
    def dispatch(rest: str) -> Response:
        return handle(group, version, _request_info(rest, group, version))

    return bp


def custom_group_blueprint() -> Blueprint:
    """Group versions not known at start (custom resources): the live catalog decides per request."""
    bp = Blueprint("custom_groups", __name__, url_prefix="/apis")

    @bp.route("/<group>/<version>/<path:rest>", methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
    def dispatch(group: str, version: str, rest: str) -> Response:
        remote = remote_for(group, version)  # a dict lookup: most requests are for no aggregated group version
        if remote is not None and not services().catalog.resources(group, version):
            return proxy(remote)  # the extension server answers
        return handle(group, version, _request_info(rest, group, version))

    return bp


def _request_info(rest: str, group: str, version: str) -> RequestInfo:
    """The path as the handler chain parsed it (parsed here for an app without the chain); 404 when no handler
    serves such a path."""
    info = request_context().info
    if info is None or not info.resource_request:
        info = parse_resource_path(rest, group, version)
    return info.routed()


def handle(group: str, version: str, info: RequestInfo) -> Response:
    rt = services().catalog.lookup_fresh(group, version, info.resource)  # a CRD Established elsewhere: served
    if rt is None:
        raise RouteNotFound()
    if info.namespace is not None and not rt.namespaced:
        raise RouteNotFound()
    if rt.deprecation is not None and is_deprecated(rt):
        _announce_deprecation(rt, info)
    if info.name is None:
        if info.namespace is None and rt.namespaced and request.method != "GET":
            raise MethodNotAllowed()
        return _collection(rt, info)
    if rt.namespaced and info.namespace is None:
        raise RouteNotFound()
    return _item(rt, info)


def _announce_deprecation(rt: ResourceType, info: RequestInfo) -> None:
    """A deprecated version answers normally plus a 299 Warning (errors included), and tells metrics
    and audit (the request context's deprecated_api) before the handler runs."""
    request_context().deprecated_api = deprecated_api(rt, info.subresource)
    header = fieldvalidation.warning_header(deprecation_warning(rt))

    @after_this_request
    def _warn(response: Response) -> Response:
        response.headers.add("Warning", header)
        return response


def _collection(rt: ResourceType, info: RequestInfo) -> Response:
    method = request.method
    if method == "GET":
        opts = ListOptions.from_query(request.args)
        if opts.watch:
            return _watch(rt, info.namespace, opts)
        _require_verb(rt, "list")
        if history.wants_history():
            return history.history(rt, info.namespace, None)
        opts = history.as_of_list_options(rt, info.namespace, opts)
        if not features.enabled("APIListChunking"):  # the whole list, as the reference with the gate off
            opts = dataclasses.replace(opts, limit=0, continue_token="")
        rep = _negotiate(rt, table=True)
        # same collection, same selection, same page size: about the same bytes as last time
        collection = (rt.group, rt.plural, info.namespace, opts.limit, opts.label_selector, opts.field_selector)
        return within_list_memory(
            collection,
            not rep.splices_stored_text,
            lambda: services().registry.list(rt, info.namespace, opts),
            lambda result: result.items,
            lambda result: _render_list(rt, result, rep),
        )
    if method == "POST":
        _require_verb(rt, "create")
        rep = _negotiate(rt)
        obj, warnings = _decode_checked(rt)
        created = services().registry.create(rt, info.namespace, obj, parse_dry_run(request.args), _manager())
        return _render(rt, created, 201, rep, warnings)
    if method == "DELETE":
        _require_verb(rt, "deletecollection")
        registry = services().registry
        delete_opts = _delete_options()
        result = registry.delete_collection(rt, info.namespace, ListOptions.from_query(request.args), delete_opts)
        return _render_list(rt, result, _negotiate(rt))
    raise MethodNotAllowed()


def _item(rt: ResourceType, info: RequestInfo) -> Response:
    registry = services().registry
    method, name, ns = request.method, info.name or "", info.namespace
    sub = info.subresource
    if sub is not None and rt.subresource(sub) is None:
        raise NotFound(f"{rt.plural}/{sub}", rt.group, "")
    if method == "GET" and sub is None and parse_bool(request.args.get("watch")):
        return _watch_one(rt, ns, name)
    view = rt.subresource(sub) if sub is not None else None
    if view is not None and view.proxy is not None:
        _, target = proxy_target(registry, rt, ns, name)
        return proxy_to_target(target, info.proxy_path or "/")
    if view is not None and view.connect is not None:
        if view.upgrade and method in ("GET", "POST"):
            return upgrade_to_node(node_location(registry, rt, ns, name, view.name, request.args))
        if method != "GET" or view.upgrade:
            raise MethodNotAllowed()
        return proxy_to_node(node_location(registry, rt, ns, name, view.name, request.args.to_dict()))
    rep = _negotiate(rt, table=method == "GET", sub=sub)
    if method == "GET":
        _require_verb(rt, "get", sub)
        if sub is None and history.wants_history():
            return history.history(rt, ns, name)
        as_of = history.as_of_revision(rt, ns, name)
        args = request.args
        current = (
            registry.get(rt, ns, name, as_of, "Exact")
            if as_of is not None
            else registry.get(rt, ns, name, args.get("resourceVersion", ""), args.get("resourceVersionMatch", ""))
        )
        return _render(rt, _sub_view(rt, sub, current), 200, rep)
    if method == "PUT":
        _require_verb(rt, "update", sub)
        obj, warnings = _decode_checked(rt, sub)
        result, created = registry.update(rt, ns, name, obj, sub, parse_dry_run(request.args), _manager())
        return _render(rt, _sub_view(rt, sub, result), 201 if created else 200, rep, warnings)
    if method == "PATCH":
        _require_verb(rt, "patch", sub)
        patch_type = body_media_type(request)
        if patch_type == APPLY_PATCH:
            return _apply(rt, ns, name, sub, rep)
        if request.args.get("force") is not None:
            raise Invalid(
                "PatchOptions",
                services().naming.meta_group,
                "",
                [forbidden("force", "may not be specified for non-apply patch")],
            )
        strategic_ok = registry.schema(rt, rt.subresource(sub) if sub else None) is not None
        if patch_type not in PATCH_TYPES or (patch_type == STRATEGIC_MERGE_PATCH and not strategic_ok):
            raise UnsupportedMediaType(
                [*(t for t in PATCH_TYPES if t != STRATEGIC_MERGE_PATCH or strategic_ok), APPLY_PATCH]
            )
        check = _patch_check(rt, sub, name, patch_type)
        body = check.body if check is not None else read_body(request)
        result = registry.patch(rt, ns, name, patch_type, body, sub, parse_dry_run(request.args), _manager(), check)
        return _render(rt, _sub_view(rt, sub, result), 200, rep, check.warnings if check is not None else None)
    if method == "POST" and sub is not None:
        _require_verb(rt, "create", sub)
        obj, warnings = _decode_checked(rt, sub)
        sent_version = obj.get("apiVersion") if isinstance(obj, dict) else None
        if isinstance(obj, dict) and sent_version:
            obj["apiVersion"] = services().naming.from_client_api_version(sent_version)
        result = registry.create_in_subresource(rt, ns, name, sub, obj, parse_dry_run(request.args), _manager())
        if sent_version and isinstance(obj, dict) and result.get("kind") == obj.get("kind"):
            result = {**result, "apiVersion": sent_version}  # answer in the version asked, as the reference
        return _render(rt, result, 201, rep, warnings)
    if method == "DELETE":
        if sub is not None:
            raise MethodNotAllowed()
        _require_verb(rt, "delete")
        deleted, _ = registry.delete(rt, ns, name, _delete_options())
        return _render(rt, deleted, 200, rep)
    raise MethodNotAllowed()


def _view_type(rt: ResourceType, sub: str | None) -> tuple[str, str, str]:
    """(group, version, kind) of what a request body holds: the kind, or a subresource's own type."""
    subresource = rt.subresource(sub) if sub else None
    if subresource is None or subresource.kind is None:
        return rt.group, rt.version, rt.kind
    group = subresource.group if subresource.group is not None else rt.group
    return group, subresource.version or rt.version, subresource.kind


def _decode_checked(rt: ResourceType, sub: str | None = None) -> tuple[object, list[str]]:
    """The request body with fieldValidation applied: errors raise, unknown fields are dropped,
    Warn's findings are returned as warnings."""
    mode = fieldvalidation.directive(request.args.get("fieldValidation"))
    body = read_body(request)
    svc = services()
    group, version, kind = _view_type(rt, sub)
    obj = decode_object(request, body, kind, version, svc.naming)
    schema = svc.registry.schema(rt, rt.subresource(sub) if sub else None)
    checked = fieldvalidation.check_object(schema, obj, body, body_media_type(request))
    if sub in (None, "status") and isinstance(checked.obj, dict):  # the kind itself, not a view of another
        checked.findings.extend(fieldvalidation.unknown(path) for path in rt.strategy.unknown_fields(checked.obj))
    return checked.obj, fieldvalidation.enforce(mode, checked, kind, group, version, fieldvalidation.object_name(obj))


@dataclasses.dataclass
class _PatchCheck:
    """fieldValidation of a PATCH, run by the store's update loop on the object each try patches (a check on an
    older copy would refuse a patch that applies to the current object). `warnings`: those of the last try."""

    rt: ResourceType
    sub: str | None
    patch_type: str
    body: bytes
    mode: str
    name: str
    warnings: list[str] = dataclasses.field(default_factory=list)

    def __call__(self, current: dict) -> bytes:
        """The body to apply to `current` (without unknown fields); raises what fieldValidation refuses."""
        schema = services().registry.schema(self.rt, self.rt.subresource(self.sub) if self.sub else None)
        group, version, kind = _view_type(self.rt, self.sub)
        if schema is None:  # no declaration: the kind's strategy says what is unknown (a custom kind's CRD schema)
            self.warnings = fieldvalidation.check_schemaless_patch(
                self.mode,
                self.rt.strategy.unknown_fields,
                self.patch_type,
                self.body,
                current,
                kind,
                group,
                version,
                self.name,
            )
            return self.body
        body, self.warnings = fieldvalidation.check_patch(
            self.mode, schema, self.patch_type, self.body, current, kind, group, version, self.name
        )
        return body


def _patch_check(rt: ResourceType, sub: str | None, name: str, patch_type: str) -> _PatchCheck | None:
    """The check of this PATCH request's body, or None where nothing is declared to check it against."""
    mode = fieldvalidation.directive(request.args.get("fieldValidation"))
    body = read_body(request)
    if sub not in (None, "status") and services().registry.schema(rt, rt.subresource(sub) if sub else None) is None:
        return None
    return _PatchCheck(rt, sub, patch_type, body, mode, name)


def _sub_view(rt: ResourceType, sub: str | None, obj: dict) -> dict:
    subresource = rt.subresource(sub) if sub else None
    if subresource is not None and subresource.view is not None:
        return subresource.view(obj)
    return obj


def _require_verb(rt: ResourceType, verb: str, sub: str | None = None) -> None:
    view = rt.subresource(sub) if sub else None
    verbs = view.verbs if view is not None else () if sub else rt.verbs
    if verb not in verbs:
        raise MethodNotAllowed()


def _delete_options() -> DeleteOptions:
    body = read_body(request)
    parsed = None
    if body.strip():
        try:
            parsed = orjson.loads(body)
        except orjson.JSONDecodeError as exc:
            raise BadRequest(f"error decoding DeleteOptions: {exc}") from None
        if not isinstance(parsed, dict):
            raise BadRequest("DeleteOptions must be a JSON object")
        from ..schema import meta

        fieldvalidation.check_options(meta.DeleteOptions, parsed)
    return DeleteOptions.parse(parsed, request.args, parse_dry_run(request.args), services().naming.meta_group)


def _negotiate(rt: ResourceType, *, table: bool = False, sub: str | None = None, watch: bool = False) -> Representation:
    """Protobuf only where the kind has a typed schema; Table only for the kind itself (not scale)."""
    from ..schema import protobuf_available

    naming = services().naming
    view = rt.subresource(sub) if sub else None
    view_kind = (view.kind if view is not None else None) or rt.kind
    view_group = view.group if view is not None else None
    api_version = rt.group_version if view is None or view_group is None else f"{view_group}/{view.version}"
    return negotiate(
        request.headers.get("Accept"),
        naming,
        table=table and view_kind == rt.kind,
        protobuf=protobuf_available(api_version, view_kind, naming),
        watch=watch,
        pretty=wants_pretty(),
    )


def _response(body: bytes | list[bytes], code: int, rep: Representation) -> Response:
    return Response(body, status=code, headers={"Content-Type": rep.media_type})


def _render(rt: ResourceType, obj: dict, code: int, rep: Representation, warnings: list[str] | None = None) -> Response:
    naming = services().naming
    include = parse_include_object(request.args.get("includeObject")) if rep.table_version else "Metadata"
    resp = _response(object_body(rep, naming, rt, obj, include), code, rep)
    for text in warnings or ():
        resp.headers.add("Warning", fieldvalidation.warning_header(text))
    return resp


def _render_list(rt: ResourceType, result: ListResult, rep: Representation) -> Response:
    list_meta: dict = {"resourceVersion": str(result.revision)}
    if result.continue_token:
        list_meta["continue"] = result.continue_token
        if result.remaining is not None and features.enabled("RemainingItemCount"):
            list_meta["remainingItemCount"] = result.remaining
    include = parse_include_object(request.args.get("includeObject")) if rep.table_version else "Metadata"
    return _response(list_body(rep, services().naming, rt, list_meta, result.items, include), 200, rep)


def _watch(rt: ResourceType, namespace: str | None, opts: ListOptions) -> Response:
    _require_verb(rt, "watch")
    rep = _negotiate(rt, table=True, watch=True)
    svc = services()
    include = parse_include_object(request.args.get("includeObject")) if rep.table_version else "Metadata"
    framer = WatchFramer(rep, svc.naming, rt, include)
    watch = svc.registry.watch(rt, namespace, opts, socket_closed_check(request.environ.get("gunicorn.socket")))
    watch = cut_watch(watch, request.environ.get(WATCH_CUT_KEY))  # a Fault's watch action (app/faults)
    detach = request.environ.get(DETACH_KEY)
    fanout = current_app.extensions.get("orch.fanout") if detach is not None else None
    counter = current_app.extensions.get("orch.watch_event_counter")
    framing = Framing(framer, counter(rt) if counter is not None else None, framer.shared_key)
    environ = request.environ
    opened = watch.open()  # before the status line: a store failure is still a 503 Status
    body = framed(watch, opened, framing, fanout, detach, lambda: take_stream_end(environ))
    resp = Response(stream_with_context(body), status=200, headers={"Content-Type": framer.content_type})
    resp.call_on_close(watch.close_unless_detached)  # also when the body is never read (the client left)
    resp.headers["Cache-Control"] = "no-cache, private"
    resp.headers["X-Accel-Buffering"] = "no"  # nginx passes each event on even with its default proxy_buffering
    return resp


def _watch_one(rt: ResourceType, namespace: str | None, name: str) -> Response:
    args = request.args.to_dict()
    selector = args.get("fieldSelector", "")
    wanted = f"metadata.name={name}"
    if selector and selector != wanted:
        raise BadRequest("fieldSelector metadata.name doesn't match requested name")
    args["fieldSelector"] = wanted
    return _watch(rt, namespace, ListOptions.from_query(args))


def _manager() -> str:
    """fieldManager, else derived from the User-Agent as the reference does; 422 when malformed."""
    from ..apply import default_manager, validate_field_manager

    name = request.args.get("fieldManager")
    if name is None:
        return default_manager(request.headers.get("User-Agent", ""))
    errors = validate_field_manager(name)
    if errors:
        raise Invalid("PatchOptions", services().naming.meta_group, "", errors)
    return name


def _apply(rt: ResourceType, ns: str | None, name: str, sub: str | None, rep: Representation) -> Response:
    """PATCH with application/apply-patch+yaml: server-side apply (YAML or JSON body)."""
    import yaml

    from . import yamldoc

    _require_verb(rt, "patch", sub)
    if not request.args.get("fieldManager"):
        raise BadRequest("PatchOptions is invalid: fieldManager: Required value: is required for apply patch")
    manager = _manager()
    try:
        applied = yamldoc.load(read_body(request), float64=True)  # sigs.k8s.io/yaml.Unmarshal into a map
    except yaml.YAMLError as exc:
        raise BadRequest(f"error decoding YAML: {exc}") from None
    result, created = services().registry.apply(
        rt, ns, name, applied, manager, parse_bool(request.args.get("force")), sub, parse_dry_run(request.args)
    )
    return _render(rt, result, 201 if created else 200, rep)
