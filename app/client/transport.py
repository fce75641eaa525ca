"""Connection pools built from a client config: CA, client certificate, insecure mode, SNI name, proxy."""

from __future__ import annotations

import os
import ssl
import tempfile
from urllib.parse import urlsplit
from urllib.request import getproxies_environment, proxy_bypass_environment  # type: ignore[attr-defined]  # public, not in typeshed

import urllib3

from .config import ClientConfig


def ssl_context(config: ClientConfig, tls_pair: tuple[bytes, bytes] | None) -> ssl.SSLContext:
    # the system's CA bundle only when nothing else is trusted: loading it takes 30-300 ms
    trusted = config.ca_data if config.ca_data and not config.insecure_skip_tls_verify else None
    cadata = trusted.decode("ascii", "replace") if trusted else None
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cadata=cadata)
    if config.insecure_skip_tls_verify:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    if tls_pair is not None:
        load_cert_chain(context, *tls_pair)
    return context


def load_cert_chain(context: ssl.SSLContext, cert_pem: bytes, key_pem: bytes) -> None:
    """ssl only loads a pair from files: write it to private (0600) temporary files, removed right after."""
    with tempfile.TemporaryDirectory(prefix="orch-client-") as directory:
        os.chmod(directory, 0o700)
        cert_path, key_path = os.path.join(directory, "tls.crt"), os.path.join(directory, "tls.key")
        for path, data in ((cert_path, cert_pem), (key_path, key_pem)):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
        context.load_cert_chain(cert_path, key_path)


def pool_manager(config: ClientConfig, tls_pair: tuple[bytes, bytes] | None, timeout: float) -> urllib3.PoolManager:
    context = ssl_context(config, tls_pair)
    options: dict = {
        "ssl_context": context,
        "timeout": urllib3.Timeout(connect=min(timeout, 30.0), read=timeout),
        "retries": False,  # the client decides about retries (a 401 once); never resend a POST silently
        "maxsize": 8,
    }
    if config.tls_server_name:
        options["server_hostname"] = config.tls_server_name
    if config.insecure_skip_tls_verify:
        options["cert_reqs"] = ssl.CERT_NONE
        options["assert_hostname"] = False
    proxy_url = config.proxy_url or environment_proxy(config.server)
    if proxy_url:
        scheme = urlsplit(proxy_url).scheme
        if scheme.startswith("socks"):
            from urllib3.contrib.socks import SOCKSProxyManager  # needs PySocks

            return SOCKSProxyManager(proxy_url, **options)
        return urllib3.ProxyManager(proxy_url, **options)
    return urllib3.PoolManager(**options)


def environment_proxy(server: str) -> str | None:
    """Without proxy-url, HTTPS_PROXY / NO_PROXY from the environment apply (as client-go's default transport)."""
    parts = urlsplit(server)
    proxy = getproxies_environment().get(parts.scheme or "https")
    if not proxy or proxy_bypass_environment(parts.hostname or ""):
        return None
    return proxy
