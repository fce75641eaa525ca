"""managedFields entries: decoding, encoding, order, identity, reset, validation, the manager cap."""

from __future__ import annotations

import datetime as dt

import pytest
from orch_apiserver.apply import (
    FieldSet,
    ManagedFieldsError,
    ManagerEntry,
    decode_managed_fields,
    default_manager,
    encode_managed_fields,
    format_time,
    is_reset,
    make_path,
    sort_entries,
    validate_field_manager,
    validate_managed_fields,
)
from orch_apiserver.apply.managed import cap_update_managers, manager_identity

ONE = FieldSet([make_path("spec", "replicas")])


def raw(
    manager: str,
    operation: str = "Update",
    api_version: str = "apps/v1",
    time: str | None = None,
    subresource: str = "",
) -> dict:
    out = {
        "manager": manager,
        "operation": operation,
        "apiVersion": api_version,
        "fieldsType": "FieldsV1",
        "fieldsV1": {"f:spec": {"f:replicas": {}}},
    }
    if time:
        out["time"] = time
    if subresource:
        out["subresource"] = subresource
    return out


def test_entry_encodes_in_reference_field_order() -> None:
    e = ManagerEntry("kubectl", "Apply", "apps/v1", ONE, "2024-05-01T10:00:00Z", "status")
    assert list(e.encode()) == ["manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1", "subresource"]
    bare = ManagerEntry("", "Update", "v1", ONE).encode()
    assert bare == {
        "operation": "Update",
        "apiVersion": "v1",
        "fieldsType": "FieldsV1",
        "fieldsV1": {"f:spec": {"f:replicas": {}}},
    }


IDENTITY_CASES = [
    (("kubectl", "Apply", "apps/v1", ""), '{"manager":"kubectl","operation":"Apply"}'),
    (("ctl", "Update", "apps/v1", ""), '{"manager":"ctl","operation":"Update","apiVersion":"apps/v1"}'),
    (
        ("ctl", "Update", "v1", "status"),
        '{"manager":"ctl","operation":"Update","apiVersion":"v1","subresource":"status"}',
    ),
]


@pytest.mark.parametrize(("args", "expected"), IDENTITY_CASES)
def test_identity_leaves_out_apply_version(args: tuple, expected: str) -> None:
    assert manager_identity(*args) == expected


def test_same_identity_collapses_and_versions_split_updates() -> None:
    managed = decode_managed_fields(
        [
            raw("a", "Apply", "apps/v1"),
            raw("a", "Apply", "apps/v1beta1"),  # one Apply identity
            raw("b", "Update", "apps/v1"),
            raw("b", "Update", "apps/v1beta1"),  # two Update identities
        ]
    )
    assert sorted((e.manager, e.operation, e.api_version) for e in managed.values()) == [
        ("a", "Apply", "apps/v1beta1"),
        ("b", "Update", "apps/v1"),
        ("b", "Update", "apps/v1beta1"),
    ]


def test_sort_order() -> None:
    entries = [
        ManagerEntry("z", "Update", "v1", ONE, "2024-05-01T10:00:00Z"),
        ManagerEntry("a", "Update", "v1", ONE, "2024-05-02T10:00:00Z"),
        ManagerEntry("b", "Update", "v1", ONE, "2024-05-01T10:00:00Z"),
        ManagerEntry("m", "Apply", "v1", ONE, "2024-05-09T10:00:00Z"),
        ManagerEntry("b", "Update", "v1", ONE, "2024-05-01T10:00:00Z", "status"),
        ManagerEntry("n", "Update", "v1", ONE, None),
    ]
    got = [(e.operation, e.manager, e.subresource) for e in sort_entries(entries)]
    assert got == [
        ("Apply", "m", ""),
        ("Update", "n", ""),
        ("Update", "b", ""),
        ("Update", "b", "status"),
        ("Update", "z", ""),
        ("Update", "a", ""),
    ]


