"""ServiceAccount: a new pod runs as a service account that exists (`default` unless it names one), mounts a
projected API-access volume (a bound token, the cluster CA and its namespace) in every container, and inherits
the account's image pull secrets; mirror pods may reference neither accounts nor secrets."""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING

from ..errors import NotFound
from ..registry.admission import CREATE, Attributes, Plugin, forbidden, is_kind
from ..resources.common import containers, items

if TYPE_CHECKING:
    from ..registry.store import Registry

DEFAULT_ACCOUNT = "default"
#: the reference's bound-token lifetime for the projected volume (an hour and change: warn-only expiry)
TOKEN_SECONDS = 3607
NAME_LETTERS = "bcdfghjklmnpqrstvwxz2456789"
#: the in-server controller makes `default` soon after its namespace; a pod created meanwhile waits this long
DEFAULT_ACCOUNT_WAIT = 2.0


class ServiceAccount(Plugin):
    name = "ServiceAccount"
    operations = frozenset({CREATE})

    def __init__(self, registry: Registry) -> None:
        naming = registry.naming
        self.registry = registry
        self.accounts = registry.catalog.known_type("", "v1", "serviceaccounts")
        self.mirror_annotation = naming.key("config.mirror")
        self.volume_prefix = f"{naming.namespace_prefix}-api-access-"
        self.mount_path = f"/var/run/secrets/{naming.key_domain}/serviceaccount"
        self.root_ca = naming.root_ca_config_map

    def handles(self, attrs: Attributes) -> bool:
        return attrs.operation == CREATE and is_kind(attrs, "", "pods")

    def _mirror(self, pod: dict) -> bool:
        return self.mirror_annotation in ((pod.get("metadata") or {}).get("annotations") or {})

    def _account(self, attrs: Attributes, name: str) -> dict:
        deadline = time.monotonic() + (DEFAULT_ACCOUNT_WAIT if name == DEFAULT_ACCOUNT else 0)
        while True:
            try:
                return self.registry.get(self.accounts, attrs.namespace, name)
            except NotFound:
                if time.monotonic() >= deadline:
                    raise forbidden(
                        attrs,
                        f'error looking up service account {attrs.namespace}/{name}: serviceaccount "{name}" not found',
                    ) from None
            time.sleep(0.1)

    def admit(self, attrs: Attributes) -> None:
        pod = attrs.obj or {}
        if self._mirror(pod):
            return
        spec = pod.setdefault("spec", {})
        if not spec.get("serviceAccountName"):
            spec["serviceAccountName"] = DEFAULT_ACCOUNT
        account = self._account(attrs, spec["serviceAccountName"])
        automount = spec.get("automountServiceAccountToken")
        if automount is None:
            automount = account.get("automountServiceAccountToken")
        if automount is not False:
            self._mount_token(spec)
        if not spec.get("imagePullSecrets") and account.get("imagePullSecrets"):
            spec["imagePullSecrets"] = [dict(secret) for secret in account["imagePullSecrets"]]
        attrs.mutated = True

    def _mount_token(self, spec: dict) -> None:
        volumes = spec.get("volumes") or []
        existing = next(
            (
                v["name"]
                for v in volumes
                if isinstance(v, dict) and str(v.get("name", "")).startswith(self.volume_prefix)
            ),
            None,
        )
        name = existing or self.volume_prefix + "".join(random.choices(NAME_LETTERS, k=5))
        needed = False
        for container in containers(spec):
            mounts = container.get("volumeMounts") or []
            if not any(isinstance(m, dict) and m.get("mountPath") == self.mount_path for m in mounts):
                container["volumeMounts"] = [*mounts, {"name": name, "readOnly": True, "mountPath": self.mount_path}]
                needed = True
        if needed and existing is None:
            spec["volumes"] = [*volumes, {"name": name, "projected": self._token_volume()}]

    def _token_volume(self) -> dict:
        return {
            "defaultMode": 0o644,
            "sources": [
                {"serviceAccountToken": {"path": "token", "expirationSeconds": TOKEN_SECONDS}},
                {"configMap": {"name": self.root_ca, "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                {
                    "downwardAPI": {
                        "items": [
                            {"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}
                        ]
                    }
                },
            ],
        }

    def validate(self, attrs: Attributes) -> None:
        pod = attrs.obj or {}
        spec = pod.get("spec") or {}
        if not self._mirror(pod):
            if not spec.get("serviceAccountName"):
                raise forbidden(attrs, f"no service account specified for pod {attrs.namespace}/{attrs.name}")
            return
        if spec.get("serviceAccountName"):
            raise forbidden(attrs, "a mirror pod may not reference service accounts")
        if _references_secrets(spec):
            raise forbidden(attrs, "a mirror pod may not reference secrets")
        for volume in spec.get("volumes") or []:
            sources = ((volume or {}).get("projected") or {}).get("sources") or []
            if any(isinstance(s, dict) and s.get("serviceAccountToken") for s in sources):
                raise forbidden(attrs, "a mirror pod may not use ServiceAccountToken volume projections")


def _references_secrets(spec: dict) -> bool:
    """The pod names a secret: a pull secret, a secret volume or projection, or a container's env from one."""
    if spec.get("imagePullSecrets"):
        return True
    for volume in spec.get("volumes") or []:
        volume = volume or {}
        if volume.get("secret") or any(
            isinstance(s, dict) and s.get("secret") for s in (volume.get("projected") or {}).get("sources") or []
        ):
            return True
        if (volume.get("azureFile") or {}).get("secretName") or (volume.get("csi") or {}).get("nodePublishSecretRef"):
            return True
        if any(
            (volume.get(kind) or {}).get("secretRef")
            for kind in ("cephfs", "cinder", "flexVolume", "rbd", "scaleIO", "iscsi", "storageos")
        ):
            return True
    for container in containers(spec) + items(spec, "ephemeralContainers"):
        for env in container.get("env") or []:
            if ((env or {}).get("valueFrom") or {}).get("secretKeyRef"):
                return True
        if any((source or {}).get("secretRef") for source in container.get("envFrom") or []):
            return True
    return False
