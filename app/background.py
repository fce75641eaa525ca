"""A stoppable daemon thread: the shape shared by every background loop of a process."""

from __future__ import annotations

import threading


class BackgroundThread:
    """Subclasses implement `run()` and leave it when `self.stopping` is set."""

    name = "background"

    def __init__(self) -> None:
        self.stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self.run, name=self.name, daemon=True)
                self._thread.start()

    def stop(self) -> None:
        self.stopping.set()
        self.wake()
        thread = self._thread
        if thread is not None and thread.is_alive() and thread is not threading.current_thread():
            thread.join(timeout=5)

    @property
    def running(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive()

    def wake(self) -> None:
        """Interrupt a wait in run() (subclasses with their own wake-up event override this)."""

    def run(self) -> None:
        raise NotImplementedError
