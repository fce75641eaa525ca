"""The reference's built-in plugins that complete or refuse pods, claims and ingresses from cluster objects, seen
over HTTP as kubectl sees them."""

from __future__ import annotations

import pytest

from tests.conftest import _shutdown, admin_app

PODS = "/api/v1/namespaces/default/pods"
CLAIMS = "/api/v1/namespaces/default/persistentvolumeclaims"
INGRESSES = "/apis/networking.orch.io/v1/namespaces/default/ingresses"
PRIORITY_CLASSES = "/apis/scheduling.orch.io/v1/priorityclasses"
STORAGE_CLASSES = "/apis/storage.orch.io/v1/storageclasses"
INGRESS_CLASSES = "/apis/networking.orch.io/v1/ingressclasses"
NOT_READY = {"key": "node.orch.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300}
UNREACHABLE = {**NOT_READY, "key": "node.orch.io/unreachable"}


def pod(name: str, **spec) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "c", "image": "nginx"}], **spec},
    }


def created(client, path: str, body: dict) -> dict:
    answer = client.post(path, json=body)
    assert answer.status_code == 201, answer.get_json()
    return answer.get_json()


def refused(client, path: str, body: dict) -> str:
    answer = client.post(path, json=body)
    assert answer.status_code == 403, answer.get_json()
    assert answer.get_json()["reason"] == "Forbidden"
    return answer.get_json()["message"]


def priority_class(name: str, value: int, **extra) -> dict:
    return {
        "apiVersion": "scheduling.orch.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        **extra,
    }


def claim(name: str, size: str = "1Gi", **spec) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": size}}, **spec},
    }


def storage_class(name: str, default: bool = False, **extra) -> dict:
    annotations = {"storageclass.orch.io/is-default-class": "true"} if default else {}
    return {
        "apiVersion": "storage.orch.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": name, "annotations": annotations},
        "provisioner": "example.com/disk",
        **extra,
    }


def test_priority_comes_from_the_pods_class(any_client):
    created(any_client, PRIORITY_CLASSES, priority_class("high", 1000, preemptionPolicy="Never"))
    spec = created(any_client, PODS, pod("important", priorityClassName="high"))["spec"]
    assert (spec["priority"], spec["preemptionPolicy"]) == (1000, "Never")
    spec = created(any_client, PODS, pod("plain"))["spec"]
    assert (spec["priority"], spec["preemptionPolicy"]) == (0, "PreemptLowerPriority")
    assert "priorityClassName" not in spec
    spec = created(any_client, PODS, pod("system", priorityClassName="system-node-critical"))["spec"]
    assert spec["priority"] == 2000001000
    assert (
        refused(any_client, PODS, pod("lost", priorityClassName="nope"))
        == 'pods "lost" is forbidden: no PriorityClass with name nope was found'
    )
    assert refused(any_client, PODS, pod("liar", priorityClassName="high", priority=5)) == (
        'pods "liar" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority '
        "admission controller computed 1000 from the given PriorityClass name"
    )
    assert any_client.get(f"{PODS}/lost").status_code == 404


def test_the_global_default_class_applies_to_pods_without_one_and_there_is_only_one(client):
    created(client, PRIORITY_CLASSES, priority_class("everyday", 10, globalDefault=True))
    spec = created(client, PODS, pod("p"))["spec"]
    assert (spec["priorityClassName"], spec["priority"]) == ("everyday", 10)
    assert refused(client, PRIORITY_CLASSES, priority_class("another", 20, globalDefault=True)) == (
        'priorityclasses.scheduling.orch.io "another" is forbidden: PriorityClass everyday is already marked as '
        "default. Only one default can exist"
    )
    created(client, PRIORITY_CLASSES, priority_class("another", 20))


