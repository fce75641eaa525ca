"""PodSecurity: the Pod Security Standards (`privileged`, `baseline`, `restricted`) a namespace asks for with its
`pod-security.orch.io/{enforce,audit,warn}[-version]` labels. Pods that break the enforced level are refused (403
`violates PodSecurity "<level>:<version>": ...`); the warn level adds a `Warning` header and the audit level an audit
annotation, for pods and for the pod templates of workloads. The checks and their messages are the reference's, in
its order; a version label (`v1.N`) leaves out checks newer than v1.N."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import Invalid, NotFound, invalid
from ..registry.admission import CREATE, UPDATE, Attributes, Plugin, forbidden
from ..resources.common import containers as pod_containers
from .effects import add_warning, annotate
from .source import ConfigurationSource

if TYPE_CHECKING:
    from ..registry.store import Registry
    from ..storage.hub import WatchHub

LEVELS = ("privileged", "baseline", "restricted")
LATEST = 10**6  # "latest": newer than any v1.N
MODES = ("enforce", "audit", "warn")
#: workloads whose pod template is checked (warn and audit only, as the reference): (group, plural) -> template path
TEMPLATES: dict[tuple[str, str], tuple[str, ...]] = {
    ("", "podtemplates"): ("template",),
    ("", "replicationcontrollers"): ("spec", "template"),
    ("apps", "replicasets"): ("spec", "template"),
    ("apps", "deployments"): ("spec", "template"),
    ("apps", "statefulsets"): ("spec", "template"),
    ("apps", "daemonsets"): ("spec", "template"),
    ("batch", "jobs"): ("spec", "template"),
    ("batch", "cronjobs"): ("spec", "jobTemplate", "spec", "template"),
}
IGNORED_POD_SUBRESOURCES = frozenset({"exec", "attach", "binding", "eviction", "log", "portforward", "proxy", "status"})

Result = tuple[str, str] | None  # (reason, detail) of a failed check
Check = Callable[[dict, dict], Result]


def _quote(items: list[str]) -> str:
    return '"' + '", "'.join(items) + '"' if items else ""


def _plural(singular: str, plural: str, count: int) -> str:
    return singular if count == 1 else plural


def _security(obj: dict) -> dict:
    return obj.get("securityContext") or {}


def _named(names: list[str]) -> str:
    return f"{_plural('container', 'containers', len(names))} {_quote(names)}"


def _setters(pod_bad: bool, containers: list[str]) -> str:
    return " and ".join([*(["pod"] if pod_bad else []), *([_named(containers)] if containers else [])])


# ---------------------------------------------------------------------------------------------- baseline checks


def app_armor(meta: dict, _spec: dict) -> Result:
    bad = sorted(
        f'{key}="{value}"'
        for key, value in (meta.get("annotations") or {}).items()
        if key.startswith(APP_ARMOR_PREFIX)
        and value
        and value != "runtime/default"
        and not value.startswith("localhost/")
    )
    return (
        (_plural("forbidden AppArmor profile", "forbidden AppArmor profiles", len(bad)), ", ".join(bad))
        if bad
        else None
    )


APP_ARMOR_PREFIX = "container.apparmor.security.beta.kubernetes.io/"  # kept as the kubelet reads it
DEFAULT_CAPABILITIES = frozenset(
    {
        "AUDIT_WRITE",
        "CHOWN",
        "DAC_OVERRIDE",
        "FOWNER",
        "FSETID",
        "KILL",
        "MKNOD",
        "NET_BIND_SERVICE",
        "SETFCAP",
        "SETGID",
        "SETPCAP",
        "SETUID",
        "SYS_CHROOT",
    }
)


def capabilities_baseline(_meta: dict, spec: dict) -> Result:
    bad, added = [], set()
    for c in pod_containers(spec, ephemeral=True):
        extra = [
            str(a) for a in (_security(c).get("capabilities") or {}).get("add") or [] if a not in DEFAULT_CAPABILITIES
        ]
        if extra:
            bad.append(c.get("name", ""))
            added |= set(extra)
    return (
        (
            "non-default capabilities",
            (f"{_named(bad)} must not include {_quote(sorted(added))} in securityContext.capabilities.add"),
        )
        if bad
        else None
    )


def host_namespaces(_meta: dict, spec: dict) -> Result:
    shared = [f"{key}=true" for key in ("hostNetwork", "hostPID", "hostIPC") if spec.get(key) is True]
    return ("host namespaces", ", ".join(shared)) if shared else None


def host_path_volumes(_meta: dict, spec: dict) -> Result:
    bad = [v.get("name", "") for v in spec.get("volumes") or [] if isinstance(v, dict) and v.get("hostPath")]
    return ("hostPath volumes", f"{_plural('volume', 'volumes', len(bad))} {_quote(bad)}") if bad else None


def host_ports(_meta: dict, spec: dict) -> Result:
    bad, ports = [], set()
    for c in pod_containers(spec, ephemeral=True):
        used = [int(p["hostPort"]) for p in c.get("ports") or [] if isinstance(p, dict) and p.get("hostPort")]
        if used:
            bad.append(c.get("name", ""))
            ports |= {str(p) for p in used}
    return (
        (
            "hostPort",
            (
                f"{_named(bad)} {_plural('uses', 'use', len(bad))} "
                f"{_plural('hostPort', 'hostPorts', len(ports))} {', '.join(sorted(ports))}"
            ),
        )
        if bad
        else None
    )


def privileged(_meta: dict, spec: dict) -> Result:
    bad = [c.get("name", "") for c in pod_containers(spec, ephemeral=True) if _security(c).get("privileged") is True]
    return ("privileged", f"{_named(bad)} must not set securityContext.privileged=true") if bad else None


def proc_mount(_meta: dict, spec: dict) -> Result:
    bad, types = [], set()
    for c in pod_containers(spec, ephemeral=True):
        mount = _security(c).get("procMount")
        if mount is not None and mount != "Default":
            bad.append(c.get("name", ""))
            types.add(str(mount))
    return (
        ("procMount", f"{_named(bad)} must not set securityContext.procMount to {_quote(sorted(types))}")
        if bad
        else None
    )


SELINUX_TYPES = frozenset({"", "container_t", "container_init_t", "container_kvm_t"})


def selinux_options(_meta: dict, spec: dict) -> Result:
    bad_types: set[str] = set()
    flags = {"user": False, "role": False}

    def wrong(owner: dict) -> bool:
        options = _security(owner).get("seLinuxOptions")
        if not isinstance(options, dict):
            return False
        bad = False
        if str(options.get("type") or "") not in SELINUX_TYPES:
            bad_types.add(str(options.get("type")))
            bad = True
        for key in ("user", "role"):
            if options.get(key):
                flags[key] = bad = True
        return bad

    pod_bad = wrong(spec)
    containers = [c.get("name", "") for c in pod_containers(spec, ephemeral=True) if wrong(c)]
    if not pod_bad and not containers:
        return None
    data = []
    if bad_types:
        data.append(f"{_plural('type', 'types', len(bad_types))} {_quote(sorted(bad_types))}")
        data += [f"{key} may not be set" for key in ("user", "role") if flags[key]]
    return (
        "seLinuxOptions",
        (f"{_setters(pod_bad, containers)} set forbidden securityContext.seLinuxOptions: {'; '.join(data)}"),
    )


def _seccomp_type(owner: dict) -> str | None:
    profile = _security(owner).get("seccompProfile")
    return str(profile.get("type")) if isinstance(profile, dict) else None


def _seccomp(spec: dict, required: bool) -> Result:
    values: set[str] = set()
    pod_type = _seccomp_type(spec)
    pod_bad = pod_type is not None and pod_type not in ("RuntimeDefault", "Localhost")
    if pod_bad:
        values.add(str(pod_type))
    explicit, implicit = [], []
    for c in pod_containers(spec, ephemeral=True):
        kind = _seccomp_type(c)
        if kind is not None:
            if kind not in ("RuntimeDefault", "Localhost"):
                explicit.append(c.get("name", ""))
                values.add(kind)
        elif pod_type is None or pod_bad:
            implicit.append(c.get("name", ""))
    if pod_bad or explicit:
        return (
            "seccompProfile",
            (
                f"{_setters(pod_bad, explicit)} must not set securityContext.seccompProfile.type "
                f"to {_quote(sorted(values))}"
            ),
        )
    if required and implicit:
        return (
            "seccompProfile",
            (
                f"pod or {_named(implicit)} must set securityContext.seccompProfile.type to "
                '"RuntimeDefault" or "Localhost"'
            ),
        )
    return None


def seccomp_baseline(_meta: dict, spec: dict) -> Result:
    return _seccomp(spec, required=False)


SAFE_SYSCTLS = frozenset(
    {
        "kernel.shm_rmid_forced",
        "net.ipv4.ip_local_port_range",
        "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range",
        "net.ipv4.ip_unprivileged_port_start",
    }
)


def sysctls(_meta: dict, spec: dict) -> Result:
    bad = [
        str(s.get("name"))
        for s in _security(spec).get("sysctls") or []
        if isinstance(s, dict) and s.get("name") not in SAFE_SYSCTLS
    ]
    return ("forbidden sysctls", ", ".join(bad)) if bad else None


def windows_host_process(_meta: dict, spec: dict) -> Result:
    def host(owner: dict) -> bool:
        return (_security(owner).get("windowsOptions") or {}).get("hostProcess") is True

    containers = [c.get("name", "") for c in pod_containers(spec, ephemeral=True) if host(c)]
    pod_bad = host(spec)
    return (
        (
            "hostProcess",
            (f"{_setters(pod_bad, containers)} must not set securityContext.windowsOptions.hostProcess=true"),
        )
        if pod_bad or containers
        else None
    )


# -------------------------------------------------------------------------------------------- restricted checks


def allow_privilege_escalation(_meta: dict, spec: dict) -> Result:
    bad = [
        c.get("name", "")
        for c in pod_containers(spec, ephemeral=True)
        if _security(c).get("allowPrivilegeEscalation") is not False
    ]
    return (
        (
            "allowPrivilegeEscalation != false",
            (f"{_named(bad)} must set securityContext.allowPrivilegeEscalation=false"),
        )
        if bad
        else None
    )


def capabilities_restricted(_meta: dict, spec: dict) -> Result:
    no_drop, adding, added = [], [], set()
    for c in pod_containers(spec, ephemeral=True):
        capabilities = _security(c).get("capabilities") or {}
        if "ALL" not in (capabilities.get("drop") or []):
            no_drop.append(c.get("name", ""))
        extra = [str(a) for a in capabilities.get("add") or [] if a != "NET_BIND_SERVICE"]
        if extra:
            adding.append(c.get("name", ""))
            added |= set(extra)
    details = []
    if no_drop:
        details.append(f'{_named(no_drop)} must set securityContext.capabilities.drop=["ALL"]')
    if adding:
        details.append(f"{_named(adding)} must not include {_quote(sorted(added))} in securityContext.capabilities.add")
    return ("unrestricted capabilities", "; ".join(details)) if details else None


ALLOWED_VOLUMES = (
    "configMap",
    "csi",
    "downwardAPI",
    "emptyDir",
    "ephemeral",
    "persistentVolumeClaim",
    "projected",
    "secret",
)
KNOWN_VOLUMES = (
    "hostPath",
    "gcePersistentDisk",
    "awsElasticBlockStore",
    "gitRepo",
    "nfs",
    "iscsi",
    "glusterfs",
    "rbd",
    "flexVolume",
    "cinder",
    "cephfs",
    "flocker",
    "fc",
    "azureFile",
    "vsphereVolume",
    "quobyte",
    "azureDisk",
    "photonPersistentDisk",
    "portworxVolume",
    "scaleIO",
    "storageos",
)


def restricted_volumes(_meta: dict, spec: dict) -> Result:
    bad, types = [], set()
    for volume in spec.get("volumes") or []:
        if not isinstance(volume, dict) or any(volume.get(kind) is not None for kind in ALLOWED_VOLUMES):
            continue
        bad.append(volume.get("name", ""))
        types.add(next((kind for kind in KNOWN_VOLUMES if volume.get(kind) is not None), "unknown"))
    return (
        (
            "restricted volume types",
            (
                f"{_plural('volume', 'volumes', len(bad))} {_quote(bad)} "
                f"{_plural('uses', 'use', len(bad))} "
                f"{_plural('restricted volume type', 'restricted volume types', len(types))} "
                f"{_quote(sorted(types))}"
            ),
        )
        if bad
        else None
    )


def run_as_non_root(_meta: dict, spec: dict) -> Result:
    pod_value = _security(spec).get("runAsNonRoot")
    explicit, implicit = [], []
    for c in pod_containers(spec, ephemeral=True):
        value = _security(c).get("runAsNonRoot")
        if value is False:
            explicit.append(c.get("name", ""))
        elif value is None and pod_value is not True:
            implicit.append(c.get("name", ""))
    if pod_value is False or explicit:
        return (
            "runAsNonRoot != true",
            (f"{_setters(pod_value is False, explicit)} must not set securityContext.runAsNonRoot=false"),
        )
    if implicit:
        return ("runAsNonRoot != true", f"pod or {_named(implicit)} must set securityContext.runAsNonRoot=true")
    return None


def run_as_user(_meta: dict, spec: dict) -> Result:
    pod_bad = _security(spec).get("runAsUser") == 0
    containers = [c.get("name", "") for c in pod_containers(spec, ephemeral=True) if _security(c).get("runAsUser") == 0]
    return (
        ("runAsUser=0", f"{_setters(pod_bad, containers)} must not set runAsUser=0") if pod_bad or containers else None
    )


def seccomp_restricted(_meta: dict, spec: dict) -> Result:
    return _seccomp(spec, required=True)


#: (minimum v1.N, check), in the reference's order: baseline checks, then restricted ones
BASELINE: tuple[tuple[int, Check], ...] = (
    (0, app_armor),
    (0, capabilities_baseline),
    (0, host_namespaces),
    (0, host_path_volumes),
    (0, host_ports),
    (0, privileged),
    (0, proc_mount),
    (0, selinux_options),
    (19, seccomp_baseline),
    (0, sysctls),
    (0, windows_host_process),
)
RESTRICTED: tuple[tuple[int, Check], ...] = (
    (8, allow_privilege_escalation),
    (22, capabilities_restricted),
    (0, restricted_volumes),
    (0, run_as_non_root),
    (23, run_as_user),
    (19, seccomp_restricted),
)


def evaluate(level: str, version: int, meta: dict, spec: dict) -> str:
    """The reference's aggregated forbidden detail of a pod at a level ("" when the pod meets it)."""
    if level == "privileged":
        return ""
    checks = BASELINE + (RESTRICTED if level == "restricted" else ())
    failed = [result for minimum, check in checks if minimum <= version and (result := check(meta, spec))]
    return ", ".join(f"{reason} ({detail})" if detail else reason for reason, detail in failed)


