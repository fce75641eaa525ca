"""Process lifecycle: post-start hooks (reported as `poststarthook/<name>` checks), the livez grace period,
and the shutdown flag shared by every worker of a server (readiness fails at once on SIGTERM).

Hooks run once per process, in registration order: at worker boot in a background thread (app/server.py),
or, when nothing started them (Flask test clients), synchronously on the first request. Until a hook has
finished, its check fails on /readyz and /healthz; on /livez it passes until `--livez-grace-period` after
the app was built (the reference's delayed boot-sequence checks), then fails too.

Other code registers its start-up work with `add_post_start_hook(app, name, fn)`.
"""

from __future__ import annotations

import ctypes
import logging
import multiprocessing
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from flask import Flask, current_app, request

from .health import health_registry

log = logging.getLogger(__name__)

EXTENSION_KEY = "orch.poststarthooks"
SHUTDOWN_SIGNAL_KEY = "SHUTDOWN_SIGNAL"  # app.config: the ShutdownSignal the serving master made
HEALTH_PATHS = ("/healthz", "/livez", "/readyz")
RETRY_INTERVAL = 1.0  # seconds between background attempts of a failed hook
AUTOREGISTER_CHECK = "autoregister-completion"

HookFn = Callable[[], None]


class HookNotFinished(RuntimeError):
    """The check's reason while a hook runs (the individual check path shows it)."""


@dataclass
class _Hook:
    name: str
    run: HookFn
    done: bool = False


