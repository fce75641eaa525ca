"""orchctl end to end: a real subprocess against a real server on a free port."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from pathlib import Path

import pytest
import yaml
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from orch_apiserver.naming import Naming

from tests.e2e import RunningServer

from .helpers import Streaming, orchctl

pytestmark = pytest.mark.e2e
NAMING = Naming()


def namespace(server: RunningServer, name: str) -> str:
    response = server.session.post("/api/v1/namespaces", json={"metadata": {"name": name}})
    assert response.status_code in (201, 409), response.text
    return name


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


CONFIGMAPS = """\
apiVersion: v1
kind: ConfigMap
metadata: {name: one, labels: {app: demo}}
data: {a: "1", b: "2"}
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: two}
  data: {c: "3"}
"""


def test_get_in_every_output_format_and_resource_spelling(server: RunningServer, tmp_path: Path) -> None:
    ns = namespace(server, "get-formats")
    created = orchctl(server, "-n", ns, "create", "-f", write(tmp_path, "cms.yaml", CONFIGMAPS))
    assert created.returncode == 0, created.stderr
    assert created.stdout.splitlines() == ["configmap/one created", "configmap/two created"]

    table = orchctl(server, "-n", ns, "get", "configmaps")
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["NAME", "DATA", "AGE"]
    assert [line.split()[:2] for line in lines[1:]] == [["one", "2"], ["two", "1"]]

    assert orchctl(server, "-n", ns, "get", "cm", "-l", "app=demo", "-o", "name").stdout == "configmap/one\n"
    as_json = json.loads(orchctl(server, "-n", ns, "get", "ConfigMap", "one", "-o", "json").stdout)
    assert as_json["kind"] == "ConfigMap" and as_json["data"] == {"a": "1", "b": "2"}
    listed = yaml.safe_load(orchctl(server, "-n", ns, "get", "configmap", "-o", "yaml").stdout)
    assert listed["kind"] == "List" and [i["metadata"]["name"] for i in listed["items"]] == ["one", "two"]

    everywhere = orchctl(server, "get", "configmaps", "-A").stdout.splitlines()
    assert everywhere[0].split()[:2] == ["NAMESPACE", "NAME"]
    assert [ns, "one"] in [line.split()[:2] for line in everywhere]

    deployment = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 1\n"
        "  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n"
        "    spec: {containers: [{name: c, image: nginx}]}\n"
    )
    assert orchctl(server, "-n", ns, "apply", "-f", write(tmp_path, "d.yaml", deployment)).returncode == 0
    narrow = orchctl(server, "-n", ns, "get", "deployments.apps").stdout.splitlines()
    wide = orchctl(server, "-n", ns, "get", "deploy", "-o", "wide").stdout.splitlines()
    assert "IMAGES" not in narrow[0] and "IMAGES" in wide[0].split()
    assert wide[1].split()[0] == "web" and "nginx" in wide[1].split()


def test_errors_print_the_server_status_and_exit_1(server: RunningServer) -> None:
    missing = orchctl(server, "get", "configmap", "nope")
    assert missing.returncode == 1
    assert missing.stderr.strip() == 'Error from server (NotFound): configmaps "nope" not found'
    unknown = orchctl(server, "get", "gizmos")
    assert unknown.returncode == 1 and 'the server doesn\'t have a resource type "gizmos"' in unknown.stderr
    no_kind = orchctl(server, "create", "-f", "-", stdin="apiVersion: v1\nkind: Gizmo\nmetadata: {name: g}\n")
    assert no_kind.returncode == 1
    assert 'no matches for kind "Gizmo" in version "v1"' in no_kind.stderr
    usage = orchctl(server, "patch", "configmap", "x", "--type", "bogus", "-p", "{}")
    assert usage.returncode == 2
    empty = orchctl(server, "-n", namespace(server, "empty"), "get", "pods")
    assert empty.returncode == 0 and empty.stderr.strip() == "No resources found in empty namespace."


def test_apply_and_create_of_nothing_fail_as_in_kubectl(server: RunningServer, tmp_path: Path) -> None:
    """kubectl: `error: no objects passed to apply` (or create), exit 1, for an empty directory or file."""
    (tmp_path / "empty").mkdir()
    blank = write(tmp_path, "blank.yaml", "# nothing but a comment\n---\n")
    for verb in ("apply", "create"):
        for source in (str(tmp_path / "empty"), blank):
            done = orchctl(server, verb, "-f", source)
            assert (done.returncode, done.stdout, done.stderr) == (1, "", f"error: no objects passed to {verb}\n")


def test_client_side_apply_creates_configures_and_prunes_fields(server: RunningServer, tmp_path: Path) -> None:
    ns = namespace(server, "csa")
    manifest = write(
        tmp_path, "cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {keep: k, drop: d}\n"
    )
    assert orchctl(server, "-n", ns, "apply", "-f", manifest).stdout == "configmap/cfg created\n"
    assert orchctl(server, "-n", ns, "apply", "-f", manifest).stdout == "configmap/cfg unchanged\n"
    server.session.patch(
        f"/api/v1/namespaces/{ns}/configmaps/cfg",
        json={"data": {"theirs": "t"}},
        headers={"Content-Type": "application/merge-patch+json"},
    ).raise_for_status()
    Path(manifest).write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {keep: k2}\n")
    assert orchctl(server, "-n", ns, "apply", "-f", manifest).stdout == "configmap/cfg configured\n"
    live = server.get(f"/api/v1/namespaces/{ns}/configmaps/cfg").json()
    assert live["data"] == {"keep": "k2", "theirs": "t"}  # dropped from the manifest: gone; another's: kept
    assert f"{NAMING.group('kubectl')}/last-applied-configuration" in live["metadata"]["annotations"]


def test_client_side_apply_merges_containers_by_name(server: RunningServer, tmp_path: Path) -> None:
    ns = namespace(server, "csa-strategic")
    manifest = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: sm}\nspec:\n  replicas: 1\n"
        "  selector: {matchLabels: {app: sm}}\n  template:\n    metadata: {labels: {app: sm}}\n"
        "    spec:\n      containers:\n      - {name: a, image: img-a}\n      - {name: b, image: img-b}\n"
    )
    path = write(tmp_path, "deployment.yaml", manifest)
    assert orchctl(server, "-n", ns, "apply", "-f", path).returncode == 0
    assert orchctl(server, "-n", ns, "apply", "-f", path).stdout == "deployment.apps/sm unchanged\n"
    sidecar = '{"spec": {"template": {"spec": {"containers": [{"name": "sidecar", "image": "side"}]}}}}'
    assert orchctl(server, "-n", ns, "patch", "deployment", "sm", "-p", sidecar).returncode == 0
    Path(path).write_text(manifest.replace("      - {name: b, image: img-b}\n", "").replace("img-a", "img-a2"))
    assert orchctl(server, "-n", ns, "apply", "-f", path).stdout == "deployment.apps/sm configured\n"
    live = server.get(f"/apis/apps/v1/namespaces/{ns}/deployments/sm").json()
    containers = [(c["name"], c["image"]) for c in live["spec"]["template"]["spec"]["containers"]]
    assert containers == [("a", "img-a2"), ("sidecar", "side")]  # b dropped from the manifest; sidecar is theirs


def test_server_side_apply_conflict_and_force(server: RunningServer, tmp_path: Path) -> None:
    ns = namespace(server, "ssa")
    mine = write(tmp_path, "mine.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shared}\ndata: {x: '1'}\n")
    theirs = write(
        tmp_path, "theirs.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: shared}\ndata: {x: '2'}\n"
    )
    first = orchctl(server, "-n", ns, "apply", "--server-side", "-f", mine)
    assert first.returncode == 0 and first.stdout == "configmap/shared serverside-applied\n"
    conflict = orchctl(server, "-n", ns, "apply", "--server-side", "--field-manager", "other", "-f", theirs)
    assert conflict.returncode == 1
    assert conflict.stderr.startswith("Error from server (Conflict): ") and '"orchctl"' in conflict.stderr
    assert "--force-conflicts" in conflict.stderr
    forced = orchctl(
        server, "-n", ns, "apply", "--server-side", "--field-manager", "other", "--force-conflicts", "-f", theirs
    )
    assert forced.returncode == 0, forced.stderr
    live = server.get(f"/api/v1/namespaces/{ns}/configmaps/shared").json()
    assert live["data"] == {"x": "2"}
    assert [m["manager"] for m in live["metadata"]["managedFields"]] == ["other"]


def test_patch_types_and_delete(server: RunningServer) -> None:
    ns = namespace(server, "patching")
    server.session.post(
        f"/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": "p"}, "data": {"a": "1"}}
    ).raise_for_status()
    strategic = orchctl(server, "-n", ns, "patch", "configmap", "p", "-p", '{"data": {"b": "2"}}')
    assert strategic.returncode == 0 and strategic.stdout == "configmap/p patched\n"
    assert orchctl(server, "-n", ns, "patch", "cm/p", "--type", "merge", "-p", "data: {c: '3'}").returncode == 0
    json_patch = orchctl(
        server,
        "-n",
        ns,
        "patch",
        "cm",
        "p",
        "--type",
        "json",
        "-p",
        '[{"op": "remove", "path": "/data/a"}]',
        "-o",
        "json",
    )
    assert json.loads(json_patch.stdout)["data"] == {"b": "2", "c": "3"}
    same = orchctl(server, "-n", ns, "patch", "cm", "p", "--type", "merge", "-p", '{"data": {"c": "3"}}')
    assert same.stdout == "configmap/p patched (no change)\n"
    bad = orchctl(server, "-n", ns, "patch", "cm", "p", "--type", "json", "-p", '[{"op": "remove", "path": "/x"}]')
    assert bad.returncode == 1 and bad.stderr.startswith("Error from server")

    from_stdin = orchctl(
        server,
        "-n",
        ns,
        "create",
        "-f",
        "-",
        "-o",
        "name",
        stdin='{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "piped"}}',
    )
    assert (from_stdin.returncode, from_stdin.stdout) == (0, "configmap/piped\n")
    by_manifest = orchctl(
        server, "-n", ns, "delete", "-f", "-", stdin="apiVersion: v1\nkind: ConfigMap\nmetadata: {name: piped}\n"
    )
    assert by_manifest.stdout == 'configmap "piped" deleted\n'

    deleted = orchctl(server, "-n", ns, "delete", "configmap", "p")
    assert deleted.returncode == 0 and deleted.stdout == 'configmap "p" deleted\n'
    again = orchctl(server, "-n", ns, "delete", "configmap", "p")
    assert again.returncode == 1 and again.stderr.strip() == 'Error from server (NotFound): configmaps "p" not found'
    assert orchctl(server, "-n", ns, "delete", "configmap", "p", "--ignore-not-found").returncode == 0


def test_watch_prints_changes_made_meanwhile(server: RunningServer) -> None:
    ns = namespace(server, "watching")
    start = server.get(f"/api/v1/namespaces/{ns}/configmaps").json()["metadata"]["resourceVersion"]
    watch = Streaming(server, "-n", ns, "watch", "configmaps", "--resource-version", start)
    get_w = Streaming(server, "-n", ns, "get", "configmaps", "-w", "-o", "name")
    try:
        server.session.post(
            f"/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": "seen"}, "data": {"k": "v"}}
        ).raise_for_status()
        assert watch.wait_for(lambda line: line.split()[:2] == ["ADDED", "seen"])
        assert watch.seen[0].split()[:2] == ["EVENT", "NAME"]
        assert get_w.wait_for(lambda line: line == "configmap/seen")
        server.session.delete(f"/api/v1/namespaces/{ns}/configmaps/seen").raise_for_status()
        assert watch.wait_for(lambda line: line.split()[:2] == ["DELETED", "seen"])
    finally:
        watch.stop()
        get_w.stop()


def test_auth_whoami_and_can_i(server: RunningServer) -> None:
    whoami = orchctl(server, "auth", "whoami")
    assert whoami.returncode == 0, whoami.stderr
    rows = {line.split(None, 1)[0]: line.split(None, 1)[1].strip() for line in whoami.stdout.splitlines()[1:]}
    assert rows["Username"] == "admin"
    assert "system:masters" in rows["Groups"]
    review = json.loads(orchctl(server, "auth", "whoami", "-o", "json").stdout)
    assert review["status"]["userInfo"]["username"] == "admin"

    yes = orchctl(server, "auth", "can-i", "create", "pods")
    assert (yes.returncode, yes.stdout) == (0, "yes\n")
    as_jane = orchctl(server, "auth", "can-i", "create", "pods", "--as", "jane", "--as-group", "devs")
    assert as_jane.returncode == 1 and as_jane.stdout.startswith("no")
    jane = orchctl(server, "auth", "whoami", "--as", "jane", "--as-group", "devs", "--as-group", "ops")
    assert "jane" in jane.stdout and "[devs ops system:authenticated]" in jane.stdout

    # a restricted user: a service account's token from `create token`
    ns = namespace(server, "restricted")
    server.session.post(
        f"/api/v1/namespaces/{ns}/serviceaccounts", json={"metadata": {"name": "robot"}}
    ).raise_for_status()
    token = orchctl(server, "-n", ns, "create", "token", "robot", "--duration", "10m")
    assert token.returncode == 0, token.stderr
    config = yaml.safe_load(server.kubeconfig.read_text())
    config["users"] = [{"name": "robot", "user": {"token": token.stdout.strip()}}]
    for entry in config["contexts"]:
        entry["context"]["user"] = "robot"
    robot_config = server.data_dir / "robot.kubeconfig"
    robot_config.write_text(yaml.safe_dump(config))
    robot_who = orchctl(server, "auth", "whoami", kubeconfig=robot_config)
    assert f"system:serviceaccount:{ns}:robot" in robot_who.stdout
    no = orchctl(server, "-n", ns, "auth", "can-i", "delete", "secrets", kubeconfig=robot_config)
    assert no.returncode == 1 and no.stdout.startswith("no")
    forbidden = orchctl(server, "-n", ns, "get", "secrets", kubeconfig=robot_config)
    assert forbidden.returncode == 1 and forbidden.stderr.startswith("Error from server (Forbidden): ")


def csr_pem(common_name: str) -> bytes:
    key = ec.generate_private_key(ec.SECP256R1())
    request = (
        x509.CertificateSigningRequestBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)]))
        .sign(key, hashes.SHA256())
    )
    return request.public_bytes(serialization.Encoding.PEM)


def test_certificate_approve_and_deny(server: RunningServer) -> None:
    base = f"/apis/{NAMING.group('certificates')}/v1/certificatesigningrequests"
    for name in ("to-approve", "to-deny"):
        server.session.post(
            base,
            json={
                "apiVersion": f"{NAMING.group('certificates')}/v1",
                "kind": "CertificateSigningRequest",
                "metadata": {"name": name},
                "spec": {
                    "request": base64.b64encode(csr_pem(name)).decode(),
                    "usages": ["client auth"],
                    "signerName": NAMING.key("kube-apiserver-client"),
                },
            },
        ).raise_for_status()
    approved = orchctl(server, "certificate", "approve", "to-approve")
    assert approved.returncode == 0, approved.stderr
    assert approved.stdout == f"certificatesigningrequest.{NAMING.group('certificates')}/to-approve approved\n"
    conditions = server.get(f"{base}/to-approve").json()["status"]["conditions"]
    assert [(c["type"], c["status"], c["reason"]) for c in conditions] == [("Approved", "True", "OrchctlApprove")]

    assert orchctl(server, "certificate", "deny", "to-deny").returncode == 0
    assert server.get(f"{base}/to-deny").json()["status"]["conditions"][0]["type"] == "Denied"
    refused = orchctl(server, "certificate", "approve", "to-deny")
    assert refused.returncode == 1 and "already denied" in refused.stderr
    missing = orchctl(server, "certificate", "approve", "nope")
    assert missing.returncode == 1 and "(NotFound)" in missing.stderr


def test_deprecated_version_warning_goes_to_stderr(server: RunningServer) -> None:
    from orch_apiserver.resources import build_catalog

    deprecated = [
        rt for rt in build_catalog(NAMING) if rt.deprecation is not None and not rt.virtual and "list" in rt.verbs
    ]
    if not deprecated:
        pytest.skip("no deprecated API version is served by this tree yet")
    rt = deprecated[0]
    path = (f"/apis/{rt.group}/{rt.version}" if rt.group else f"/api/{rt.version}") + f"/{rt.plural}"
    if "Warning" not in server.get(path).headers:
        pytest.skip(f"the server does not send a Warning header for {rt.group_version} {rt.kind} yet")
    listed = orchctl(server, "get", f"{rt.plural}.{rt.version}.{rt.group}" if rt.group else rt.plural, "-A")
    assert listed.returncode == 0, listed.stderr
    assert any(line.startswith("Warning: ") and rt.group_version in line for line in listed.stderr.splitlines())


# --- bootstrap ---------------------------------------------------------------------------------------------


def bootstrap_token(server: RunningServer, token_id: str, secret: str) -> None:
    server.session.post(
        f"/api/v1/namespaces/{NAMING.system_namespace}/secrets",
        json={
            "metadata": {"name": f"bootstrap-token-{token_id}"},
            "type": f"{NAMING.group('bootstrap')}/token",
            "stringData": {
                "token-id": token_id,
                "token-secret": secret,
                "usage-bootstrap-authentication": "true",
                "usage-bootstrap-signing": "true",
            },
        },
    ).raise_for_status()


def jws(payload: str, token_id: str, secret: str) -> str:
    """An independent detached HS256 JWS, as the bootstrap signer makes them."""

    def b64url(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    header = b64url(json.dumps({"alg": "HS256", "kid": token_id}).encode())
    signing_input = f"{header}.{b64url(payload.encode())}".encode()
    signature = hmac.new(f"{token_id}.{secret}".encode(), signing_input, hashlib.sha256).digest()
    return f"{header}..{b64url(signature)}"


CLUSTER_INFO = f"/api/v1/namespaces/{NAMING.public_namespace}/configmaps/cluster-info"


def signed_cluster_info(server: RunningServer, token_id: str, secret: str, *, signer_secret: str | None = None) -> None:
    """cluster-info signed for the token: by the server's bootstrap signer when it runs, else by the test."""
    key = f"jws-kubeconfig-{token_id}"
    if signer_secret is None:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            response = server.get(CLUSTER_INFO)
            if response.status_code == 200 and key in (response.json().get("data") or {}):
                return
            time.sleep(0.2)
    response = server.get(CLUSTER_INFO)
    if response.status_code == 404:
        ca_data = base64.b64encode(server.ca_file.read_bytes()).decode()
        kubeconfig = yaml.safe_dump(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "", "cluster": {"server": server.url, "certificate-authority-data": ca_data}}],
            }
        )
        server.session.post(
            f"/api/v1/namespaces/{NAMING.public_namespace}/configmaps",
            json={"metadata": {"name": "cluster-info"}, "data": {"kubeconfig": kubeconfig}},
        ).raise_for_status()
        response = server.get(CLUSTER_INFO)
    payload = response.json()["data"]["kubeconfig"]
    server.session.patch(
        CLUSTER_INFO,
        json={"data": {key: jws(payload, token_id, signer_secret or secret)}},
        headers={"Content-Type": "application/merge-patch+json"},
    ).raise_for_status()


