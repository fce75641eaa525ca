"""Printers for core (`v1`) kinds other than pods and the controllers: config, services, nodes, volumes."""

from __future__ import annotations

import ipaddress
from datetime import datetime

from ..naming import Naming
from .columns import (
    NONE,
    UNKNOWN,
    UNSET,
    Cell,
    Column,
    Obj,
    TableSpec,
    age,
    age_column,
    containers_cells,
    count,
    deleting,
    dicts,
    format_labels,
    mapping,
    meta,
    name_column,
    name_of,
    strings,
    table,
    text,
    wide,
)

# ---------------------------------------------------------------------------------------------
# namespaces, configmaps, secrets, serviceaccounts, podtemplates
# ---------------------------------------------------------------------------------------------

NAMESPACE_TABLE = table(
    [name_column(), Column("Status", description="The status of the namespace"), age_column()],
    lambda obj, now: [name_of(obj), text(obj, "status", "phase"), age(obj, now)],
)

CONFIGMAP_TABLE = table(
    [name_column(), Column("Data", description="Data contains the configuration data."), age_column()],
    lambda obj, now: [name_of(obj), count(obj, "data") + count(obj, "binaryData"), age(obj, now)],
)

SECRET_TABLE = table(
    [
        name_column(),
        Column("Type", description="Used to facilitate programmatic handling of secret data."),
        Column("Data", description="Data contains the secret data."),
        age_column(),
    ],
    lambda obj, now: [name_of(obj), text(obj, "type"), count(obj, "data"), age(obj, now)],
)

SERVICEACCOUNT_TABLE = table(
    [
        name_column(),
        Column(
            "Secrets",
            description="Secrets is a list of the secrets in the same namespace "
            "that pods running using this ServiceAccount are allowed to use.",
        ),
        age_column(),
    ],
    lambda obj, now: [name_of(obj), count(obj, "secrets"), age(obj, now)],
)


def _pod_template_cells(obj: Obj, now: datetime) -> list[Cell]:
    names, images = containers_cells(dicts(obj, "template", "spec", "containers"))
    return [name_of(obj), names, images, format_labels(mapping(obj, "template", "metadata", "labels"))]


PODTEMPLATE_TABLE = table(
    [
        name_column(),
        Column("Containers", description="Names of each container in the template."),
        Column("Images", description="Images referenced by each container in the template."),
        Column("Pod Labels", description="The labels for the pod template."),
    ],
    _pod_template_cells,
)

# ---------------------------------------------------------------------------------------------
# services and endpoints
# ---------------------------------------------------------------------------------------------


def _load_balancer_ips(status: Obj) -> list[str]:
    """The distinct, sorted ingress IPs (or hostnames) of a load-balancer status."""
    found = {text(i, "ip") or text(i, "hostname") for i in dicts(status, "loadBalancer", "ingress")}
    return sorted(found - {""})


def service_external_ip(obj: Obj) -> str:
    spec = mapping(obj, "spec")
    external = strings(spec, "externalIPs")
    kind = text(spec, "type") or "ClusterIP"
    if kind in ("ClusterIP", "NodePort"):
        return ",".join(external) or NONE
    if kind == "LoadBalancer":
        lb = _load_balancer_ips(mapping(obj, "status"))
        if external:
            return ",".join(lb + external)
        return ",".join(lb) or "<pending>"
    if kind == "ExternalName":
        return text(spec, "externalName")
    return UNKNOWN


def service_ports(obj: Obj) -> str:
    """makePortString: `80/TCP,443:30443/TCP`."""
    pieces = []
    for port in dicts(obj, "spec", "ports"):
        protocol = text(port, "protocol") or "TCP"
        node_port = port.get("nodePort")
        if isinstance(node_port, int) and node_port > 0:
            pieces.append(f"{port.get('port')}:{node_port}/{protocol}")
        else:
            pieces.append(f"{port.get('port')}/{protocol}")
    return ",".join(pieces) or NONE


