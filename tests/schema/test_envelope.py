"""The 4-byte magic + runtime.Unknown envelope and the (apiVersion, kind) registry."""

from __future__ import annotations

import pytest
from orch_apiserver.schema import (
    MAGIC,
    ProtobufError,
    decode_envelope,
    decode_object,
    encode_envelope,
    has_schema,
    meta,
    schema_for,
)
from orch_apiserver.schema.wire import encode_len_field


def h(text: str) -> bytes:
    return bytes.fromhex(text.replace(" ", ""))


def test_magic() -> None:
    assert h("6b 38 73 00") == MAGIC


def test_envelope_golden() -> None:
    body = encode_envelope("apps/v1", "Deployment", b"\x01\x02")
    assert body == (
        MAGIC + h("0a 15 0a 07") + b"apps/v1" + h("12 0a") + b"Deployment" + h("12 02 01 02") + h("1a 00 22 00")
    )
    assert decode_envelope(body) == ("apps/v1", "Deployment", b"\x01\x02")


def test_envelope_without_optional_fields() -> None:
    body = MAGIC + encode_len_field(1, encode_len_field(2, b"Status"))
    assert decode_envelope(body) == ("", "Status", b"")


def test_envelope_accepts_a_protobuf_content_type() -> None:
    unknown = encode_len_field(1, b"") + encode_len_field(4, b"application/vnd.orch.protobuf")
    assert decode_envelope(MAGIC + unknown) == ("", "", b"")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{}", "envelope prefix"),
        (MAGIC[:3], "envelope prefix"),
        (MAGIC + encode_len_field(3, b"gzip"), "contentEncoding 'gzip'"),
        (MAGIC + encode_len_field(4, b"application/json"), "contentType 'application/json'"),
        (MAGIC + encode_len_field(5, b""), "Unknown: unknown field number 5"),
        (MAGIC + encode_len_field(1, encode_len_field(3, b"")), "typeMeta: unknown field number 3"),
        (MAGIC + h("10 01"), "raw: wrong wire type 0"),
    ],
)
def test_bad_envelopes(body: bytes, message: str) -> None:
    with pytest.raises(ProtobufError, match=message):
        decode_envelope(body)


def test_decode_object_puts_type_meta_first() -> None:
    body = encode_envelope("v1", "ServiceAccount", h("0a 03 0a 01 73"))
    decoded = decode_object(body)
    assert list(decoded) == ["apiVersion", "kind", "metadata"]
    assert decoded == {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "s"}}


def test_registry() -> None:
    assert has_schema("v1", "ConfigMap") and has_schema("apps/v1", "DeploymentList")
    assert not has_schema("apps/v1", "ConfigMap") and not has_schema("v1", "Deployment")
    assert schema_for("batch/v1", "CronJob").qualname == "batch/v1.CronJob"
    # the reference registers DeleteOptions in every group version
    assert schema_for("apps/v1", "DeleteOptions") is meta.DeleteOptions
    assert has_schema("policy/v1", "DeleteOptions")
