"""Every identifier that embeds the maker's domain, derived from one setting (--api-domain).

Nothing else in the tree spells the domain out; import a name from here instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

DEFAULT_API_DOMAIN = "orch.io"


@dataclass(frozen=True)
class Naming:
    domain: str = DEFAULT_API_DOMAIN

    @cached_property
    def short(self) -> str:
        """The maker's short name: `orch` for `orch.io`."""
        return self.domain.split(".", 1)[0]

    @cached_property
    def is_reference(self) -> bool:
        """In the reference's own domain every identifier takes the reference's exact spelling."""
        return self.domain == CLIENT_DOMAIN

    @cached_property
    def product(self) -> str:
        """The name in media types, schema extensions, env vars and the finalizer (upstream: kubernetes)."""
        return "kubernetes" if self.is_reference else self.short

    @cached_property
    def key_domain(self) -> str:
        """The domain of label, annotation and finalizer keys, secret types and signers (upstream:
        kubernetes.io, while API groups end in k8s.io)."""
        return "kubernetes.io" if self.is_reference else self.domain

    @cached_property
    def namespace_prefix(self) -> str:
        """The prefix of system namespaces and component names (upstream: kube-system, kube-apiserver)."""
        return "kube" if self.is_reference else self.short

    def group(self, prefix: str) -> str:
        """A named API group under the domain, e.g. group("certificates") -> certificates.orch.io."""
        return f"{prefix}.{self.domain}"

    def key(self, name: str) -> str:
        """A domain-qualified annotation/label/finalizer key or secret type: orch.io/<name>."""
        return f"{self.key_domain}/{name}"

    def api_key(self, name: str) -> str:
        """A key under the API domain itself (upstream k8s.io/deprecated, next to kubernetes.io/...)."""
        return f"{self.domain}/{name}"

    def key_group(self, prefix: str) -> str:
        """The prefix of a qualified key under a subdomain: key_group("node-role") -> node-role.orch.io."""
        return f"{prefix}.{self.key_domain}"

    def signer(self, name: str) -> str:
        """A built-in signer: signer("apiserver-client") -> orch.io/apiserver-client; the reference
        names its signers after its components (kubernetes.io/kube-apiserver-client)."""
        return self.key(REFERENCE_SIGNERS.get(name, name) if self.is_reference else name)

    def namespace(self, suffix: str) -> str:
        return f"{self.namespace_prefix}-{suffix}"

    @property
    def system_namespace(self) -> str:
        return self.namespace("system")

    @property
    def public_namespace(self) -> str:
        return self.namespace("public")

    @property
    def node_lease_namespace(self) -> str:
        return self.namespace("node-lease")

    @property
    def system_namespaces(self) -> tuple[str, ...]:
        return ("default", self.system_namespace, self.public_namespace, self.node_lease_namespace)

    @property
    def protobuf_media_type(self) -> str:
        return f"application/vnd.{self.product}.protobuf"

    @property
    def apiserver_name(self) -> str:
        """The server's component name: field manager of what it writes, serving certificate CN."""
        return f"{self.namespace_prefix}-apiserver"

    @property
    def root_ca_config_map(self) -> str:
        """The ConfigMap holding the cluster CA in every namespace (upstream kube-root-ca.crt)."""
        return f"{self.namespace_prefix}-root-ca.crt"

    @property
    def meta_group(self) -> str:
        return self.group("meta")

    def openapi_extension(self, name: str) -> str:
        return f"x-{self.product}-{name}"

    def env_var(self, name: str) -> str:
        return f"{self.product.upper()}_{name}"

    @property
    def namespace_finalizer(self) -> str:
        """The finalizer the server puts in every namespace's spec.finalizers (upstream: `kubernetes`)."""
        return self.product

    def from_client_api_version(self, api_version: str) -> str:
        """Our spelling of an apiVersion a stock client wrote with the upstream domain (else unchanged)."""
        group, _, version = api_version.rpartition("/")
        suffix = "." + CLIENT_DOMAIN
        if group.endswith(suffix):
            return f"{self.group(group[: -len(suffix)])}/{version}"
        return api_version

    @property
    def initial_events_end_annotation(self) -> str:
        return self.api_key("initial-events-end")

    @property
    def namespace_name_label(self) -> str:
        """The label every namespace carries with its own name (upstream kubernetes.io/metadata.name)."""
        return self.key("metadata.name")


# Names real, unmodified clients (kubectl, client-go) hard-code on the wire. We accept or emit them
# next to our own spelling only where a stock client would otherwise break.
#: The upstream domain stock clients put into group names of objects they send (kubectl create token).
CLIENT_DOMAIN = "k8s.io"
CLIENT_GVK_EXTENSION = "x-kubernetes-group-version-kind"
#: The protobuf media type stock clients send (kubectl's typed `create` subcommands); read like ours.
CLIENT_PROTOBUF_MEDIA_TYPE = "application/vnd.kubernetes.protobuf"
#: Our built-in signers' names as the reference spells them (after its kube-apiserver and kubelet).
REFERENCE_SIGNERS = {
    "apiserver-client": "kube-apiserver-client",
    "apiserver-client-node": "kube-apiserver-client-kubelet",
    "node-serving": "kubelet-serving",
}