def ca_pin(server: RunningServer) -> str:
    certificate = x509.load_pem_x509_certificate(server.ca_file.read_bytes())
    spki = certificate.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return "sha256:" + hashlib.sha256(spki).hexdigest()


def test_bootstrap_writes_a_working_kubeconfig_only_after_verification(server: RunningServer, tmp_path: Path) -> None:
    token_id, secret = "abcdef", "0123456789abcdef"
    bootstrap_token(server, token_id, secret)
    signed_cluster_info(server, token_id, secret)
    output = tmp_path / "bootstrap.kubeconfig"
    done = orchctl(
        None,
        "bootstrap",
        "--server",
        server.url,
        "--token",
        f"{token_id}.{secret}",
        "--output",
        str(output),
        "--discovery-token-ca-cert-hash",
        ca_pin(server),
    )
    assert done.returncode == 0, done.stderr
    config = yaml.safe_load(output.read_text())
    assert (
        base64.b64decode(config["clusters"][0]["cluster"]["certificate-authority-data"]) == server.ca_file.read_bytes()
    )
    assert config["users"][0]["user"]["token"] == f"{token_id}.{secret}"
    who = orchctl(None, "auth", "whoami", kubeconfig=output)
    assert who.returncode == 0, who.stderr
    assert f"system:bootstrap:{token_id}" in who.stdout

    wrong_pin = orchctl(
        None,
        "bootstrap",
        "--server",
        server.url,
        "--token",
        f"{token_id}.{secret}",
        "--output",
        str(tmp_path / "pinned"),
        "--discovery-token-ca-cert-hash",
        "sha256:" + "0" * 64,
    )
    assert wrong_pin.returncode == 1 and not (tmp_path / "pinned").exists()


