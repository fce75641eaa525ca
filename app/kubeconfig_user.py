"""`orch-apiserver kubeconfig user NAME`: a kubeconfig for another person, with a client certificate from the
cluster CA (as `kubeadm kubeconfig user` does). The server flags and ORCH_* variables locate the data directory;
the server address is --server, else what the address flags on the command line make of it, else the one the
server wrote into the data directory's admin.kubeconfig. Nothing is sent to the server."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import TYPE_CHECKING

from .durations import parse_duration

if TYPE_CHECKING:
    from .config import Settings

PROG = "orch-apiserver kubeconfig user"
DEFAULT_VALIDITY = "8760h"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        allow_abbrev=False,
        description="Write a kubeconfig for user NAME (certificate CN=NAME, O=each --group) signed by the "
        "cluster CA. Other arguments are the server's own flags (--data-dir, --advertise-address, ...). "
        "Grant access with RBAC bindings to the user or its groups. A node agent's kubeconfig: NAME "
        "system:node:<node> with --group system:nodes (the Node authorizer and NodeRestriction limit it to its node).",
    )
    parser.add_argument("name", metavar="NAME", help="user name (the certificate's common name)")
    parser.add_argument(
        "--group",
        action="append",
        default=[],
        metavar="GROUP",
        help="group (the certificate's organization); repeatable",
    )
    parser.add_argument(
        "--validity-period",
        default=DEFAULT_VALIDITY,
        metavar="DURATION",
        help=f"lifetime of the certificate (Go duration; default {DEFAULT_VALIDITY})",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write here (mode 0600) instead of stdout")
    parser.add_argument(
        "--server",
        metavar="URL",
        help="the server URL to write; default: the one in the data directory's admin.kubeconfig (what the server "
        "advertises), unless address flags (--external-hostname, --advertise-address, --secure-port, "
        "--bind-address) are given here",
    )
    return parser


#: flags that change the server URL: given on this command line, they win over admin.kubeconfig's URL
ADDRESS_FLAGS = ("--external-hostname", "--advertise-address", "--secure-port", "--bind-address")


def server_url(settings: Settings, server_args: Sequence[str]) -> str:
    """What the server of this data directory advertises (its admin.kubeconfig), unless address flags say."""
    import yaml

    if any(arg.split("=", 1)[0] in ADDRESS_FLAGS for arg in server_args):
        return settings.server_url
    try:
        with open(settings.kubeconfig_path, encoding="utf-8") as handle:
            written = yaml.safe_load(handle)
        url = written["clusters"][0]["cluster"]["server"]
    except (OSError, yaml.YAMLError, LookupError, TypeError):
        return settings.server_url  # no server wrote one: the flags and ORCH_* variables say
    return url if isinstance(url, str) and url.startswith("https://") else settings.server_url


def _check_name(parser: argparse.ArgumentParser, name: str, groups: list[str]) -> None:
    """Names of people, or a node's `system:node:<name>` in `system:nodes` (the Node authorizer's identity)."""
    from .user import NODE_USER_PREFIX, NODES_GROUP, valid_node_name

    if name.startswith(NODE_USER_PREFIX):
        node = name[len(NODE_USER_PREFIX) :]
        if not valid_node_name(node):
            parser.error(f"node name {node!r}: a node's name must be a DNS subdomain (lowercase a-z, 0-9, '-', '.')")
        if NODES_GROUP not in groups:
            parser.error(f"user {name!r} is a node's identity only with --group {NODES_GROUP}")
        return
    if not name.strip() or name.startswith("system:"):
        parser.error(
            f"user name {name!r}: empty names and the reserved system: prefix are refused "
            f"(except a node's {NODE_USER_PREFIX}<name> with --group {NODES_GROUP})"
        )


def main(argv: Sequence[str], parse_settings: Callable[[Sequence[str]], Settings]) -> int:
    """`parse_settings` reads the server's flags as the server does (app/cli.py passes its own)."""
    import yaml

    from . import defaults, pki
    from .naming import Naming

    parser = build_parser()
    args, server_args = parser.parse_known_args(argv)
    try:
        validity = parse_duration(args.validity_period)
    except ValueError as err:
        parser.error(f"--validity-period: {err}")
    if validity <= 0:
        parser.error("--validity-period must be longer than 0s")
    if args.server is not None and (not args.server.startswith("https://") or len(args.server) <= len("https://")):
        parser.error(f"--server {args.server!r} is not an https:// URL")
    _check_name(parser, args.name, args.group)
    settings = parse_settings(server_args)
    try:
        ca = pki.load_pair(settings.pki_file(defaults.CA_CERT), settings.pki_file(defaults.CA_KEY))
    except pki.PkiError as err:
        print(
            f"{PROG}: no cluster CA in {settings.pki_dir} (start the server once, or pass its --data-dir): {err}",
            file=sys.stderr,
        )
        return 1
    user = pki.issue_client_cert(ca, args.name, args.group, lifetime=timedelta(seconds=validity))
    url = args.server or server_url(settings, server_args)
    config = pki.kubeconfig(url, ca.cert_pem, user, Naming(settings.api_domain).product, args.name)
    if args.output:
        pki.write_kubeconfig(args.output, config)
    else:
        sys.stdout.write(yaml.safe_dump(config, sort_keys=False))
    return 0
