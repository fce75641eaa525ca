"""`orchctl bootstrap`: a kubeconfig for a bootstrap token, written only after cluster-info is verified."""

from __future__ import annotations

import base64
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
    if ctx.args.node_name:
        return _node_kubeconfig(ctx, config, token)
    write_private(ctx.args.output_file, yaml.safe_dump(config, sort_keys=False))
    ctx.print(
        f"wrote {ctx.args.output_file} (cluster {config['clusters'][0]['cluster'].get('server', '')}, "
        f"CA verified through the signed cluster-info)"
    )
    return 0


def _node_kubeconfig(ctx: Context, bootstrap: dict, token: str) -> int:
    """The kubelet's TLS bootstrap: with the token, a node client certificate through a CSR, then its kubeconfig."""
    from ..client import ClientConfig
    from ..client.nodecert import NodeCertificateError, node_kubeconfig, request_node_certificate
    from ..user import valid_node_name

    node = ctx.args.node_name
    if not valid_node_name(node):
        raise CommandError(
            f"--node-name {node!r}: a node's name must be a DNS subdomain (lowercase a-z, 0-9, '-', '.')"
        )
    cluster = bootstrap["clusters"][0]
    server = cluster["cluster"]["server"]
    ca_pem = base64.b64decode(cluster["cluster"]["certificate-authority-data"])
    # the server's domain is discovered with the bootstrap credential and the CA cluster-info vouched for
    ctx.config = ClientConfig.for_server(server, ca_data=ca_pem, token=token)
    try:
        cert_pem, key_pem = request_node_certificate(ctx.config, node, ctx.naming, ctx.args.wait)
    except NodeCertificateError as err:
        raise CommandError(f"{err}; nothing was written") from err
    config = node_kubeconfig(server, ca_pem, cluster["name"], node, cert_pem, key_pem)
    write_private(ctx.args.output_file, yaml.safe_dump(config, sort_keys=False))
    ctx.print(f"wrote {ctx.args.output_file} (user system:node:{node}, certificate issued through a CSR)")
    return 0


def run_renew_node_certificate(ctx: Context) -> int:
    """The kubelet's certificate rotation: the node asks, as itself, for a new certificate of its own
    (auto-approved as `selfnodeclient`), and its kubeconfig is rewritten with it."""
    from ..client.nodecert import NodeCertificateError, node_kubeconfig, node_of_certificate, request_node_certificate

    config = ctx.config
    if not config.client_cert_data or not config.ca_data:
        raise CommandError("the kubeconfig holds no client certificate and CA data to renew")
    node = node_of_certificate(config.client_cert_data)
    if not node:
        raise CommandError("the kubeconfig's client certificate is not a node's (CN system:node:<name>)")
    try:
        cert_pem, key_pem = request_node_certificate(config, node, ctx.naming, ctx.args.wait)
    except NodeCertificateError as err:
        raise CommandError(f"{err}; the kubeconfig was left as it was") from err
    path = config.path or ctx.args.kubeconfig
    if not path:
        raise CommandError("renew needs the kubeconfig file to rewrite (--kubeconfig)")
    renewed = node_kubeconfig(config.server, config.ca_data, config.cluster_name or "cluster", node, cert_pem, key_pem)
    write_private(path, yaml.safe_dump(renewed, sort_keys=False))
    ctx.print(f"renewed the certificate of system:node:{node} in {path}")
    return 0
