"""csrapproving: node client requests are auto-approved when the requester may have them (the
SubjectAccessReview-equivalent check on certificatesigningrequests/nodeclient or selfnodeclient)."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient
from orch_apiserver.controllers.base import Context
from orch_apiserver.controllers.csrapproving import CsrApproving
from orch_apiserver.controllers.csrsigning import CsrSigning

from tests.controllers import (
    CLIENT_SIGNER,
    CLIENT_USAGES,
    CSRS,
    NAMING,
    NODE_CLIENT_SIGNER,
    NODE_CLIENT_USAGES,
    csr_body,
    request_pem,
)
from tests.controllers.conftest import USERS, as_token

RBAC = f"/apis/{NAMING.group('rbac.authorization')}/v1"


def file_as(
    client: Any,
    user: str,
    name: str,
    cn: str = "system:node:n1",
    signer: str = NODE_CLIENT_SIGNER,
    usages: list[str] = NODE_CLIENT_USAGES,
) -> None:
    if user != "boot":  # may file requests, nothing more (bootstrappers have it by default)
        role = {
            "metadata": {"name": f"filer-{user}"},
            "roleRef": {
                "apiGroup": NAMING.group("rbac.authorization"),
                "kind": "ClusterRole",
                "name": "system:node-bootstrapper",
            },
            "subjects": [{"kind": "User", "name": USERS[user][0]}],
        }
        client.post(f"{RBAC}/clusterrolebindings", json=role)
    body = csr_body(name, signer, usages, request_pem(cn, ["system:nodes"]))
    created = FlaskClient(client.application).post(CSRS, json=body, headers=as_token(user))  # not the admin
    assert created.status_code == 201, created.json
    assert created.json["spec"]["username"] != "admin"


def conditions(client: Any, name: str) -> list[dict]:
    return (client.get(f"{CSRS}/{name}").json.get("status") or {}).get("conditions") or []


def test_bootstrapper_node_client_request_is_approved_then_signed(cclient: Any, ctx: Context) -> None:
    file_as(cclient, "boot", "node-csr")
    CsrApproving(ctx).sync()
    [approved] = conditions(cclient, "node-csr")
    assert (approved["type"], approved["status"], approved["reason"]) == ("Approved", "True", "AutoApproved")
    assert "SubjectAccessReview" in approved["message"]
    CsrSigning(ctx).sync()
    assert cclient.get(f"{CSRS}/node-csr").json["status"]["certificate"]


def test_requesters_without_the_grant_are_left_pending(cclient: Any, ctx: Context) -> None:
    file_as(cclient, "bob", "bobs")
    CsrApproving(ctx).sync()
    assert conditions(cclient, "bobs") == []


def test_only_node_client_requests_of_the_node_client_signer(cclient: Any, ctx: Context) -> None:
    file_as(cclient, "boot", "wrong-subject", cn="n1")
    file_as(cclient, "boot", "client-signer", signer=CLIENT_SIGNER, usages=CLIENT_USAGES)
    CsrApproving(ctx).sync()
    assert conditions(cclient, "wrong-subject") == []
    assert conditions(cclient, "client-signer") == []


def test_a_node_renewing_its_own_identity_needs_selfnodeclient(cclient: Any, ctx: Context) -> None:
    file_as(cclient, "node1", "renew")
    CsrApproving(ctx).sync()
    [approved] = conditions(cclient, "renew")  # kubeadm's grant of selfnodeclient to system:nodes is in place
    assert approved["type"] == "Approved" and "self" in approved["message"]
    certs = NAMING.group("certificates")
    grant = f"{RBAC}/clusterrolebindings/system:{certs}:certificatesigningrequests:selfnodeclient"
    assert cclient.delete(grant).status_code == 200
    file_as(cclient, "node1", "renew-again")
    CsrApproving(ctx).sync()
    assert conditions(cclient, "renew-again") == []  # without it a node's own request waits for a person
