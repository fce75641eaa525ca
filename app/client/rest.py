"""The REST client: one request with credentials, a single retry after a 401, Warning headers, verb helpers."""

from __future__ import annotations

import hashlib
import json
import re
import sys
import threading
import warnings
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from typing import Any, Self
from urllib.parse import urlencode

import urllib3
import yaml

from .config import ClientConfig
from .credentials import Credentials, StaticCredentials

CLIENT_VERSION = "0.1.0"
USER_AGENT = f"orch-client-python/{CLIENT_VERSION}"

PATCH_CONTENT_TYPES = {
    "json": "application/json-patch+json",
    "merge": "application/merge-patch+json",
    "strategic": "application/strategic-merge-patch+json",
    "apply": "application/apply-patch+yaml",
}

_REASONS = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    405: "MethodNotAllowed",
    406: "NotAcceptable",
    409: "Conflict",
    410: "Gone",
    413: "RequestEntityTooLarge",
    415: "UnsupportedMediaType",
    422: "Invalid",
    429: "TooManyRequests",
    500: "InternalError",
    503: "ServiceUnavailable",
    504: "Timeout",
}


class ApiError(Exception):
    """A failed request: `body` is the server's Status (or one synthesized from the response)."""

    def __init__(self, status: int, body: dict) -> None:
        self.status = status
        self.body = body
        self.reason: str = body.get("reason") or _REASONS.get(status, "Unknown")
        self.message: str = body.get("message") or f"the server responded with HTTP {status}"
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message

    @classmethod
    def synthesized(cls, status: int, message: str, reason: str | None = None) -> ApiError:
        return cls(
            status,
            {
                "kind": "Status",
                "apiVersion": "v1",
                "metadata": {},
                "status": "Failure",
                "message": message,
                "reason": reason or _REASONS.get(status, "Unknown"),
                "code": status,
            },
        )


class ConnectionFailed(ApiError):
    """The server could not be reached (status 0: no HTTP response at all)."""

    def __init__(self, message: str) -> None:
        super().__init__(
            0,
            {
                "kind": "Status",
                "apiVersion": "v1",
                "status": "Failure",
                "message": message,
                "reason": "ServiceUnavailable",
                "code": 0,
            },
        )


class Response:
    def __init__(self, status: int, headers: Mapping[str, str], data: bytes) -> None:
        self.status = status
        self.headers = headers  # urllib3's HTTPHeaderDict: case-insensitive
        self.data = data

    def json(self) -> dict:
        return json.loads(self.data) if self.data else {}


_WARNING = re.compile(r'\s*(\d{3})\s+(\S+)\s+"((?:[^"\\]|\\.)*)"(?:\s+"[^"]*")?\s*(?:,|$)')


def parse_warnings(values: list[str]) -> list[str]:
    """The texts of RFC 7234 `Warning: 299 - "text"` header values (several may share one header line)."""
    texts = []
    for value in values:
        for match in _WARNING.finditer(value):
            if match.group(1) == "299":
                texts.append(re.sub(r"\\(.)", r"\1", match.group(3)))
    return texts


def _print_warning(text: str) -> None:
    print(f"Warning: {text}", file=sys.stderr)


def _error_from(status: int, data: bytes) -> ApiError:
    try:
        body = json.loads(data)
    except ValueError:
        body = None
    if isinstance(body, dict) and body.get("kind") == "Status":
        return ApiError(status, body)
    text = data.decode("utf-8", "replace").strip()
    return ApiError.synthesized(status, text[:2000] or f"the server responded with HTTP {status}")


