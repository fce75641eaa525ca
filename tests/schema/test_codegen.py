"""The declaration generator on a tiny synthetic package (the real inputs live in the reference's repos)."""

from __future__ import annotations

from typing import Any

from orch_apiserver.schema.codegen import Emitter, parse_go, parse_proto
from orch_apiserver.schema.types import INT32, QUANTITY, STRING, ListOf, MapOf, Struct

#: generated modules live in orch_apiserver.schema and import their siblings relatively
GENERATED_MODULE = {"__name__": "orch_apiserver.schema.generated", "__package__": "orch_apiserver.schema"}

PROTO = """
syntax = "proto2";

// A thing.
// +structType=atomic
message Thing {
  // Items.
  // +optional
  // +listType=map
  // +listMapKey=name
  // +patchStrategy=merge
  // +patchMergeKey=name
  repeated Item items = 1;

  // +k8s:optional
  optional int32 count = 2;

  map<string, .k8s.io.apimachinery.pkg.api.resource.Quantity> limits = 3;

  optional Item embedded = 4;

  optional string mode = 5;
}

message Item {
  optional string name = 1;
}
"""

GO = """
type Thing struct {
	metav1.TypeMeta `json:",inline"`
	// comment `with backticks`
	Items []Item `json:"items,omitempty" patchStrategy:"merge" patchMergeKey:"name" protobuf:"bytes,1,rep,name=items"`
	Count *int32 `json:"count,omitempty" protobuf:"varint,2,opt,name=count"`
	Limits ResourceList `json:"limits,omitempty" protobuf:"bytes,3,rep,name=limits,casttype=ResourceList"`
	Item `json:"" protobuf:"bytes,4,opt,name=embedded"`
	Mode string `json:"mode" protobuf:"bytes,5,opt,name=mode"`
	internal string `json:"-" protobuf:"-"`
}

type Item struct {
	Name string `json:"name" protobuf:"bytes,1,opt,name=name"`
}
"""


def _generate() -> dict[str, Any]:
    emitter = Emitter({"core": parse_proto(PROTO)}, {"core": parse_go(GO)}, segments={})
    emitter.visit("core", "Thing")
    emitter.assign_homes()
    text = emitter.module_text("core", "Test.\n")
    namespace: dict[str, Any] = dict(GENERATED_MODULE)
    exec(compile(text, "<generated>", "exec"), namespace)
    return namespace


def test_generated_module_declares_the_types() -> None:
    ns = _generate()
    thing, item = ns["Thing"], ns["Item"]
    assert isinstance(thing, Struct) and thing.kind and thing.struct_type == "atomic"
    assert ns["KINDS"] == {"Thing": thing} and (ns["GROUP"], ns["GROUP_IN_DOMAIN"], ns["VERSION"]) == ("", False, "v1")
    items, count, limits, embedded, mode = thing.fields
    assert (items.name, items.number, items.type) == ("items", 1, ListOf(item))
    assert (items.list_type, items.list_map_keys, items.patch_strategy, items.patch_merge_key) == (
        "map",
        ("name",),
        "merge",
        "name",
    )
    assert not items.required
    assert (count.type, count.nullable, count.required) == (INT32, True, False)
    assert limits.type == MapOf(QUANTITY)
    assert embedded.inline and embedded.type is item and embedded.name == "embedded"
    assert (mode.type, mode.omitempty, mode.required) == (STRING, False, True)
    assert thing.json_fields.keys() == {"items", "count", "limits", "name", "mode"}


SLICE_PROTO = """
message Spec {
  map<string, ExtraValue> extra = 1;
}

message ExtraValue {
  repeated string items = 1;
}
"""

SLICE_GO = """
type Spec struct {
	Extra map[string]ExtraValue `json:"extra,omitempty" protobuf:"bytes,1,rep,name=extra"`
}

type ExtraValue []string
"""


def test_a_go_named_slice_becomes_a_wrapped_list() -> None:
    emitter = Emitter({"certificates": parse_proto(SLICE_PROTO)}, {"certificates": parse_go(SLICE_GO)}, segments={})
    emitter.visit("certificates", "Spec")
    emitter.assign_homes()
    text = emitter.module_text("certificates", "Test.\n")
    assert "ExtraValue = " not in text  # no message of its own: JSON sees a plain array
    namespace: dict[str, Any] = dict(GENERATED_MODULE)
    exec(compile(text, "<generated>", "exec"), namespace)
    (extra,) = namespace["Spec"].fields
    assert extra.type == MapOf(ListOf(STRING, wrapped=True))
    assert (namespace["GROUP"], namespace["GROUP_IN_DOMAIN"]) == ("certificates", True)


def test_an_older_version_is_a_module_of_its_own() -> None:
    emitter = Emitter({"policy_v1beta1": parse_proto(PROTO)}, {"policy_v1beta1": parse_go(GO)}, segments={})
    emitter.visit("policy_v1beta1", "Thing")
    emitter.assign_homes()
    namespace: dict[str, Any] = dict(GENERATED_MODULE)
    exec(compile(emitter.module_text("policy_v1beta1", "Test.\n"), "<generated>", "exec"), namespace)
    assert (namespace["GROUP"], namespace["GROUP_IN_DOMAIN"], namespace["VERSION"]) == ("policy", False, "v1beta1")
    assert namespace["Thing"].qualname == "policy/v1beta1.Thing"  # distinct from policy/v1's types


def test_every_served_older_version_is_declared() -> None:
    from orch_apiserver.naming import Naming
    from orch_apiserver.schema import schemas_for

    naming = Naming("example.net")
    schemas = schemas_for(naming)
    for api_version, kind in [
        ("policy/v1beta1", "PodDisruptionBudget"),
        ("batch/v1beta1", "CronJob"),
        ("events.example.net/v1beta1", "Event"),
        ("discovery.example.net/v1beta1", "EndpointSlice"),
        ("node.example.net/v1beta1", "RuntimeClass"),
        ("autoscaling/v1", "HorizontalPodAutoscaler"),
        ("autoscaling/v2", "HorizontalPodAutoscaler"),
        ("autoscaling/v2beta1", "HorizontalPodAutoscaler"),
        ("autoscaling/v2beta2", "HorizontalPodAutoscaler"),
        ("autoscaling/v1", "Scale"),
        *(
            (f"flowcontrol.apiserver.example.net/{v}", k)
            for v in ("v1", "v1beta1", "v1beta2")
            for k in ("FlowSchema", "PriorityLevelConfiguration")
        ),
    ]:
        group, version = api_version.split("/")
        schema = schemas[(api_version, kind)]
        assert (schema.package, schema.name) == (f"{group.split('.')[0]}/{version}", kind)
        assert (api_version, f"{kind}List") in schemas or kind == "Scale"
