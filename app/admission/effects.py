"""What admission leaves on a request besides its answer: Warning headers and audit annotations.

The HTTP layer opens an `Effects` per request; plugins below it add to it through the context variable, so
they need no Flask."""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field


@dataclass
class Effects:
    warnings: list[str] = field(default_factory=list)
    annotations: dict[str, str] = field(default_factory=dict)


request_effects: ContextVar[Effects | None] = ContextVar("request_effects", default=None)


def add_warning(text: str) -> None:
    effects = request_effects.get()
    if effects is not None and text not in effects.warnings:
        effects.warnings.append(text)


def annotate(key: str, value: str) -> None:
    effects = request_effects.get()
    if effects is not None:
        effects.annotations[key] = value
