"""The controllers a server runs, and `--controllers` parsed as the reference's controller manager does."""

from __future__ import annotations

CSR_SIGNING = "csrsigning"
CSR_APPROVING = "csrapproving"
CSR_CLEANER = "csrcleaner"
TOKEN_CLEANER = "tokencleaner"
BOOTSTRAP_SIGNER = "bootstrapsigner"
GARBAGE_COLLECTOR = "garbagecollector"
SERVICE_ACCOUNT = "serviceaccount"
ROOT_CA_PUBLISHER = "rootcacertpublisher"
CRD = "crd"
RESOURCE_QUOTA = "resourcequota"
PVC_PROTECTION = "pvc-protection"
PV_PROTECTION = "pv-protection"
POD_GC = "podgc"

KNOWN = (
    CSR_SIGNING,
    CSR_APPROVING,
    CSR_CLEANER,
    TOKEN_CLEANER,
    BOOTSTRAP_SIGNER,
    GARBAGE_COLLECTOR,
    SERVICE_ACCOUNT,
    ROOT_CA_PUBLISHER,
    CRD,
    RESOURCE_QUOTA,
    PVC_PROTECTION,
    PV_PROTECTION,
    POD_GC,
)
#: off unless named (the reference's tokencleaner); bootstrapsigner is on here: cluster-info must be signed
DISABLED_BY_DEFAULT = frozenset({TOKEN_CLEANER})
DEFAULT = "*"


def parse_controllers(text: str) -> tuple[str, ...]:
    """`*` enables every default-on controller, `name` enables, `-name` disables; ValueError on unknown names."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    for item in items:
        name = item.removeprefix("-")
        if item != "*" and name not in KNOWN:
            raise ValueError(f"{item!r} is not a known controller; known: {', '.join(KNOWN)} (and '*', '-<name>')")
    star = "*" in items
    enabled = []
    for name in KNOWN:
        if f"-{name}" in items:
            continue
        if name in items or (star and name not in DISABLED_BY_DEFAULT):
            enabled.append(name)
    return tuple(enabled)
