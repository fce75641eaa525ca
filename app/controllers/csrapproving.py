"""csrapproving: approves `<domain>/apiserver-client-node` requests whose requester may have them, as the
reference's approver: the request must be a node client request (see csrsigning's rules), and the
requester must be allowed `create` on `certificatesigningrequests/selfnodeclient` (renewing its own
identity: CN equals the requester's user name) or `certificatesigningrequests/nodeclient`, asked of the
server's authorizer as a SubjectAccessReview would be."""

from __future__ import annotations

from ..auth.authz import Attributes
from ..errors import Conflict, NotFound
from ..resources.certificates import APPROVED
from ..user import UserInfo
from . import csr as csrs
from .base import Context, Controller
from .csrsigning import Request, SignerRuleError, check_apiserver_client_node


class CsrApproving(Controller):
    name = "csrapproving"
    account = "certificate-controller"

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.csrs = ctx.kind("certificates", "certificatesigningrequests")
        self.signer = ctx.naming.signer("apiserver-client-node")

    def watches(self) -> list:
        return [self.csrs]

    def sync(self) -> None:
        for csr in self.client.list(self.csrs):
            if (
                (csr.get("spec") or {}).get("signerName") != self.signer
                or csrs.conditions(csr)
                or (csr.get("status") or {}).get("certificate")
            ):
                continue
            message = self.approval_message(csr)
            if message is None:
                continue
            approved = csrs.with_condition(csr, APPROVED, "AutoApproved", message, self.now())
            try:
                self.client.update(self.csrs, None, approved, subresource="approval")
            except (Conflict, NotFound):
                pass  # changed or gone meanwhile

    def approval_message(self, csr: dict) -> str | None:
        """Why the request may be approved, or None to leave it to a person."""
        spec = csr.get("spec") or {}
        try:
            request = Request(csrs.request_of(csr), frozenset(spec.get("usages") or []))
            check_apiserver_client_node(request)
        except (ValueError, SignerRuleError):
            return None  # not a node client request: the signer will fail it once someone approves
        requester = UserInfo(
            str(spec.get("username") or ""),
            str(spec.get("uid") or ""),
            tuple(spec.get("groups") or ()),
            {k: tuple(v) for k, v in (spec.get("extra") or {}).items()},
        )
        if request.common_name == requester.username and self._allowed(requester, "selfnodeclient"):
            return "Auto approving self node client certificate after SubjectAccessReview."
        if self._allowed(requester, "nodeclient"):
            return "Auto approving node client certificate after SubjectAccessReview."
        return None

    def _allowed(self, requester: UserInfo, subresource: str) -> bool:
        authorizer = self.client.authorizer
        if authorizer is None or not requester.username:
            return False
        attrs = Attributes(
            requester,
            "create",
            group=self.csrs.group,
            version="*",
            resource="certificatesigningrequests",
            subresource=subresource,
        )
        return authorizer.authorize(attrs).allowed
