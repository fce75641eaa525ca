"""A tiny operator: every ConfigMap labelled `mirror=true` gets a Secret of the same name and data, owned by
the ConfigMap (so the API server's garbage collector removes the Secret with it)."""

from __future__ import annotations

import base64

from kubernetes import client

LABEL = "mirror=true"


def reconcile(api: client.ApiClient, namespace: str) -> list[str]:
    """Create or update the mirror Secret of every labelled ConfigMap; returns the names handled."""
    core = client.CoreV1Api(api)
    handled = []
    for cm in core.list_namespaced_config_map(namespace, label_selector=LABEL).items:
        data = {k: base64.b64encode(v.encode()).decode() for k, v in (cm.data or {}).items()}
        owner = client.V1OwnerReference(
            api_version="v1", kind="ConfigMap", name=cm.metadata.name, uid=cm.metadata.uid, block_owner_deletion=True
        )
        body = client.V1Secret(metadata=client.V1ObjectMeta(name=cm.metadata.name, owner_references=[owner]), data=data)
        try:
            core.create_namespaced_secret(namespace, body)
        except client.ApiException as err:
            if err.status != 409:
                raise
            core.replace_namespaced_secret(cm.metadata.name, namespace, body)
        handled.append(cm.metadata.name)
    return handled
