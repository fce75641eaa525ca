"""A node graph as the JSON the reference decodes after sigs.k8s.io/yaml's YAMLToJSON (yaml.go): go-yaml v2 values,
keys made strings, then json.Marshal and the apiserver's JSON decoding (integers kept when they fit int64)."""

from __future__ import annotations

import math
import struct
from typing import Any

import yaml

from .scalars import MERGE, PLAIN, GoYamlError, Uint64, scalar

INT64 = 1 << 63


def to_json(node: yaml.Node, float64: bool = False) -> Any:
    """`float64`: every number through float64, as sigs.k8s.io/yaml.Unmarshal into a map (the apply patch path)."""
    if isinstance(node, yaml.ScalarNode):
        return _number(scalar(node), float64)
    if isinstance(node, yaml.SequenceNode):
        return [to_json(child, float64) for child in node.value]
    out: dict[str, Any] = {}
    if isinstance(node, yaml.MappingNode):
        _fill(node, out, float64)
    return out


def _fill(node: yaml.MappingNode, out: dict[str, Any], float64: bool) -> None:
    """go-yaml v2 sets keys in document order, merged ones included: whatever comes later wins."""
    for key_node, value_node in node.value:
        if isinstance(key_node, yaml.ScalarNode) and key_node.value == "<<" and key_node.tag in (PLAIN, MERGE):
            _merge(value_node, out, float64)
            continue
        out[_key(key_node)] = to_json(value_node, float64)


def _merge(node: yaml.Node, out: dict[str, Any], float64: bool) -> None:
    if isinstance(node, yaml.MappingNode):
        _fill(node, out, float64)
        return
    if isinstance(node, yaml.SequenceNode) and all(isinstance(item, yaml.MappingNode) for item in node.value):
        for item in reversed(node.value):  # earlier maps take precedence
            _fill(item, out, float64)
        return
    raise GoYamlError("yaml: map merge requires map or sequence of maps as the value")


def _key(node: yaml.Node) -> str:
    if not isinstance(node, yaml.ScalarNode):
        raise GoYamlError(f"yaml: invalid map key: a {'map' if isinstance(node, yaml.MappingNode) else 'sequence'}")
    value = scalar(node)
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None or isinstance(value, Uint64):
        kind = "<nil>" if value is None else "uint64"
        raise GoYamlError(f"unsupported map key of type: {kind}, key: {node.value}")
    if isinstance(value, int):
        return str(value)
    return float32_text(value)


def _number(value: Any, float64: bool) -> Any:
    if isinstance(value, (str, bool)) or value is None:
        return value
    if isinstance(value, Uint64):  # json.Marshal writes its digits, which no int64 holds: read back as float64
        return float(value)
    if isinstance(value, int):
        return _float(float(value)) if float64 else value
    return _float(value)


def _float(value: float) -> int | float:
    """json.Marshal's text of a float64 and the apiserver's reading of it: integral values become integers."""
    if math.isnan(value) or math.isinf(value):
        text = "NaN" if math.isnan(value) else ("+Inf" if value > 0 else "-Inf")
        raise GoYamlError(f"json: unsupported value: {text}")
    if value.is_integer() and -INT64 <= value < INT64:
        return int(value)
    return value


def _as_float32(value: float) -> float:
    return float(struct.unpack("f", struct.pack("f", value))[0])


def float32_text(value: float) -> str:
    """strconv.FormatFloat(value, 'g', -1, 32) with go-yaml's spellings of infinities and NaN (a float map key)."""
    if math.isnan(value):
        return ".nan"
    try:
        single = _as_float32(value)
    except OverflowError:
        single = math.copysign(math.inf, value)
    if math.isinf(single):
        return ".inf" if single > 0 else "-.inf"
    sign = "-" if math.copysign(1.0, single) < 0 else ""
    if single == 0:
        return sign + "0"
    for precision in range(9):  # the shortest decimal that reads back as the same float32
        text = f"{abs(single):.{precision}e}"
        if _as_float32(float(text)) == abs(single):
            break
    mantissa, exponent_text = text.split("e")
    digits, exponent = mantissa.replace(".", ""), int(exponent_text)
    if exponent < -4 or exponent >= 6:
        fraction = "." + digits[1:] if len(digits) > 1 else ""
        return f"{sign}{digits[0]}{fraction}e{'-' if exponent < 0 else '+'}{abs(exponent):02d}"
    point = exponent + 1
    if point <= 0:
        return f"{sign}0.{'0' * -point}{digits}"
    if point >= len(digits):
        return sign + digits + "0" * (point - len(digits))
    return f"{sign}{digits[:point]}.{digits[point:]}"
