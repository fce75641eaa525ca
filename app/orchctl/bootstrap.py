"""`orchctl bootstrap`: a kubeconfig for a bootstrap token, written only after cluster-info is verified."""

from __future__ import annotations

import os
import tempfile

import yaml

from .context import CommandError, Context, UsageError

BOOTSTRAP_USER = "tls-bootstrap-token-user"


def kubeconfig_with_token(discovered: dict, token: str) -> dict:
    clusters = discovered.get("clusters") or []
    if not clusters:
        raise CommandError("the verified cluster-info holds no cluster")
    cluster_name = clusters[0].get("name") or "cluster"
    context_name = f"{BOOTSTRAP_USER}@{cluster_name}"
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [dict(clusters[0], name=cluster_name)],
        "users": [{"name": BOOTSTRAP_USER, "user": {"token": token}}],
        "contexts": [{"name": context_name, "context": {"cluster": cluster_name, "user": BOOTSTRAP_USER}}],
        "current-context": context_name,
        "preferences": {},
    }


def write_private(path: str, text: str) -> None:
    """Atomically, readable by the owner only (the file holds a credential)."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".orchctl-")
    try:
        with os.fdopen(handle, "w") as out:
            out.write(text)
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def run_bootstrap(ctx: Context) -> int:
    from ..client import BootstrapError, discover_cluster_info

    if not ctx.args.server:
        raise UsageError("bootstrap needs --server https://host:port")
    token = ctx.args.token
    token_id, sep, secret = token.partition(".")
    if not sep or not token_id or not secret:
        raise CommandError("--token must look like <id>.<secret>")
    hashes = list(ctx.args.discovery_token_ca_cert_hash or [])
    try:
        discovered = discover_cluster_info(ctx.args.server, token, ca_hashes=hashes)
    except BootstrapError as err:
        raise CommandError(f"cluster-info could not be verified: {err}; nothing was written") from err
    config = kubeconfig_with_token(discovered, token)
    write_private(ctx.args.output_file, yaml.safe_dump(config, sort_keys=False))
    ctx.print(
        f"wrote {ctx.args.output_file} (cluster {config['clusters'][0]['cluster'].get('server', '')}, "
        f"CA verified through the signed cluster-info)"
    )
    return 0
