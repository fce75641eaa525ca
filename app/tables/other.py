"""Printers for the named groups: leases, CSRs, RBAC bindings, networking, policy, storage, scheduling."""

from __future__ import annotations

from datetime import datetime, timedelta

from ..naming import Naming
from ..resources.apiregistration import condition
from ..resources.testing import action_summary
from .columns import (
    NONE,
    Cell,
    Column,
    Obj,
    TableSpec,
    age,
    age_column,
    dicts,
    dig,
    format_label_selector,
    human_duration,
    int_or_string,
    integer,
    list_with_more,
    mapping,
    meta,
    name_column,
    name_of,
    strings,
    table,
    text,
)

FAULT_TABLE = table(
    [
        name_column(),
        Column("Action", description="What the fault does to the requests it takes."),
        Column("Times", description="How many matching requests the fault takes; <unset>: until deleted."),
        Column("Matched", "integer", description="How many requests the fault took."),
        age_column(),
    ],
    lambda obj, now: [
        name_of(obj),
        action_summary(obj),
        str(dig(obj, "spec", "times")) if dig(obj, "spec", "times") is not None else "<unset>",
        integer(obj, "status", "matched"),
        age(obj, now),
    ],
)

LEASE_TABLE = table(
    [
        name_column(),
        Column("Holder", description="holderIdentity contains the identity of the holder of a current lease."),
        age_column(),
    ],
    lambda obj, now: [name_of(obj), text(obj, "spec", "holderIdentity"), age(obj, now)],
)


def _apiservice_cells(obj: Obj, now: datetime) -> list[Cell]:
    service = dig(obj, "spec", "service")
    where = f"{service.get('namespace', '')}/{service.get('name', '')}" if isinstance(service, dict) else "Local"
    available = "Unknown"
    found = condition(obj)
    if found is not None:
        available = str(found.get("status", ""))
        if available != "True" and found.get("reason"):
            available = f"{available} ({found['reason']})"
    return [name_of(obj), where, available, age(obj, now)]


APISERVICE_TABLE = table(
    [
        name_column(),
        Column("Service", description="The reference to the service that hosts this API endpoint."),
        Column("Available", description="Whether this service is available."),
        age_column(),
    ],
    _apiservice_cells,
)

# ---------------------------------------------------------------------------------------------
# certificate signing requests
# ---------------------------------------------------------------------------------------------


def csr_condition(obj: Obj) -> str:
    """Denied / Approved / Pending, then `,Failed`, then `,Issued` once a certificate is present."""
    types = {c.get("type") for c in dicts(obj, "status", "conditions")}
    status = "Denied" if "Denied" in types else "Approved" if "Approved" in types else "Pending"
    if "Failed" in types:
        status += ",Failed"
    if text(obj, "status", "certificate"):
        status += ",Issued"
    return status


def _requested_duration(obj: Obj) -> str:
    seconds = mapping(obj, "spec").get("expirationSeconds")
    if not isinstance(seconds, int) or isinstance(seconds, bool):
        return NONE
    return human_duration(timedelta(seconds=seconds))


CSR_TABLE = table(
    [
        name_column(),
        age_column(),
        Column("SignerName", description="signerName indicates the requested signer, and is a qualified name."),
        Column(
            "Requestor",
            description="request contains an x509 certificate signing request encoded in a "
            '"CERTIFICATE REQUEST" PEM block.',
        ),
        Column(
            "RequestedDuration",
            description="expirationSeconds is the requested duration of validity of the issued certificate.",
        ),
        Column(
            "Condition",
            description='conditions applied to the request. Known conditions are "Approved", "Denied", and "Failed".',
        ),
    ],
    lambda obj, now: [
        name_of(obj),
        age(obj, now),
        text(obj, "spec", "signerName") or NONE,
        text(obj, "spec", "username"),
        _requested_duration(obj),
        csr_condition(obj),
    ],
)