class PodSecurity(Plugin):
    name = "PodSecurity"
    operations = frozenset({CREATE, UPDATE})

    def __init__(self, registry: Registry, hub: WatchHub | None = None) -> None:
        self.registry, self.label_prefix = registry, registry.naming.key_group("pod-security") + "/"
        self.rt = registry.catalog.known_type("", "v1", "namespaces")
        # (name, pod-security labels) of every namespace, followed through the change log: no read per pod
        self.namespaces = ConfigurationSource(registry, self.rt, self._labels_of, hub)
        self._by_name: tuple[tuple, dict[str, dict]] = ((), {})

    def _labels_of(self, namespace: dict) -> list[tuple[str, dict]]:
        metadata = namespace.get("metadata") or {}
        labels = {k: v for k, v in (metadata.get("labels") or {}).items() if k.startswith(self.label_prefix)}
        return [(str(metadata.get("name", "")), labels)]

    def labels(self, namespace: str) -> dict | None:
        """The namespace's pod-security labels; None when there is no such namespace."""
        current = self.namespaces.current()
        seen, by_name = self._by_name
        if seen is not current:
            by_name = dict(current)
            self._by_name = (current, by_name)
        if namespace in by_name:
            return by_name[namespace]
        try:  # made through another process a moment ago: its change may not have arrived yet
            return self._labels_of(self.registry.get(self.rt, None, namespace))[0][1]
        except NotFound:
            return None

    def handles(self, attrs: Attributes) -> bool:
        rt = attrs.rt
        if attrs.obj is None or rt.group not in ("", "apps", "batch"):
            return False
        if rt.plural == "namespaces":
            return not attrs.subresource
        if rt.plural == "pods":
            return attrs.subresource not in IGNORED_POD_SUBRESOURCES
        return (rt.group, rt.plural) in TEMPLATES and not attrs.subresource

    def policy(self, labels: dict) -> tuple[dict[str, tuple[str, int, str]], list]:
        """mode -> (level, version number, "level:version") from a namespace's labels, and the label errors."""
        errors, policy = [], {}
        for mode in MODES:
            level, version_text = "privileged", "latest"
            key = self.label_prefix + mode
            if key in labels:
                level = str(labels[key])
                if level not in LEVELS:
                    errors.append(
                        invalid(f"metadata.labels[{key}]", labels[key], "must be one of " + ", ".join(LEVELS))
                    )
                    level = "restricted" if mode == "enforce" else "privileged"  # enforce fails closed
            version = LATEST
            if key + "-version" in labels:
                text = str(labels[key + "-version"])
                number = text.removeprefix("v1.")
                if text == "latest":
                    pass
                elif text.startswith("v1.") and number.isdigit() and (number == "0" or not number.startswith("0")):
                    version, version_text = int(number), text
                else:
                    errors.append(invalid(f"metadata.labels[{key}-version]", text, 'must be "latest" or "v1.x"'))
            policy[mode] = (level, version, f"{level}:{version_text}")
        return policy, errors

    def validate(self, attrs: Attributes) -> None:
        obj = attrs.obj or {}
        if attrs.rt.plural == "namespaces":
            self._validate_namespace(attrs, obj)
            return
        labels = self.labels(attrs.namespace)
        if labels is None:
            return  # NamespaceLifecycle answers for a missing namespace
        policy, _errors = self.policy(labels)
        if all(level == "privileged" for level, _, _ in policy.values()):
            return
        if attrs.rt.plural == "pods":
            if attrs.operation == UPDATE and not _significant_update(obj, attrs.old or {}):
                return
            meta, spec, enforce = obj.get("metadata") or {}, obj.get("spec") or {}, True
        else:
            template = obj
            for step in TEMPLATES[(attrs.rt.group, attrs.rt.plural)]:
                template = template.get(step) or {} if isinstance(template, dict) else {}
            meta, spec, enforce = template.get("metadata") or {}, template.get("spec") or {}, False
        self._evaluate(attrs, policy, meta, spec, enforce)

    def _evaluate(self, attrs: Attributes, policy: dict, meta: dict, spec: dict, enforce: bool) -> None:
        found: dict[tuple[str, int], str] = {}

        def detail(mode: str) -> str:
            level, version, _ = policy[mode]
            if (level, version) not in found:
                found[(level, version)] = evaluate(level, version, meta, spec)
            return found[(level, version)]

        if enforce:
            annotate(self.label_prefix + "enforce-policy", policy["enforce"][2])
            if detail("enforce"):
                raise forbidden(attrs, f'violates PodSecurity "{policy["enforce"][2]}": {detail("enforce")}')
        if detail("audit"):
            annotate(
                self.label_prefix + "audit-violations",
                f'would violate PodSecurity "{policy["audit"][2]}": {detail("audit")}',
            )
        if detail("warn"):
            add_warning(f'would violate PodSecurity "{policy["warn"][2]}": {detail("warn")}')

    def _validate_namespace(self, attrs: Attributes, obj: dict) -> None:
        _policy, errors = self.policy((obj.get("metadata") or {}).get("labels") or {})
        if not errors:
            return
        if attrs.operation == UPDATE:
            _old_policy, old_errors = self.policy(((attrs.old or {}).get("metadata") or {}).get("labels") or {})
            if [str(e) for e in errors] == [str(e) for e in old_errors]:
                return  # labels invalid before and unchanged: not this update's doing
        raise Invalid("Namespace", "", attrs.name, errors)


def _significant_update(pod: dict, old: dict) -> bool:
    """The reference's isSignificantPodUpdate: only images, containers and seccomp annotations can change."""
    seccomp = "seccomp.security.alpha.kubernetes.io/pod"
    annotations = (pod.get("metadata") or {}).get("annotations") or {}
    old_annotations = (old.get("metadata") or {}).get("annotations") or {}
    if annotations.get(seccomp) != old_annotations.get(seccomp):
        return True
    spec, old_spec = pod.get("spec") or {}, old.get("spec") or {}
    for key in ("containers", "initContainers"):
        new_list, old_list = spec.get(key) or [], old_spec.get(key) or []
        if len(new_list) != len(old_list) or any(
            (n or {}).get("image") != (o or {}).get("image") for n, o in zip(new_list, old_list, strict=True)
        ):
            return True
    old_ephemeral = {(c or {}).get("name"): c for c in old_spec.get("ephemeralContainers") or []}
    return any(
        (c or {}).get("name") not in old_ephemeral
        or (c or {}).get("image") != (old_ephemeral[(c or {}).get("name")] or {}).get("image")
        for c in spec.get("ephemeralContainers") or []
    )
