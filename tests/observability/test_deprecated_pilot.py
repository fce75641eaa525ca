"""A request to a served deprecated version (policy/v1beta1 PodDisruptionBudget): gauge and audit annotations."""

from __future__ import annotations

from tests.observability.helpers import scrape, value

PDBS = "/apis/policy/v1beta1/namespaces/default/poddisruptionbudgets"


def test_deprecated_version_sets_the_gauge_and_the_audit_annotations(audited):
    log = audited("rules:\n- level: Metadata\n")
    client = log.client()
    response = client.get(PDBS)
    assert response.status_code == 200, response.data
    annotations = log.events_of(response.headers["Audit-Id"])[-1]["annotations"]
    assert annotations["orch.io/deprecated"] == "true"
    assert annotations["orch.io/removed-release"] == "1.25"
    text = scrape(client)
    assert (
        value(
            text,
            "apiserver_requested_deprecated_apis",
            group="policy",
            version="v1beta1",
            resource="poddisruptionbudgets",
            subresource="",
            removed_release="1.25",
        )
        == 1
    )
    assert value(text, "apiserver_requested_deprecated_apis", version="v1") == 0
