"""orch-apiserver flags and ORCH_* variables, Go durations, and the start-up sequence up to gunicorn."""

from __future__ import annotations

import ssl
from pathlib import Path
from typing import Any

import pytest
import yaml
from orch_apiserver import cli, server
from orch_apiserver.config import OPTIONS, Settings, flask_config, settings_from_env
from orch_apiserver.durations import format_duration, parse_duration
from orch_apiserver.worker import ApiWorker


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("5m", 300),
        ("90s", 90),
        ("1h30m", 5400),
        ("1.5h", 5400),
        ("300ms", 0.3),
        ("0", 0),
        (".5s", 0.5),
        ("2h45m30s", 9930),
        ("-1m", -60),
        ("+2s", 2),
        ("1us", 1e-6),
        ("1µs", 1e-6),
        ("10ns", 1e-8),
    ],
)
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "5", "m", "1x", "1h 30m", "abc", "-", "1d", "5M", "٥m"])
def test_parse_duration_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="invalid duration"):
        parse_duration(text)


def test_format_duration() -> None:
    assert [format_duration(s) for s in (300, 5400, 90, 0.5, 3600, 0)] == ["5m", "1h30m", "1m30s", "0.5s", "1h", "0s"]


def parse(*argv: str, **env: str) -> Settings:
    return cli.parse_settings(list(argv), env)


def exits_2(capsys: pytest.CaptureFixture[str], *argv: str, **env: str) -> str:
    with pytest.raises(SystemExit) as exc:
        parse(*argv, **env)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: orch-apiserver")
    return err


def test_defaults() -> None:
    settings = parse()
    assert (settings.data_dir, settings.bind_address, settings.secure_port) == ("./var", "127.0.0.1", 6443)
    assert (settings.workers, settings.threads, settings.database_url) == (2, 32, None)
    assert (settings.tls_cert_file, settings.tls_private_key_file, settings.client_ca_file) == (None, None, None)
    assert (settings.authorization_mode, settings.history_window, settings.api_domain) == (
        "Node,RBAC",
        300.0,
        "orch.io",
    )


def test_every_flag_has_an_env_variable() -> None:
    assert [o.env for o in OPTIONS] == ["ORCH_" + o.flag[2:].replace("-", "_").upper() for o in OPTIONS]
    assert {o.flag for o in OPTIONS} >= {
        "--data-dir",
        "--bind-address",
        "--secure-port",
        "--workers",
        "--threads",
        "--database-url",
        "--tls-cert-file",
        "--tls-private-key-file",
        "--client-ca-file",
        "--authorization-mode",
        "--history-window",
        "--api-domain",
    }


def test_env_overrides_defaults_and_flags_override_env(tmp_path: Path) -> None:
    env = {
        "ORCH_SECURE_PORT": "7443",
        "ORCH_DATA_DIR": str(tmp_path),
        "ORCH_HISTORY_WINDOW": "90s",
        "ORCH_WORKERS": "3",
    }
    from_env = parse(**env)
    assert (from_env.secure_port, from_env.data_dir, from_env.history_window, from_env.workers) == (
        7443,
        str(tmp_path),
        90.0,
        3,
    )
    both = parse("--secure-port", "8443", "--history-window=1h30m", **env)
    assert (both.secure_port, both.history_window, both.workers) == (8443, 5400.0, 3)


def test_empty_env_variable_counts_as_unset() -> None:
    assert parse(ORCH_SECURE_PORT="", ORCH_CLIENT_CA_FILE="").secure_port == 6443


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--secure-port", "http"], "'http' is not an integer"),
        (["--secure-port", "70000"], "out of range"),
        (["--workers", "0"], "out of range"),
        (["--bind-address", "example.com"], "is not an IP address"),
        (["--history-window", "5"], "invalid duration"),
        (["--history-window", "0s"], "longer than 0s"),
        (["--authorization-mode", "ABAC"], "not supported yet"),
        (
            ["--authorization-mode", "AlwaysAllow,Bogus"],
            "unknown authorization mode 'Bogus'; supported: AlwaysAllow, AlwaysDeny, Node, RBAC, Webhook",
        ),
        (["--authorization-mode", "AlwaysAllow,AlwaysAllow"], "names a mode twice"),
        (["--authorization-mode", ""], "unknown authorization mode ''"),
        (["--api-domain", "Orch"], "DNS name"),
        (["--database-url", "mysql://x/y"], "expected sqlite"),
        (["--tls-cert-file", "/no/such/file"], "no such file"),
        (["--enable-admission-plugins", "Bogus"], "--enable-admission-plugins: unknown admission plugins: Bogus"),
        (["--enable-admission-plugins", "AlwaysPullImages"], "not available in this server: AlwaysPullImages"),
        (["--disable-admission-plugins", "NamespaceLifecycle,Nope"], "unknown admission plugins: Nope"),
        (["--no-such-flag"], "unrecognized arguments"),
        (["--data", "x"], "unrecognized arguments"),  # no abbreviations
    ],
)
def test_bad_flags_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    assert message in exits_2(capsys, *argv)