# ---------------------------------------------------------------------------------------------
# RBAC bindings (roles and cluster roles use the default table, as in the reference)
# ---------------------------------------------------------------------------------------------


def subjects(obj: Obj) -> tuple[str, str, str]:
    """(users, groups, service accounts as namespace/name), each joined by `, `."""
    users, groups, accounts = [], [], []
    for subject in dicts(obj, "subjects"):
        kind = subject.get("kind")
        if kind == "User":
            users.append(text(subject, "name"))
        elif kind == "Group":
            groups.append(text(subject, "name"))
        elif kind == "ServiceAccount":
            accounts.append(f"{text(subject, 'namespace')}/{text(subject, 'name')}")
    return ", ".join(users), ", ".join(groups), ", ".join(accounts)


def _binding_table(scope: str) -> TableSpec:
    def cells(obj: Obj, now: datetime) -> list[Cell]:
        role = f"{text(obj, 'roleRef', 'kind')}/{text(obj, 'roleRef', 'name')}"
        return [name_of(obj), role, age(obj, now), *subjects(obj)]

    return table(
        [
            name_column(),
            Column(
                "Role",
                description="RoleRef can only reference a ClusterRole in the global namespace."
                if scope == "clusterRoleBinding"
                else "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.",
            ),
            age_column(),
            Column("Users", description=f"Users in the {scope}", priority=1),
            Column("Groups", description=f"Groups in the {scope}", priority=1),
            Column("ServiceAccounts", description=f"ServiceAccounts in the {scope}", priority=1),
        ],
        cells,
    )


ROLEBINDING_TABLE = _binding_table("roleBinding")
CLUSTERROLEBINDING_TABLE = _binding_table("clusterRoleBinding")

# ---------------------------------------------------------------------------------------------
# networking and discovery
# ---------------------------------------------------------------------------------------------


def ingress_hosts(obj: Obj) -> str:
    """formatHosts: up to three rule hosts, then ` + N more...`; `*` when no rule names a host."""
    rules = dicts(obj, "spec", "rules")
    hosts: list[str] = []
    more = False
    for rule in rules:
        if len(hosts) == 3:
            more = True
        if not more and text(rule, "host"):
            hosts.append(text(rule, "host"))
    if not hosts:
        return "*"
    joined = ",".join(hosts)
    # the reference counts the remaining rules, not the remaining hosts
    return f"{joined} + {len(rules) - 3} more..." if more else joined


def _ingress_address(obj: Obj) -> str:
    found = {text(i, "ip") or text(i, "hostname") for i in dicts(obj, "status", "loadBalancer", "ingress")}
    return ",".join(sorted(found - {""}))


INGRESS_TABLE = table(
    [
        name_column(),
        Column(
            "Class",
            description="The name of the IngressClass resource that should be used for additional configuration",
        ),
        Column("Hosts", description="Hosts that incoming requests are matched against before the ingress rule"),
        Column("Address", description="Address is a list containing ingress points for the load-balancer"),
        Column("Ports", description="Ports of TLS configurations that open"),
        age_column(),
    ],
    lambda obj, now: [
        name_of(obj),
        text(obj, "spec", "ingressClassName") or NONE,
        ingress_hosts(obj),
        _ingress_address(obj),
        "80, 443" if dicts(obj, "spec", "tls") else "80",
        age(obj, now),
    ],
)


def _ingress_class_parameters(obj: Obj) -> str:
    params = mapping(obj, "spec").get("parameters")
    if not isinstance(params, dict):
        return NONE
    kind = text(params, "kind")
    if params.get("apiGroup") is not None:
        kind += "." + text(params, "apiGroup")
    return f"{kind}/{text(params, 'name')}"


INGRESSCLASS_TABLE = table(
    [
        name_column(),
        Column("Controller", description="Controller that is responsible for handling this class"),
        Column("Parameters", description="A reference to a resource with additional parameters"),
        age_column(),
    ],
    lambda obj, now: [name_of(obj), text(obj, "spec", "controller"), _ingress_class_parameters(obj), age(obj, now)],
)

