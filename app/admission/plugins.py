"""Which admission plugins run: the reference's names and order, --enable/--disable-admission-plugins."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from ..errors import Forbidden
from ..registry.admission import Attributes, Chain, Plugin, ordered

if TYPE_CHECKING:
    from ..naming import Naming
    from ..outbound import ServiceResolver
    from ..registry.store import Registry
    from ..storage.hub import WatchHub

#: every plugin a v1.23 reference server knows, in the order it runs them
ORDER = (
    "AlwaysAdmit",
    "NamespaceAutoProvision",
    "NamespaceLifecycle",
    "NamespaceExists",
    "LimitPodHardAntiAffinityTopology",
    "LimitRanger",
    "ServiceAccount",
    "NodeRestriction",
    "TaintNodesByCondition",
    "AlwaysPullImages",
    "ImagePolicyWebhook",
    "PodSecurity",
    "PodNodeSelector",
    "Priority",
    "DefaultTolerationSeconds",
    "PodTolerationRestriction",
    "EventRateLimit",
    "ExtendedResourceToleration",
    "PersistentVolumeLabel",
    "DefaultStorageClass",
    "StorageObjectInUseProtection",
    "OwnerReferencesPermissionEnforcement",
    "PersistentVolumeClaimResize",
    "RuntimeClass",
    "CertificateApproval",
    "CertificateSigning",
    "CertificateSubjectRestriction",
    "DefaultIngressClass",
    "DenyServiceExternalIPs",
    "MutatingAdmissionWebhook",
    "ValidatingAdmissionWebhook",
    "ResourceQuota",
    "AlwaysDeny",
)
#: on unless disabled, in the reference
DEFAULT_ON = frozenset(
    {
        "NamespaceLifecycle",
        "LimitRanger",
        "ServiceAccount",
        "NodeRestriction",  # not in the reference's defaults, but kubeadm and k3s turn it on (Node,RBAC too)
        "TaintNodesByCondition",
        "PodSecurity",
        "Priority",
        "DefaultTolerationSeconds",
        "DefaultStorageClass",
        "StorageObjectInUseProtection",
        "PersistentVolumeClaimResize",
        "RuntimeClass",
        "CertificateApproval",
        "CertificateSigning",
        "CertificateSubjectRestriction",
        "DefaultIngressClass",
        "MutatingAdmissionWebhook",
        "ValidatingAdmissionWebhook",
        "ResourceQuota",
    }
)
#: the ones this server has as plugins (others of DEFAULT_ON that it has are kind strategies; see
#: docs/admission.md)
BUILT = frozenset(
    {
        "AlwaysAdmit",
        "AlwaysDeny",
        "NamespaceLifecycle",
        "LimitRanger",
        "ServiceAccount",
        "Priority",
        "DefaultTolerationSeconds",
        "DefaultStorageClass",
        "PersistentVolumeClaimResize",
        "RuntimeClass",
        "CertificateApproval",
        "CertificateSigning",
        "CertificateSubjectRestriction",
        "DefaultIngressClass",
        "MutatingAdmissionWebhook",
        "ValidatingAdmissionWebhook",
        "ResourceQuota",
        "PodSecurity",
        "StorageObjectInUseProtection",
        "TaintNodesByCondition",
        "NodeRestriction",
    }
)


class AdmissionConfigError(ValueError):
    pass


def enabled_plugins(enable: Iterable[str] = (), disable: Iterable[str] = ()) -> list[str]:
    """The plugins to run, in the reference's order; unknown or unbuilt names are refused."""
    enable, disable = list(enable), list(disable)
    for flag, names in (("--enable-admission-plugins", enable), ("--disable-admission-plugins", disable)):
        unknown = [n for n in names if n not in ORDER]
        if unknown:
            raise AdmissionConfigError(f"{flag}: unknown admission plugins: {', '.join(unknown)}")
    unbuilt = [n for n in enable if n not in BUILT]
    if unbuilt:
        raise AdmissionConfigError(
            f"--enable-admission-plugins: not available in this server: {', '.join(unbuilt)} "
            f"(available: {', '.join(sorted(BUILT))})"
        )
    both = set(enable) & set(disable)
    if both:
        raise AdmissionConfigError(
            f"{', '.join(sorted(both))} in both --enable-admission-plugins and --disable-admission-plugins"
        )
    on = ((DEFAULT_ON & BUILT) | set(enable)) - set(disable)
    return ordered(on, ORDER)


