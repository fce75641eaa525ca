"""x-<product>-embedded-resource objects in custom objects: apiVersion and kind required, metadata checked as an
object's, with the reference's paths."""

from __future__ import annotations

from orch_apiserver.naming import Naming
from orch_apiserver.resources.custom import CustomResourceStrategy

SCHEMA = {
    "type": "object",
    "properties": {
        "spec": {
            "type": "object",
            "properties": {
                "template": {
                    "type": "object",
                    "x-orch-embedded-resource": True,
                    "x-orch-preserve-unknown-fields": True,
                },
                "extras": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "x-orch-embedded-resource": True,
                        "properties": {"data": {"type": "string"}},
                    },
                },
            },
        }
    },
}


def errors_of(spec: dict) -> list[str]:
    strategy = CustomResourceStrategy(Naming("orch.io"), SCHEMA)
    return [
        str(e)
        for e in strategy.validate(
            {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": spec}
        )
    ]


def test_well_formed_embedded_objects_pass() -> None:
    assert (
        errors_of(
            {
                "template": {
                    "apiVersion": "v1",
                    "kind": "ConfigMap",
                    "metadata": {"labels": {"app": "web"}, "namespace": "default"},
                },
                "extras": [{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}}],
            }
        )
        == []
    )


def test_type_fields_are_required_and_checked() -> None:
    assert errors_of({"template": {"metadata": {}}, "extras": [{"apiVersion": "a/b/c", "kind": "Not_A_Kind"}]}) == [
        "spec.template.apiVersion: Required value: must not be empty",
        "spec.template.kind: Required value: must not be empty",
        'spec.extras[0].apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
        (
            'spec.extras[0].kind: Invalid value: "Not_A_Kind": may have mixed case, but should otherwise match: '
            "a DNS-1035 "
            "label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and "
            "end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is "
            "'[a-z]([-a-z0-9]*[a-z0-9])?')"
        ),
    ]


def test_metadata_is_checked_as_an_objects() -> None:
    found = errors_of(
        {
            "template": {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "a/b", "namespace": "Bad_NS", "labels": {"app": "not ok!"}},
            }
        }
    )
    assert [e.split(":")[0] for e in found] == [
        "spec.template.metadata.name",
        "spec.template.metadata.labels",
        "spec.template.metadata.namespace",
    ]
    assert found[0] == "spec.template.metadata.name: Invalid value: \"a/b\": may not contain '/'"
