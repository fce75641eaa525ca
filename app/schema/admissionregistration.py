"""admissionregistration/v1 declarations: field names and numbers as the reference's v0.23.17 generated.proto.

Written by app/schema/codegen.py; regenerate rather than hand-edit.
"""

from __future__ import annotations

from . import meta
from .types import BYTES, INT32, STRING, Field, ListOf, Struct

_PKG = "admissionregistration/v1"
# The served group: in the API domain (Naming.group(GROUP)) or as spelled here ("" is core).
GROUP = "admissionregistration"
GROUP_IN_DOMAIN = True
VERSION = "v1"


ServiceReference = Struct(
    _PKG,
    "ServiceReference",
    [
        Field("namespace", 1, STRING, omitempty=False, required=True),
        Field("name", 2, STRING, omitempty=False, required=True),
        Field("path", 3, STRING, nullable=True),
        Field("port", 4, INT32, nullable=True),
    ],
)

WebhookClientConfig = Struct(
    _PKG,
    "WebhookClientConfig",
    [
        Field("url", 3, STRING, nullable=True),
        Field("service", 1, ServiceReference, nullable=True),
        Field("caBundle", 2, BYTES, nullable=True),
    ],
)

Rule = Struct(
    _PKG,
    "Rule",
    [
        Field("apiGroups", 1, ListOf(STRING)),
        Field("apiVersions", 2, ListOf(STRING)),
        Field("resources", 3, ListOf(STRING)),
        Field("scope", 4, STRING, nullable=True),
    ],
)

RuleWithOperations = Struct(
    _PKG, "RuleWithOperations", [Field("operations", 1, ListOf(STRING)), Field("rule", 2, Rule, inline=True)]
)

MutatingWebhook = Struct(
    _PKG,
    "MutatingWebhook",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("clientConfig", 2, WebhookClientConfig, omitempty=False, required=True),
        Field("rules", 3, ListOf(RuleWithOperations)),
        Field("failurePolicy", 4, STRING, nullable=True),
        Field("matchPolicy", 9, STRING, nullable=True),
        Field("namespaceSelector", 5, meta.LabelSelector, nullable=True),
        Field("objectSelector", 11, meta.LabelSelector, nullable=True),
        Field("sideEffects", 6, STRING, nullable=True, omitempty=False, required=True),
        Field("timeoutSeconds", 7, INT32, nullable=True),
        Field("admissionReviewVersions", 8, ListOf(STRING), omitempty=False, required=True),
        Field("reinvocationPolicy", 10, STRING, nullable=True),
    ],
)

MutatingWebhookConfiguration = Struct(
    _PKG,
    "MutatingWebhookConfiguration",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("webhooks", 2, ListOf(MutatingWebhook), patch_strategy="merge", patch_merge_key="name"),
    ],
    kind=True,
)

MutatingWebhookConfigurationList = Struct(
    _PKG,
    "MutatingWebhookConfigurationList",
    [
        Field("metadata", 1, meta.ListMeta),
        Field("items", 2, ListOf(MutatingWebhookConfiguration), omitempty=False, required=True),
    ],
    kind=True,
)

ValidatingWebhook = Struct(
    _PKG,
    "ValidatingWebhook",
    [
        Field("name", 1, STRING, omitempty=False, required=True),
        Field("clientConfig", 2, WebhookClientConfig, omitempty=False, required=True),
        Field("rules", 3, ListOf(RuleWithOperations)),
        Field("failurePolicy", 4, STRING, nullable=True),
        Field("matchPolicy", 9, STRING, nullable=True),
        Field("namespaceSelector", 5, meta.LabelSelector, nullable=True),
        Field("objectSelector", 10, meta.LabelSelector, nullable=True),
        Field("sideEffects", 6, STRING, nullable=True, omitempty=False, required=True),
        Field("timeoutSeconds", 7, INT32, nullable=True),
        Field("admissionReviewVersions", 8, ListOf(STRING), omitempty=False, required=True),
    ],
)

ValidatingWebhookConfiguration = Struct(
    _PKG,
    "ValidatingWebhookConfiguration",
    [
        Field("metadata", 1, meta.ObjectMeta),
        Field("webhooks", 2, ListOf(ValidatingWebhook), patch_strategy="merge", patch_merge_key="name"),
    ],
    kind=True,
)

ValidatingWebhookConfigurationList = Struct(
    _PKG,
    "ValidatingWebhookConfigurationList",
    [
        Field("metadata", 1, meta.ListMeta),
        Field("items", 2, ListOf(ValidatingWebhookConfiguration), omitempty=False, required=True),
    ],
    kind=True,
)


# Top-level kinds served under GROUP/VERSION (their JSON also carries apiVersion and kind).
KINDS: dict[str, Struct] = {
    "MutatingWebhookConfiguration": MutatingWebhookConfiguration,
    "MutatingWebhookConfigurationList": MutatingWebhookConfigurationList,
    "ValidatingWebhookConfiguration": ValidatingWebhookConfiguration,
    "ValidatingWebhookConfigurationList": ValidatingWebhookConfigurationList,
}
