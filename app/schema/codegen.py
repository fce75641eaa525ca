"""Development tool: write the declaration modules (core.py, apps.py, ...) from the reference's API types.

Only facts are taken from the reference: field names and numbers, value types and the `+listType`-style
markers from `generated.proto`, and Go pointer-ness plus json tags (`omitempty`, inline) from the Go
struct definitions. Comments and code are not copied. Not imported by the server, and it imports nothing
from the app, so it runs even while the declaration modules are broken:

    python app/schema/codegen.py --api <kubernetes/api git dir> \
        --apimachinery <kubernetes/apimachinery git dir> --ref v0.36.3

Each module names its served group as GROUP (a prefix such as `coordination` when GROUP_IN_DOMAIN, to be
spelled through Naming.group by the registry) and VERSION; the output is deterministic. A Go named slice
type (`type ExtraValue []string`, a message {1: repeated item} in generated.proto) is written as
`ListOf(item, wrapped=True)` rather than as a struct.

A group's stable version is the module named after the group (`policy`); every older served version is
a module of its own named `<group module>_<version>` (`policy_v1beta1`, package `policy/v1beta1`). A
package the reference has deleted by `--ref` (autoscaling v2beta1/v2beta2) is read at the newest tag that
still holds it (PACKAGE_REFS).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

# proto package -> (our module, git repo key, directory holding generated.proto and the Go types)
PACKAGES: dict[str, tuple[str, str, str]] = {
    "k8s.io.apimachinery.pkg.apis.meta.v1": ("meta", "apimachinery", "pkg/apis/meta/v1"),
    "k8s.io.api.core.v1": ("core", "api", "core/v1"),
    "k8s.io.api.apps.v1": ("apps", "api", "apps/v1"),
    "k8s.io.api.batch.v1": ("batch", "api", "batch/v1"),
    "k8s.io.api.policy.v1": ("policy", "api", "policy/v1"),
    "k8s.io.api.autoscaling.v1": ("autoscaling", "api", "autoscaling/v1"),
    "k8s.io.api.coordination.v1": ("coordination", "api", "coordination/v1"),
    "k8s.io.api.events.v1": ("events", "api", "events/v1"),
    "k8s.io.api.certificates.v1": ("certificates", "api", "certificates/v1"),
    "k8s.io.api.rbac.v1": ("rbac", "api", "rbac/v1"),
    "k8s.io.api.networking.v1": ("networking", "api", "networking/v1"),
    "k8s.io.api.discovery.v1": ("discovery", "api", "discovery/v1"),
    "k8s.io.api.scheduling.v1": ("scheduling", "api", "scheduling/v1"),
    "k8s.io.api.storage.v1": ("storage", "api", "storage/v1"),
    "k8s.io.api.node.v1": ("node", "api", "node/v1"),
    "k8s.io.api.authentication.v1": ("authentication", "api", "authentication/v1"),
    "k8s.io.api.authorization.v1": ("authorization", "api", "authorization/v1"),
    "k8s.io.api.flowcontrol.v1": ("flowcontrol", "api", "flowcontrol/v1"),
    "k8s.io.api.admissionregistration.v1": ("admissionregistration", "api", "admissionregistration/v1"),
    # Older served versions: one module per (group, version), named `<group module>_<version>`.
    "k8s.io.api.policy.v1beta1": ("policy_v1beta1", "api", "policy/v1beta1"),
    "k8s.io.api.events.v1beta1": ("events_v1beta1", "api", "events/v1beta1"),
    "k8s.io.api.batch.v1beta1": ("batch_v1beta1", "api", "batch/v1beta1"),
    "k8s.io.api.autoscaling.v2": ("autoscaling_v2", "api", "autoscaling/v2"),
    "k8s.io.api.autoscaling.v2beta1": ("autoscaling_v2beta1", "api", "autoscaling/v2beta1"),
    "k8s.io.api.autoscaling.v2beta2": ("autoscaling_v2beta2", "api", "autoscaling/v2beta2"),
    "k8s.io.api.discovery.v1beta1": ("discovery_v1beta1", "api", "discovery/v1beta1"),
    "k8s.io.api.node.v1beta1": ("node_v1beta1", "api", "node/v1beta1"),
    "k8s.io.api.flowcontrol.v1beta1": ("flowcontrol_v1beta1", "api", "flowcontrol/v1beta1"),
    "k8s.io.api.flowcontrol.v1beta2": ("flowcontrol_v1beta2", "api", "flowcontrol/v1beta2"),
    "k8s.io.api.storage.v1beta1": ("storage_v1beta1", "api", "storage/v1beta1"),
}
# Packages the reference deleted before --ref: read at the newest tag that still has them.
PACKAGE_REFS: dict[str, str] = {
    "k8s.io.api.policy.v1beta1": "v0.24.9",  # the last to hold PodSecurityPolicy (removed in v1.25)
    "k8s.io.api.autoscaling.v2beta1": "v0.35.7",
    "k8s.io.api.autoscaling.v2beta2": "v0.35.7",
    # webhook configurations as a v1.23 server has them (matchConditions came later)
    "k8s.io.api.admissionregistration.v1": "v0.23.17",
}
PACKAGE_OF = {module: package for package, (module, _, _) in PACKAGES.items()}
# module -> (served group, whether that group lives under the API domain, version). A group under the
# domain is written as its prefix only (`coordination`); the server serves it as Naming.group(prefix).
GROUPS: dict[str, tuple[str, bool, str]] = {
    "meta": ("", False, "v1"),
    "core": ("", False, "v1"),
    "apps": ("apps", False, "v1"),
    "batch": ("batch", False, "v1"),
    "policy": ("policy", False, "v1"),
    "autoscaling": ("autoscaling", False, "v1"),
    "coordination": ("coordination", True, "v1"),
    "events": ("events", True, "v1"),
    "certificates": ("certificates", True, "v1"),
    "rbac": ("rbac.authorization", True, "v1"),
    "networking": ("networking", True, "v1"),
    "discovery": ("discovery", True, "v1"),
    "scheduling": ("scheduling", True, "v1"),
    "storage": ("storage", True, "v1"),
    "node": ("node", True, "v1"),
    "authentication": ("authentication", True, "v1"),
    "authorization": ("authorization", True, "v1"),
    "flowcontrol": ("flowcontrol.apiserver", True, "v1"),
    "admissionregistration": ("admissionregistration", True, "v1"),
    "policy_v1beta1": ("policy", False, "v1beta1"),
    "events_v1beta1": ("events", True, "v1beta1"),
    "batch_v1beta1": ("batch", False, "v1beta1"),
    "autoscaling_v2": ("autoscaling", False, "v2"),
    "autoscaling_v2beta1": ("autoscaling", False, "v2beta1"),
    "autoscaling_v2beta2": ("autoscaling", False, "v2beta2"),
    "discovery_v1beta1": ("discovery", True, "v1beta1"),
    "node_v1beta1": ("node", True, "v1beta1"),
    "flowcontrol_v1beta1": ("flowcontrol.apiserver", True, "v1beta1"),
    "flowcontrol_v1beta2": ("flowcontrol.apiserver", True, "v1beta2"),
    "storage_v1beta1": ("storage", True, "v1beta1"),
}

# Top-level kinds to declare (their `<Kind>List` is added when the reference has one).
ROOTS: dict[str, tuple[str, ...]] = {
    "meta": ("Status", "DeleteOptions", "WatchEvent"),
    "core": (
        "Namespace",
        "ConfigMap",
        "Secret",
        "ServiceAccount",
        "Service",
        "ResourceQuota",
        "Pod",
        "PodTemplate",
        "Endpoints",
        "Event",
        "LimitRange",
        "ReplicationController",
        "PersistentVolumeClaim",
        "PersistentVolume",
        "Node",
        "ComponentStatus",
        "Binding",
    ),
    "apps": ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "ControllerRevision"),
    "batch": ("Job", "CronJob"),
    "policy": ("PodDisruptionBudget", "Eviction"),
    "autoscaling": ("Scale", "HorizontalPodAutoscaler"),
    "coordination": ("Lease",),
    "events": ("Event",),
    "certificates": ("CertificateSigningRequest",),
    "rbac": ("Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"),
    "networking": ("Ingress", "NetworkPolicy", "IngressClass"),
    "discovery": ("EndpointSlice",),
    "scheduling": ("PriorityClass",),
    "storage": ("StorageClass", "CSIDriver", "CSINode", "VolumeAttachment"),
    "node": ("RuntimeClass",),
    "authentication": ("TokenReview", "SelfSubjectReview", "TokenRequest"),
    "authorization": (
        "SubjectAccessReview",
        "SelfSubjectAccessReview",
        "LocalSubjectAccessReview",
        "SelfSubjectRulesReview",
    ),
    "flowcontrol": ("FlowSchema", "PriorityLevelConfiguration"),
    "admissionregistration": ("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"),
    "policy_v1beta1": ("PodDisruptionBudget", "Eviction", "PodSecurityPolicy"),
    "events_v1beta1": ("Event",),
    "batch_v1beta1": ("CronJob",),
    "autoscaling_v2": ("HorizontalPodAutoscaler",),
    "autoscaling_v2beta1": ("HorizontalPodAutoscaler",),
    "autoscaling_v2beta2": ("HorizontalPodAutoscaler",),
    "discovery_v1beta1": ("EndpointSlice",),
    "node_v1beta1": ("RuntimeClass",),
    "flowcontrol_v1beta1": ("FlowSchema", "PriorityLevelConfiguration"),
    "flowcontrol_v1beta2": ("FlowSchema", "PriorityLevelConfiguration"),
    "storage_v1beta1": ("CSIStorageCapacity",),
}
# A large package is written as several modules: a message goes to the first one whose roots reach it.
Segments = dict[str, tuple[tuple[str, tuple[str, ...]], ...]]  # package -> ((module, roots), ...)
SEGMENTS: Segments = {
    "core": (
        ("core_volume", ("Volume", "PersistentVolumeSpec", "PersistentVolumeClaimSpec")),
        ("core_pod", ("PodSpec",)),
    )
}
UNLISTED = {"Status", "DeleteOptions", "WatchEvent", "Binding", "Eviction", "Scale"}

# Messages with their own JSON form become scalars of the DSL.
SPECIAL = {
    ".k8s.io.apimachinery.pkg.apis.meta.v1.Time": "TIME",
    ".k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime": "MICRO_TIME",
    ".k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1": "FIELDS_V1",
    ".k8s.io.apimachinery.pkg.api.resource.Quantity": "QUANTITY",
    ".k8s.io.apimachinery.pkg.util.intstr.IntOrString": "INT_OR_STRING",
    ".k8s.io.apimachinery.pkg.runtime.RawExtension": "RAW_EXTENSION",
}
PROTO_SCALARS = {
    "string": "STRING",
    "int32": "INT32",
    "int64": "INT64",
    "bool": "BOOL",
    "bytes": "BYTES",
    "double": "DOUBLE",
}
# WatchEvent.object holds a whole envelope-encoded object, not JSON bytes.
OVERRIDES = {("meta", "WatchEvent", "object"): "OBJECT"}


@dataclass
class ProtoField:
    label: str  # optional | repeated | map
    type: str
    name: str
    number: int
    markers: dict[str, list[str]]
    key_type: str = ""


@dataclass
class ProtoMessage:
    name: str
    fields: list[ProtoField]
    markers: dict[str, list[str]]


@dataclass
class GoField:
    go_type: str
    json_name: str
    omitempty: bool
    omitzero: bool
    inline: bool


@dataclass
class GoStruct:
    type_meta: bool = False
    fields: dict[int, GoField] = field(default_factory=dict)
    slice_of: str = ""  # a named slice type (`type ExtraValue []string`): its element type


MARKER = re.compile(r"^\s*//\s*\+([A-Za-z][\w.]*)(?:=(.*))?$")
PROTO_FIELD = re.compile(r"^\s*(optional|repeated)\s+(\S+)\s+(\w+)\s*=\s*(\d+);")
PROTO_MAP = re.compile(r"^\s*map<\s*(\S+)\s*,\s*(\S+)\s*>\s+(\w+)\s*=\s*(\d+);")
TAG = re.compile(r'(\w+):"([^"]*)"')


def _marker(line: str, into: dict[str, list[str]]) -> None:
    m = MARKER.match(line)
    if m:
        into.setdefault(m.group(1), []).append((m.group(2) or "").strip())


def parse_proto(text: str) -> dict[str, ProtoMessage]:
    messages: dict[str, ProtoMessage] = {}
    pending: dict[str, list[str]] = {}
    current: ProtoMessage | None = None
    for line in text.splitlines():
        if line.lstrip().startswith("//"):
            _marker(line, pending)
            continue
        if current is None:
            m = re.match(r"^message (\w+) \{", line)
            if m:
                current = ProtoMessage(m.group(1), [], pending)
            pending = {}
            continue
        if line.startswith("}"):
            messages[current.name] = current
            current, pending = None, {}
            continue
        if m := PROTO_MAP.match(line):
            current.fields.append(ProtoField("map", m.group(2), m.group(3), int(m.group(4)), pending, m.group(1)))
        elif m := PROTO_FIELD.match(line):
            current.fields.append(ProtoField(m.group(1), m.group(2), m.group(3), int(m.group(4)), pending))
        elif line.strip():
            raise SystemExit(f"unparsed proto line in {current.name}: {line!r}")
        pending = {}
    return messages


def parse_go(text: str) -> dict[str, GoStruct]:
    structs: dict[str, GoStruct] = {}
    current: GoStruct | None = None
    for line in text.splitlines():
        if current is None:
            m = re.match(r"^type (\w+) struct \{", line)
            if m:
                current = structs.setdefault(m.group(1), GoStruct())
            elif m := re.match(r"^type (\w+) \[\](\S+)\s*$", line):
                structs.setdefault(m.group(1), GoStruct()).slice_of = m.group(2)
            continue
        if line.startswith("}"):
            current = None
            continue
        stripped = line.strip()
        if stripped.startswith("//") or "`" not in stripped:
            continue
        decl, tags_text = stripped.split("`", 1)
        tags = dict(TAG.findall(tags_text))
        parts = decl.split()
        if tags.get("protobuf", "-") == "-":
            if parts and parts[-1].endswith("TypeMeta"):
                current.type_meta = True
            continue
        json_tag = tags.get("json", "").split(",")
        embedded = len(parts) == 1
        current.fields[int(tags["protobuf"].split(",")[1])] = GoField(
            go_type=parts[-1],
            json_name=json_tag[0],
            omitempty="omitempty" in json_tag[1:],
            omitzero="omitzero" in json_tag[1:],
            inline=embedded and json_tag[0] == "",
        )
    return structs


def _git(git_dir: Path, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True, text=True).stdout


def schema_package(module: str) -> str:
    """The package named in our declarations (`Struct.package`): `<group module>/<version>`."""
    version = GROUPS[module][2]
    return f"{module.removesuffix(f'_{version}')}/{version}"


Protos = dict[str, dict[str, ProtoMessage]]  # module -> message name -> message
Gos = dict[str, dict[str, GoStruct]]  # module -> Go struct name -> struct


def package_ref(module: str, ref: str) -> str:
    """The reference tag a module's package is read at (`ref`, unless the package was deleted by then)."""
    return PACKAGE_REFS.get(PACKAGE_OF[module], ref)


