"""An informer: list, then watch with resume from the last resourceVersion, re-list on 410, and a local cache."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from typing import Any

from .rest import ApiError, Client, ConnectionFailed

log = logging.getLogger(__name__)

Handler = Callable[[dict], None]
UpdateHandler = Callable[[dict, dict], None]
#: the server's own watch timeout per stream; the informer simply resumes when a stream ends
DEFAULT_WATCH_SECONDS = 300
RETRY_DELAY = 1.0


def object_key(obj: dict) -> str:
    metadata = obj.get("metadata") or {}
    namespace = metadata.get("namespace")
    return f"{namespace}/{metadata.get('name')}" if namespace else str(metadata.get("name"))


class Informer:
    """Keeps `cache` (namespace/name -> object) in step with the server and calls the handlers on changes."""

    def __init__(
        self,
        client: Client,
        path: str,
        *,
        namespace: str | None = None,
        label_selector: str | None = None,
        field_selector: str | None = None,
        watch_timeout_seconds: int = DEFAULT_WATCH_SECONDS,
    ) -> None:
        if namespace:
            path = _namespaced(path, namespace)
        self.client = client
        self.path = path
        self.selectors = {"labelSelector": label_selector, "fieldSelector": field_selector}
        self.watch_timeout_seconds = watch_timeout_seconds
        self.on_add: list[Handler] = []
        self.on_update: list[UpdateHandler] = []
        self.on_delete: list[Handler] = []
        self.resource_version: str | None = None
        self.lists = 0  # how many times the informer listed (1 + the re-lists after 410 Gone)
        self.streams = 0  # how many watch streams it opened (it resumes when the server ends one)
        self._cache: dict[str, dict] = {}
        self._lock = threading.Lock()
        self._synced = threading.Event()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._stream: Any = None

    # --- handlers and cache ----------------------------------------------------------------------------------

    def add_handlers(
        self, *, on_add: Handler | None = None, on_update: UpdateHandler | None = None, on_delete: Handler | None = None
    ) -> None:
        if on_add:
            self.on_add.append(on_add)
        if on_update:
            self.on_update.append(on_update)
        if on_delete:
            self.on_delete.append(on_delete)

    @property
    def cache(self) -> dict[str, dict]:
        """A snapshot copy of the local cache, keyed by namespace/name (name alone for cluster-scoped objects)."""
        with self._lock:
            return dict(self._cache)

    def get(self, key: str) -> dict | None:
        with self._lock:
            return self._cache.get(key)

    def wait_for_sync(self, timeout: float | None = None) -> bool:
        return self._synced.wait(timeout)

    # --- running ---------------------------------------------------------------------------------------------

    def start(self) -> threading.Thread:
        """Run in a daemon thread until stop(); after a stop, a new start resumes from the last version seen."""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self.run, args=(self._stop,), name=f"informer {self.path}", daemon=True)
        self._thread.start()
        return self._thread

    def stop(self, timeout: float | None = 10.0) -> None:
        self._stop.set()
        stream = self._stream
        if stream is not None:
            # do not wait for the server to end the current watch; racing the reader thread is harmless
            with contextlib.suppress(Exception):
                stream.close()
        if self._thread is not None:
            self._thread.join(timeout)

    def run(self, stop: threading.Event) -> None:
        """List (first time only), then watch and resume from the last version seen until `stop` is set."""
        need_list = not self._synced.is_set()
        while not stop.is_set():
            try:
                if need_list:
                    self._list()
                    need_list = False
                need_list = self._watch_once(stop)
            except ApiError as err:
                if err.status == 410:
                    need_list = True  # history compacted past our version: clear, list again, watch again
                    continue
                if not isinstance(err, ConnectionFailed):
                    log.warning("informer %s: %s", self.path, err)
                stop.wait(RETRY_DELAY)
            except Exception:  # a handler or transport failure must not kill the loop
                log.exception("informer %s failed; retrying", self.path)
                stop.wait(RETRY_DELAY)

    def _params(self) -> dict[str, Any]:
        return {k: v for k, v in self.selectors.items() if v}

    def _list(self) -> None:
        listed = self.client.get(self.path, self._params())
        fresh = {object_key(item): item for item in listed.get("items") or []}
        self.lists += 1
        with self._lock:
            old, self._cache = self._cache, dict(fresh)
            self.resource_version = (listed.get("metadata") or {}).get("resourceVersion")
        for key, obj in old.items():
            if key not in fresh:
                self._emit_delete(obj)  # gone while we were not watching
        for key, obj in fresh.items():
            if key not in old:
                self._emit_add(obj)
            elif (old[key].get("metadata") or {}).get("resourceVersion") != (obj.get("metadata") or {}).get(
                "resourceVersion"
            ):
                self._emit_update(old[key], obj)
        self._synced.set()

    def _watch_once(self, stop: threading.Event) -> bool:
        """One watch stream from the last seen version; True when a re-list is needed (410 as an ERROR event)."""
        params = {**self._params(), "allowWatchBookmarks": "true"}
        self.streams += 1
        self._stream = self.client.watch(
            self.path, resource_version=self.resource_version, params=params, timeout_seconds=self.watch_timeout_seconds
        )
        for event in self._stream:
            if stop.is_set():
                return False
            kind = event.get("type")
            obj = event.get("object") or {}
            if kind == "ERROR":
                if obj.get("code") == 410 or obj.get("reason") in ("Expired", "Gone"):
                    return True
                raise ApiError(int(obj.get("code") or 500), obj)
            version = (obj.get("metadata") or {}).get("resourceVersion")
            if kind == "BOOKMARK":
                if version:
                    self.resource_version = version
                continue
            key = object_key(obj)
            with self._lock:
                previous = self._cache.get(key)
                if kind == "DELETED":
                    self._cache.pop(key, None)
                else:
                    self._cache[key] = obj
                if version:
                    self.resource_version = version
            if kind == "DELETED":
                self._emit_delete(obj)
            elif previous is None:
                self._emit_add(obj)
            else:
                self._emit_update(previous, obj)
        return False

    def _emit_add(self, obj: dict) -> None:
        for handler in list(self.on_add):
            handler(obj)

    def _emit_update(self, old: dict, new: dict) -> None:
        for handler in list(self.on_update):
            handler(old, new)

    def _emit_delete(self, obj: dict) -> None:
        for handler in list(self.on_delete):
            handler(obj)


def _namespaced(path: str, namespace: str) -> str:
    """Insert /namespaces/<ns> before the plural of a collection path such as /api/v1/pods."""
    head, _, plural = path.rstrip("/").rpartition("/")
    return f"{head}/namespaces/{namespace}/{plural}"
