"""Go-style durations (`90s`, `5m`, `1h30m`, `1.5h`, `300ms`), as the reference server's flags take them."""

from __future__ import annotations

import re

_UNITS: dict[str, float] = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,  # U+00B5 micro sign, as Go accepts
    "μs": 1e-6,  # U+03BC Greek mu, as Go accepts
    "ms": 1e-3,
    "s": 1.0,
    "m": 60.0,
    "h": 3600.0,
}
_PART = re.compile(r"([0-9]+\.?[0-9]*|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h)")


def parse_duration(text: str) -> float:
    """Seconds in a Go duration string; ValueError when it is not one."""
    body = text.strip()
    sign = -1.0 if body.startswith("-") else 1.0
    body = body[1:] if body[:1] in ("+", "-") else body
    if body == "0":
        return 0.0
    if not body:
        raise ValueError(f"invalid duration {text!r}")
    total, pos = 0.0, 0
    while pos < len(body):
        match = _PART.match(body, pos)
        if match is None:
            # Go names the missing unit separately; say what shape we expected either way.
            raise ValueError(f"invalid duration {text!r} (expected e.g. 90s, 5m, 1h30m)")
        total += float(match.group(1)) * _UNITS[match.group(2)]
        pos = match.end()
    return sign * total


def format_duration(seconds: float) -> str:
    """A compact Go-style spelling (`5m`, `1h30m`, `0.5s`) for help texts and messages."""
    whole = round(seconds)
    if whole != seconds or whole == 0:
        return f"{seconds:g}s"
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{hours}h" if hours else "", f"{minutes}m" if minutes else "", f"{secs}s" if secs else ""]
    return "".join(parts)
