"""Certificates for real addresses: --tls-san, --advertise-address, --external-hostname and the host name, checked
by verifying TLS clients on loopback addresses only (a name is resolved by an HTTPS proxy, not /etc/hosts)."""

from __future__ import annotations

import contextlib
import os
import socket
import socketserver
import ssl
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from cryptography import x509
from orch_apiserver import pki
from orch_apiserver.storage.schema import ensure_schema

from . import REPO_ROOT, scratch_database, server_env, start_server


def _handshake(ca_file: Path, address: str, port: int, server_name: str) -> None:
    """A full verifying handshake (chain and name), as kubectl's Go client does."""
    context = ssl.create_default_context(cafile=str(ca_file))
    with (
        socket.create_connection((address, port), timeout=10) as raw,
        context.wrap_socket(raw, server_hostname=server_name),
    ):
        pass


def _fails(ca_file: Path, address: str, port: int, server_name: str) -> str:
    try:
        _handshake(ca_file, address, port, server_name)
    except ssl.SSLCertVerificationError as err:
        return err.verify_message
    return ""


def test_tls_san_names_and_addresses_verify(tmp_path: Path):
    server = start_server(
        tmp_path, args=["--bind-address", "0.0.0.0", "--tls-san", "127.0.0.2", "--tls-san", "api.example.test"]
    )
    try:
        _handshake(server.ca_file, "127.0.0.2", server.port, "127.0.0.2")
        _handshake(server.ca_file, "127.0.0.1", server.port, "api.example.test")
        _handshake(server.ca_file, "127.0.0.1", server.port, socket.gethostname().lower())  # bound to all
        assert "mismatch" in _fails(server.ca_file, "127.0.0.3", server.port, "127.0.0.3")
    finally:
        server.stop()
    # restarted without one name: the certificate is reissued and that name stops working
    server = start_server(tmp_path, args=["--bind-address", "0.0.0.0", "--tls-san", "api.example.test"])
    try:
        _handshake(server.ca_file, "127.0.0.1", server.port, "api.example.test")
        assert "mismatch" in _fails(server.ca_file, "127.0.0.2", server.port, "127.0.0.2")
    finally:
        server.stop()


def test_advertise_address_is_in_the_kubeconfig_and_certificate(tmp_path: Path, kubectl: str):
    server = start_server(tmp_path, args=["--bind-address", "0.0.0.0", "--advertise-address", "127.0.0.4"])
    try:
        config = yaml.safe_load(server.kubeconfig.read_text())
        assert config["clusters"][0]["cluster"]["server"] == f"https://127.0.0.4:{server.port}"
        done = subprocess.run(
            [kubectl, "--kubeconfig", str(server.kubeconfig), "get", "namespace", "default", "-o", "name"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert done.stdout.strip() == "namespace/default", done.stderr
    finally:
        server.stop()


def test_a_bad_tls_san_is_refused_at_start(tmp_path: Path):
    done = subprocess.run(
        [sys.executable, "-m", "orch_apiserver.cli", "--data-dir", str(tmp_path), "--tls-san", "not a name"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert "'not a name' is neither a DNS name nor an IP address" in done.stderr


def _pipe(source: socket.socket, target: socket.socket) -> None:
    with contextlib.suppress(OSError):
        while data := source.recv(65536):
            target.sendall(data)
    with contextlib.suppress(OSError):
        target.shutdown(socket.SHUT_WR)


class _Tunnel(socketserver.BaseRequestHandler):
    server: ResolvingProxy

    def handle(self) -> None:
        head = b""
        while b"\r\n\r\n" not in head:
            if not (chunk := self.request.recv(4096)):
                return
            head += chunk
        method, target = head.split(b"\r\n", 1)[0].decode().split(" ")[:2]
        host, _, port = target.rpartition(":")
        self.server.seen.append(target)
        if method != "CONNECT" or host not in self.server.names:
            self.request.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
            return
        with socket.create_connection((self.server.names[host], int(port)), timeout=30) as upstream:
            self.request.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            upstream.sendall(head.split(b"\r\n\r\n", 1)[1])
            back = threading.Thread(target=_pipe, args=(upstream, self.request), daemon=True)
            back.start()
            _pipe(self.request, upstream)
            back.join(30)


class ResolvingProxy(socketserver.ThreadingTCPServer):
    """An HTTPS proxy (CONNECT) that resolves names from its own table, as a DNS entry would for a remote user:
    kubectl (HTTPS_PROXY) connects to https://orch.example.com:PORT and verifies TLS against that name."""

    daemon_threads = True

    def __init__(self, names: dict[str, str]) -> None:
        super().__init__(("127.0.0.1", 0), _Tunnel)
        self.names = names
        self.seen: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


@contextlib.contextmanager
def resolving_proxy(names: dict[str, str]) -> Iterator[ResolvingProxy]:
    with ResolvingProxy(names) as proxy:
        thread = threading.Thread(target=proxy.serve_forever, daemon=True)
        thread.start()
        try:
            yield proxy
        finally:
            proxy.shutdown()
            thread.join(10)


def _kubectl(kubectl: str, kubeconfig: Path, proxy: ResolvingProxy, home: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k.lower() not in ("no_proxy", "https_proxy", "http_proxy")}
    env.update(HTTPS_PROXY=proxy.url, HOME=str(home))  # a fresh discovery cache
    return subprocess.run(
        [kubectl, "--kubeconfig", str(kubeconfig), "get", "namespace", "default", "-o", "name"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize("store", ["sqlite", "postgresql"])
def test_external_hostname_kubeconfigs_reach_the_server_by_that_name(tmp_path: Path, kubectl: str, store: str):
    data = tmp_path / "data"
    with contextlib.ExitStack() as stack:
        url = None
        if store == "postgresql":
            url = stack.enter_context(scratch_database())
            ensure_schema(url, upgrade=True)
        server = start_server(
            data, ["--tls-san", "orch.example.com", "--external-hostname", "orch.example.com"], database_url=url
        )
        stack.callback(server.stop)
        external = f"https://orch.example.com:{server.port}"  # the port it listens on
        assert yaml.safe_load(server.kubeconfig.read_text())["clusters"][0]["cluster"]["server"] == external
        serving = pki.load_certificates(str(data / "pki" / "serving.crt"))[0]
        assert "orch.example.com" in sans_of(serving)
        _handshake(server.ca_file, "127.0.0.1", server.port, "orch.example.com")

        proxy = stack.enter_context(resolving_proxy({"orch.example.com": "127.0.0.1"}))
        admin = _kubectl(kubectl, server.kubeconfig, proxy, tmp_path)
        assert admin.returncode == 0 and admin.stdout.strip() == "namespace/default", admin.stderr
        assert f"orch.example.com:{server.port}" in proxy.seen

        # another person's kubeconfig, made with only --data-dir: the same URL, verified the same way
        alice = tmp_path / "alice.kubeconfig"
        made = subprocess.run(
            [sys.executable, "-m", "orch_apiserver.cli", "kubeconfig", "user", "alice", "--data-dir", str(data)]
            + ["-o", str(alice)],
            cwd=REPO_ROOT,
            env=server_env(),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert made.returncode == 0, made.stderr
        assert yaml.safe_load(alice.read_text())["clusters"][0]["cluster"]["server"] == external
        denied = _kubectl(kubectl, alice, proxy, tmp_path)
        assert 'User "alice" cannot get resource "namespaces"' in denied.stderr  # TLS verified, then authenticated


def sans_of(cert: x509.Certificate) -> list[str]:
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return names.get_values_for_type(x509.DNSName)