def _service_cells(obj: Obj, now: datetime) -> list[Cell]:
    spec = mapping(obj, "spec")
    cluster_ips = strings(spec, "clusterIPs") or ([text(spec, "clusterIP")] if text(spec, "clusterIP") else [])
    return [
        name_of(obj),
        text(spec, "type") or "ClusterIP",
        cluster_ips[0] if cluster_ips else NONE,
        service_external_ip(obj),
        service_ports(obj),
        age(obj, now),
        format_labels(mapping(spec, "selector")),
    ]


SERVICE_TABLE = table(
    [
        name_column(),
        Column("Type", description="type determines how the Service is exposed."),
        Column(
            "Cluster-IP", description="clusterIP is the IP address of the service and is usually assigned randomly."
        ),
        Column(
            "External-IP",
            description="externalIPs is a list of IP addresses for which nodes in the "
            "cluster will also accept traffic for this service.",
        ),
        Column("Port(s)", description="The list of ports that are exposed by this service."),
        age_column(),
        wide("Selector", "Route service traffic to pods with label keys and values matching this selector."),
    ],
    _service_cells,
)


def _host_port(ip: str, port: object) -> str:
    """net.JoinHostPort: brackets around IPv6 addresses."""
    try:
        is_v6 = ipaddress.ip_address(ip).version == 6
    except ValueError:
        is_v6 = ":" in ip
    return f"[{ip}]:{port}" if is_v6 else f"{ip}:{port}"


def format_endpoints(obj: Obj) -> str:
    """formatEndpoints: up to three `ip:port` entries, then ` + N more...`; `<none>` without subsets."""
    subsets = dicts(obj, "subsets")
    if not subsets:
        return NONE
    shown: list[str] = []
    total = 0
    limit = 3
    for subset in subsets:
        addresses = [text(a, "ip") for a in dicts(subset, "addresses")]
        ports = dicts(subset, "ports")
        if not ports:  # headless services may have no ports
            total += len(addresses)
            shown.extend(addresses[: max(0, limit - len(shown))])
            continue
        for port in ports:
            total += len(addresses)
            room = max(0, limit - len(shown))
            shown.extend(_host_port(ip, port.get("port")) for ip in addresses[:room])
    joined = ",".join(shown)
    return f"{joined} + {total - limit} more..." if total > limit else joined


ENDPOINTS_TABLE = table(
    [
        name_column(),
        Column("Endpoints", description="The set of all endpoints is the union of all subsets."),
        age_column(),
    ],
    lambda obj, now: [name_of(obj), format_endpoints(obj), age(obj, now)],
)

# ---------------------------------------------------------------------------------------------
# nodes
# ---------------------------------------------------------------------------------------------


def node_status(obj: Obj) -> str:
    """Ready / NotReady / Unknown from the Ready condition, then `,SchedulingDisabled` if cordoned."""
    states = []
    ready = [c for c in dicts(obj, "status", "conditions") if c.get("type") == "Ready"]
    if ready:
        states.append("Ready" if ready[-1].get("status") == "True" else "NotReady")
    else:
        states.append("Unknown")
    if mapping(obj, "spec").get("unschedulable") is True:
        states.append("SchedulingDisabled")
    return ",".join(states)


def node_roles(obj: Obj, naming: Naming) -> str:
    """Roles from `node-role.<domain>/<role>` label keys and a `<domain>/role=<role>` label."""
    prefix = naming.key_group("node-role") + "/"
    role_key = naming.key("role")
    roles = set()
    for key, value in mapping(meta(obj), "labels").items():
        if key.startswith(prefix) and len(key) > len(prefix):
            roles.add(key[len(prefix) :])
        elif key == role_key and value:
            roles.add(str(value))
    return ",".join(sorted(roles)) or NONE


def _node_address(obj: Obj, kind: str) -> str:
    for address in dicts(obj, "status", "addresses"):
        if address.get("type") == kind:
            return text(address, "address")
    return NONE