def source_module(out_module: str) -> str:
    """The package module an output module was written from (itself, or the package of a segment)."""
    for module, segments in SEGMENTS.items():
        if any(out_module == name for name, _ in segments):
            return module
    return out_module


def load(git_dirs: dict[str, Path], ref: str) -> tuple[Protos, Gos]:
    protos: Protos = {}
    gos: Gos = {}
    for module, repo, directory in PACKAGES.values():
        git_dir = git_dirs[repo]
        at = package_ref(module, ref)
        protos[module] = parse_proto(_git(git_dir, "show", f"{at}:{directory}/generated.proto"))
        gos[module] = {}
        for path in _git(git_dir, "ls-tree", "--name-only", f"{at}:{directory}").split():
            if path.endswith(".go") and not path.endswith("_test.go") and not path.startswith("zz_"):
                gos[module].update(parse_go(_git(git_dir, "show", f"{at}:{directory}/{path}")))
    return protos, gos


def _q(value: str) -> str:
    return json.dumps(value)


def _wrap(head: str, args: list[str], tail: str, indent: str) -> list[str]:
    """`head(args)tail` on one line, or the args packed onto continuation lines (max 110 columns)."""
    one = f"{indent}{head}{', '.join(args)}{tail}"
    if len(one) <= 110:
        return [one]
    lines, current = [f"{indent}{head}"], indent + "    "
    for arg in args:
        piece = f"{arg},"
        if current.strip() and len(current) + 1 + len(piece) > 110:
            lines.append(current.rstrip())
            current = indent + "    "
        current += ("" if not current.strip() else " ") + piece
    lines.append(current.rstrip())
    lines.append(f"{indent}{tail.lstrip(',') if tail.startswith(')') else tail}")
    return lines


