"""`orchctl certificate approve|deny`: a condition written through the `approval` subresource."""

from __future__ import annotations

from datetime import UTC, datetime

from .context import CommandError, Context
from .output import object_name

#: (condition type, the opposite type, reason, past tense)
DECISIONS = {
    "approve": ("Approved", "Denied", "OrchctlApprove", "approved"),
    "deny": ("Denied", "Approved", "OrchctlDeny", "denied"),
}


def run_certificate(ctx: Context) -> int:
    from ..client import ApiError

    condition_type, opposite, reason, done = DECISIONS[ctx.args.decision]
    base = f"/apis/{ctx.naming.group('certificates')}/v1/certificatesigningrequests"
    failures = 0
    for name in ctx.args.names:
        try:
            csr = ctx.client.get(f"{base}/{name}")
            conditions = (csr.get("status") or {}).get("conditions") or []
            types = {c.get("type") for c in conditions}
            if opposite in types:
                raise CommandError(f'certificate signing request "{name}" is already {DECISIONS[_verb(opposite)][3]}')
            if condition_type not in types or ctx.args.force:
                now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
                kept = [c for c in conditions if c.get("type") != condition_type]
                csr.setdefault("status", {})["conditions"] = [
                    *kept,
                    {
                        "type": condition_type,
                        "status": "True",
                        "reason": reason,
                        "message": f"This CSR was {done} by orchctl certificate {ctx.args.decision}.",
                        "lastUpdateTime": now,
                        "lastTransitionTime": now,
                    },
                ]
                csr = ctx.client.update(f"{base}/{name}/approval", csr)
        except ApiError as err:
            from .get import server_error_text

            ctx.err.write(server_error_text(err) + "\n")
            failures += 1
            continue
        csr.setdefault("apiVersion", f"{ctx.naming.group('certificates')}/v1")
        csr.setdefault("kind", "CertificateSigningRequest")
        ctx.print(object_name(csr) + f" {done}")
    return 1 if failures else 0


def _verb(condition_type: str) -> str:
    return "approve" if condition_type == "Approved" else "deny"
