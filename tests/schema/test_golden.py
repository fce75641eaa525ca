"""Byte strings worked out by hand from the wire format, pinning the encoding (Go's gogo marshaller layout)."""

from __future__ import annotations

from orch_apiserver.schema import core, core_pod, core_volume, decode, decode_object, encode, encode_object, meta
from orch_apiserver.schema.types import Struct

# ObjectMeta{name: "c"}: name, then every non-pointer field written empty (strings "", generation 0,
# creationTimestamp as an empty message), exactly as Go writes it.
META_C = bytes.fromhex("0a016312001a0022002a00320038004200")
META_EMPTY = bytes.fromhex("0a0012001a0022002a00320038004200")


def h(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


def test_configmap_with_one_data_entry_is_byte_exact() -> None:
    obj = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b"}}
    expected = (
        b"k8s\x00"
        + h("0a 0f")
        + h("0a 02")
        + b"v1"
        + h("12 09")
        + b"ConfigMap"  # typeMeta
        + h("12 1b")  # raw, 27 bytes:
        + h("0a 11")
        + META_C  # metadata
        + h("12 06")
        + h("0a 01")
        + b"a"
        + h("12 01")
        + b"b"  # data entry {1: key, 2: value}
        + h("1a 00 22 00")  # contentEncoding "", contentType ""
    )
    assert encode_object(obj) == expected
    assert decode_object(expected) == obj


def test_namespace_golden() -> None:
    raw = h("0a 11") + bytes.fromhex("0a0178") + META_C[3:] + h("12 00") + h("1a 02 0a 00")
    obj = {"metadata": {"name": "x"}, "spec": {}, "status": {}}
    assert encode(core.Namespace, obj) == raw
    assert decode(core.Namespace, raw) == obj


def test_sparse_message_decodes_without_absent_fields() -> None:
    assert decode(core.ConfigMap, h("0a 03 0a 01 63")) == {"metadata": {"name": "c"}}


def test_map_entries_are_sorted_by_key() -> None:
    raw = encode(core.ConfigMap, {"metadata": {}, "data": {"z": "1", "a": "2"}})
    assert (
        raw
        == h("0a 10")
        + META_EMPTY
        + h("12 06 0a 01")
        + b"a"
        + h("12 01")
        + b"2"
        + h("12 06 0a 01")
        + b"z"
        + h("12 01")
        + b"1"
    )


def test_pointer_bool_and_bytes_values() -> None:
    raw = encode(core.Secret, {"metadata": {}, "immutable": True, "data": {"e": "", "k": "AAE="}})
    assert raw == (
        h("0a 10")
        + META_EMPTY
        + h("12 05 0a 01")
        + b"e"
        + h("12 00")  # empty (non-nil) []byte is still written
        + h("12 07 0a 01")
        + b"k"
        + h("12 02 00 01")
        + h("1a 00")  # type ""
        + h("28 01")  # immutable (field 5, varint)
    )
    nil_value = encode(core.Secret, {"metadata": {}, "data": {"k": None}})
    assert h("12 03 0a 01") + b"k" in nil_value  # a nil []byte value is left out of the entry


def test_time_golden() -> None:
    raw = encode(meta.ObjectMeta, {"creationTimestamp": "1970-01-01T00:02:30Z"})
    assert raw == META_EMPTY[:-2] + h("42 05 08 96 01 10 00")  # seconds 150 = varint 96 01, nanos 0
    assert decode(meta.ObjectMeta, raw) == {"creationTimestamp": "1970-01-01T00:02:30Z"}


def test_int_or_string_golden() -> None:
    port = {"port": 80, "targetPort": 8080}
    raw = encode(core.ServicePort, port)
    # name "", protocol "", port 80, targetPort {type 0, intVal 8080 (varint 90 3f), strVal ""}, nodePort 0
    assert raw == h("0a 00 12 00 18 50 22 07 08 00 10 90 3f 1a 00 28 00")
    assert decode(core.ServicePort, raw) == port
    named = encode(core.ServicePort, {"port": 80, "targetPort": "http"})
    assert h("22 0a 08 01 10 00 1a 04") + b"http" in named
    assert decode(core.ServicePort, named)["targetPort"] == "http"


def test_negative_int32_is_a_ten_byte_varint() -> None:
    raw = encode(core.ServicePort, {"port": 1, "nodePort": -1})
    assert raw.endswith(h("28 ff ff ff ff ff ff ff ff ff 01"))
    assert decode(core.ServicePort, raw)["nodePort"] == -1


def test_quantity_map_golden() -> None:
    raw = encode(core.ResourceQuotaSpec, {"hard": {"memory": "1G", "cpu": "1"}})
    assert raw == (
        h("0a 0a 0a 03") + b"cpu" + h("12 03 0a 01") + b"1" + h("0a 0e 0a 06") + b"memory" + h("12 04 0a 02") + b"1G"
    )
    assert decode(core.ResourceQuotaSpec, raw) == {"hard": {"cpu": "1", "memory": "1G"}}


def test_fields_v1_is_embedded_json_not_base64() -> None:
    entry = {"manager": "m", "fieldsV1": {"f:a": {}}}
    raw = encode(meta.ManagedFieldsEntry, entry)
    assert raw == h("0a 01") + b"m" + h("12 00 1a 00 32 00 3a 0c 0a 0a") + b'{"f:a":{}}' + h("42 00")
    assert decode(meta.ManagedFieldsEntry, raw) == entry


def test_inline_struct_is_a_nested_message() -> None:
    volume = {"name": "v", "emptyDir": {}}
    raw = encode(core_volume.Volume, volume)
    # volumeSource{emptyDir{medium ""}}: the inline struct is field 2; emptyDir, a pointer, only when set
    assert raw == h("0a 01") + b"v" + h("12 04 12 02 0a 00")
    assert decode(core_volume.Volume, raw) == volume


def test_packed_repeated_numbers_are_accepted() -> None:
    psc: Struct = core_pod.PodSecurityContext
    field = psc.field("supplementalGroups")
    assert field is not None
    number = field.number
    packed = bytes([number << 3 | 2, 3, 1, 2, 3])
    assert decode(psc, packed)["supplementalGroups"] == [1, 2, 3]
    unpacked = encode(psc, {"supplementalGroups": [1, 2, 3]})
    assert unpacked == bytes([number << 3, 1, number << 3, 2, number << 3, 3])