def node_table(naming: Naming) -> TableSpec:
    def cells(obj: Obj, now: datetime) -> list[Cell]:
        info = mapping(obj, "status", "nodeInfo")
        return [
            name_of(obj),
            node_status(obj),
            node_roles(obj, naming),
            age(obj, now),
            text(info, "kubeletVersion"),
            _node_address(obj, "InternalIP"),
            _node_address(obj, "ExternalIP"),
            text(info, "osImage") or UNKNOWN,
            text(info, "kernelVersion") or UNKNOWN,
            text(info, "containerRuntimeVersion") or UNKNOWN,
        ]

    return table(
        [
            name_column(),
            Column("Status", description="The status of the node"),
            Column("Roles", description="The roles of the node"),
            age_column(),
            Column("Version", description="Kubelet Version reported by the node."),
            wide("Internal-IP", "List of addresses reachable to the node."),
            wide("External-IP", "List of addresses reachable to the node."),
            wide("OS-Image", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy))."),
            wide("Kernel-Version", "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64)."),
            wide(
                "Container-Runtime",
                "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).",
            ),
        ],
        cells,
    )


# ---------------------------------------------------------------------------------------------
# persistent volumes and claims
# ---------------------------------------------------------------------------------------------

_ACCESS_MODES = (
    ("ReadWriteOnce", "RWO"),
    ("ReadOnlyMany", "ROX"),
    ("ReadWriteMany", "RWX"),
    ("ReadWriteOncePod", "RWOP"),
)


def access_modes(modes: list[str]) -> str:
    """GetAccessModesAsString: the short forms in a fixed order, duplicates dropped."""
    return ",".join(short for mode, short in _ACCESS_MODES if mode in modes)


def _storage(obj: Obj, *path: str) -> str:
    value = mapping(obj, *path).get("storage")
    return "0" if value is None else str(value)


def _storage_class(obj: Obj, naming: Naming) -> str:
    """The beta storage-class annotation wins over spec.storageClassName."""
    annotation = mapping(meta(obj), "annotations").get(naming.key_group("volume.beta") + "/storage-class")
    if annotation is not None:
        return str(annotation)
    return text(obj, "spec", "storageClassName")


def _phase(obj: Obj) -> str:
    return "Terminating" if deleting(obj) else text(obj, "status", "phase")


def persistent_volume_table(naming: Naming) -> TableSpec:
    def cells(obj: Obj, now: datetime) -> list[Cell]:
        spec = mapping(obj, "spec")
        claim = mapping(spec, "claimRef")
        return [
            name_of(obj),
            _storage(spec, "capacity"),
            access_modes(strings(spec, "accessModes")),
            text(spec, "persistentVolumeReclaimPolicy"),
            _phase(obj),
            f"{text(claim, 'namespace')}/{text(claim, 'name')}" if spec.get("claimRef") is not None else "",
            _storage_class(obj, naming),
            text(spec, "volumeAttributesClassName") or UNSET,
            text(obj, "status", "reason"),
            age(obj, now),
            text(spec, "volumeMode") or UNSET,
        ]

    return table(
        [
            name_column(),
            Column(
                "Capacity", description="capacity is the description of the persistent volume's resources and capacity."
            ),
            Column("Access Modes", description="accessModes contains all ways the volume can be mounted."),
            Column(
                "Reclaim Policy",
                description="persistentVolumeReclaimPolicy defines what happens to a "
                "persistent volume when released from its claim.",
            ),
            Column(
                "Status",
                description="phase indicates if a volume is available, bound to a claim, or released by a claim.",
            ),
            Column(
                "Claim",
                description="claimRef is part of a bi-directional binding between "
                "PersistentVolume and PersistentVolumeClaim.",
            ),
            Column("StorageClass", description="StorageClass of the pv"),
            Column("VolumeAttributesClass", description="VolumeAttributesClass of the pv"),
            Column(
                "Reason",
                description="reason is a brief CamelCase string that describes any failure and is "
                "meant for machine parsing and tidy display in the CLI.",
            ),
            age_column(),
            wide(
                "VolumeMode",
                "volumeMode defines if a volume is intended to be used with a formatted "
                "filesystem or to remain in raw block state.",
            ),
        ],
        cells,
    )


