"""What every command needs: the parsed flags, a lazily built client and discovery, and output streams."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, TextIO

from ..naming import Naming

if TYPE_CHECKING:
    from ..client import Client, ClientConfig, Discovery
    from .domain import DomainCache

FIELD_MANAGER = "orchctl"


def impersonation_headers(args: argparse.Namespace) -> list[tuple[str, str]]:
    """--as, --as-group (repeatable), --as-uid as Impersonate-* headers."""
    headers = []
    if getattr(args, "as_user", None):
        headers.append(("Impersonate-User", args.as_user))
    for group in getattr(args, "as_group", None) or []:
        headers.append(("Impersonate-Group", group))
    if getattr(args, "as_uid", None):
        headers.append(("Impersonate-Uid", args.as_uid))
    if headers and not getattr(args, "as_user", None):
        raise UsageError("--as-group and --as-uid need --as")
    return headers


class UsageError(Exception):
    """Wrong command-line use: printed as `error: ...` with exit status 2 (argparse's own errors too)."""


class CommandError(Exception):
    """A client-side failure: printed as `error: ...` with exit status 1."""


@dataclass
class Context:
    args: argparse.Namespace
    out: TextIO = field(default_factory=lambda: sys.stdout)
    err: TextIO = field(default_factory=lambda: sys.stderr)

    _naming: Naming | None = field(default=None, init=False, repr=False)
    _naming_cached: bool = field(default=False, init=False, repr=False)
    _domain_confirmed: bool = field(default=False, init=False, repr=False)

    @property
    def naming(self) -> Naming:
        """--api-domain, else the server's domain: from the cache, else from discovery (and then cached)."""
        if self._naming is None:
            if self.args.api_domain:
                self._naming = Naming(self.args.api_domain)
            else:
                cached = self.domain_cache.read()
                self._naming_cached = cached is not None
                self._naming = Naming(cached or self._discovered_domain())
        return self._naming

    def confirm_domain(self) -> None:
        """Once discovery has been read (resolving a type): its domain wins over a cached one; a given
        --api-domain the server does not serve is warned about."""
        from .domain import UnknownDomain, domain_of_groups

        if self._domain_confirmed:
            return
        self._domain_confirmed = True
        try:
            found = domain_of_groups(group for group, _, _ in self.discovery.groups())
        except UnknownDomain:
            return  # nothing to compare with; the domain in use stays
        if self.args.api_domain:
            if self.args.api_domain != found:
                self.warn(f"--api-domain {self.args.api_domain}: the server's groups are under {found}")
        elif self._naming is None or self._naming.domain != found:
            self._naming, self._naming_cached = Naming(found), False
            self.domain_cache.write(found)

    def forget_cached_domain(self) -> bool:
        """After an error that a stale cached domain may explain: drop it; True when there was one."""
        if not self._naming_cached:
            return False
        self.domain_cache.forget()
        return True

    def _discovered_domain(self) -> str:
        from .domain import UnknownDomain, domain_of_groups

        try:
            domain = domain_of_groups(group for group, _, _ in self.discovery.groups())
        except UnknownDomain as err:
            raise CommandError(str(err)) from None
        self.domain_cache.write(domain)
        return domain

    @cached_property
    def domain_cache(self) -> DomainCache:
        from .domain import DomainCache, default_cache_dir

        cache_dir = getattr(self.args, "cache_dir", None) or default_cache_dir()
        return DomainCache(cache_dir, self.config.server, self.config.ca_data)

    @cached_property
    def config(self) -> ClientConfig:
        from ..client import ClientConfig, ConfigError, load_config

        server = getattr(self.args, "server", None)
        try:
            config = load_config(self.args.kubeconfig, context=self.args.context)
        except ConfigError:
            if not server or self.args.kubeconfig or self.args.context:
                raise
            config = ClientConfig.for_server(server)  # like kubectl --server without a config file
        if server:
            config.server = server.rstrip("/")
        if getattr(self.args, "tls_server_name", None):
            config.tls_server_name = self.args.tls_server_name
        return config

    @cached_property
    def client(self) -> Client:
        from ..client import Client

        return Client(
            self.config,
            on_warning=self.warn,
            timeout=self.args.request_timeout,
            headers=impersonation_headers(self.args),
        )

    @cached_property
    def discovery(self) -> Discovery:
        from ..client import Discovery

        return Discovery(self.client)

    @property
    def namespace(self) -> str:
        return self.args.namespace or self.config.namespace or "default"

    @property
    def namespace_given(self) -> bool:
        return bool(self.args.namespace)

    @property
    def output(self) -> str:
        return getattr(self.args, "output", None) or ""

    def warn(self, text: str) -> None:
        print(f"Warning: {text}", file=self.err, flush=True)

    def print(self, text: str = "", end: str = "\n") -> None:
        self.out.write(text + end)
        self.out.flush()
