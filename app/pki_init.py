"""`orch-apiserver pki init`: the data directory's PKI and admin.kubeconfig as a start would make them, without
serving or touching the database, so a proxy can be given its files before the first replica starts."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .config import Settings

PROG = "orch-apiserver pki init"


def build_parser() -> argparse.ArgumentParser:
    return argparse.ArgumentParser(
        prog=PROG,
        allow_abbrev=False,
        description="Create (or renew) the cluster CA, the serving certificate, the front-proxy CA and client "
        "certificate, the service-account signing key and admin.kubeconfig in --data-dir, as the server does at "
        "start, then exit. Arguments are the server's own flags (--data-dir, --tls-san, --external-hostname, "
        "--advertise-address, --secure-port, ...): give the ones the server will run with.",
    )


def _shown(path: str) -> str:
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def main(
    argv: Sequence[str],
    parse_settings: Callable[[Sequence[str]], Settings],
    check_authentication: Callable[[Settings], str | None],
) -> int:
    """`parse_settings` and `check_authentication` are app/cli.py's: the same flags and checks as a start."""
    from . import pki, server

    _, server_args = build_parser().parse_known_args(argv)
    settings = parse_settings(server_args)
    try:
        prepared = server.prepare(settings)
    except (pki.PkiError, OSError) as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        return 1
    problem = check_authentication(settings)  # makes the service-account signing key replicas must share
    if problem:
        print(f"{PROG}: {problem}", file=sys.stderr)
        return 1
    names = "--tls-cert-file" if settings.tls_cert_file else ", ".join(server.serving_hosts(settings))
    print(f"{PROG}: certificates and keys in {_shown(settings.pki_dir)} (serving certificate: {names})")
    if settings.front_proxy_ca_file:
        print(f"{PROG}: front-proxy CA {_shown(settings.front_proxy_ca_file)}")
    print(f"{PROG}: admin credentials for {settings.server_url} in {_shown(prepared.kubeconfig)}")
    return 0
