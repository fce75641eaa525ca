"""Plain and tagged scalars resolved as go-yaml v2 resolves them (resolve.go, decode.go `scalar`), the library
under sigs.k8s.io/yaml that the reference reads every YAML body and manifest with.

Unlike PyYAML's YAML 1.1 set: no base-60 numbers, no `=` value tag, timestamps stay strings, unknown tags keep the
scalar's text; like it: y/yes/on/... are booleans."""

from __future__ import annotations

import base64
import binascii
import calendar
import codecs
import re
from typing import Any

import yaml

PLAIN = ""  # the tag PyYAML gives an untagged plain scalar here: no document can spell an empty tag
LONG = "tag:yaml.org,2002:"
STR, BOOL, INT, FLOAT, NULL = LONG + "str", LONG + "bool", LONG + "int", LONG + "float", LONG + "null"
TIMESTAMP, BINARY, MERGE = LONG + "timestamp", LONG + "binary", LONG + "merge"
RESOLVABLE = frozenset({STR, BOOL, INT, FLOAT, NULL, TIMESTAMP})

INF = float("inf")
WORDS: dict[str, tuple[str, Any]] = {
    **dict.fromkeys(("y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"), (BOOL, True)),
    **dict.fromkeys(("n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"), (BOOL, False)),
    **dict.fromkeys(("", "~", "null", "Null", "NULL"), (NULL, None)),
    **dict.fromkeys((".nan", ".NaN", ".NAN"), (FLOAT, float("nan"))),
    **dict.fromkeys((".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF"), (FLOAT, INF)),
    **dict.fromkeys(("-.inf", "-.Inf", "-.INF"), (FLOAT, -INF)),
}
WORD_STARTS = frozenset("yYnNtTfFoO~")
NUMBER_STARTS = frozenset("+-0123456789")

# strconv.ParseInt(s, 0, 64) after go-yaml drops every underscore: sign, then 0x/0o/0b, leading-0 octal or decimal
GO_INT = re.compile(r"([+-]?)(?:0[xX]([0-9a-fA-F]+)|0[oO]([0-7]+)|0[bB]([01]+)|(0[0-7]*)|([1-9][0-9]*))\Z")
YAML_STYLE_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
# strconv.ParseFloat of a value starting with '.': Go float syntax, underscores only between digits
DOT_FLOAT = re.compile(r"\.[0-9](_?[0-9])*([eE][-+]?[0-9](_?[0-9])*)?\Z")
# the layouts go-yaml tries with time.Parse: "2006-1-2T15:4:5.999999999Z07:00" (T or t), "2006-1-2 15:4:5.999999999",
# "2006-1-2"; only an explicit !!timestamp tag needs this check, untagged timestamps are strings either way
TIMESTAMP_FORMAT = re.compile(
    r"(\d{4})-(\d\d?)-(\d\d?)(?:(?:([Tt])|( ))(\d\d?):(\d\d?):(\d\d?)(?:[.,]\d+)?"
    r"(Z|[+-]\d\d:\d\d)?)?\Z"
)
INT64 = 1 << 63


class GoYamlError(yaml.YAMLError):
    """What go-yaml or the JSON conversion after it refuses (the reference answers 400)."""


class Uint64(int):
    """go-yaml's uint64: an integer past int64 that still fits 64 bits unsigned (no map key may be one)."""


def go_int(plain: str) -> int | None:
    match = GO_INT.match(plain)
    if match is None:
        return None
    sign, hexa, octal, binary, zero_octal, decimal = match.groups()
    if hexa is not None:
        value = int(hexa, 16)
    elif octal is not None:
        value = int(octal, 8)
    elif binary is not None:
        value = int(binary, 2)
    elif zero_octal is not None:
        value = int(zero_octal, 8)
    else:
        value = int(decimal)
    value = -value if sign == "-" else value
    if -INT64 <= value < INT64:
        return value
    if not sign and value < 2 * INT64:  # strconv.ParseUint takes no sign
        return Uint64(value)
    return None


def go_float(text: str) -> float | None:
    """strconv.ParseFloat of a syntax already checked: out of range is an error there, not an infinity."""
    value = float(text.replace("_", ""))
    return None if value in (INF, -INF) else value


def resolve(tag: str, text: str) -> tuple[str, Any]:
    """go-yaml's resolve(): the tag it settles on and the value (untagged plain scalars have tag PLAIN)."""
    if tag != PLAIN and tag not in RESOLVABLE:
        return tag, text
    first = text[:1]
    if tag == STR or (first and first not in WORD_STARTS and first not in NUMBER_STARTS and first != "."):
        return STR, text
    if text in WORDS:
        return WORDS[text]
    if first == ".":
        if DOT_FLOAT.match(text) and (value := go_float(text)) is not None:
            return FLOAT, value
    elif first in NUMBER_STARTS:
        if tag == TIMESTAMP and is_timestamp(text):
            return TIMESTAMP, text
        plain = text.replace("_", "")
        number = go_int(plain)
        if number is not None:
            return INT, number
        if YAML_STYLE_FLOAT.match(plain) and (value := go_float(plain)) is not None:
            return FLOAT, value
    return STR, text


def is_timestamp(text: str) -> bool:
    match = TIMESTAMP_FORMAT.match(text)
    if match is None:
        return False
    year, month, day, upper_t, space, hour, minute, second, zone = match.groups()
    if (upper_t and not zone) or (space and zone):  # the T layouts end with a zone, the space layout has none
        return False
    if not 1 <= int(month) <= 12 or not 1 <= int(day) <= calendar.monthrange(int(year), int(month))[1]:
        return False
    if hour is not None and (int(hour) > 23 or int(minute) > 59 or int(second) > 59):
        return False
    return not zone or zone == "Z" or (int(zone[1:3]) <= 24 and int(zone[4:6]) <= 60)


def scalar(node: yaml.ScalarNode) -> Any:
    """A scalar as go-yaml decodes it into interface{} (decode.go `scalar`); binary becomes text as Go's string."""
    if node.tag == BINARY:
        try:
            data = base64.b64decode(re.sub(r"[\r\n]", "", node.value), validate=True)
        except (binascii.Error, ValueError):
            raise GoYamlError("yaml: !!binary value contains invalid base64 data") from None
        return data.decode("utf-8", "orch-go-replace")  # Go's JSON encoder: U+FFFD for each invalid byte
    tag, value = resolve(node.tag, node.value)
    if node.tag in (PLAIN, STR, tag) or node.tag not in RESOLVABLE:
        return node.value if tag == TIMESTAMP else value
    if node.tag == FLOAT and tag == INT and not isinstance(value, Uint64):
        return float(value)
    raise GoYamlError(f"yaml: cannot decode {short(tag)} `{node.value}` as a {short(node.tag)}")


def short(tag: str) -> str:
    return "!!" + tag[len(LONG) :] if tag.startswith(LONG) else tag


def _replace_each_byte(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    return "\ufffd", exc.start + 1


codecs.register_error("orch-go-replace", _replace_each_byte)
