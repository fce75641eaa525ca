"""The authentication flags: names, forms (bool, repeatable), ORCH_* variables, checks, and start-up."""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography import x509
from orch_apiserver import cli, pki, server
from orch_apiserver.config import OPTIONS, Settings, flask_config

AUTH_FLAGS = {
    "--anonymous-auth",
    "--token-auth-file",
    "--enable-bootstrap-token-auth",
    "--service-account-key-file",
    "--service-account-signing-key-file",
    "--service-account-issuer",
    "--service-account-lookup",
    "--oidc-issuer-url",
    "--oidc-client-id",
    "--oidc-username-claim",
    "--oidc-username-prefix",
    "--oidc-groups-claim",
    "--oidc-groups-prefix",
    "--oidc-required-claim",
    "--oidc-ca-file",
    "--oidc-signing-algs",
    "--authentication-token-webhook-config-file",
    "--authentication-token-webhook-version",
    "--authentication-token-webhook-cache-ttl",
    "--requestheader-username-headers",
    "--requestheader-group-headers",
    "--requestheader-extra-headers-prefix",
    "--requestheader-client-ca-file",
    "--requestheader-allowed-names",
}


def parse(*argv: str, **env: str) -> Settings:
    return cli.parse_settings(list(argv), env)


def exits_2(capsys: pytest.CaptureFixture[str], *argv: str, **env: str) -> str:
    with pytest.raises(SystemExit) as exc:
        parse(*argv, **env)
    assert exc.value.code == 2
    return capsys.readouterr().err


def test_the_flags_keep_the_spec_names() -> None:
    assert {o.flag for o in OPTIONS} >= AUTH_FLAGS


def test_defaults() -> None:
    settings = parse()
    assert settings.anonymous_auth is True and settings.service_account_lookup is True
    assert settings.enable_bootstrap_token_auth is False
    assert settings.authentication_token_webhook_version == "v1beta1"
    assert settings.authentication_token_webhook_cache_ttl == 120.0
    assert settings.oidc_username_claim == "sub" and settings.oidc_signing_algs == ("RS256",)
    assert settings.service_account_issuers == ("https://127.0.0.1:6443",)
    assert settings.service_account_signing_key.endswith("var/pki/sa.key")


@pytest.mark.parametrize(
    ("argv", "value"),
    [
        (["--anonymous-auth"], True),
        (["--anonymous-auth=false"], False),
        (["--anonymous-auth", "0"], False),
        (["--anonymous-auth=True"], True),
        (["--anonymous-auth=F"], False),
    ],
)
def test_boolean_flags_take_go_spellings(argv: list[str], value: bool) -> None:
    assert parse(*argv).anonymous_auth is value


def test_repeatable_flags_and_comma_lists(tmp_path: Path) -> None:
    a, b = tmp_path / "a.pub", tmp_path / "b.pub"
    a.write_text("x")
    b.write_text("y")
    settings = parse(
        "--requestheader-username-headers",
        "X-Remote-User,X-User",
        "--requestheader-username-headers",
        "X-Other",
        "--service-account-key-file",
        str(a),
        "--service-account-key-file",
        str(b),
        "--oidc-required-claim",
        "hd=example.com",
        "--oidc-required-claim=tier=gold,team=a",
        "--service-account-issuer",
        "https://a",
        "--service-account-issuer",
        "https://b",
    )
    assert settings.requestheader_username_headers == ("X-Remote-User", "X-User", "X-Other")
    assert settings.service_account_key_file == (str(a), str(b))
    assert settings.oidc_required_claim == ("hd=example.com", "tier=gold", "team=a")
    assert settings.service_account_issuers == ("https://a", "https://b")
    config = flask_config(settings)
    assert config["OIDC_REQUIRED_CLAIMS"] == {"hd": "example.com", "tier": "gold", "team": "a"}
    assert config["SERVICE_ACCOUNT_KEY_FILES"] == (str(a), str(b))


def test_flags_replace_environment_lists() -> None:
    env = {"ORCH_REQUESTHEADER_GROUP_HEADERS": "X-Env-Group,X-Env-Team", "ORCH_ANONYMOUS_AUTH": "false"}
    assert parse(**env).requestheader_group_headers == ("X-Env-Group", "X-Env-Team")
    assert parse(**env).anonymous_auth is False
    both = parse("--requestheader-group-headers", "X-Flag", "--anonymous-auth", **env)
    assert both.requestheader_group_headers == ("X-Flag",) and both.anonymous_auth is True


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--anonymous-auth=maybe"], "is not a boolean"),
        (["--oidc-issuer-url", "http://issuer"], "is not an https:// URL"),
        (["--oidc-issuer-url", "https://issuer"], "must be given together"),
        (["--oidc-required-claim", "novalue"], "is not a key=value pair"),
        (["--authentication-token-webhook-version", "v2"], "supported versions are v1 and v1beta1"),
        (["--authentication-token-webhook-cache-ttl=-1s"], "must not be negative"),
        (["--token-auth-file", "/no/such/file"], "no such file"),
        (["--service-account-key-file", "/no/such/key"], "no such file"),
    ],
)
def test_bad_authentication_flags_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    assert message in exits_2(capsys, *argv)


def test_the_proxy_ca_needs_username_headers(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "proxy.crt").write_text("x")
    err = exits_2(capsys, "--requestheader-client-ca-file", str(tmp_path / "proxy.crt"))
    assert "needs --requestheader-username-headers" in err


def test_the_tls_bundle_trusts_the_proxy_ca(tmp_path: Path) -> None:
    proxy = pki.create_ca("front-proxy-ca")
    (tmp_path / "proxy.crt").write_bytes(proxy.cert_pem)
    settings = parse(
        "--data-dir",
        str(tmp_path / "d"),
        "--requestheader-client-ca-file",
        str(tmp_path / "proxy.crt"),
        "--requestheader-username-headers",
        "X-Remote-User",
    )
    server.prepare(settings)
    bundle = x509.load_pem_x509_certificates((tmp_path / "d" / "pki" / "client-ca-bundle.crt").read_bytes())
    assert proxy.cert in bundle and len(bundle) == 2


def test_main_refuses_unusable_authentication_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    served: list[Settings] = []
    monkeypatch.setattr(server, "run", served.append)
    monkeypatch.setattr("orch_apiserver.storage.schema.ensure_schema", lambda url, upgrade: None)
    (tmp_path / "tokens.csv").write_text("only,two\n")
    code = cli.main(["--data-dir", str(tmp_path / "d"), "--token-auth-file", str(tmp_path / "tokens.csv")])
    assert code == 1 and not served
    assert "must have at least 3 columns" in capsys.readouterr().err
    (tmp_path / "tokens.csv").write_text("t,u,1\n")
    assert cli.main(["--data-dir", str(tmp_path / "d"), "--token-auth-file", str(tmp_path / "tokens.csv")]) == 0
    assert (tmp_path / "d" / "pki" / "sa.key").exists()  # made before the workers start
