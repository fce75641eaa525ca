"""Authorization modes. Only AlwaysAllow exists yet; RBAC arrives with its own issue."""
from __future__ import annotations

SUPPORTED_MODES = ("AlwaysAllow",)
KNOWN_MODES = ("AlwaysAllow", "AlwaysDeny", "ABAC", "Webhook", "RBAC", "Node")


def parse_modes(value: str) -> list[str]:
    """The ordered, comma-separated --authorization-mode list; ValueError names what is wrong."""
    modes = [m.strip() for m in value.split(",")]
    for mode in modes:
        if mode not in KNOWN_MODES:
            raise ValueError(f"unknown authorization mode {mode!r}; known: {', '.join(KNOWN_MODES)}")
        if mode not in SUPPORTED_MODES:
            raise ValueError(f"authorization mode {mode!r} is not supported yet; use AlwaysAllow")
    if len(set(modes)) != len(modes):
        raise ValueError(f"{value!r} names a mode twice")
    return modes