class Client:
    """A client for one server; thread-safe. Credentials come from the config or its exec plugin."""

    def __init__(
        self,
        config: ClientConfig,
        *,
        on_warning: Callable[[str], None] | None = None,
        timeout: float = 30.0,
        headers: Mapping[str, str] | Sequence[tuple[str, str]] | None = None,
    ) -> None:
        self.config = config
        # sent with every request, watches included (impersonation); repeated names join with commas
        self.headers: dict[str, str] = {}
        for name, value in headers.items() if isinstance(headers, Mapping) else headers or ():
            self.headers[name] = f"{self.headers[name]},{value}" if name in self.headers else value
        self.on_warning = on_warning or _print_warning
        self.timeout = timeout
        if config.insecure_skip_tls_verify:
            # asked for explicitly (or bootstrap discovery before the signature check): no urllib3 nagging
            warnings.filterwarnings("ignore", category=urllib3.exceptions.InsecureRequestWarning)
        if config.exec is not None:
            from .exec import ExecCredentials

            self.credentials: Any = ExecCredentials(config)
        else:
            self.credentials = StaticCredentials(config)
        self._lock = threading.Lock()
        self._pool: urllib3.PoolManager | None = None
        self._pool_key: str | None = None

    # --- transport -------------------------------------------------------------------------------------------

    def _pool_for(self, credentials: Credentials) -> urllib3.PoolManager:
        """The pool for the current certificate and key; a changed pair closes the old connections."""
        from .transport import pool_manager

        pair = credentials.tls_pair
        key = hashlib.sha256(pair[0] + b"\0" + pair[1]).hexdigest() if pair else ""
        with self._lock:
            if self._pool is None or self._pool_key != key:
                if self._pool is not None:
                    self._pool.clear()
                self._pool = pool_manager(self.config, pair, self.timeout)
                self._pool_key = key
            return self._pool

    def close(self) -> None:
        with self._lock:
            if self._pool is not None:
                self._pool.clear()
                self._pool = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def url(self, path: str, params: Mapping[str, Any] | None = None) -> str:
        query = {
            k: ("true" if v is True else "false" if v is False else v)
            for k, v in (params or {}).items()
            if v is not None
        }
        return self.config.server + path + ("?" + urlencode(query, doseq=True) if query else "")

    def _send(
        self,
        method: str,
        url: str,
        body: bytes | None,
        headers: dict[str, str],
        *,
        stream: bool,
        timeout: float | None = None,
    ) -> urllib3.BaseHTTPResponse:
        attempt = 0
        while True:
            credentials = self.credentials.get()
            sent = dict(headers)
            if credentials.token:
                sent["Authorization"] = f"Bearer {credentials.token}"
            pool = self._pool_for(credentials)
            try:
                response = pool.request(
                    method,
                    url,
                    body=body,
                    headers=sent,
                    preload_content=not stream,
                    redirect=False,
                    timeout=urllib3.Timeout(connect=min(self.timeout, 30.0), read=timeout or self.timeout),
                )
            except urllib3.exceptions.HTTPError as err:
                raise ConnectionFailed(f"cannot reach the server at {self.config.server}: {_root_cause(err)}") from err
            if response.status == 401 and attempt == 0 and self.credentials.invalidate(credentials):
                attempt += 1  # the cached credentials are void: fetch fresh ones and retry once
                response.drain_conn()
                response.release_conn()
                continue
            return response

    def _warn(self, headers: Any) -> None:
        values = headers.getlist("Warning") if hasattr(headers, "getlist") else []
        for text in parse_warnings(values):
            self.on_warning(text)

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: dict | list | bytes | str | None = None,
        content_type: str | None = None,
        accept: str = "application/json",
        headers: Mapping[str, str] | None = None,
    ) -> Response:
        data, sent = self._prepare(body, content_type, accept, headers)
        response = self._send(method.upper(), self.url(path, params), data, sent, stream=False)
        self._warn(response.headers)
        payload = response.data or b""
        if response.status >= 400:
            raise _error_from(response.status, payload)
        return Response(response.status, response.headers, payload)

    def _prepare(
        self, body: Any, content_type: str | None, accept: str, headers: Mapping[str, str] | None
    ) -> tuple[bytes | None, dict[str, str]]:
        sent = {"Accept": accept, "User-Agent": USER_AGENT, **self.headers}
        data: bytes | None
        if body is None:
            data = None
        elif isinstance(body, bytes):
            data = body
        elif isinstance(body, str):
            data = body.encode()
        else:
            data = json.dumps(body).encode()
            content_type = content_type or "application/json"
        if data is not None:
            sent["Content-Type"] = content_type or "application/json"
        sent.update(headers or {})
        return data, sent

    # --- verbs -----------------------------------------------------------------------------------------------

    def get(self, path: str, params: Mapping[str, Any] | None = None) -> dict:
        return self.request("GET", path, params=params).json()

    def list(self, path: str, params: Mapping[str, Any] | None = None) -> dict:
        return self.get(path, params)

    def create(self, path: str, obj: dict, params: Mapping[str, Any] | None = None) -> dict:
        return self.request("POST", path, params=params, body=obj).json()

    def update(self, path: str, obj: dict, params: Mapping[str, Any] | None = None) -> dict:
        return self.request("PUT", path, params=params, body=obj).json()

    def patch(
        self,
        path: str,
        patch: Any,
        patch_type: str,
        *,
        field_manager: str | None = None,
        force: bool = False,
        params: Mapping[str, Any] | None = None,
    ) -> dict:
        if patch_type not in PATCH_CONTENT_TYPES:
            raise ValueError(f"unknown patch type {patch_type!r}; one of {', '.join(PATCH_CONTENT_TYPES)}")
        query = dict(params or {})
        if field_manager:
            query["fieldManager"] = field_manager
        if force:
            query["force"] = True
        body = patch if isinstance(patch, (bytes, str)) else json.dumps(patch).encode()
        return self.request("PATCH", path, params=query, body=body, content_type=PATCH_CONTENT_TYPES[patch_type]).json()

    def apply(
        self,
        path: str,
        obj: dict | str | bytes,
        *,
        field_manager: str,
        force: bool = False,
        params: Mapping[str, Any] | None = None,
    ) -> dict:
        """Server-side apply: PATCH with application/apply-patch+yaml (the object, YAML or JSON)."""
        body = obj if isinstance(obj, (bytes, str)) else yaml.safe_dump(obj, sort_keys=False)
        return self.patch(path, body, "apply", field_manager=field_manager, force=force, params=params)

    def delete(self, path: str, params: Mapping[str, Any] | None = None, body: dict | None = None) -> dict:
        return self.request("DELETE", path, params=params, body=body).json()

    def watch(
        self,
        path: str,
        *,
        resource_version: str | None = None,
        params: Mapping[str, Any] | None = None,
        timeout_seconds: int | None = None,
    ) -> Iterator[dict]:
        """One watch stream: yields {"type", "object"} events until the server ends it; HTTP errors raise."""
        query: dict[str, Any] = {**(params or {}), "watch": "true"}
        if resource_version is not None:
            query["resourceVersion"] = resource_version
        if timeout_seconds is not None:
            query["timeoutSeconds"] = timeout_seconds
        _, sent = self._prepare(None, None, "application/json", None)
        read_timeout = max(self.timeout, (timeout_seconds or 0) + 30.0) if timeout_seconds else 3600.0
        response = self._send("GET", self.url(path, query), None, sent, stream=True, timeout=read_timeout)
        self._warn(response.headers)
        if response.status >= 400:
            data = response.read()
            response.release_conn()
            raise _error_from(response.status, data)
        return WatchStream(response)


