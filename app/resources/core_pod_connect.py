"""The pod subresources the API server proxies to the pod's node agent: `pods/log` (`kubectl logs`), with the
reference's container choice, its messages and its query options."""

from __future__ import annotations

from collections.abc import Mapping

from ..catalog import NodeCall, Obj, Subresource, proxy_subresource
from ..errors import BadRequest, FieldError, Invalid, forbidden, invalid

BOOL_OPTIONS = ("follow", "previous", "timestamps", "insecureSkipTLSVerifyBackend")
#: option -> the least value it takes (the reference's PodLogOptions validation)
INT_OPTIONS = {"sinceSeconds": 1, "tailLines": 0, "limitBytes": 1}


def _names(spec: Obj, key: str) -> list[str]:
    return [str(c.get("name", "")) for c in spec.get(key) or [] if isinstance(c, dict)]


def choose_container(pod: Obj, wanted: str) -> str:
    """The container whose log is asked for: the one named, or the pod's only one."""
    name = str((pod.get("metadata") or {}).get("name", ""))
    spec = pod.get("spec") or {}
    containers, inits = _names(spec, "containers"), _names(spec, "initContainers")
    if wanted:
        if wanted not in (*containers, *inits, *_names(spec, "ephemeralContainers")):
            raise BadRequest(f"container {wanted} is not valid for pod {name}")
        return wanted
    if len(containers) == 1:
        return containers[0]
    if not containers:
        raise BadRequest(f"no containers were found in pod {name}")
    message = f"a container name must be specified for pod {name}, choose one of: [{' '.join(containers)}]"
    if inits:
        message += f" or one of the init containers: [{' '.join(inits)}]"
    raise BadRequest(message)


def log_options(query: Mapping[str, str], pod_name: str) -> tuple[tuple[str, str], ...]:
    """The node agent's query from the client's: booleans and bounded integers checked, as the reference."""
    out: list[tuple[str, str]] = []
    errors: list[FieldError] = []
    for key in BOOL_OPTIONS:
        if key in query:
            value = query[key].lower()
            if value not in ("true", "false", "1", "0", ""):
                raise BadRequest(f'strconv.ParseBool: parsing "{query[key]}": invalid syntax')
            if value in ("true", "1", ""):
                out.append((key, "true"))
    for key, least in INT_OPTIONS.items():
        if key in query:
            try:
                number = int(query[key])
            except ValueError:
                raise BadRequest(f'strconv.ParseInt: parsing "{query[key]}": invalid syntax') from None
            if number < least:
                errors.append(
                    invalid(
                        key, number, "must be greater than or equal to 0" if least == 0 else "must be greater than 0"
                    )
                )
            out.append((key, str(number)))
    if "sinceTime" in query:
        if "sinceSeconds" in query:
            errors.append(forbidden("", "at most one of `sinceTime` or `sinceSeconds` may be specified"))
        out.append(("sinceTime", query["sinceTime"]))
    if errors:
        raise Invalid("PodLogOptions", "", pod_name, errors)
    return tuple(out)


def pod_log_location(pod: Obj, query: Mapping[str, str]) -> NodeCall | None:
    """Where the node agent serves the log; None for a pod not on a node yet (an empty log, as the reference)."""
    container = choose_container(pod, query.get("container", ""))
    options = log_options(query, str((pod.get("metadata") or {}).get("name", "")))
    node = str((pod.get("spec") or {}).get("nodeName") or "")
    if not node:
        return None
    metadata = pod.get("metadata") or {}
    return NodeCall(
        node, f"/containerLogs/{metadata.get('namespace', '')}/{metadata.get('name', '')}/{container}", options
    )


def _streams(query: Mapping[str, str]) -> tuple[tuple[str, str], ...]:
    """The client's stdin/stdout/stderr/tty flags as the node agent names them (input, output, error, tty)."""
    wanted = {key: str(query.get(key, "")).lower() in ("true", "1") for key in ("stdin", "stdout", "stderr", "tty")}
    if not (wanted["stdin"] or wanted["stdout"] or wanted["stderr"]):
        raise BadRequest("you must specify at least 1 of stdin, stdout, stderr")
    names = {"stdin": "input", "stdout": "output", "stderr": "error", "tty": "tty"}
    return tuple((names[key], "1") for key, on in wanted.items() if on)


def _node_of(pod: Obj) -> str:
    """The pod's node; a pod not on one yet has nothing to connect to (the reference's 400)."""
    node = str((pod.get("spec") or {}).get("nodeName") or "")
    if not node:
        raise BadRequest(f"pod {(pod.get('metadata') or {}).get('name', '')} does not have a host assigned")
    return node


def _where(pod: Obj) -> str:
    metadata = pod.get("metadata") or {}
    return f"{metadata.get('namespace', '')}/{metadata.get('name', '')}"


def pod_exec_location(pod: Obj, query: Mapping[str, str]) -> NodeCall | None:
    container = choose_container(pod, query.get("container", ""))
    commands = list(getattr(query, "getlist", lambda _key: [query.get("command")])("command"))
    if not [c for c in commands if c]:
        raise BadRequest("you must specify at least one command for the container")
    return NodeCall(
        _node_of(pod), f"/exec/{_where(pod)}/{container}", (*(("command", str(c)) for c in commands), *_streams(query))
    )


def pod_attach_location(pod: Obj, query: Mapping[str, str]) -> NodeCall | None:
    container = choose_container(pod, query.get("container", ""))
    return NodeCall(_node_of(pod), f"/attach/{_where(pod)}/{container}", _streams(query))


def pod_portforward_location(pod: Obj, query: Mapping[str, str]) -> NodeCall | None:
    ports = list(getattr(query, "getlist", lambda _key: [])("ports"))
    return NodeCall(_node_of(pod), f"/portForward/{_where(pod)}", tuple(("port", str(p)) for p in ports))


def pod_connect_subresources() -> tuple[Subresource, ...]:
    upgrades = (
        ("exec", "PodExecOptions", pod_exec_location),
        ("attach", "PodAttachOptions", pod_attach_location),
        ("portforward", "PodPortForwardOptions", pod_portforward_location),
    )
    return (
        Subresource("log", verbs=("get",), connect=pod_log_location),
        *(
            Subresource(name, verbs=("create", "get"), kind=kind, connect=where, upgrade=True)
            for name, kind, where in upgrades
        ),
        proxy_subresource("pod", "PodProxyOptions"),
    )