def test_bad_env_variables_exit_2_naming_the_variable(capsys: pytest.CaptureFixture[str]) -> None:
    assert "ORCH_SECURE_PORT: 'abc' is not an integer" in exits_2(capsys, ORCH_SECURE_PORT="abc")
    assert "ORCH_AUTHORIZATION_MODE" in exits_2(capsys, ORCH_AUTHORIZATION_MODE="ABAC")
    # a bad variable is an error even when a flag would override it, like any other bad input
    assert "ORCH_THREADS" in exits_2(capsys, "--threads", "4", ORCH_THREADS="many")


def test_tls_pair_must_be_given_together(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "c.crt").write_text("x")
    assert "must be given together" in exits_2(capsys, "--tls-cert-file", str(tmp_path / "c.crt"))


def test_values_are_normalized(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = parse(
        "--database-url", "postgres://u@db/orch", "--bind-address", "::1", "--authorization-mode", " AlwaysAllow "
    )
    assert settings.database_url == "postgresql+psycopg://u@db/orch"
    assert settings.server_url == "https://[::1]:6443"
    assert settings.authorization_mode == "AlwaysAllow"
    assert parse("--bind-address", "0.0.0.0").server_url == "https://127.0.0.1:6443"
    (tmp_path / "ca.pem").write_text("x")
    monkeypatch.chdir(tmp_path)
    assert parse("--client-ca-file", "ca.pem").client_ca_file == str(tmp_path / "ca.pem")


def test_flask_config_keys(tmp_path: Path) -> None:
    config = flask_config(parse("--data-dir", str(tmp_path / "d"), "--history-window", "2m", "--secure-port", "9443"))
    data = str(tmp_path / "d")
    assert config["DATA_DIR"] == data
    assert config["DATABASE_URL"] == f"sqlite:///{data}/orch.db"
    assert config["API_DOMAIN"] == "orch.io"
    assert config["HISTORY_WINDOW_SECONDS"] == 120.0
    assert config["AUTHORIZATION_MODE"] == "Node,RBAC"
    assert config["SERVER_URL"] == "https://127.0.0.1:9443"
    assert config["CLUSTER_CA_CERT_FILE"] == f"{data}/pki/ca.crt"
    assert config["CLUSTER_CA_KEY_FILE"] == f"{data}/pki/ca.key"
    assert config["CLIENT_CA_FILE"] is None


def test_settings_from_env_match_the_cli() -> None:
    env = {"ORCH_SECURE_PORT": "7443", "ORCH_API_DOMAIN": "example.org"}
    assert settings_from_env(env) == parse(**env)


def test_gunicorn_options() -> None:
    options = server.gunicorn_options(parse("--bind-address", "::", "--workers", "3", "--threads", "7"))
    assert options["bind"] == ["[::]:6443"]
    assert (options["workers"], options["threads"]) == (3, 7)
    assert issubclass(options["worker_class"], ApiWorker)
    assert options["worker_class"].read_header_timeout == 32.0  # the reference's ReadHeaderTimeout
    assert options["cert_reqs"] == ssl.CERT_OPTIONAL
    assert options["ca_certs"].endswith("pki/client-ca-bundle.crt")
    assert options["preload_app"] is False
    assert options["timeout"] >= 60 and options["graceful_timeout"] <= 10


def test_api_server_accepts_the_options() -> None:
    app = server.ApiServer(lambda: None, server.gunicorn_options(parse()))  # type: ignore[arg-type, return-value]
    assert issubclass(app.cfg.worker_class, ApiWorker)
    assert app.cfg.threads == 32 and app.cfg.cert_reqs == ssl.CERT_OPTIONAL and app.cfg.is_ssl


@pytest.fixture
def no_serving(monkeypatch: pytest.MonkeyPatch) -> list[Settings]:
    """Stop main() before gunicorn; record what it would have served."""
    served: list[Settings] = []
    monkeypatch.setattr(server, "run", served.append)
    return served


def test_main_prepares_migrates_and_serves(
    tmp_path: Path, no_serving: list[Settings], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    calls: list[tuple[str, bool]] = []
    monkeypatch.setattr(
        "orch_apiserver.storage.schema.ensure_schema", lambda url, upgrade: calls.append((url, upgrade))
    )
    assert cli.main(["--secure-port", "7443"]) == 0
    assert calls == [(f"sqlite:///{tmp_path}/var/orch.db", True)]
    assert no_serving and no_serving[0].secure_port == 7443
    out = capsys.readouterr().out
    assert "kubectl --kubeconfig var/admin.kubeconfig get namespaces" in out
    config = yaml.safe_load((tmp_path / "var" / "admin.kubeconfig").read_text())
    assert config["clusters"][0]["cluster"]["server"] == "https://127.0.0.1:7443"


def test_main_refuses_an_outdated_postgresql_schema(
    tmp_path: Path, no_serving: list[Settings], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from orch_apiserver.storage.schema import SchemaOutdated

    seen: list[bool] = []

    def outdated(url: str, upgrade: bool) -> Any:
        seen.append(upgrade)
        raise SchemaOutdated("schema is old: run `flask db upgrade`")

    monkeypatch.setattr("orch_apiserver.storage.schema.ensure_schema", outdated)
    code = cli.main(["--data-dir", str(tmp_path), "--database-url", "postgresql+psycopg://u:secret@db/orch"])
    assert code == 1 and seen == [False] and not no_serving
    err = capsys.readouterr().err
    assert "run `flask db upgrade`" in err


def test_main_reports_an_unreachable_database(
    tmp_path: Path, no_serving: list[Settings], capsys: pytest.CaptureFixture[str]
) -> None:
    url = "postgresql+psycopg://nobody:secret@127.0.0.1:1/none?connect_timeout=2"
    assert cli.main(["--data-dir", str(tmp_path), "--database-url", url]) == 1
    err = capsys.readouterr().err
    assert "cannot use the database postgresql+psycopg://nobody:***@127.0.0.1:1/none" in err
    assert "secret" not in err
    assert not no_serving


def test_main_reports_a_broken_pki(
    tmp_path: Path, no_serving: list[Settings], capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pki").mkdir()
    (tmp_path / "pki" / "ca.key").write_text("orphan")
    assert cli.main(["--data-dir", str(tmp_path)]) == 1
    assert "only one of" in capsys.readouterr().err


def test_the_webhook_mode_needs_its_config_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert "--authorization-webhook-config-file" in exits_2(capsys, "--authorization-mode", "RBAC,Webhook")
    (tmp_path / "hook.kubeconfig").write_text("x")
    settings = parse(
        "--authorization-mode",
        "Webhook",
        "--authorization-webhook-config-file",
        str(tmp_path / "hook.kubeconfig"),
        "--authorization-webhook-cache-authorized-ttl",
        "1m",
    )
    assert (
        settings.authorization_webhook_cache_authorized_ttl,
        settings.authorization_webhook_cache_unauthorized_ttl,
    ) == (60.0, 30.0)


@pytest.mark.parametrize(
    ("value", "server_url"),
    [
        ("orch.example.com", "https://orch.example.com:6443"),
        ("Orch.Example.com:443", "https://orch.example.com:443"),
        ("10.0.0.5", "https://10.0.0.5:6443"),
        ("[2001:db8::1]:8443", "https://[2001:db8::1]:8443"),
        ("2001:db8::1", "https://[2001:db8::1]:6443"),
    ],
)
def test_external_hostname_is_the_server_url(value: str, server_url: str) -> None:
    settings = parse("--external-hostname", value)
    assert settings.server_url == server_url
    assert settings.listen_url == "https://127.0.0.1:6443"  # the endpoints still list the advertised address
    assert flask_config(settings)["ENDPOINT_ADDRESS"] == "127.0.0.1"
    assert parse(ORCH_EXTERNAL_HOSTNAME=value).server_url == server_url


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("not a name", "neither a DNS name nor an IP address"),
        ("*.example.com", "neither a DNS name nor an IP address"),
        ("orch.example.com:http", "port 'http' is not an integer"),
        ("orch.example.com:0", "port 0 is out of range"),
        ("[2001:db8::1", "is not HOST, HOST:PORT or [IPv6]:PORT"),
    ],
)
def test_bad_external_hostnames_exit_2(capsys: pytest.CaptureFixture[str], value: str, message: str) -> None:
    assert message in exits_2(capsys, "--external-hostname", value)


def test_the_requestheader_ca_may_be_the_front_proxy_ca_the_server_creates(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    headers = ("--requestheader-username-headers", "X-Remote-User")
    own = tmp_path / "data" / "pki" / "front-proxy-ca.crt"
    settings = parse("--data-dir", str(tmp_path / "data"), "--requestheader-client-ca-file", str(own), *headers)
    assert settings.requestheader_client_ca_file == str(own) and not own.exists()
    elsewhere = str(tmp_path / "other" / "front-proxy-ca.crt")
    err = exits_2(capsys, "--data-dir", str(tmp_path / "data"), "--requestheader-client-ca-file", elsewhere, *headers)
    assert f"--requestheader-client-ca-file: '{elsewhere}': no such file (the front-proxy CA this server" in err
    given = ("--proxy-client-cert-file", __file__, "--proxy-client-key-file", __file__)  # then none is created
    err = exits_2(
        capsys, "--data-dir", str(tmp_path / "data"), "--requestheader-client-ca-file", str(own), *headers, *given
    )
    assert "no such file" in err
