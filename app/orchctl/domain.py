"""The server's API domain, found from discovery and cached per server (as kubectl caches discovery): orchctl
never guesses it, since every group, media-type and history parameter it sends is spelled with it."""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Iterable
from pathlib import Path


class UnknownDomain(Exception):
    """Discovery does not tell the domain (context turns it into a CommandError: exit status 1)."""


#: how long a cached domain is trusted without asking the server (kubectl's discovery cache: 6 hours)
CACHE_TTL = 6 * 3600
#: built-in groups every server serves under its domain (the reference cannot turn them off)
MARKER_PREFIXES = ("authentication", "authorization")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def domain_of_groups(groups: Iterable[str]) -> str:
    """The domain D for which the server serves authentication.D and authorization.D; an error when none or
    several do (no answer rather than a wrong one)."""
    names = set(groups)
    first, *rest = MARKER_PREFIXES
    candidates = sorted(
        name[len(first) + 1 :]
        for name in names
        if name.startswith(first + ".") and all(f"{p}.{name[len(first) + 1 :]}" in names for p in rest)
    )
    if len(candidates) == 1:
        return candidates[0]
    found = f"several ({', '.join(candidates)})" if candidates else "none"
    raise UnknownDomain(
        "cannot tell the server's API domain from discovery: the groups "
        f"{' and '.join(p + '.<domain>' for p in MARKER_PREFIXES)} name {found}; pass --api-domain"
    )


def default_cache_dir() -> str:
    return os.environ.get("ORCHCTL_CACHE_DIR") or os.path.expanduser("~/.orch/cache")


class DomainCache:
    """One small file per server under <cache-dir>/discovery/<host_port>/, tied to the server's CA: a new server
    at the same address (a restart with other settings) does not inherit the old one's answer."""

    def __init__(self, cache_dir: str, server: str, ca_data: bytes | None) -> None:
        host = server.split("://", 1)[-1].split("/", 1)[0]
        self.path = Path(cache_dir) / "discovery" / _UNSAFE.sub("_", host.replace(":", "_")) / "api-domain.json"
        self.identity = f"{server}|{hashlib.sha256(ca_data or b'').hexdigest()}"

    def read(self) -> str | None:
        try:
            entry = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return None
        fresh = isinstance(entry, dict) and time.time() - float(entry.get("written", 0)) < CACHE_TTL
        if not fresh or entry.get("server") != self.identity or not isinstance(entry.get("domain"), str):
            return None
        return str(entry["domain"])

    def write(self, domain: str) -> None:
        """Best effort: a read-only home only costs the next command a discovery request."""
        entry = {"server": self.identity, "domain": domain, "written": time.time()}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.path.with_suffix(f".{os.getpid()}.tmp")
            temporary.write_text(json.dumps(entry))
            temporary.replace(self.path)  # atomic: a concurrent orchctl reads the old file or the new one
        except OSError:
            pass

    def forget(self) -> None:
        try:
            self.path.unlink()
        except OSError:
            pass
