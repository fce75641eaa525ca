"""Faults on demand (issue 58, docs/testing.md): `Fault` objects (app/resources/testing.py) make chosen requests
fail the way production does. Evaluated once per resource request after authentication and authorization and
before admission (the chain's `faults` step, app/pipeline.py); a watch's cut is applied by the watch handler.

    spec.py        a stored Fault read into what the server acts on
    matching.py    what a request is (RequestFacts) and whether a Fault's spec.match selects it
    errors.py      the Status a fault answers with, as the reference words it for that code
    injector.py    the Fault a request takes: listed, matched, taken atomically in the store (times, probability)
    watch.py       a watch cut after N events: ERROR 410 Expired, or the stream's quiet end
    manifest.py    a Fault object from keywords (the test server's `fault(...)`, `orchctl fault add`)
"""

from __future__ import annotations

from .injector import Injection, Injector
from .matching import RequestFacts
from .watch import WATCH_CUT_KEY, cut_watch

#: the response header naming the Fault that changed the response (the server's own header, whatever the domain)
HEADER = "X-Orch-Fault"

__all__ = ["HEADER", "WATCH_CUT_KEY", "Injection", "Injector", "RequestFacts", "cut_watch"]
