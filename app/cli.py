"""`orch-apiserver`: parse flags (defaults < ORCH_* < flags), prepare PKI and schema, then serve with gunicorn."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .config import OPTIONS, ConfigError, Option, Settings, default_values, env_values

PROG = "orch-apiserver"


def _arg_type(option: Option) -> Callable[[str], Any]:
    def convert(text: str) -> Any:
        try:
            return option.parse(text)
        except ConfigError as err:
            raise argparse.ArgumentTypeError(str(err)) from None

    convert.__name__ = option.name  # argparse names the type in its fallback message
    return convert


class _Repeatable(argparse.Action):
    """A repeatable flag: its first use on the command line replaces the default/ORCH_* value, later uses add."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        seen: set[str] = namespace.__dict__.setdefault("_repeated", set())
        current = getattr(namespace, self.dest) if self.dest in seen else None
        seen.add(self.dest)
        setattr(namespace, self.dest, tuple(current or ()) + tuple(values))


def _shape_arguments(option: Option) -> dict[str, Any]:
    if option.shape == "bool":
        return {"nargs": "?", "const": True}  # `--anonymous-auth` alone means true, as Go's bool flags
    if option.shape == "list":
        return {"action": _Repeatable}
    return {}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Kubernetes-style API server (orch.io). Every flag can also be set as ORCH_<FLAG_NAME>. "
        "Also: `orch-apiserver pki init [flags]` (prepare the PKI without serving), "
        "`orch-apiserver kubeconfig user NAME [flags]`, `orch-apiserver backup OUT [flags]`, "
        "`orch-apiserver restore FILE [--replace] [flags]`, `orch-apiserver secrets-encrypt status|reencrypt [flags]`.",
        allow_abbrev=False,
    )
    for option in OPTIONS:
        default = "" if option.default is None else f"; default {option.default}"
        parser.add_argument(
            option.flag,
            dest=option.name,
            metavar=option.metavar,
            type=_arg_type(option),
            help=f"{option.help} [env {option.env}{default}]",
            **_shape_arguments(option),
        )
    return parser