NETWORKPOLICY_TABLE = table(
    [
        name_column(),
        Column("Pod-Selector", description="Selects the pods to which this NetworkPolicy object applies."),
        age_column(),
    ],
    lambda obj, now: [name_of(obj), format_label_selector(mapping(obj, "spec", "podSelector")), age(obj, now)],
)


def _slice_ports(obj: Obj) -> str:
    ports = dicts(obj, "ports")
    shown = []
    for port in ports[:3]:
        number = port.get("port")
        if isinstance(number, int) and not isinstance(number, bool):
            shown.append(str(number))
        else:
            shown.append("*" if port.get("name") is None else text(port, "name"))
    return list_with_more(shown, len(ports))


def _slice_endpoints(obj: Obj) -> str:
    addresses = [a for e in dicts(obj, "endpoints") for a in strings(e, "addresses")]
    return list_with_more(addresses[:3], len(addresses))


ENDPOINTSLICE_TABLE = table(
    [
        name_column(),
        Column("AddressType", description="addressType specifies the type of address carried by this EndpointSlice."),
        Column(
            "Ports", description="ports specifies the list of network ports exposed by each endpoint in this slice."
        ),
        Column("Endpoints", description="endpoints is a list of unique endpoints in this slice."),
        age_column(),
    ],
    lambda obj, now: [name_of(obj), text(obj, "addressType"), _slice_ports(obj), _slice_endpoints(obj), age(obj, now)],
)

# ---------------------------------------------------------------------------------------------
# policy, scheduling, node, storage
# ---------------------------------------------------------------------------------------------


def _pdb_bound(obj: Obj, key: str) -> str:
    value = mapping(obj, "spec").get(key)
    return "N/A" if value is None else int_or_string(value)


PDB_TABLE = table(
    [
        name_column(),
        Column("Min Available", description="The minimum number of pods that must be available."),
        Column("Max Unavailable", description="The maximum number of pods that may be unavailable."),
        Column("Allowed Disruptions", "integer", "Calculated number of pods that may be disrupted at this time."),
        age_column(),
    ],
    lambda obj, now: [
        name_of(obj),
        _pdb_bound(obj, "minAvailable"),
        _pdb_bound(obj, "maxUnavailable"),
        integer(obj, "status", "disruptionsAllowed"),
        age(obj, now),
    ],
)

PRIORITYCLASS_TABLE = table(
    [
        name_column(),
        Column("Value", "integer", "value represents the integer value of this priority class."),
        Column(
            "Global-Default",
            "boolean",
            "globalDefault specifies whether this PriorityClass should be "
            "considered as the default priority for pods that do not have any "
            "priority class.",
        ),
        age_column(),
        Column(
            "PreemptionPolicy", description="preemptionPolicy is the Policy for preempting pods with lower priority."
        ),
    ],
    lambda obj, now: [
        name_of(obj),
        integer(obj, "value"),
        obj.get("globalDefault") is True,
        age(obj, now),
        text(obj, "preemptionPolicy"),
    ],
)

RUNTIMECLASS_TABLE = table(
    [
        name_column(),
        Column(
            "Handler",
            description="handler specifies the underlying runtime and configuration "
            "that the CRI implementation will use to handle pods of this "
            "class.",
        ),
        age_column(),
    ],
    lambda obj, now: [name_of(obj), text(obj, "handler"), age(obj, now)],
)


