"""Certificates for real addresses: --tls-san, --advertise-address and the host name, checked by a verifying
TLS client on loopback addresses only."""

from __future__ import annotations

import socket
import ssl
import subprocess
import sys
from pathlib import Path

import yaml

from . import start_server


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
