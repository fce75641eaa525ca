"""ObjectMeta rules over HTTP on both stores: the reference's (v1.23) limits, field paths and messages for labels,
annotations, ownerReferences, finalizers and managedFields."""

from __future__ import annotations

from typing import Any

import pytest

CM = "/api/v1/namespaces/default/configmaps"
LIMIT = 262144
QNAME = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
)
SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)
LABEL_VALUE = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must "
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for "
    "validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
)


def cm(name: str, **metadata: Any) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, **metadata}}


def causes(client, name: str, **metadata: Any) -> list[tuple[str, str]]:
    """The (field, message) causes of a 422 create; the Status message lists the same errors."""
    resp = client.post(CM, json=cm(name, **metadata))
    assert resp.status_code == 422, resp.get_data(as_text=True)
    status = resp.get_json()
    assert status["reason"] == "Invalid" and status["details"]["kind"] == "ConfigMap"
    found = [(c["field"], c["message"]) for c in status["details"]["causes"]]
    for field, message in found:
        assert f"{field}: {message}" in status["message"]
    return found


def owner(name: str, **extra: Any) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "name": name, "uid": f"uid-{name}", **extra}


def test_annotations_may_total_256_kib_of_keys_and_values(any_client) -> None:
    # "é" is two bytes: the limit counts bytes, as the reference's len() does
    fits = {"a": "x" * (LIMIT - 1 - 10), "b" * 4: "é" * 3}
    assert sum(len(k.encode()) + len(v.encode()) for k, v in fits.items()) == LIMIT
    created = any_client.post(CM, json=cm("fits", annotations=fits))
    assert created.status_code == 201, created.get_data(as_text=True)

    over = {**fits, "c": ""}
    assert causes(any_client, "over", annotations=over) == [
        ("metadata.annotations", f"Too long: must have at most {LIMIT} bytes")
    ]
    message = any_client.post(CM, json=cm("over", annotations=over)).get_json()["message"]
    assert message == f'ConfigMap "over" is invalid: metadata.annotations: Too long: must have at most {LIMIT} bytes'

    # an update that grows them past the limit fails too
    live = created.get_json()
    live["metadata"]["annotations"]["c"] = ""
    updated = any_client.put(f"{CM}/fits", json=live)
    assert updated.status_code == 422
    assert updated.get_json()["details"]["causes"] == [
        {
            "reason": "FieldValueTooLong",
            "message": f"Too long: must have at most {LIMIT} bytes",
            "field": "metadata.annotations",
        }
    ]


def test_annotation_keys_are_qualified_names_in_any_case(any_client) -> None:
    created = any_client.post(CM, json=cm("mixed", annotations={"Example.COM/Some-Key": "v"}))
    assert created.status_code == 201, created.get_data(as_text=True)
    assert sorted(causes(any_client, "bad", annotations={"bad key": "v", "/x": "v"})) == [
        ("metadata.annotations", 'Invalid value: "/x": prefix part must be non-empty'),
        ("metadata.annotations", f'Invalid value: "bad key": name part {QNAME}'),
    ]


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        ({"bad key": "v"}, [f'Invalid value: "bad key": name part {QNAME}']),
        (
            {"a/b/c": "v"},
            [
                f"Invalid value: \"a/b/c\": a qualified name {QNAME} with an optional DNS subdomain prefix and '/' "
                "(e.g. 'example.com/MyName')"
            ],
        ),
        ({"/x": "v"}, ['Invalid value: "/x": prefix part must be non-empty']),
        ({"Example.com/x": "v"}, [f'Invalid value: "Example.com/x": prefix part {SUBDOMAIN}']),
        (
            {"example.com/": "v"},
            [
                'Invalid value: "example.com/": name part must be non-empty',
                f'Invalid value: "example.com/": name part {QNAME}',
            ],
        ),
        ({"k" * 64: "v"}, [f'Invalid value: "{"k" * 64}": name part must be no more than 63 characters']),
        ({"k": "v" * 64}, [f'Invalid value: "{"v" * 64}": must be no more than 63 characters']),
        (
            {"k": "-v-" * 22},
            [
                f'Invalid value: "{"-v-" * 22}": must be no more than 63 characters',
                f'Invalid value: "{"-v-" * 22}": {LABEL_VALUE}',
            ],
        ),
        ({"k": "not ok"}, [f'Invalid value: "not ok": {LABEL_VALUE}']),
    ],
)
def test_label_keys_and_values(any_client, labels: dict, expected: list[str]) -> None:
    assert causes(any_client, "labelled", labels=labels) == [("metadata.labels", m) for m in expected]


def test_labels_at_their_limits_are_accepted(any_client) -> None:
    labels = {"a" * 253 + "/" + "b" * 63: "c" * 63, "empty": "", "My_Key.x-1": "My.value_-1"}
    created = any_client.post(CM, json=cm("limits", labels=labels))
    assert created.status_code == 201, created.get_data(as_text=True)
    assert created.get_json()["metadata"]["labels"] == labels