def persistent_volume_claim_table(naming: Naming) -> TableSpec:
    def cells(obj: Obj, now: datetime) -> list[Cell]:
        spec = mapping(obj, "spec")
        bound = bool(text(spec, "volumeName"))
        return [
            name_of(obj),
            _phase(obj),
            text(spec, "volumeName"),
            _storage(obj, "status", "capacity") if bound else "",
            access_modes(strings(obj, "status", "accessModes")) if bound else "",
            _storage_class(obj, naming),
            text(spec, "volumeAttributesClassName") or UNSET,
            age(obj, now),
            text(spec, "volumeMode") or UNSET,
        ]

    return table(
        [
            name_column(),
            Column("Status", description="phase represents the current phase of PersistentVolumeClaim."),
            Column(
                "Volume", description="volumeName is the binding reference to the PersistentVolume backing this claim."
            ),
            Column("Capacity", description="capacity represents the actual resources of the underlying volume."),
            Column(
                "Access Modes",
                description="accessModes contains the actual access modes the volume backing the PVC has.",
            ),
            Column("StorageClass", description="StorageClass of the pvc"),
            Column("VolumeAttributesClass", description="VolumeAttributesClass of the pvc"),
            age_column(),
            wide("VolumeMode", "volumeMode defines what type of volume is required by the claim."),
        ],
        cells,
    )


# ---------------------------------------------------------------------------------------------
# resource quotas
# ---------------------------------------------------------------------------------------------


def _quota_cells(obj: Obj, now: datetime) -> list[Cell]:
    hard = mapping(obj, "status", "hard")
    used = mapping(obj, "status", "used")
    requests: list[str] = []
    limits: list[str] = []
    for resource in sorted(hard):
        pieces = resource.split(".")
        target = limits if len(pieces) > 1 and pieces[0] == "limits" else requests
        target.append(f"{resource}: {used.get(resource, '0')}/{hard[resource]}")
    return [name_of(obj), ", ".join(requests), ", ".join(limits), age(obj, now)]


RESOURCEQUOTA_TABLE = table(
    [
        name_column(),
        Column(
            "Request", description="Request represents a minimum amount of cpu/memory that a container may consume."
        ),
        Column(
            "Limit",
            description="Limits control the maximum amount of cpu/memory that a container may use "
            "independent of contention on the node.",
        ),
        age_column(),
    ],
    _quota_cells,
)


def _component_cells(obj: Obj, now: datetime) -> list[Cell]:
    for condition in dicts(obj, "conditions"):
        if condition.get("type") == "Healthy":
            status = "Healthy" if condition.get("status") == "True" else "Unhealthy"
            return [name_of(obj), status, text(condition, "message"), text(condition, "error")]
    return [name_of(obj), "Unknown", "", ""]


COMPONENTSTATUS_TABLE = table(
    [
        name_column(),
        Column("Status", description="Status of the component conditions"),
        Column("Message", description="Message of the component conditions"),
        Column("Error", description="Error of the component conditions"),
    ],
    _component_cells,
)


def tables(naming: Naming) -> dict[str, TableSpec]:
    """Core-group printers by plural (pods, events and replicationcontrollers live elsewhere)."""
    return {
        "namespaces": NAMESPACE_TABLE,
        "configmaps": CONFIGMAP_TABLE,
        "secrets": SECRET_TABLE,
        "serviceaccounts": SERVICEACCOUNT_TABLE,
        "podtemplates": PODTEMPLATE_TABLE,
        "services": SERVICE_TABLE,
        "endpoints": ENDPOINTS_TABLE,
        "nodes": node_table(naming),
        "persistentvolumes": persistent_volume_table(naming),
        "persistentvolumeclaims": persistent_volume_claim_table(naming),
        "resourcequotas": RESOURCEQUOTA_TABLE,
        "componentstatuses": COMPONENTSTATUS_TABLE,
    }