class WatchStream:
    """The events of one watch response; `close()` (from any thread) ends the stream early."""

    def __init__(self, response: urllib3.BaseHTTPResponse) -> None:
        self._response = response
        self._events = _events(response)

    def __iter__(self) -> WatchStream:
        return self

    def __next__(self) -> dict:
        return next(self._events)

    def close(self) -> None:
        shutdown = getattr(self._response, "shutdown", None)
        if shutdown is not None:
            shutdown()  # unblocks a reader waiting in another thread
        self._events.close()


def _events(response: urllib3.BaseHTTPResponse) -> Generator[dict, None, None]:
    """Decode a stream of concatenated (usually newline-separated) JSON event documents."""
    decoder = json.JSONDecoder()
    buffer = ""
    pending = b""
    finished = False
    try:
        for chunk in response.stream(65536, decode_content=True):
            pending += chunk
            try:
                text = pending.decode("utf-8")
                pending = b""
            except UnicodeDecodeError:
                continue  # a multi-byte character split across chunks: wait for the rest
            buffer += text
            while True:
                stripped = buffer.lstrip()
                if not stripped:
                    buffer = ""
                    break
                try:
                    event, end = decoder.raw_decode(stripped)
                except ValueError:
                    buffer = stripped
                    break
                buffer = stripped[end:]
                if isinstance(event, dict):
                    yield event
        finished = True
    except urllib3.exceptions.HTTPError as err:
        raise ConnectionFailed(f"watch stream broke: {_root_cause(err)}") from err
    finally:
        if not finished:
            response.close()  # abandoned mid-stream: the connection cannot be reused
        response.release_conn()


def _root_cause(err: BaseException) -> str:
    reason = getattr(err, "reason", None)
    return str(reason or err)