def test_round_trip_normalizes_time_and_order() -> None:
    managed = decode_managed_fields([raw("b", time="2024-05-01T12:00:00+02:00"), raw("a", "Apply")])
    out = encode_managed_fields(managed)
    assert [e["manager"] for e in out] == ["a", "b"]
    assert out[1]["time"] == "2024-05-01T10:00:00Z"
    assert decode_managed_fields(out) == managed


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (
            {"manager": "a", "operation": "Patch", "apiVersion": "v1", "fieldsType": "FieldsV1"},
            "operation must be `Apply` or `Update`",
        ),
        ({"manager": "a", "operation": "Update", "fieldsType": "FieldsV1"}, "apiVersion must not be empty"),
        ({"manager": "a", "operation": "Update", "apiVersion": "v1"}, "missing fieldsType in managed fields entry 0"),
        (
            {"manager": "a", "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV2"},
            'invalid fieldsType "FieldsV2" in managed fields entry 0',
        ),
        (
            {
                "manager": "a",
                "operation": "Update",
                "apiVersion": "v1",
                "fieldsType": "FieldsV1",
                "fieldsV1": {"x": {}},
            },
            "error decoding set",
        ),
    ],
)
def test_decode_errors(entry: dict, message: str) -> None:
    with pytest.raises(ManagedFieldsError, match=message):
        decode_managed_fields([entry])


@pytest.mark.parametrize(
    ("value", "reset"),
    [
        ([{}], True),
        ([{"manager": "", "fieldsV1": None}], True),
        ([], False),  # an empty list keeps the live entries (rule 1)
        (None, False),
        ([{}, {}], False),
        ([{"manager": "a"}], False),
    ],
)
def test_is_reset(value: object, reset: bool) -> None:
    assert is_reset(value) is reset


def test_validation_messages() -> None:
    errors = validate_managed_fields(
        [
            {"manager": "ok", "operation": "", "fieldsType": "FieldsV1"},
            {"manager": "ok", "operation": "Merge", "fieldsType": "FieldsV2"},
            {"manager": "bad\x07", "operation": "Apply"},
        ]
    )
    assert [str(e) for e in errors] == [
        "metadata.managedFields[0].operation: Required value: must not be empty",
        'metadata.managedFields[1].operation: Unsupported value: "Merge": supported values: "Apply", "Update"',
        'metadata.managedFields[1].fieldsType: Invalid value: "FieldsV2": must be `FieldsV1`',
        'metadata.managedFields[2].manager: Invalid value: "bad\\u0007": invalid character U+0007 (at position 3)',
    ]
    assert [str(e) for e in validate_field_manager("x" * 129)] == [
        "fieldManager: Too long: may not be more than 128 bytes"
    ]


@pytest.mark.parametrize(
    ("agent", "manager"),
    [
        ("kubectl/v1.30.0 (linux/amd64) kubernetes/abc", "kubectl"),
        ("curl/8.5.0", "curl"),
        ("python-requests/2.31", "python-requests"),
        ("", ""),
        ("no-slash at all", "no-slash at all"),
        ("tab\there/1", "tabhere"),
        ("é" * 100, "é" * 64),  # cut at 128 bytes, never inside a character
    ],
)
def test_default_manager(agent: str, manager: str) -> None:
    assert default_manager(agent) == manager


def test_format_time() -> None:
    assert format_time(dt.datetime(2024, 5, 1, 10, 0, 0, 999999, tzinfo=dt.UTC)) == "2024-05-01T10:00:00Z"
    assert (
        format_time(dt.datetime(2024, 5, 1, 12, 0, 0, tzinfo=dt.timezone(dt.timedelta(hours=2))))
        == "2024-05-01T10:00:00Z"
    )


def test_cap_merges_oldest_updates_into_ancient_changes() -> None:
    managed = {}
    for i in range(12):
        e = ManagerEntry(f"m{i:02d}", "Update", "v1", FieldSet([make_path("f", str(i))]), f"2024-05-01T10:00:{i:02d}Z")
        managed[e.identity] = e
    applier = ManagerEntry("kubectl", "Apply", "v1", ONE, "2024-01-01T00:00:00Z")
    managed[applier.identity] = applier
    capped = cap_update_managers(managed)
    names = sorted(e.manager for e in capped.values() if e.operation == "Update")
    assert len(names) == 10
    assert "ancient-changes" in names and "m00" not in names and "m01" not in names and "m02" not in names
    bucket = next(e for e in capped.values() if e.manager == "ancient-changes")
    assert bucket.fields.strings() == [".f.0", ".f.1", ".f.2"]
    assert bucket.time == "2024-05-01T10:00:02Z"
    assert applier.identity in capped
