"""networking/v1 declarations: field names and numbers as the reference's v0.36.3 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import core_volume, meta
from .types import INT32, INT_OR_STRING, STRING, Field, ListOf, Struct

_PKG = "networking/v1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = "networking"
GROUP_IN_DOMAIN = True
VERSION = "v1"


ServiceBackendPort = Struct(
    _PKG, "ServiceBackendPort", [Field("name", 1, STRING), Field("number", 2, INT32)], struct_type="atomic"
)

IngressServiceBackend = Struct(
    _PKG,
    "IngressServiceBackend",
    [Field("name", 1, STRING, omitempty=False, required=True), Field("port", 2, ServiceBackendPort)],
)

IngressBackend = Struct(
    _PKG,
    "IngressBackend",
    [
        Field("service", 4, IngressServiceBackend, nullable=True),
        Field("resource", 3, core_volume.TypedLocalObjectReference, nullable=True),
    ],
)

IngressTLS = Struct(
    _PKG, "IngressTLS", [Field("hosts", 1, ListOf(STRING), list_type="atomic"), Field("secretName", 2, STRING)]
)

HTTPIngressPath = Struct(
    _PKG,
    "HTTPIngressPath",
    [
        Field("path", 1, STRING),
        Field("pathType", 3, STRING, nullable=True, omitempty=False, required=True),
        Field("backend", 2, IngressBackend, omitempty=False, required=True),
    ],
)

HTTPIngressRuleValue = Struct(
    _PKG,
    "HTTPIngressRuleValue",
    [Field("paths", 1, ListOf(HTTPIngressPath), omitempty=False, required=True, list_type="atomic")],
)

IngressRuleValue = Struct(_PKG, "IngressRuleValue", [Field("http", 1, HTTPIngressRuleValue, nullable=True)])

IngressRule = Struct(
    _PKG, "IngressRule", [Field("host", 1, STRING), Field("ingressRuleValue", 2, IngressRuleValue, inline=True)]
)

IngressSpec = Struct(
    _PKG,
    "IngressSpec",
    [
        Field("ingressClassName", 4, STRING, nullable=True),
        Field("defaultBackend", 1, IngressBackend, nullable=True),
        Field("tls", 2, ListOf(IngressTLS), list_type="atomic"),
        Field("rules", 3, ListOf(IngressRule), list_type="atomic"),
    ],
)

IngressPortStatus = Struct(
    _PKG,
    "IngressPortStatus",
    [
        Field("port", 1, INT32, omitempty=False, required=True),
        Field("protocol", 2, STRING, omitempty=False, required=True),
        Field("error", 3, STRING, nullable=True),
    ],
)

IngressLoadBalancerIngress = Struct(
    _PKG,
    "IngressLoadBalancerIngress",
    [
        Field("ip", 1, STRING),
        Field("hostname", 2, STRING),
        Field("ports", 4, ListOf(IngressPortStatus), list_type="atomic"),
    ],
)

IngressLoadBalancerStatus = Struct(
    _PKG, "IngressLoadBalancerStatus", [Field("ingress", 1, ListOf(IngressLoadBalancerIngress), list_type="atomic")]
)

IngressStatus = Struct(_PKG, "IngressStatus", [Field("loadBalancer", 1, IngressLoadBalancerStatus)])

Ingress = Struct(
    _PKG,
    "Ingress",
    [Field("metadata", 1, meta.ObjectMeta), Field("spec", 2, IngressSpec), Field("status", 3, IngressStatus)],
    kind=True,
)

IngressList = Struct(
    _PKG,
    "IngressList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(Ingress), omitempty=False, required=True)],
    kind=True,
)

NetworkPolicyPort = Struct(
    _PKG,
    "NetworkPolicyPort",
    [
        Field("protocol", 1, STRING, nullable=True),
        Field("port", 2, INT_OR_STRING, nullable=True),
        Field("endPort", 3, INT32, nullable=True),
    ],
)

IPBlock = Struct(
    _PKG,
    "IPBlock",
    [Field("cidr", 1, STRING, omitempty=False, required=True), Field("except", 2, ListOf(STRING), list_type="atomic")],
)

NetworkPolicyPeer = Struct(
    _PKG,
    "NetworkPolicyPeer",
    [
        Field("podSelector", 1, meta.LabelSelector, nullable=True),
        Field("namespaceSelector", 2, meta.LabelSelector, nullable=True),
        Field("ipBlock", 3, IPBlock, nullable=True),
    ],
)

NetworkPolicyIngressRule = Struct(
    _PKG,
    "NetworkPolicyIngressRule",
    [
        Field("ports", 1, ListOf(NetworkPolicyPort), list_type="atomic"),
        Field("from", 2, ListOf(NetworkPolicyPeer), list_type="atomic"),
    ],
)

NetworkPolicyEgressRule = Struct(
    _PKG,
    "NetworkPolicyEgressRule",
    [
        Field("ports", 1, ListOf(NetworkPolicyPort), list_type="atomic"),
        Field("to", 2, ListOf(NetworkPolicyPeer), list_type="atomic"),
    ],
)

NetworkPolicySpec = Struct(
    _PKG,
    "NetworkPolicySpec",
    [
        Field("podSelector", 1, meta.LabelSelector, omitempty=False),
        Field("ingress", 2, ListOf(NetworkPolicyIngressRule), list_type="atomic"),
        Field("egress", 3, ListOf(NetworkPolicyEgressRule), list_type="atomic"),
        Field("policyTypes", 4, ListOf(STRING), list_type="atomic"),
    ],
)

NetworkPolicy = Struct(
    _PKG, "NetworkPolicy", [Field("metadata", 1, meta.ObjectMeta), Field("spec", 2, NetworkPolicySpec)], kind=True
)

NetworkPolicyList = Struct(
    _PKG,
    "NetworkPolicyList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(NetworkPolicy), omitempty=False, required=True)],
    kind=True,
)

IngressClassParametersReference = Struct(
    _PKG,
    "IngressClassParametersReference",
    [
        Field("apiGroup", 1, STRING, nullable=True),
        Field("kind", 2, STRING, omitempty=False, required=True),
        Field("name", 3, STRING, omitempty=False, required=True),
        Field("scope", 4, STRING, nullable=True, omitempty=False),
        Field("namespace", 5, STRING, nullable=True),
    ],
)

IngressClassSpec = Struct(
    _PKG,
    "IngressClassSpec",
    [Field("controller", 1, STRING), Field("parameters", 2, IngressClassParametersReference, nullable=True)],
)

IngressClass = Struct(
    _PKG, "IngressClass", [Field("metadata", 1, meta.ObjectMeta), Field("spec", 2, IngressClassSpec)], kind=True
)

IngressClassList = Struct(
    _PKG,
    "IngressClassList",
    [Field("metadata", 1, meta.ListMeta), Field("items", 2, ListOf(IngressClass), omitempty=False, required=True)],
    kind=True,
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {
    "Ingress": Ingress,
    "IngressList": IngressList,
    "NetworkPolicy": NetworkPolicy,
    "NetworkPolicyList": NetworkPolicyList,
    "IngressClass": IngressClass,
    "IngressClassList": IngressClassList,
}
