"""Hypothesis strategies for JSON objects shaped by our typed schemas (app/schema), any kind and version."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st
from orch_apiserver.naming import Naming
from orch_apiserver.schema import schema_for
from orch_apiserver.schema import types as t

NAMING = Naming()
_WORDS = st.text(alphabet="abcdefgh-", min_size=1, max_size=6)
_TIMES = st.sampled_from(["2024-01-01T00:00:00Z", "2024-05-06T07:08:09Z"])
_MICRO_TIMES = st.sampled_from(["2024-01-01T00:00:00.000000Z", "2024-05-06T07:08:09.123456Z"])
_SCALARS: dict[t.Scalar, st.SearchStrategy[Any]] = {
    t.STRING: _WORDS,
    t.INT32: st.integers(-5, 1000),
    t.INT64: st.integers(-5, 10**12),
    t.BOOL: st.booleans(),
    t.DOUBLE: st.floats(-10, 10, allow_nan=False),
    t.BYTES: st.sampled_from(["", "aGk="]),
    t.QUANTITY: st.sampled_from(["1", "250m", "1Gi"]),
    t.INT_OR_STRING: st.one_of(st.integers(0, 100), st.sampled_from(["25%", "http"])),
    t.TIME: _TIMES,
    t.MICRO_TIME: _MICRO_TIMES,
    t.FIELDS_V1: st.just({}),
    t.RAW_EXTENSION: st.just({}),
}
# metadata is not converted: keep it small and valid
_METADATA = st.fixed_dictionaries(
    {"name": _WORDS},
    optional={
        "labels": st.dictionaries(_WORDS, _WORDS, max_size=2),
        "annotations": st.dictionaries(_WORDS, _WORDS, max_size=2),
    },
)


def values(spec: t.TypeSpec, depth: int) -> st.SearchStrategy[Any]:
    if isinstance(spec, t.Scalar):
        return _SCALARS[spec]
    if isinstance(spec, t.ListOf):
        return st.lists(values(spec.item, depth + 1), max_size=2 if depth < 4 else 0)
    if isinstance(spec, t.MapOf):
        return st.dictionaries(_WORDS, values(spec.value, depth + 1), max_size=2 if depth < 4 else 0)
    return structs(spec, depth)


def structs(struct: t.Struct, depth: int = 0) -> st.SearchStrategy[dict[str, Any]]:
    """Objects of `struct`: every field optional (deep structs stay shallow to keep examples small)."""
    if depth > 5:
        return st.just({})
    optional: dict[str, st.SearchStrategy[Any]] = {}
    for key, path in struct.json_fields.items():
        f = path[-1]
        if key == "metadata":
            optional[key] = _METADATA
        elif key not in ("apiVersion", "kind"):
            optional[key] = st.deferred(lambda f=f: values(f.type, depth + 1))
    return st.fixed_dictionaries({}, optional=optional)


def objects(api_version: str, kind: str, **fixed: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    """Whole objects of (apiVersion, kind) as served under the default Naming; `fixed` overrides fields."""
    body = structs(schema_for(api_version, kind, NAMING))
    return st.tuples(body, st.fixed_dictionaries(fixed)).map(
        lambda pair: {"apiVersion": api_version, "kind": kind, **pair[0], **pair[1]}
    )
