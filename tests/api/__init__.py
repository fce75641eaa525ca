"""Tests of the HTTP layer. `sample_catalog()` is a hand-made catalog for the pure builders."""

from __future__ import annotations

from orch_apiserver.catalog import Catalog, ResourceType, Subresource, status_subresource

CERTIFICATES = "certificates.orch.io"
AUTHENTICATION = "authentication.orch.io"


def sample_catalog() -> Catalog:
    """Namespaced and cluster kinds, subresources (scale in autoscaling/v1), a virtual kind, two versions."""
    return Catalog(
        [
            ResourceType("", "v1", "ConfigMap", "configmaps", True, short_names=("cm",), example={"data": {"k": "v"}}),
            ResourceType(
                "",
                "v1",
                "Pod",
                "pods",
                True,
                short_names=("po",),
                categories=("all",),
                return_deleted_object=True,
                has_status=True,
                subresources=(
                    status_subresource(),
                    Subresource("eviction", ("create",), kind="Eviction", group="policy", version="v1"),
                    Subresource("log", ("get",)),
                ),
            ),
            ResourceType(
                "",
                "v1",
                "Namespace",
                "namespaces",
                False,
                short_names=("ns",),
                verbs=("watch", "create", "delete", "get", "list", "patch", "update"),
                subresources=(status_subresource(), Subresource("finalize", ("update",))),
            ),
            ResourceType(
                "apps",
                "v1",
                "Deployment",
                "deployments",
                True,
                short_names=("deploy",),
                categories=("all",),
                has_status=True,
                subresources=(
                    status_subresource(),
                    Subresource("scale", kind="Scale", group="autoscaling", version="v1"),
                ),
            ),
            ResourceType("batch", "v1", "CronJob", "cronjobs", True, short_names=("cj",)),
            ResourceType("batch", "v1beta1", "CronJob", "cronjobs", True, short_names=("cj",)),
            ResourceType(
                CERTIFICATES,
                "v1",
                "CertificateSigningRequest",
                "certificatesigningrequests",
                False,
                short_names=("csr",),
                subresources=(status_subresource(), Subresource("approval")),
            ),
            ResourceType(AUTHENTICATION, "v1", "TokenReview", "tokenreviews", False, verbs=("create",)),
            ResourceType(
                "rbac.authorization.orch.io",
                "v1",
                "Role",
                "roles",
                True,
                example={"rules": [{"verbs": ["get"], "resources": ["pods"], "apiGroups": [""]}]},
            ),
        ]
    )
