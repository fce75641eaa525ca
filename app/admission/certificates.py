"""The reference's certificate admission plugins: approving and signing a CSR need the `approve` or `sign` verb on
its signer, and no request may ask the API-client signer for a certificate in system:masters."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cryptography.x509.oid import NameOID

from ..errors import Forbidden
from ..registry.admission import CREATE, UPDATE, Attributes, Plugin
from ..resources.certificates import decode_bytes, parse_request

if TYPE_CHECKING:
    from ..naming import Naming

RESOURCE = "certificatesigningrequests"


class _CsrPlugin(Plugin):
    def __init__(self, naming: Naming) -> None:
        self.naming = naming
        self.group = naming.group("certificates")

    def handles(self, attrs: Attributes) -> bool:
        return (
            attrs.operation in self.operations
            and attrs.rt.plural == RESOURCE
            and attrs.rt.group == self.group
            and attrs.obj is not None
        )

    def check_signer(self, verb: str, csr: dict) -> None:
        """The requester needs `verb` on `signers`, named after the signerName or `<signer domain>/*`; asked of
        the running app's authorizer. The server's own writes (no requester) are not checked."""
        from ..auth.authz import Attributes as AuthzAttributes
        from ..auth.context import current_authentication
        from ..user import current_user

        user, auth = current_user.get(), current_authentication.get()
        if user is None or auth is None:
            return
        signer = str((csr.get("spec") or {}).get("signerName") or "")
        names = [signer] + ([signer.split("/", 1)[0] + "/*"] if "/" in signer else [])
        for name in names:
            decision = auth.authorizer.authorize(
                AuthzAttributes(user, verb, group=self.group, resource="signers", name=name)
            )
            if decision.allowed:
                return
        csr_name = str((csr.get("metadata") or {}).get("name") or "")
        raise Forbidden(
            f'{RESOURCE}.{self.group} "{csr_name}" is forbidden: user not permitted to {verb} requests '
            f'with signerName "{signer}"',
            RESOURCE,
            self.group,
            csr_name,
        )


class CertificateApproval(_CsrPlugin):
    name = "CertificateApproval"
    operations = frozenset({UPDATE})

    def validate(self, attrs: Attributes) -> None:
        if attrs.subresource == "approval" and attrs.obj is not None:
            self.check_signer("approve", attrs.obj)


class CertificateSigning(_CsrPlugin):
    name = "CertificateSigning"
    operations = frozenset({UPDATE})

    def validate(self, attrs: Attributes) -> None:
        if attrs.subresource != "status" or attrs.obj is None:
            return
        before = ((attrs.old or {}).get("status") or {}).get("certificate")
        if (attrs.obj.get("status") or {}).get("certificate") != before:
            self.check_signer("sign", attrs.obj)


class CertificateSubjectRestriction(_CsrPlugin):
    name = "CertificateSubjectRestriction"
    operations = frozenset({CREATE})

    def validate(self, attrs: Attributes) -> None:
        csr = attrs.obj or {}
        signer = self.naming.signer("apiserver-client")
        if (csr.get("spec") or {}).get("signerName") != signer:
            return
        try:
            request = parse_request(decode_bytes((csr.get("spec") or {}).get("request")))
        except ValueError:
            return  # validation has refused it already
        organizations = [a.value for a in request.subject.get_attributes_for_oid(NameOID.ORGANIZATION_NAME)]
        if "system:masters" in organizations:
            name = str((csr.get("metadata") or {}).get("name") or "")
            raise Forbidden(
                f'{RESOURCE}.{self.group} "{name}" is forbidden: use of {signer} signer with '
                "system:masters group is not allowed",
                RESOURCE,
                self.group,
                name,
            )