def parse_settings(argv: Sequence[str] | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    """Settings from defaults, then ORCH_* variables, then flags; bad input exits 2 like argparse does."""
    parser = build_parser()
    try:
        parser.set_defaults(**{**default_values(), **env_values(os.environ if environ is None else environ)})
    except ConfigError as err:
        parser.error(str(err))
    namespace = parser.parse_args(argv)
    values = vars(namespace)
    values.pop("_repeated", None)
    settings = Settings(**values)
    try:
        settings.check()
    except ConfigError as err:
        parser.error(str(err))
    return settings


def _shown_path(path: str) -> str:
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _describe_database(url: str) -> str:
    from sqlalchemy.engine import make_url

    return make_url(url).render_as_string(hide_password=True)


def check_schema(settings: Settings) -> str | None:
    """None when the schema is usable (SQLite is upgraded in place); else what to tell the admin."""
    from sqlalchemy.exc import SQLAlchemyError

    from .storage.schema import SchemaOutdated, ensure_schema

    url = settings.resolved_database_url
    try:
        ensure_schema(url, upgrade=url.startswith("sqlite"))
    except SchemaOutdated as err:
        return str(err)
    except SQLAlchemyError as err:
        return f"cannot use the database {_describe_database(url)}: {err.__class__.__name__}: {err}"
    return None


def check_authentication(settings: Settings) -> str | None:
    """None when every authentication file is usable (the signing key is made if needed); else why not."""
    from .auth.setup import AuthConfigError
    from .auth.setup import check_authentication as check
    from .config import flask_config
    from .naming import Naming

    try:
        check(flask_config(settings), Naming(settings.api_domain))
    except AuthConfigError as err:
        return f"authentication: {err}"
    return None


def check_listen(settings: Settings) -> str | None:
    """Why the serving address cannot be bound: said before anything claims to be serving."""
    import socket

    host = settings.bind_address
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn binds: TIME_WAIT is no obstacle
        try:
            sock.bind((host, settings.secure_port))
            sock.listen(1)
        except OSError as err:
            return f"cannot listen on {host}:{settings.secure_port}: {err.strerror or err}"
    return None


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def startup_message(settings: Settings, kubeconfig: str, serving_from_cluster_ca: bool) -> str:
    shown = _shown_path(kubeconfig)
    database = _describe_database(settings.resolved_database_url)
    capacity = f"{_count(settings.workers, 'worker')} x {_count(settings.threads, 'thread')}"
    lines = [
        f"{PROG}: admin credentials (CN=admin, O=system:masters) written to {shown}; try",
        f"    kubectl --kubeconfig {shown} get namespaces",
        f"{PROG}: serving {settings.listen_url} ({capacity}, {database})",
    ]
    if settings.server_url != settings.listen_url:
        lines.append(f"{PROG}: clients are given {settings.server_url} (--external-hostname)")
    if not serving_from_cluster_ca:
        lines.append(f"{PROG}: note: {shown} trusts the cluster CA only; add the CA of --tls-cert-file to it")
    return "\n".join(lines)


def feature_gate_warnings(settings: Settings) -> list[str]:
    from .config import flask_config
    from .features import warnings

    return [f"{PROG}: warning: {line}" for line in warnings(flask_config(settings)["FEATURE_GATES"])]


class StderrHandler(logging.StreamHandler):
    """Writes to sys.stderr as it is at each line: a stream replaced since (tests capture it) is not kept."""

    stream = property(lambda self: sys.stderr, lambda self, _value: None)  # type: ignore[assignment]


def configure_logging() -> None:
    """The server's own INFO lines (one per request with --request-log, controllers) on stderr, in gunicorn's
    layout; without a handler Python would print only warnings."""
    logger = logging.getLogger(__package__)
    if any(isinstance(h, StderrHandler) for h in logger.handlers):
        return  # main() run again in one process (tests): one handler is enough
    handler = StderrHandler()
    handler.setFormatter(
        logging.Formatter("[%(asctime)s] [%(process)d] [%(levelname)s] %(name)s: %(message)s", "%Y-%m-%d %H:%M:%S %z")
    )
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:2] == ["kubeconfig", "user"]:
        from . import kubeconfig_user

        return kubeconfig_user.main(args[2:], parse_settings)
    if args[:1] == ["secrets-encrypt"]:
        from . import secrets_encrypt

        return secrets_encrypt.main(args[1:], parse_settings)
    if args[:2] == ["pki", "init"]:
        from . import pki_init

        return pki_init.main(args[2:], parse_settings, check_authentication)
    if args[:1] in (["backup"], ["restore"]):
        from . import backup_cli

        return backup_cli.main(args[0], args[1:], parse_settings)
    settings = parse_settings(args)
    for line in feature_gate_warnings(settings):  # deprecated and GA gates are on their way out
        print(line, file=sys.stderr, flush=True)
    from . import pki, server

    try:
        prepared = server.prepare(settings)
    except (pki.PkiError, OSError) as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        return 1
    problem = check_listen(settings) or check_authentication(settings) or check_schema(settings)
    if problem:
        print(f"{PROG}: {problem}", file=sys.stderr)
        return 1
    from . import secrets_encrypt

    for line in secrets_encrypt.at_start(settings, prepared.encryption_config_made):
        print(f"{PROG}: {line}", file=sys.stderr, flush=True)
    print(startup_message(settings, prepared.kubeconfig, prepared.serving_cert_from_cluster_ca), flush=True)
    configure_logging()
    from .metrics.multiprocess import prepare_multiprocess_dir

    prepare_multiprocess_dir()  # before workers fork: their metrics are merged from one fresh directory
    server.run(settings)
    return 0


if __name__ == "__main__":
    sys.exit(main())