def storage_class_table(naming: Naming) -> TableSpec:
    default_keys = (
        naming.key_group("storageclass") + "/is-default-class",
        naming.key_group("storageclass.beta") + "/is-default-class",
    )

    def cells(obj: Obj, now: datetime) -> list[Cell]:
        annotations = mapping(meta(obj), "annotations")
        name = name_of(obj)
        if any(annotations.get(key) == "true" for key in default_keys):
            name += " (default)"
        expansion = obj.get("allowVolumeExpansion")
        return [
            name,
            text(obj, "provisioner"),
            text(obj, "reclaimPolicy") or "Delete",
            text(obj, "volumeBindingMode") or "Immediate",
            expansion is True,
            age(obj, now),
        ]

    return table(
        [
            name_column(),
            Column("Provisioner", description="provisioner indicates the type of the provisioner."),
            Column(
                "ReclaimPolicy",
                description="reclaimPolicy controls the reclaimPolicy for dynamically "
                "provisioned PersistentVolumes of this storage class.",
            ),
            Column(
                "VolumeBindingMode",
                description="volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.",
            ),
            Column(
                "AllowVolumeExpansion",
                description="allowVolumeExpansion shows whether the storage class allow volume expand.",
            ),
            age_column(),
        ],
        cells,
    )


def _psp_cells(obj: Obj, now: datetime) -> list[Cell]:
    spec = mapping(obj, "spec")
    return [
        name_of(obj),
        "true" if spec.get("privileged") is True else "false",
        ",".join(strings(spec, "allowedCapabilities")),
        text(spec, "seLinux", "rule"),
        text(spec, "runAsUser", "rule"),
        text(spec, "fsGroup", "rule"),
        text(spec, "supplementalGroups", "rule"),
        spec.get("readOnlyRootFilesystem") is True,
        ",".join(strings(spec, "volumes")),
    ]


PSP_TABLE = table(
    [
        name_column(),
        Column("Priv", description="privileged determines if a pod can request to be run as privileged."),
        Column(
            "Caps",
            description="allowedCapabilities is a list of capabilities that can be requested to add to the container.",
        ),
        Column(
            "SELinux", description="seLinux is the strategy that will dictate the allowable labels that may be set."
        ),
        Column(
            "RunAsUser",
            description="runAsUser is the strategy that will dictate the allowable RunAsUser values that may be set.",
        ),
        Column(
            "FsGroup",
            description="fsGroup is the strategy that will dictate what fs group is used by the SecurityContext.",
        ),
        Column(
            "SupGroup",
            description="supplementalGroups is the strategy that will dictate what supplemental "
            "groups are used by the SecurityContext.",
        ),
        Column(
            "ReadOnlyRootFs",
            description="readOnlyRootFilesystem when set to true will force containers to run "
            "with a read only root file system.",
        ),
        Column("Volumes", description="volumes is an allowlist of volume plugins."),
    ],
    _psp_cells,
)


def tables(naming: Naming) -> dict[tuple[str, str], TableSpec]:
    """(group prefix, plural) -> printer; the prefix is the group without the domain suffix."""
    return {
        ("coordination", "leases"): LEASE_TABLE,
        ("testing", "faults"): FAULT_TABLE,
        ("apiregistration", "apiservices"): APISERVICE_TABLE,
        ("certificates", "certificatesigningrequests"): CSR_TABLE,
        ("rbac.authorization", "rolebindings"): ROLEBINDING_TABLE,
        ("rbac.authorization", "clusterrolebindings"): CLUSTERROLEBINDING_TABLE,
        ("networking", "ingresses"): INGRESS_TABLE,
        ("networking", "ingressclasses"): INGRESSCLASS_TABLE,
        ("networking", "networkpolicies"): NETWORKPOLICY_TABLE,
        ("discovery", "endpointslices"): ENDPOINTSLICE_TABLE,
        ("policy", "poddisruptionbudgets"): PDB_TABLE,
        ("policy", "podsecuritypolicies"): PSP_TABLE,
        ("scheduling", "priorityclasses"): PRIORITYCLASS_TABLE,
        ("node", "runtimeclasses"): RUNTIMECLASS_TABLE,
        ("storage", "storageclasses"): storage_class_table(naming),
    }
