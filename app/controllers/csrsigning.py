"""csrsigning: issues approved requests of the built-in signers with the cluster signing CA.

Each signer's rules (the spec's table of built-in signers) are checked first; a request that breaks them
gets a `Failed` condition with reason `SignerValidationFailure`, never a certificate. Custom signer names
are left to external signers.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ed448, ed25519
from cryptography.x509 import GeneralName
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from .. import pki
from ..errors import Conflict, NotFound
from ..resources.certificates import FAILED
from . import csr as csrs
from .base import Context, Controller

log = logging.getLogger(__name__)

NODE_GROUP = "system:nodes"
NODE_PREFIX = "system:node:"
BACKDATE = timedelta(minutes=5)  # peers with a slightly slow clock accept fresh certificates
DEFAULT_DURATION_SECONDS = 365 * 24 * 3600.0

_KEY_USAGE_FLAGS = {
    "digital signature": "digital_signature",
    "signing": "digital_signature",
    "content commitment": "content_commitment",
    "key encipherment": "key_encipherment",
    "key agreement": "key_agreement",
    "data encipherment": "data_encipherment",
    "cert sign": "key_cert_sign",
    "crl sign": "crl_sign",
    "encipher only": "encipher_only",
    "decipher only": "decipher_only",
}
_EXTENDED_USAGES = {
    "any": x509.oid.ExtendedKeyUsageOID.ANY_EXTENDED_KEY_USAGE,
    "server auth": ExtendedKeyUsageOID.SERVER_AUTH,
    "client auth": ExtendedKeyUsageOID.CLIENT_AUTH,
    "code signing": ExtendedKeyUsageOID.CODE_SIGNING,
    "email protection": ExtendedKeyUsageOID.EMAIL_PROTECTION,
    "s/mime": ExtendedKeyUsageOID.EMAIL_PROTECTION,
    "timestamping": ExtendedKeyUsageOID.TIME_STAMPING,
    "ocsp signing": ExtendedKeyUsageOID.OCSP_SIGNING,
}


class SignerRuleError(ValueError):
    """The request breaks its signer's rules; the message says which."""


@dataclass(frozen=True)
class Request:
    """What a signer checks: the decoded request and the CSR's spec."""

    x509: x509.CertificateSigningRequest
    usages: frozenset[str]

    @property
    def organizations(self) -> list[str]:
        return [str(a.value) for a in self.x509.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)]

    @property
    def common_name(self) -> str:
        names = self.x509.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
        return str(names[0].value) if names else ""

    @property
    def alt_names(self) -> list[GeneralName]:
        try:
            return list(self.x509.extensions.get_extension_for_class(x509.SubjectAlternativeName).value)
        except x509.ExtensionNotFound:
            return []


def _node_subject(request: Request) -> None:
    if request.organizations != [NODE_GROUP]:
        raise SignerRuleError(f'subject organization is not "{NODE_GROUP}"')
    if not request.common_name.startswith(NODE_PREFIX):
        raise SignerRuleError(f'subject common name does not begin with "{NODE_PREFIX}"')


def _usages_exactly(request: Request, *allowed: frozenset[str]) -> None:
    if request.usages not in allowed:
        wanted = " or ".join(str(sorted(a)) for a in allowed)
        raise SignerRuleError(f"usages did not match {wanted}: {sorted(request.usages)}")


def check_apiserver_client(request: Request) -> None:
    if "client auth" not in request.usages:
        raise SignerRuleError('usages must include "client auth"')
    extra = request.usages - {"digital signature", "key encipherment", "client auth"}
    if extra:
        raise SignerRuleError(f"usages not allowed for this signer: {sorted(extra)}")


def check_apiserver_client_node(request: Request) -> None:
    _node_subject(request)
    if request.alt_names:
        raise SignerRuleError("subjectAltName entries are not allowed for this signer")
    _usages_exactly(
        request,
        frozenset({"key encipherment", "digital signature", "client auth"}),
        frozenset({"digital signature", "client auth"}),
    )


def check_node_serving(request: Request) -> None:
    _node_subject(request)
    names = request.alt_names
    if any(isinstance(n, (x509.RFC822Name, x509.UniformResourceIdentifier)) for n in names):
        raise SignerRuleError("email and URI subjectAltName entries are not allowed for this signer")
    if not any(isinstance(n, (x509.DNSName, x509.IPAddress)) for n in names):
        raise SignerRuleError("at least one DNS or IP subjectAltName is required")
    _usages_exactly(
        request,
        frozenset({"key encipherment", "digital signature", "server auth"}),
        frozenset({"digital signature", "server auth"}),
    )


def signer_rules(signer: Callable[[str], str]) -> dict[str, Callable[[Request], None]]:
    """signerName -> its rule check, for the built-in signers."""
    return {
        signer("apiserver-client"): check_apiserver_client,
        signer("apiserver-client-node"): check_apiserver_client_node,
        signer("node-serving"): check_node_serving,
    }