class Emitter:
    def __init__(self, protos: Protos, gos: Gos, segments: Segments | None = None) -> None:
        self.protos = protos
        self.gos = gos
        self.segments = SEGMENTS if segments is None else segments
        self.order: list[tuple[str, str]] = []
        self.done: set[tuple[str, str]] = set()
        self.active: set[tuple[str, str]] = set()
        self.home: dict[tuple[str, str], str] = {}  # message -> output module

    def resolve(self, module: str, proto_type: str) -> tuple[str, str] | str:
        """A proto type name -> a DSL scalar name or (module, message)."""
        if proto_type in PROTO_SCALARS:
            return PROTO_SCALARS[proto_type]
        if proto_type.startswith("k8s.io."):  # older generated.proto files name other packages without the dot
            proto_type = "." + proto_type
        elif not proto_type.startswith("."):
            proto_type = f".{PACKAGE_OF[module]}.{proto_type}"
        if proto_type in SPECIAL:
            return SPECIAL[proto_type]
        package, _, name = proto_type[1:].rpartition(".")
        if package not in PACKAGES:
            raise SystemExit(f"type {proto_type} is outside the generated packages")
        return PACKAGES[package][0], name

    def wrapped_item(self, key: tuple[str, str]) -> str | None:
        """The proto item type of a message that is a Go named slice ({1: repeated item}), else None."""
        module, name = key
        go = self.gos[module].get(name)
        fields = self.protos[module][name].fields
        if go is None or not go.slice_of:
            return None
        if len(fields) != 1 or fields[0].label != "repeated" or fields[0].number != 1:
            raise SystemExit(f"named slice {module}.{name} is not a message {{1: repeated item}}")
        return fields[0].type

    def refs(self, module: str, name: str) -> list[tuple[str, str]]:
        out = []
        for f in self.protos[module][name].fields:
            if (module, name, f.name) not in OVERRIDES:
                target = self.resolve(module, f.type)
                if isinstance(target, tuple):
                    out.append(target)
        return out

    def visit(self, module: str, name: str) -> None:
        key = (module, name)
        if key in self.done:
            return
        if key in self.active:
            raise SystemExit(f"recursive type {module}.{name}: declare it by hand")
        self.active.add(key)
        for target in self.refs(module, name):
            self.visit(*target)
        self.active.discard(key)
        self.done.add(key)
        if self.wrapped_item(key) is None:
            self.order.append(key)

    def closure(self, root: tuple[str, str]) -> set[tuple[str, str]]:
        seen: set[tuple[str, str]] = set()
        stack = [root]
        while stack:
            key = stack.pop()
            if key not in seen:
                seen.add(key)
                stack.extend(self.refs(*key))
        return seen

    def assign_homes(self) -> None:
        for key in self.order:
            self.home[key] = key[0]
        for module, segments in self.segments.items():
            for out_module, roots in reversed(segments):  # earlier segments win
                for root in roots:
                    for key in self.closure((module, root)):
                        if key[0] == module:
                            self.home[key] = out_module

    def type_expr(self, out_module: str, target: tuple[str, str] | str) -> str:
        if isinstance(target, str):
            return target
        item = self.wrapped_item(target)
        if item is not None:  # JSON: a plain array; protobuf: a message around the repeated items
            return f"ListOf({self.type_expr(out_module, self.resolve(target[0], item))}, wrapped=True)"
        other = self.home[target]
        return target[1] if other == out_module else f"{other}.{target[1]}"

    def field_lines(self, out_module: str, module: str, message: str, f: ProtoField) -> list[str]:
        go_struct = self.gos[module].get(message)
        if go_struct is None or f.number not in go_struct.fields:
            raise SystemExit(f"no Go field for {module}.{message}.{f.name} ({f.number})")
        go = go_struct.fields[f.number]
        target = OVERRIDES.get((module, message, f.name)) or self.resolve(module, f.type)
        expr = self.type_expr(out_module, target)
        if f.label == "repeated":
            expr = f"ListOf({expr})"
        elif f.label == "map":
            if f.key_type != "string":
                raise SystemExit(f"non-string map key in {module}.{message}.{f.name}")
            expr = f"MapOf({expr})"
        json_name = f.name if go.inline else go.json_name
        args = [_q(json_name), str(f.number), expr]
        marks = f.markers
        if f.label == "optional" and (go.go_type.startswith("*") or target == "BYTES"):
            args.append("nullable=True")
        if not go.omitempty and not go.inline:
            args.append("omitempty=False")
        if go.omitzero:
            args.append("omitzero=True")
        if go.inline:
            args.append("inline=True")
        if "required" in marks or (not go.omitempty and not go.inline and "optional" not in marks):
            args.append("required=True")
        if "listType" in marks:
            args.append(f"list_type={_q(marks['listType'][0])}")
        if "listMapKey" in marks:
            keys = [_q(k) for k in marks["listMapKey"]]
            args.append(f"list_map_keys=({', '.join(keys)}{',' if len(keys) == 1 else ''})")
        if "mapType" in marks:
            args.append(f"map_type={_q(marks['mapType'][0])}")
        if "patchStrategy" in marks:
            args.append(f"patch_strategy={_q(marks['patchStrategy'][0])}")
        if "patchMergeKey" in marks:
            args.append(f"patch_merge_key={_q(marks['patchMergeKey'][0])}")
        return _wrap("Field(", args, "),", "    ")

    def struct_block(self, out_module: str, key: tuple[str, str]) -> list[str]:
        module, name = key
        message = self.protos[module][name]
        extra = ""
        if self.gos[module].get(name, GoStruct()).type_meta:
            extra += ", kind=True"
        if "structType" in message.markers:
            extra += f", struct_type={_q(message.markers['structType'][0])}"
        lines = [f"{name} = Struct(_PKG, {_q(name)}, ["]
        for f in message.fields:
            lines += self.field_lines(out_module, module, name, f)
        lines.append(f"]{extra})")
        return lines

    def module_text(self, out_module: str, header: str) -> str:
        keys = [k for k in self.order if self.home[k] == out_module]
        module = keys[0][0]
        kinds = [k[1] for k in keys if self.gos[module].get(k[1], GoStruct()).type_meta]
        body: list[str] = []
        for key in keys:
            body += self.struct_block(out_module, key)
            body.append("")
        text = "\n".join(body)
        names = {"Field", "Struct"}
        for token in ("ListOf", "MapOf", *PROTO_SCALARS.values(), *SPECIAL.values(), "OBJECT"):
            if re.search(rf"\b{token}\b", text):
                names.add(token)
        names_sorted = sorted(names, key=lambda s: (not s.isupper(), s))
        others = sorted({m for m in set(self.home.values()) if m != out_module and re.search(rf"\b{m}\.[A-Z]", text)})
        out = [f'"""{header}"""', "from __future__ import annotations", ""]
        if others:
            out.append(f"from . import {', '.join(others)}")
        single = f"from .types import {', '.join(names_sorted)}"
        if len(single) <= 88:
            out.append(single)
        else:
            out += ["from .types import (", *(f"    {n}," for n in names_sorted), ")"]
        group, in_domain, version = GROUPS[module]
        out += [
            "",
            f"_PKG = {_q(schema_package(module))}",
            '# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).',
            f"GROUP = {_q(group)}",
            f"GROUP_IN_DOMAIN = {in_domain}",
            f"VERSION = {_q(version)}",
            "",
            "",
        ]
        out.append(text.rstrip())
        out += [
            "",
            "",
            "# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).",
            "KINDS: dict[str, Struct] = {",
        ]
        out += [f"    {_q(k)}: {k}," for k in kinds]
        out += ["}", ""]
        return "\n".join(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api", type=Path, required=True)
    parser.add_argument("--apimachinery", type=Path, required=True)
    parser.add_argument("--ref", default="v0.36.3")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent)
    args = parser.parse_args()
    protos, gos = load({"api": args.api, "apimachinery": args.apimachinery}, args.ref)
    emitter = Emitter(protos, gos)
    for module, kinds in ROOTS.items():
        for kind in kinds:
            emitter.visit(module, kind)
            if kind not in UNLISTED and f"{kind}List" in protos[module]:
                emitter.visit(module, f"{kind}List")
    emitter.assign_homes()
    for out_module in sorted(set(emitter.home.values())):
        source = source_module(out_module)
        package = schema_package(source)
        header = (
            f"{package} declarations: field names and numbers as the reference's "
            f"{package_ref(source, args.ref)} "
            "generated.proto.\n\nWritten by app/schema/codegen.py; regenerate rather than hand-edit.\n"
        )
        (args.out / f"{out_module}.py").write_text(emitter.module_text(out_module, header))


if __name__ == "__main__":
    main()
