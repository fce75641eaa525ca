"""The `orchctl` command: argument parsing, dispatch, and kubectl-style error reporting and exit codes."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence

from ..naming import DEFAULT_API_DOMAIN
from .context import CommandError, Context, UsageError
from .manifests import ManifestError

FORMATS = ("json", "yaml", "name", "wide")


def _global_options(parser: argparse.ArgumentParser, *, suppress: bool) -> None:
    """Accepted before and after the command; sub-parsers must not reset what the main parser read."""

    def default(value: object) -> object:
        return argparse.SUPPRESS if suppress else value

    parser.add_argument(
        "--kubeconfig", default=default(None), help="client config file (else $ORCH_CONFIG, else ~/.orch/config)"
    )
    parser.add_argument("--context", default=default(None), help="the context of the config file to use")
    parser.add_argument("-n", "--namespace", default=default(None), help="namespace (else the context's)")
    parser.add_argument(
        "--api-domain",
        default=default(os.environ.get("ORCHCTL_API_DOMAIN") or None),
        help=f"the API domain of group names (else $ORCHCTL_API_DOMAIN, else the server's, found from discovery; "
        f"{DEFAULT_API_DOMAIN} by default, k8s.io in the reference's spelling)",
    )
    parser.add_argument("-s", "--server", default=default(None), help="https://host:port of the API server")
    parser.add_argument(
        "--tls-server-name", default=default(None), help="the name to verify the server's certificate against"
    )
    parser.add_argument(
        "--cache-dir",
        default=default(None),
        help="where the server's API domain is cached (else $ORCHCTL_CACHE_DIR, else ~/.orch/cache)",
    )
    parser.add_argument("--request-timeout", type=float, default=default(30.0), help="seconds per request")
    parser.add_argument("--as", dest="as_user", default=default(None), help="act as this user (impersonation)")
    parser.add_argument("--as-group", action="append", default=default(None), help="act as in this group")
    parser.add_argument("--as-uid", default=default(None), help="act as this UID")


def _output(parser: argparse.ArgumentParser, formats: Sequence[str] = FORMATS) -> None:
    parser.add_argument("-o", "--output", choices=formats, default=None, help="output format")


def _files(parser: argparse.ArgumentParser, required: bool = False) -> None:
    parser.add_argument(
        "-f",
        "--filename",
        action="append",
        required=required,
        help="manifest file, directory or - for stdin (repeatable)",
    )
    parser.add_argument("-R", "--recursive", action="store_true", help="walk directories given with -f")


def _dry_run(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--dry-run", choices=("none", "server"), default="none", help="server: the server validates but stores nothing"
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="orchctl", description="Command-line client of orch-apiserver.")
    _global_options(parser, suppress=False)
    common = argparse.ArgumentParser(add_help=False)
    _global_options(common, suppress=True)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def command(name: str, help_text: str, run: Callable[[Context], int]) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, parents=[common], help=help_text, description=help_text)
        sub.set_defaults(run=run)
        return sub

    from . import apply, auth, bootstrap, certificates, convert_command, get, history, info, write

    p = command("get", "list or get resources", get.run_get)
    p.add_argument("words", nargs="+", metavar="TYPE[/NAME] [NAME...]")
    p.add_argument("-l", "--selector", help="label selector")
    p.add_argument("--field-selector", help="field selector")
    p.add_argument("-A", "--all-namespaces", action="store_true")
    p.add_argument("-w", "--watch", action="store_true", help="after listing, print changes")
    p.add_argument("--watch-timeout", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--at", default=None, help='as the objects were then: "2h ago" or 2026-11-27T08:00:00Z')
    _output(p)

    p = command(
        "history", "who changed what: an object's revisions, a kind's or a namespace's changes", history.run_history
    )
    p.add_argument("words", nargs="*", metavar="TYPE[/NAME]")
    p.add_argument("--since", default=None, help='only changes since then: "2h", "2h ago" or an RFC 3339 time')
    p.add_argument("--diff", action="store_true", help="show what each change changed (spec and metadata)")
    p.add_argument("--user", default=None, help="only changes by these users (comma-separated; - the server's own)")
    p.add_argument(
        "--verb", default=None, help="only changes by these verbs (comma-separated: create,update,patch/status,...)"
    )
    _output(p, ("json", "yaml"))

    p = command(
        "rollback", "write an object's content at an older revision back (a normal update)", history.run_rollback
    )
    p.add_argument("words", nargs=1, metavar="TYPE/NAME")
    p.add_argument("--to-revision", type=int, required=True, help="the revision (resourceVersion) to go back to")
    p.add_argument("--field-manager", default="orchctl-rollback")

    p = command("watch", "print watch events of a resource type (or one object) until interrupted", get.run_watch)
    p.add_argument("words", nargs="+", metavar="TYPE[/NAME] [NAME]")
    p.add_argument("-l", "--selector", help="label selector")
    p.add_argument("--field-selector", help="field selector")
    p.add_argument("-A", "--all-namespaces", action="store_true")
    p.add_argument("--resource-version", default=None, help="start after this resourceVersion")
    p.add_argument("--watch-timeout", type=int, default=None, help="end after this many seconds")
    _output(p)

    p = command("create", "create from manifests (-f), or `create token SERVICEACCOUNT`", write.run_create)
    p.add_argument("words", nargs="*", metavar="token SERVICEACCOUNT")
    _files(p)
    _dry_run(p)
    p.add_argument("--duration", help="token lifetime (Go duration, e.g. 10m, 1h)")
    p.add_argument("--audience", action="append", help="token audience (repeatable)")
    _output(p, ("json", "yaml", "name"))

    p = command("apply", "create or update from manifests", apply.run_apply)
    _files(p, required=True)
    _dry_run(p)
    p.add_argument("--server-side", action="store_true", help="server-side apply")
    p.add_argument("--force-conflicts", action="store_true", help="server-side: take over conflicting fields")
    p.add_argument("--field-manager", default=None, help="field manager name (default orchctl)")
    _output(p, ("json", "yaml", "name"))

    p = command("delete", "delete resources by name or from manifests", write.run_delete)
    p.add_argument("words", nargs="*", metavar="TYPE[/NAME] [NAME...]")
    _files(p)
    _dry_run(p)
    p.add_argument("--ignore-not-found", action="store_true")
    p.add_argument("--cascade", choices=("background", "foreground", "orphan"), default=None)
    p.add_argument(
        "--wait",
        choices=("true", "false"),
        default="true",
        help="wait until the objects are gone (finalizers done), as kubectl does",
    )
    p.add_argument("--timeout", type=float, default=0, help="seconds to wait; 0: no limit")
    _output(p, ("name",))

    p = command("patch", "patch one resource", write.run_patch)
    p.add_argument("words", nargs="+", metavar="TYPE NAME | TYPE/NAME")
    p.add_argument("-p", "--patch", help="the patch (JSON or YAML)")
    p.add_argument("--patch-file", help="read the patch from this file")
    p.add_argument("--type", choices=write.PATCH_TYPES, default="strategic")
    p.add_argument("--subresource", default=None, help="e.g. status or scale")
    p.add_argument("--field-manager", default="orchctl-patch")
    _dry_run(p)
    _output(p, ("json", "yaml", "name"))

    p = command("auth", "who am I, and what may I do", lambda ctx: 2)
    auth_commands = p.add_subparsers(dest="auth_command", metavar="SUBCOMMAND", required=True)
    sub = auth_commands.add_parser("whoami", parents=[common], help="the user the server sees")
    sub.set_defaults(run=auth.run_whoami)
    _output(sub, ("json", "yaml"))
    sub = auth_commands.add_parser("can-i", parents=[common], help="whether an action is allowed (yes/no)")
    sub.set_defaults(run=auth.run_can_i)
    sub.add_argument("verb")
    sub.add_argument("target", metavar="TYPE[/NAME] | NONRESOURCEURL")
    sub.add_argument("--subresource", default=None)
    sub.add_argument("-A", "--all-namespaces", action="store_true")
    sub.add_argument("-q", "--quiet", action="store_true", help="no output, only the exit status")

    p = command("certificate", "approve or deny certificate signing requests", certificates.run_certificate)
    p.add_argument("decision", choices=tuple(certificates.DECISIONS))
    p.add_argument("names", nargs="+", metavar="CSR")
    p.add_argument("--force", action="store_true", help="write the condition even when it is already there")

    p = command(
        "bootstrap", "write a kubeconfig for a bootstrap token after verifying cluster-info", bootstrap.run_bootstrap
    )
    p.add_argument("--token", required=True, help="bootstrap token <id>.<secret>")
    p.add_argument("--output", dest="output_file", required=True, help="the kubeconfig file to write")
    p.add_argument(
        "--discovery-token-ca-cert-hash",
        action="append",
        metavar="sha256:HEX",
        help="pin the CA's public key hash (repeatable)",
    )
    p.add_argument(
        "--node-name",
        help="bootstrap this node: get its client certificate through a CSR and write a kubeconfig as the node",
    )
    p.add_argument("--wait", type=float, default=60.0, help="seconds to wait for the certificate (default 60)")

    p = command(
        "renew-node-certificate",
        "renew the node client certificate of --kubeconfig through a CSR of the node itself",
        bootstrap.run_renew_node_certificate,
    )
    p.add_argument("--wait", type=float, default=60.0, help="seconds to wait for the certificate (default 60)")

    p = command("api-resources", "the resources the server serves (preferred versions)", info.run_api_resources)
    p.add_argument("--namespaced", choices=("true", "false"), default=None)
    p.add_argument("--api-group", default=None, help='only this group ("" for the core group)')
    _output(p, ("wide", "name"))

    p = command("version", "client and server versions", info.run_version)
    p.add_argument("--client", action="store_true", help="the client's version only (no server needed)")
    _output(p, ("json", "yaml"))

    from . import fault

    fault.add_command(command, common)

    p = command("convert", "convert manifests to another API version, locally", convert_command.run_convert)
    _files(p, required=True)
    p.add_argument("--output-version", required=True, help="<group>/<version>, or v1 for the core group")
    p.add_argument("-o", "--output", choices=("yaml", "json"), default="yaml")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    ctx = Context(args)
    try:
        return args.run(ctx)
    except KeyboardInterrupt:
        return 0  # Ctrl-C ends a watch: the normal way to stop it
    except BrokenPipeError:  # `orchctl get ... | head`: the reader left; no traceback at exit either
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except (CommandError, ManifestError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    except Exception as err:  # the client library's errors, imported lazily
        from .. import client
        from .get import server_error_text

        if isinstance(err, client.ApiError):
            print(server_error_text(err), file=sys.stderr)
            if err.status == 404 and ctx.forget_cached_domain():
                print(f"(the API domain {ctx.naming.domain} came from the cache; it is cleared)", file=sys.stderr)
            return 1
        # a bad config file, a failing exec credential plugin
        plain = (client.ConfigError, getattr(client, "ExecPluginError", client.ConfigError))
        if isinstance(err, plain):
            print(f"error: {err}", file=sys.stderr)
            return 1
        raise


def entry_point() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry_point()
