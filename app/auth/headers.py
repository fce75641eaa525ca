"""Reading request headers from a WSGI environ, where `X-Remote-User` is `HTTP_X_REMOTE_USER`.

The server (gunicorn) drops header names holding `_`, so every `_` in an environ key was a `-`.
Repeated header lines arrive joined with commas; list-valued headers are split on them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any
from urllib.parse import unquote

Environ = dict[str, Any]


def environ_key(name: str) -> str:
    return "HTTP_" + name.strip().upper().replace("-", "_")


def header(environ: Environ, name: str) -> str:
    value = environ.get(environ_key(name), "")
    return value if isinstance(value, str) else ""


def header_values(environ: Environ, name: str) -> list[str]:
    """Every non-empty value of a header that may be repeated."""
    return [part.strip() for part in header(environ, name).split(",") if part.strip()]


def prefixed(environ: Environ, prefix: str) -> dict[str, list[str]]:
    """Headers starting with `prefix` (case-insensitive): lower-cased, percent-decoded rest -> values."""
    wanted = environ_key(prefix)
    found: dict[str, list[str]] = {}
    for key, value in environ.items():
        if not key.startswith(wanted) or len(key) == len(wanted) or not isinstance(value, str):
            continue
        # the reference keeps a malformed escape as it is; unquote does the same
        name = unquote(key[len(wanted) :].lower().replace("_", "-"))
        found.setdefault(name, []).extend(part.strip() for part in value.split(",") if part.strip())
    return found


def drop(environ: Environ, names: Iterable[str] = (), prefixes: Iterable[str] = ()) -> None:
    """Forget credentials once used, so nothing later is tempted to read them."""
    for name in names:
        environ.pop(environ_key(name), None)
    for prefix in prefixes:
        wanted = environ_key(prefix)
        for key in [k for k in environ if k.startswith(wanted)]:
            environ.pop(key, None)
