"""JSON -> protobuf -> JSON equality modulo the codec's documented normalisations.

Decoding prints what Go's encoding/json would print for the decoded struct, so compared with a JSON
object as a client (or the server's defaulting) wrote it, the decoded one may:

* add fields holding Go zero values: `{}` for a non-pointer struct (recursively zero), `null` for a
  zero metav1.Time/MicroTime, `""`/`0`/`false` for a scalar without `omitempty`;
* drop fields holding zero values: `omitempty` scalars at zero (`"globalDefault": false`), empty lists
  and maps, `null`s;
* respell timestamps (metav1.Time keeps whole seconds, MicroTime exactly six fractional digits).

`differences` lists everything else, each as a readable path.
"""

from __future__ import annotations

from typing import Any

from orch_apiserver.schema.scalars import parse_rfc3339
from orch_apiserver.schema.wire import ProtobufError


def is_zero(value: Any) -> bool:
    if value is None or value == "" or value == [] or value == {}:
        return True
    if isinstance(value, bool):
        return value is False
    if isinstance(value, (int, float)):
        return value == 0
    if isinstance(value, dict):
        return all(is_zero(v) for v in value.values())
    return False


def _same_time(a: Any, b: Any) -> bool:
    if not (isinstance(a, str) and isinstance(b, str)):
        return False
    try:
        (sa, na), (sb, nb) = parse_rfc3339(a, ""), parse_rfc3339(b, "")
    except ProtobufError:
        return False
    return sa == sb and (na // 1000 == nb // 1000 or nb == 0)


def differences(original: Any, decoded: Any, path: str = "") -> list[str]:
    if isinstance(original, dict) and isinstance(decoded, dict):
        out: list[str] = []
        for key in original.keys() | decoded.keys():
            sub = f"{path}.{key}" if path else key
            if key not in decoded:
                if not is_zero(original[key]):
                    out.append(f"{sub}: {original[key]!r} was lost")
            elif key not in original:
                if not is_zero(decoded[key]):
                    out.append(f"{sub}: {decoded[key]!r} appeared")
            else:
                out += differences(original[key], decoded[key], sub)
        return out
    if isinstance(original, list) and isinstance(decoded, list):
        if len(original) != len(decoded):
            return [f"{path}: {len(original)} items became {len(decoded)}"]
        return [
            d for i, (a, b) in enumerate(zip(original, decoded, strict=True)) for d in differences(a, b, f"{path}[{i}]")
        ]
    if original == decoded and type(original) is type(decoded):
        return []
    if isinstance(original, float) and isinstance(decoded, int) and original == decoded:
        return []
    if _same_time(original, decoded):
        return []
    return [f"{path}: {original!r} became {decoded!r}"]