def test_owner_references_need_their_four_fields(any_client) -> None:
    # the reference (v1.23) names the fields under the list, without the entry's index
    assert causes(
        any_client, "orphan", ownerReferences=[{}, {"apiVersion": "apps/", "kind": "X", "name": "n", "uid": "u"}]
    ) == [
        ("metadata.ownerReferences.apiVersion", 'Invalid value: "": version must not be empty'),
        ("metadata.ownerReferences.kind", 'Invalid value: "": kind must not be empty'),
        ("metadata.ownerReferences.name", 'Invalid value: "": name must not be empty'),
        ("metadata.ownerReferences.uid", 'Invalid value: "": uid must not be empty'),
        ("metadata.ownerReferences.apiVersion", 'Invalid value: "apps/": version must not be empty'),
    ]
    complete = any_client.post(CM, json=cm("owned", ownerReferences=[owner("a"), owner("b", controller=True)]))
    assert complete.status_code == 201, complete.get_data(as_text=True)


def test_only_one_owner_reference_may_be_the_controller(any_client) -> None:
    refs = [owner("a", controller=True), owner("b"), owner("c", controller=True, blockOwnerDeletion=True)]
    [(field, message)] = causes(any_client, "two-controllers", ownerReferences=refs)
    assert field == "metadata.ownerReferences"
    assert message.startswith(
        'Invalid value: []v1.OwnerReference{v1.OwnerReference{APIVersion:"v1", Kind:"ConfigMap", Name:"a", '
        'UID:"uid-a", Controller:(*bool)(0x'
    )
    assert 'Name:"b", UID:"uid-b", Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}' in message
    assert message.endswith(
        ': Only one reference can have Controller set to true. Found "true" in references for a and c'
    )


def test_an_event_may_not_own_anything(any_client) -> None:
    event = {"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "u"}
    assert causes(any_client, "event-owned", ownerReferences=[event]) == [
        (
            "metadata.ownerReferences",
            'Invalid value: v1.OwnerReference{APIVersion:"v1", Kind:"Event", Name:"e", UID:"u", '
            "Controller:(*bool)(nil), BlockOwnerDeletion:(*bool)(nil)}: /v1, Kind=Event is disallowed from being "
            "an owner",
        )
    ]
    grouped = {**event, "apiVersion": "events.k8s.io/v1"}  # only the core Event is banned
    assert any_client.post(CM, json=cm("event-owned", ownerReferences=[grouped])).status_code == 201


def test_finalizers(any_client) -> None:
    assert causes(any_client, "final", finalizers=["example.com/a/b", "orphan", "foregroundDeletion"]) == [
        (
            "metadata.finalizers",
            f'Invalid value: "example.com/a/b": a qualified name {QNAME} with an optional DNS subdomain prefix '
            "and '/' (e.g. 'example.com/MyName')",
        ),
        (
            "metadata.finalizers",
            'Invalid value: []string{"example.com/a/b", "orphan", "foregroundDeletion"}: finalizer orphan and '
            "foregroundDeletion cannot be both set",
        ),
    ]


def managed(manager: str, **extra: Any) -> dict:
    entry = {"manager": manager, "operation": "Update", "apiVersion": "v1", "fieldsType": "FieldsV1"}
    return {**entry, "fieldsV1": {"f:data": {}}, **extra}


def test_managed_fields_entries_written_by_a_client(any_client) -> None:
    # indexes are those of the stored order (operation, time, manager), as the reference validates after encoding
    assert causes(
        any_client, "managed", managedFields=[managed("m" * 129), managed("bell\t", subresource="s" * 257)]
    ) == [
        ("metadata.managedFields[0].manager", 'Invalid value: "bell\\t": invalid character U+0009 (at position 4)'),
        ("metadata.managedFields[0].subresource", "Too long: must have at most 256 bytes"),
        ("metadata.managedFields[1].manager", "Too long: must have at most 128 bytes"),
    ]
    fits = any_client.post(CM, json=cm("managed", managedFields=[managed("m" * 128)]))
    assert fits.status_code == 201, fits.get_data(as_text=True)
    assert "m" * 128 in [e["manager"] for e in fits.get_json()["metadata"]["managedFields"]]


def test_managed_fields_entries_that_do_not_decode_are_replaced_not_refused(any_client) -> None:
    # as the reference's field manager: entries it cannot decode give way to the live ones (none on create)
    created = any_client.post(CM, json=cm("odd", managedFields=[managed("x", operation="Merge")]))
    assert created.status_code == 201, created.get_data(as_text=True)
    assert "x" not in [e["manager"] for e in created.get_json()["metadata"].get("managedFields", [])]


def test_generate_name_is_checked_as_a_name_with_its_trailing_dash_masked(any_client) -> None:
    bad = any_client.post(CM, json={"metadata": {"generateName": "Bad_"}, "apiVersion": "v1", "kind": "ConfigMap"})
    assert bad.status_code == 422
    [prefix, name] = bad.get_json()["details"]["causes"]
    assert (prefix["field"], prefix["message"]) == ("metadata.generateName", f'Invalid value: "Bad_": {SUBDOMAIN}')
    assert name["field"] == "metadata.name" and name["message"].startswith('Invalid value: "Bad_')
    # the reference masks a trailing dash by replacing the last two characters: "x.-" passes as "xa"
    quirk = any_client.post(CM, json={"metadata": {"generateName": "x.-"}, "apiVersion": "v1", "kind": "ConfigMap"})
    assert [c["field"] for c in quirk.get_json()["details"]["causes"]] == ["metadata.name"]
    made = any_client.post(CM, json={"metadata": {"generateName": "web-"}, "apiVersion": "v1", "kind": "ConfigMap"})
    assert made.status_code == 201 and made.get_json()["metadata"]["name"].startswith("web-")
