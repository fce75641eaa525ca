"""Client config files: where they are found, how several merge, and file references versus inline data."""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest
import yaml
from orch_apiserver.client import ConfigError, load_config
from orch_apiserver.client.config import CONFIG_ENV_VAR, DEFAULT_CONFIG_PATH

from .helpers import write_config


def test_an_explicit_file_wins_over_the_environment(tmp_path: Path) -> None:
    explicit = write_config(tmp_path / "a", "https://a.example:6443", namespace="team-a")
    other = write_config(tmp_path / "b", "https://b.example:6443")
    config = load_config(str(explicit), environ={CONFIG_ENV_VAR: str(other)})
    assert (config.server, config.namespace, config.context, config.path) == (
        "https://a.example:6443",
        "team-a",
        "test",
        str(explicit),
    )


def test_the_environment_list_merges_first_wins(tmp_path: Path) -> None:
    first = tmp_path / "first"
    first.write_text(
        yaml.safe_dump(
            {
                "current-context": "one",
                "clusters": [{"name": "c", "cluster": {"server": "https://first.example"}}],
                "contexts": [{"name": "one", "context": {"cluster": "c", "user": "u"}}],
                "users": [{"name": "u", "user": {"token": "first-token"}}],
            }
        )
    )
    second = tmp_path / "second"
    second.write_text(
        yaml.safe_dump(
            {
                "current-context": "two",
                "clusters": [
                    {"name": "c", "cluster": {"server": "https://ignored.example"}},
                    {"name": "d", "cluster": {"server": "https://second.example"}},
                ],
                "contexts": [{"name": "two", "context": {"cluster": "d", "user": "u", "namespace": "ns2"}}],
                "users": [{"name": "u", "user": {"token": "ignored"}}],
            }
        )
    )
    listed = os.pathsep.join([str(tmp_path / "missing"), str(first), str(second)])
    config = load_config(environ={CONFIG_ENV_VAR: listed})
    assert (config.server, config.token, config.context) == ("https://first.example", "first-token", "one")
    other = load_config(context="two", environ={CONFIG_ENV_VAR: listed})
    assert (other.server, other.namespace, other.token) == ("https://second.example", "ns2", "first-token")


def test_the_default_path_is_used_without_flag_or_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    default = Path(os.path.expanduser(DEFAULT_CONFIG_PATH))
    default.parent.mkdir(parents=True)
    write_config(default, "https://home.example")
    assert load_config(environ={}).server == "https://home.example"


def test_a_missing_explicit_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(str(tmp_path / "nope"), environ={})


def test_relative_file_references_resolve_against_the_config_directory(tmp_path: Path) -> None:
    (tmp_path / "certs").mkdir()
    (tmp_path / "certs" / "ca.crt").write_bytes(b"CA PEM")
    (tmp_path / "certs" / "me.crt").write_bytes(b"CERT PEM")
    (tmp_path / "certs" / "me.key").write_bytes(b"KEY PEM")
    (tmp_path / "certs" / "token").write_text("file-token\n")
    path = write_config(
        tmp_path / "config",
        "https://x.example",
        cluster={"certificate-authority": "certs/ca.crt"},
        user={"client-certificate": "certs/me.crt", "client-key": "certs/me.key", "tokenFile": "certs/token"},
    )
    config = load_config(str(path), environ={})
    assert config.ca_file == str(tmp_path / "certs" / "ca.crt")
    assert (config.ca_data, config.client_cert_data, config.client_key_data) == (b"CA PEM", b"CERT PEM", b"KEY PEM")
    from orch_apiserver.client.credentials import StaticCredentials

    assert StaticCredentials(config).get().token == "file-token"


def test_inline_data_is_base64(tmp_path: Path) -> None:
    def b64(text: str) -> str:
        return base64.b64encode(text.encode()).decode()

    path = write_config(
        tmp_path / "config",
        "https://x.example/",
        cluster={
            "certificate-authority-data": b64("CA"),
            "tls-server-name": "api.internal",
            "proxy-url": "http://proxy:3128",
        },
        user={"client-certificate-data": b64("CERT"), "client-key-data": b64("KEY"), "token": "t0k"},
    )
    config = load_config(str(path), environ={})
    assert (config.server, config.ca_data, config.client_cert_data, config.client_key_data, config.token) == (
        "https://x.example",
        b"CA",
        b"CERT",
        b"KEY",
        "t0k",
    )
    assert (config.insecure_skip_tls_verify, config.tls_server_name, config.proxy_url) == (
        False,
        "api.internal",
        "http://proxy:3128",
    )


def test_a_certificate_without_a_key_is_rejected(tmp_path: Path) -> None:
    path = write_config(
        tmp_path / "config", "https://x.example", user={"client-certificate-data": base64.b64encode(b"CERT").decode()}
    )
    with pytest.raises(ConfigError, match="without a key"):
        load_config(str(path), environ={})


def test_a_token_file_is_read_again_when_it_changes(tmp_path: Path) -> None:
    from orch_apiserver.client.credentials import StaticCredentials

    token = tmp_path / "token"
    token.write_text("one")
    config = load_config(
        str(write_config(tmp_path / "config", "https://x.example", user={"tokenFile": "token"})), environ={}
    )
    credentials = StaticCredentials(config)
    assert credentials.get().token == "one"
    token.write_text("second")  # a different size: changed even within the same mtime tick
    assert credentials.get().token == "second"


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d.update({"current-context": "elsewhere"}), "context 'elsewhere' not found"),
        (lambda d: d["contexts"][0]["context"].update({"cluster": "gone"}), "cluster 'gone'"),
        (lambda d: d["clusters"][0]["cluster"].pop("server"), "has no server"),
        (lambda d: d.pop("current-context"), "no current-context"),
        (
            lambda d: d["clusters"][0]["cluster"].update(
                {"insecure-skip-tls-verify": True, "certificate-authority-data": "Q0E="}
            ),
            "not allowed",
        ),
    ],
)
def test_inconsistent_configs_are_reported(tmp_path: Path, edit, message: str) -> None:  # type: ignore[no-untyped-def]
    path = write_config(tmp_path / "config", "https://x.example")
    document = yaml.safe_load(path.read_text())
    edit(document)
    path.write_text(yaml.safe_dump(document))
    with pytest.raises(ConfigError, match=message):
        load_config(str(path), environ={})