class AlwaysAdmit(Plugin):
    name = "AlwaysAdmit"


class AlwaysDeny(Plugin):
    name = "AlwaysDeny"

    def validate(self, attrs: Attributes) -> None:
        raise Forbidden("admission control is denying all modifications")


def build_chain(
    names: Iterable[str],
    registry: Registry,
    naming: Naming,
    hub: WatchHub | None,
    resolve: ServiceResolver | None,
    metrics: Any = None,
) -> Chain:
    """The chain of the named plugins; `metrics` holds the admission histograms (app.metrics)."""
    from . import (
        certificates,
        classes,
        limits,
        noderestriction,
        nodes,
        pods,
        podsecurity,
        resourcequota,
        serviceaccount,
    )
    from .namespace_lifecycle import NamespaceLifecycle
    from .source import ConfigurationSource
    from .webhooks import MutatingWebhooks, ValidatingWebhooks, compile_configuration

    group = naming.group("admissionregistration")
    webhook_duration = getattr(metrics, "admission_webhook_duration", None)

    def webhooks(kind: type[MutatingWebhooks | ValidatingWebhooks], plural: str) -> Plugin:
        source = ConfigurationSource(
            registry, registry.catalog.known_type(group, "v1", plural), compile_configuration, hub
        )
        return kind(registry, source, naming, resolve, webhook_duration)

    factories: dict[str, Callable[[], Plugin]] = {
        "AlwaysAdmit": AlwaysAdmit,
        "AlwaysDeny": AlwaysDeny,
        "NamespaceLifecycle": lambda: NamespaceLifecycle(registry),
        "LimitRanger": lambda: limits.LimitRanger(registry, hub),
        "ServiceAccount": lambda: serviceaccount.ServiceAccount(registry),
        "PodSecurity": lambda: podsecurity.PodSecurity(registry, hub),
        "TaintNodesByCondition": lambda: nodes.TaintNodesByCondition(registry),
        "NodeRestriction": lambda: noderestriction.NodeRestriction(registry),
        "StorageObjectInUseProtection": lambda: classes.StorageObjectInUseProtection(registry),
        "Priority": lambda: pods.Priority(registry, hub),
        "DefaultTolerationSeconds": lambda: pods.DefaultTolerationSeconds(registry),
        "DefaultStorageClass": lambda: classes.DefaultStorageClass(registry, hub),
        "DefaultIngressClass": lambda: classes.DefaultIngressClass(registry, hub),
        "PersistentVolumeClaimResize": lambda: classes.PersistentVolumeClaimResize(registry, hub),
        "RuntimeClass": lambda: pods.RuntimeClass(registry),
        "CertificateApproval": lambda: certificates.CertificateApproval(naming),
        "CertificateSigning": lambda: certificates.CertificateSigning(naming),
        "CertificateSubjectRestriction": lambda: certificates.CertificateSubjectRestriction(naming),
        "MutatingAdmissionWebhook": lambda: webhooks(MutatingWebhooks, "mutatingwebhookconfigurations"),
        "ValidatingAdmissionWebhook": lambda: webhooks(ValidatingWebhooks, "validatingwebhookconfigurations"),
        "ResourceQuota": lambda: resourcequota.ResourceQuota(registry, hub),
    }
    return Chain([factories[name]() for name in names], getattr(metrics, "admission_controller_duration", None))