def test_bootstrap_refuses_a_forged_signature(server: RunningServer, tmp_path: Path) -> None:
    token_id, secret = "forged", "aaaaaaaaaaaaaaaa"
    signed_cluster_info(server, token_id, secret, signer_secret="bbbbbbbbbbbbbbbb")  # not the token's secret
    output = tmp_path / "never.kubeconfig"
    refused = orchctl(
        None, "bootstrap", "--server", server.url, "--token", f"{token_id}.{secret}", "--output", str(output)
    )
    assert refused.returncode == 1
    assert "nothing was written" in refused.stderr
    assert not output.exists()


def test_delete_waits_until_the_object_is_gone(server: RunningServer) -> None:
    ns = namespace(server, "short-lived")
    server.session.post(f"/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": "c"}}).raise_for_status()
    deleted = orchctl(server, "delete", "namespace", ns)
    assert deleted.returncode == 0, deleted.stderr
    assert deleted.stdout == f'namespace "{ns}" deleted\n'
    assert server.get(f"/api/v1/namespaces/{ns}").status_code == 404  # finalized before orchctl returned


def test_api_resources_and_version(server: RunningServer) -> None:
    resources = orchctl(server, "api-resources")
    assert resources.returncode == 0, resources.stderr
    rows = [line.split() for line in resources.stdout.splitlines()]
    assert rows[0] == ["NAME", "SHORTNAMES", "APIVERSION", "NAMESPACED", "KIND"]
    assert ["deployments", "deploy", "apps/v1", "true", "Deployment"] in rows
    apps = orchctl(server, "api-resources", "--api-group", "apps", "-o", "name").stdout.splitlines()
    assert "deployments.apps" in apps and all(line.endswith(".apps") for line in apps)
    version = orchctl(server, "version", "-o", "json")
    assert json.loads(version.stdout)["serverVersion"]["major"] == "1"