def test_new_pods_tolerate_not_ready_and_unreachable_nodes_for_five_minutes(client):
    assert created(client, PODS, pod("p"))["spec"]["tolerations"] == [NOT_READY, UNREACHABLE]
    own = {"key": "node.orch.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 10}
    assert created(client, PODS, pod("q", tolerations=[own]))["spec"]["tolerations"] == [own, UNREACHABLE]
    everything = {"operator": "Exists"}
    assert created(client, PODS, pod("r", tolerations=[everything]))["spec"]["tolerations"] == [everything]


def test_a_runtime_class_brings_its_overhead_and_scheduling(client):
    runtime = {
        "apiVersion": "node.orch.io/v1",
        "kind": "RuntimeClass",
        "metadata": {"name": "sandboxed"},
        "handler": "runsc",
        "overhead": {"podFixed": {"cpu": "250m", "memory": "120Mi"}},
        "scheduling": {
            "nodeSelector": {"sandbox": "yes"},
            "tolerations": [{"key": "sandbox", "operator": "Exists", "effect": "NoSchedule"}],
        },
    }
    created(client, "/apis/node.orch.io/v1/runtimeclasses", runtime)
    spec = created(client, PODS, pod("p", runtimeClassName="sandboxed", nodeSelector={"zone": "a"}))["spec"]
    assert spec["overhead"] == {"cpu": "250m", "memory": "120Mi"}
    assert spec["nodeSelector"] == {"zone": "a", "sandbox": "yes"}
    assert runtime["scheduling"]["tolerations"][0] in spec["tolerations"]
    assert (
        refused(client, PODS, pod("q", runtimeClassName="missing"))
        == 'pods "q" is forbidden: pod rejected: RuntimeClass "missing" not found'
    )
    assert (
        refused(client, PODS, pod("r", runtimeClassName="sandboxed", nodeSelector={"sandbox": "no"}))
        == 'pods "r" is forbidden: pod rejected: conflict between pod and RuntimeClass node selector'
    )


def test_limit_ranges_fill_in_container_resources_and_hold_them_within_bounds(any_client):
    created(
        any_client,
        "/api/v1/namespaces/default/limitranges",
        {
            "apiVersion": "v1",
            "kind": "LimitRange",
            "metadata": {"name": "limits"},
            "spec": {
                "limits": [
                    {
                        "type": "Container",
                        "default": {"cpu": "500m"},
                        "defaultRequest": {"cpu": "100m"},
                        "max": {"cpu": "1"},
                    },
                    {"type": "PersistentVolumeClaim", "min": {"storage": "1Gi"}},
                ]
            },
        },
    )
    made = created(any_client, PODS, pod("p"))
    assert made["spec"]["containers"][0]["resources"] == {"limits": {"cpu": "500m"}, "requests": {"cpu": "100m"}}
    assert (
        made["metadata"]["annotations"]["orch.io/limit-ranger"]
        == "LimitRanger plugin set: cpu request for container c; cpu limit for container c"
    )
    greedy = pod("greedy")
    greedy["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "2"}}
    assert (
        refused(any_client, PODS, greedy)
        == 'pods "greedy" is forbidden: maximum cpu usage per Container is 1, but limit is 2'
    )
    assert refused(any_client, CLAIMS, claim("small", "100Mi")) == (
        'persistentvolumeclaims "small" is forbidden: minimum storage usage per PersistentVolumeClaim is 1Gi, but '
        "request is 100Mi"
    )
    created(any_client, CLAIMS, claim("big", "2Gi"))


def test_a_claim_without_a_class_gets_the_default_one(client):
    created(client, STORAGE_CLASSES, storage_class("standard", default=True))
    created(client, STORAGE_CLASSES, storage_class("fast"))
    assert created(client, CLAIMS, claim("a"))["spec"]["storageClassName"] == "standard"
    assert created(client, CLAIMS, claim("b", storageClassName="fast"))["spec"]["storageClassName"] == "fast"
    assert created(client, CLAIMS, claim("c", storageClassName=""))["spec"]["storageClassName"] == ""
    created(client, STORAGE_CLASSES, storage_class("also-default", default=True))
    assert (
        refused(client, CLAIMS, claim("d"))
        == 'persistentvolumeclaims "d" is forbidden: Internal error occurred: 2 default StorageClasses were found'
    )


def test_an_ingress_without_a_class_gets_the_default_one(client):
    backend = {"service": {"name": "web", "port": {"number": 80}}}

    def ingress(name: str, annotations: dict | None = None) -> dict:
        return {
            "apiVersion": "networking.orch.io/v1",
            "kind": "Ingress",
            "metadata": {"name": name, "annotations": annotations or {}},
            "spec": {"defaultBackend": backend},
        }

    def ingress_class(name: str) -> dict:
        return {
            "apiVersion": "networking.orch.io/v1",
            "kind": "IngressClass",
            "metadata": {"name": name, "annotations": {"ingressclass.orch.io/is-default-class": "true"}},
            "spec": {"controller": "example.com/ingress"},
        }

    assert "ingressClassName" not in created(client, INGRESSES, ingress("before"))["spec"]
    created(client, INGRESS_CLASSES, ingress_class("nginx"))
    assert created(client, INGRESSES, ingress("after"))["spec"]["ingressClassName"] == "nginx"
    legacy = created(client, INGRESSES, ingress("legacy", {"orch.io/ingress.class": "other"}))
    assert "ingressClassName" not in legacy["spec"]
    created(client, INGRESS_CLASSES, ingress_class("traefik"))
    assert refused(client, INGRESSES, ingress("two")) == (
        'ingresses.networking.orch.io "two" is forbidden: Internal error occurred: 2 default IngressClasses were '
        "found, only 1 allowed"
    )


@pytest.mark.parametrize(("expandable", "status"), [(True, 200), (False, 403)])
def test_a_bound_claim_grows_only_when_its_class_allows_expansion(client, expandable, status):
    created(client, STORAGE_CLASSES, storage_class("disk", allowVolumeExpansion=expandable))
    made = created(client, CLAIMS, claim("data", storageClassName="disk"))
    made["spec"]["resources"]["requests"]["storage"] = "2Gi"
    unbound = client.put(f"{CLAIMS}/data", json=made)
    assert unbound.status_code == 403
    assert (
        unbound.get_json()["message"]
        == 'persistentvolumeclaims "data" is forbidden: Only bound persistent volume claims can be expanded'
    )
    made["status"] = {"phase": "Bound"}
    bound = client.put(f"{CLAIMS}/data/status", json=made)
    assert bound.status_code == 200, bound.get_json()
    grown = bound.get_json()
    grown["spec"]["resources"]["requests"]["storage"] = "2Gi"
    answer = client.put(f"{CLAIMS}/data", json=grown)
    assert answer.status_code == status, answer.get_json()
    if status == 403:
        assert answer.get_json()["message"] == (
            'persistentvolumeclaims "data" is forbidden: only dynamically provisioned pvc can be resized and the '
            "storageclass that provisions the pvc must support resize"
        )
    stored = client.get(f"{CLAIMS}/data").get_json()["spec"]["resources"]["requests"]["storage"]
    assert stored == ("2Gi" if expandable else "1Gi")


TOKEN_MOUNT = "/var/run/secrets/orch.io/serviceaccount"


@pytest.fixture
def accounts_client(database_url, tmp_path):
    """An app with every default plugin and the controller that makes each namespace's `default` account."""
    app = admin_app(database_url, tmp_path, ADMISSION_PLUGINS=None, CONTROLLERS="serviceaccount")
    yield app.test_client()
    _shutdown(app)


def test_pods_run_as_an_existing_service_account_with_an_api_access_volume(accounts_client):
    spec = created(accounts_client, PODS, pod("p", initContainers=[{"name": "init", "image": "busybox"}]))["spec"]
    assert spec["serviceAccountName"] == spec["serviceAccount"] == "default"
    [volume] = spec["volumes"]
    assert volume["name"].startswith("orch-api-access-") and len(volume["name"]) == len("orch-api-access-") + 5
    assert volume["projected"] == {
        "defaultMode": 420,
        "sources": [
            {"serviceAccountToken": {"path": "token", "expirationSeconds": 3607}},
            {"configMap": {"name": "orch-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {
                "downwardAPI": {
                    "items": [
                        {"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}
                    ]
                }
            },
        ],
    }
    mount = {"name": volume["name"], "readOnly": True, "mountPath": TOKEN_MOUNT}
    assert spec["containers"][0]["volumeMounts"] == spec["initContainers"][0]["volumeMounts"] == [mount]
    assert (
        refused(accounts_client, PODS, pod("q", serviceAccountName="robot"))
        == 'pods "q" is forbidden: error looking up service account default/robot: serviceaccount "robot" not found'
    )


def test_the_account_decides_token_mounting_and_pull_secrets_unless_the_pod_does(accounts_client):
    created(
        accounts_client,
        "/api/v1/namespaces/default/serviceaccounts",
        {
            "apiVersion": "v1",
            "kind": "ServiceAccount",
            "metadata": {"name": "robot"},
            "automountServiceAccountToken": False,
            "imagePullSecrets": [{"name": "registry"}],
        },
    )
    spec = created(accounts_client, PODS, pod("quiet", serviceAccountName="robot"))["spec"]
    assert "volumes" not in spec and "volumeMounts" not in spec["containers"][0]
    assert spec["imagePullSecrets"] == [{"name": "registry"}]
    spec = created(
        accounts_client,
        PODS,
        pod("loud", serviceAccountName="robot", automountServiceAccountToken=True, imagePullSecrets=[{"name": "own"}]),
    )["spec"]
    assert spec["volumes"][0]["name"].startswith("orch-api-access-")
    assert spec["imagePullSecrets"] == [{"name": "own"}]
    own_mount = {"name": "mine", "mountPath": TOKEN_MOUNT}
    mounted = pod("mounted", volumes=[{"name": "mine", "emptyDir": {}}])
    mounted["spec"]["containers"][0]["volumeMounts"] = [own_mount]
    spec = created(accounts_client, PODS, mounted)["spec"]
    assert spec["volumes"] == [{"name": "mine", "emptyDir": {}}]
    assert spec["containers"][0]["volumeMounts"] == [own_mount]


def test_a_pod_in_a_new_namespace_waits_for_its_default_account(accounts_client):
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "fresh"}}
    created(accounts_client, "/api/v1/namespaces", namespace)
    spec = created(accounts_client, "/api/v1/namespaces/fresh/pods", pod("first"))["spec"]
    assert spec["serviceAccountName"] == "default"
    assert accounts_client.get("/api/v1/namespaces/fresh/serviceaccounts/default").status_code == 200


def test_mirror_pods_reference_no_account_and_no_secret(accounts_client):
    def mirror(name: str, **spec) -> dict:
        body = pod(name, **spec)
        body["metadata"]["annotations"] = {"orch.io/config.mirror": "hash"}
        return body

    spec = created(accounts_client, PODS, mirror("static"))["spec"]
    assert "serviceAccountName" not in spec and "volumes" not in spec
    assert (
        refused(accounts_client, PODS, mirror("named", serviceAccountName="default"))
        == 'pods "named" is forbidden: a mirror pod may not reference service accounts'
    )
    secretive = mirror("secretive", volumes=[{"name": "s", "secret": {"secretName": "x"}}])
    assert (
        refused(accounts_client, PODS, secretive)
        == 'pods "secretive" is forbidden: a mirror pod may not reference secrets'
    )


def test_a_pod_limit_counts_init_containers_as_the_reference_does(client):
    created(
        client,
        "/api/v1/namespaces/default/limitranges",
        {
            "apiVersion": "v1",
            "kind": "LimitRange",
            "metadata": {"name": "pod-max"},
            "spec": {"limits": [{"type": "Pod", "max": {"cpu": "1"}}]},
        },
    )

    def sized(name: str, init_cpu: str, cpu: str) -> dict:
        body = pod(
            name, initContainers=[{"name": "setup", "image": "busybox", "resources": {"limits": {"cpu": init_cpu}}}]
        )
        body["spec"]["containers"][0]["resources"] = {"limits": {"cpu": cpu}}
        return body

    created(client, PODS, sized("fits", "800m", "800m"))  # init containers run before the others: max, not sum
    assert (
        refused(client, PODS, sized("big", "1500m", "500m"))
        == 'pods "big" is forbidden: maximum cpu usage per Pod is 1, but limit is 1500m'
    )