class PostStartHooks:
    """The named start-up steps of one app and their health checks."""

    def __init__(
        self, app: Flask, livez_grace_period: float = 0.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._app = app
        self._hooks: list[_Hook] = []
        self._lock = threading.Lock()  # held while hooks run: one runner at a time
        self._background: threading.Thread | None = None
        self.stopping = threading.Event()
        self.clock = clock
        self.livez_grace_period = livez_grace_period
        self.grace_starts = clock()

    # -- registration

    def add(self, name: str, run: HookFn) -> None:
        """Register a hook; its check `poststarthook/<name>` fails until `run` has returned once."""
        if any(h.name == name for h in self._hooks):
            raise ValueError(f"post-start hook {name!r} is already registered")
        hook = _Hook(name, run)
        self._hooks.append(hook)
        self.add_check(f"poststarthook/{name}", lambda: self._check(hook))

    def add_check(self, name: str, check: Callable[[], None]) -> None:
        """A boot-sequence check: plain on /healthz and /readyz, delayed by the grace period on /livez."""
        registry = health_registry(self._app)
        registry.add(name, check, endpoints=("healthz", "readyz"))
        registry.add(name, lambda: self._delayed(check), endpoints=("livez",))

    @staticmethod
    def _check(hook: _Hook) -> None:
        if not hook.done:
            raise HookNotFinished("not finished")

    def _delayed(self, check: Callable[[], None]) -> None:
        if self.clock() - self.grace_starts < self.livez_grace_period:
            return  # still starting: liveness does not fail on unfinished start-up
        check()

    # -- state

    def done(self, name: str) -> bool:
        return any(h.name == name and h.done for h in self._hooks)

    @property
    def finished(self) -> bool:
        return all(h.done for h in self._hooks)

    @property
    def names(self) -> list[str]:
        return [h.name for h in self._hooks]

    # -- running

    def run(self, blocking: bool = True) -> bool:
        """Run the hooks not yet done, in order; an exception stops there and propagates (retried later).
        Without `blocking`, return at once if another thread is running them. True when all are done."""
        if self.finished:
            return True
        if not self._lock.acquire(blocking=blocking):
            return False
        try:
            for hook in self._hooks:
                if not hook.done:
                    with self._app.app_context():
                        hook.run()
                    hook.done = True
        finally:
            self._lock.release()
        return self.finished

    def run_for_request(self, probe: bool) -> None:
        """An ordinary request waits for start-up (e.g. the RBAC policy); a probe only reports on it,
        unless nobody started the hooks (Flask test clients): then the first request runs them."""
        if probe and self._background is not None:
            return
        self.run()

    def start(self) -> None:
        """Run the hooks in a background thread (worker boot), retrying a failed one until it passes."""
        if self._background is not None:
            return
        self._background = threading.Thread(target=self._run_until_done, name="post-start-hooks", daemon=True)
        self._background.start()

    def _run_until_done(self) -> None:
        while not self.stopping.is_set():
            try:
                if self.run():
                    return
            except Exception:  # the hook's check keeps failing; try again
                log.exception("post-start hook failed; retrying in %.0fs", RETRY_INTERVAL)
            self.stopping.wait(RETRY_INTERVAL)


def post_start_hooks(app: Flask | None = None) -> PostStartHooks:
    """The app's hooks (created on first use with the app's --livez-grace-period)."""
    app = app or current_app._get_current_object()  # type: ignore[attr-defined]
    if EXTENSION_KEY not in app.extensions:
        app.extensions[EXTENSION_KEY] = PostStartHooks(app, float(app.config.get("LIVEZ_GRACE_PERIOD") or 0.0))
    return app.extensions[EXTENSION_KEY]


def add_post_start_hook(app: Flask, name: str, run: HookFn) -> None:
    """Register start-up work shown as `poststarthook/<name>`; `run` is called once, in an app context,
    after the hooks registered before it (it should start threads and return, not block)."""
    post_start_hooks(app).add(name, run)


def stop_with_app(app: Flask, stop: Callable[[], None]) -> None:
    """Call `stop` when the app stops (`app.extensions["orch.stop"]`), before what was added to it earlier."""
    stop_others = app.extensions["orch.stop"]

    def stop_all() -> None:
        stop()
        stop_others()

    app.extensions["orch.stop"] = stop_all


# ---------------------------------------------------------------------------------------------
# Shutdown


class ShutdownSignal:
    """Set by the serving master on SIGTERM, seen by every worker: shared memory inherited across fork."""

    def __init__(self) -> None:
        self._flag = multiprocessing.RawValue(ctypes.c_bool, False)

    def set(self) -> None:
        self._flag.value = True

    def is_set(self) -> bool:
        return bool(self._flag.value)


def shutting_down(app: Flask) -> bool:
    signal = app.config.get(SHUTDOWN_SIGNAL_KEY)
    return app.extensions["orch"].shutting_down or (signal is not None and signal.is_set())


def begin_drain(app: Flask) -> None:
    """This worker stops: readiness fails, background start-up stops, open watches end cleanly (the
    fan-out writer finishes every stream; subscriptions close so thread-served watches end too).
    In-flight ordinary requests finish; the worker's own loop stops accepting and waits for them."""
    svc = app.extensions["orch"]
    svc.shutting_down = True
    post_start_hooks(app).stopping.set()
    app.extensions["orch.fanout"].stop()
    svc.hub.stop()  # closes every subscription: watches served without the writer end as well


# ---------------------------------------------------------------------------------------------
# Wiring


def is_health_request() -> bool:
    path = request.path
    return any(path == p or path.startswith(p + "/") for p in HEALTH_PATHS)


def install(app: Flask) -> PostStartHooks:
    """Hooks run on the first request unless started at boot; health probes never wait for them.
    The readiness `shutdown` check also reads the server-wide shutdown flag."""
    hooks = post_start_hooks(app)

    @app.before_request
    def _run_post_start_hooks() -> None:
        hooks.run_for_request(is_health_request())

    def shutdown() -> None:
        if shutting_down(app):
            raise RuntimeError("process is shutting down")

    health_registry(app).add("shutdown", shutdown, endpoints=("readyz",), last=True)
    return hooks


def install_autoregister_check(app: Flask, served: Callable[[], bool]) -> None:
    """`autoregister-completion`: every served group version is registered (discoverable)."""

    def check() -> None:
        if not served():
            raise RuntimeError("missing APIService registrations")

    post_start_hooks(app).add_check(AUTOREGISTER_CHECK, check)
