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

    @cached_property
    def naming(self) -> Naming:
        return Naming(self.args.api_domain)

    @cached_property
    def config(self) -> ClientConfig:
        from ..client import load_config

        return load_config(self.args.kubeconfig, context=self.args.context)

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