def _key_usage(usages: frozenset[str]) -> x509.KeyUsage:
    flags = dict.fromkeys(set(_KEY_USAGE_FLAGS.values()), False)
    for usage in usages:
        if usage in _KEY_USAGE_FLAGS:
            flags[_KEY_USAGE_FLAGS[usage]] = True
    flags["key_cert_sign"] = flags["crl_sign"] = False  # never a CA
    if not (flags["key_agreement"]):
        flags["encipher_only"] = flags["decipher_only"] = False
    return x509.KeyUsage(**flags)


def issue(ca: pki.CertKey, request: Request, lifetime: timedelta, now: datetime) -> x509.Certificate:
    """A leaf certificate for the request: its subject and public key, the honoured SANs and usages,
    BasicConstraints CA=false, valid from `now - BACKDATE` for `lifetime` (never past the CA)."""
    not_after = min(now + lifetime, ca.cert.not_valid_after_utc)
    builder = (
        x509.CertificateBuilder()
        .subject_name(request.x509.subject)
        .issuer_name(ca.cert.subject)
        .public_key(request.x509.public_key())  # type: ignore[arg-type]
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - BACKDATE)
        .not_valid_after(not_after)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(_key_usage(request.usages), critical=True)
    )
    extended = [_EXTENDED_USAGES[u] for u in sorted(request.usages) if u in _EXTENDED_USAGES]
    if extended:
        builder = builder.add_extension(x509.ExtendedKeyUsage(list(dict.fromkeys(extended))), critical=False)
    if request.alt_names:
        builder = builder.add_extension(x509.SubjectAlternativeName(request.alt_names), critical=False)
    try:
        ski = ca.cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value
        builder = builder.add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ski), critical=False
        )
    except x509.ExtensionNotFound:
        pass
    digest = None if isinstance(ca.key, (ed25519.Ed25519PrivateKey, ed448.Ed448PrivateKey)) else hashes.SHA256()
    return builder.sign(ca.key, digest)


def load_signing_ca(settings: dict) -> pki.CertKey | None:
    """--cluster-signing-cert-file/--cluster-signing-key-file, else the cluster CA (its key beside it)."""
    if isinstance(settings.get("SIGNING_CA"), pki.CertKey):
        return settings["SIGNING_CA"]
    cert = settings.get("CLUSTER_SIGNING_CERT_FILE") or settings.get("CLUSTER_CA_CERT_FILE")
    key = settings.get("CLUSTER_SIGNING_KEY_FILE") or settings.get("CLUSTER_CA_KEY_FILE")
    if cert and not key:
        key = str(cert).rsplit(".", 1)[0] + ".key"
    if not cert or not key:
        return None
    try:
        return pki.load_pair(cert, key)
    except pki.PkiError as err:
        log.warning("csrsigning cannot sign: %s", err)
        return None


class CsrSigning(Controller):
    name = "csrsigning"
    account = "certificate-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.csrs = ctx.kind("certificates", "certificatesigningrequests")
        self.rules = signer_rules(ctx.naming.signer)
        self.max_lifetime = float(ctx.settings.get("CLUSTER_SIGNING_DURATION") or DEFAULT_DURATION_SECONDS)
        self._ca: pki.CertKey | None = None

    @property
    def ca(self) -> pki.CertKey | None:
        if self._ca is None:
            self._ca = load_signing_ca(self.ctx.settings)
        return self._ca

    def watches(self) -> list:
        return [self.csrs]

    def sync(self) -> None:
        for csr in self.client.list(self.csrs):
            signer = (csr.get("spec") or {}).get("signerName")
            if signer in self.rules and csrs.is_approved(csr) and not csrs.is_finished(csr):
                try:
                    self.handle(csr, self.rules[signer])
                except (Conflict, NotFound):
                    pass  # changed or gone meanwhile: the next event brings it back

    def handle(self, csr: dict, rule: Callable[[Request], None]) -> None:
        spec = csr.get("spec") or {}
        try:
            request = Request(csrs.request_of(csr), frozenset(spec.get("usages") or []))
            rule(request)
        except (ValueError, SignerRuleError) as err:
            failed = csrs.with_condition(csr, FAILED, "SignerValidationFailure", str(err), self.now())
            self.client.update(self.csrs, None, failed, subresource="status")
            return
        ca = self.ca
        if ca is None:
            return
        lifetime = self.max_lifetime
        if isinstance(spec.get("expirationSeconds"), int):
            lifetime = min(lifetime, float(spec["expirationSeconds"]))
        cert = issue(ca, request, timedelta(seconds=lifetime), self.now())
        pem = cert.public_bytes(serialization.Encoding.PEM)
        status = {**(csr.get("status") or {}), "certificate": base64.b64encode(pem).decode()}
        self.client.update(self.csrs, None, {**csr, "status": status}, subresource="status")
