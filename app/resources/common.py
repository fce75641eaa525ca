"""Small helpers shared by the per-group resource modules: dict paths, field checks, base strategy."""

from __future__ import annotations

import base64
import binascii
import copy
import re
from collections.abc import Callable
from typing import Any, ClassVar

from ..catalog import Obj, Strategy
from ..errors import FieldError, invalid
from ..naming import Naming

Getter = Callable[[Obj], str]

_CONFIG_KEY = re.compile(r"^[-._a-zA-Z0-9]+$")
_PERCENT = re.compile(r"^[0-9]+%$")
_BASE64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")
CONFIG_KEY_MSG = (
    "a valid config key must consist of alphanumeric characters, '-', '_' or '.' "
    "(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is "
    "'[-._a-zA-Z0-9]+')"
)


def dig(obj: Any, *path: str | int, default: Any = None) -> Any:
    """The value at `path` inside nested dicts/lists, or `default` when any step is missing."""
    cur = obj
    for step in path:
        if isinstance(step, int):
            if not isinstance(cur, list) or step >= len(cur):
                return default
        elif not isinstance(cur, dict) or step not in cur:
            return default
        cur = cur[step]
    return default if cur is None else cur


def child(obj: Obj, key: str) -> Obj:
    """obj[key] as a dict, created (or replaced when null) if missing."""
    value = obj.get(key)
    if not isinstance(value, dict):
        value = obj[key] = {}
    return value


def part(obj: Any, key: str) -> Obj:
    """obj[key] when it is a dict, else {} (a read-only `child` for validation)."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list:
    return value if isinstance(value, list) else []


def items(obj: Any, key: str) -> list[Obj]:
    """The dict entries of the list obj[key] (non-dicts skipped, missing -> [])."""
    value = obj.get(key) if isinstance(obj, dict) else None
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def containers(spec: Any, ephemeral: bool = False) -> list[Obj]:
    """A pod spec's init containers, then its containers (then its ephemeral ones), as the reference visits them."""
    keys = ("initContainers", "containers", "ephemeralContainers") if ephemeral else ("initContainers", "containers")
    return [c for key in keys for c in items(spec, key)]


def setdefault(obj: Obj, key: str, value: Any) -> None:
    """Set obj[key] when it is absent or null (Go's nil-pointer defaulting)."""
    if obj.get(key) is None:
        obj[key] = copy.deepcopy(value)


def setdefault_empty(obj: Obj, key: str, value: Any) -> None:
    """Set obj[key] when it is absent, null or an empty string/list/map (Go's zero-value defaulting)."""
    if obj.get(key) in (None, "", [], {}):
        obj[key] = copy.deepcopy(value)


def field(*path: str, default: str = "") -> Getter:
    """A field-selector getter rendering the value the way the reference's selectable fields do."""

    def get(obj: Obj) -> str:
        value = dig(obj, *path)
        if value is None:
            return default
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(value)

    return get


def immutable(path: str, new: Any, old: Any) -> list[FieldError]:
    return [] if new == old else [invalid(path, new, "field is immutable")]


def non_negative(path: str, value: Any) -> list[FieldError]:
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        return [invalid(path, value, "must be greater than or equal to 0")]
    return []


def positive(path: str, value: Any) -> list[FieldError]:
    if isinstance(value, int) and not isinstance(value, bool) and value <= 0:
        return [invalid(path, value, "must be greater than 0")]
    return []


def base64_error(path: str, value: Any) -> FieldError | None:
    """A field error when `value` is not standard padded base64 (Go's []byte JSON encoding)."""
    if not isinstance(value, str):
        return invalid(path, value, "must be a base64-encoded string")
    text = value.replace("\r", "").replace("\n", "")  # Go's decoder skips line breaks
    try:
        base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        bad = next((i for i, ch in enumerate(text) if ch not in _BASE64_CHARS), len(text) - len(text) % 4)
        # worded as Go's decoder; never echo the (possibly secret) value back
        return FieldError("FieldValueInvalid", path, f"illegal base64 data at input byte {bad}", show_value=False)
    return None


def config_key_errors(path: str, mapping: Any) -> list[FieldError]:
    errors = []
    for key in mapping or {}:
        if not _CONFIG_KEY.match(key):
            errors.append(invalid(f"{path}[{key}]", key, CONFIG_KEY_MSG))
        elif key in (".", ".."):
            errors.append(invalid(f"{path}[{key}]", key, f"must not be '{key}'"))
    return errors


def int_or_percent_errors(path: str, value: Any, *, max_percent: int | None = None) -> list[FieldError]:
    """IntOrString checks used for maxSurge/maxUnavailable/minAvailable."""
    if value is None:
        return []
    if isinstance(value, bool):
        return [invalid(path, value, "must be an integer or percentage (e.g '5%')")]
    if isinstance(value, int):
        return non_negative(path, value)
    if not isinstance(value, str) or not _PERCENT.match(value):
        return [
            invalid(
                path,
                value,
                "a valid percent string must be a numeric string followed by an ending "
                "'%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
            )
        ]
    if max_percent is not None and int(value[:-1]) > max_percent:
        return [invalid(path, value, f"must not be greater than {max_percent}%")]
    return []


def is_zero_int_or_percent(value: Any) -> bool:
    return value in (0, "0%", "0")


class KindStrategy(Strategy):
    """A Strategy bound to the server's Naming, with the reference's create-time status reset."""

    #: the status a new object starts with (the reference's PrepareForCreate); None leaves it alone.
    initial_status: ClassVar[Obj | None] = None

    def __init__(self, naming: Naming) -> None:
        self.naming = naming

    def prepare_for_create(self, obj: Obj) -> None:
        if self.initial_status is not None:
            obj["status"] = copy.deepcopy(self.initial_status)
        self.default(obj)  # defaults may fill what the reset cleared (read-time defaulting upstream)

    def prepare_for_update(self, obj: Obj, old: Obj) -> None:
        self.default(obj)

    def validate_update(self, obj: Obj, old: Obj) -> list[FieldError]:
        return self.validate(obj) + self.validate_change(obj, old)

    def validate_change(self, obj: Obj, old: Obj) -> list[FieldError]:
        """Update-only rules (immutable fields); validate_update adds them to validate()."""
        return []


class NoSpecStrategy(KindStrategy):
    """Kinds whose objects have no spec/status split: no generation, nothing to default."""

    generation = False
