from __future__ import annotations

from datetime import timedelta

import pytest
from orch_apiserver.tables import DEFAULT_TABLE, human_duration
from orch_apiserver.tables.columns import format_label_selector, format_labels, list_with_more, parse_time, since

from tests.tables.helpers import NOW, ago, obj

S, M, H, D = 1, 60, 3600, 86400
Y = 365 * D


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (0, "0s"),
        (1, "1s"),
        (59, "59s"),
        (119, "119s"),
        (120, "2m"),
        (121, "2m1s"),
        (9 * M + 59, "9m59s"),
        (10 * M, "10m"),
        (10 * M + 30, "10m"),
        (179 * M, "179m"),
        (3 * H, "3h"),
        (3 * H + 25 * M, "3h25m"),
        (7 * H + 59 * M, "7h59m"),
        (8 * H, "8h"),
        (8 * H + 59 * M, "8h"),
        (47 * H, "47h"),
        (48 * H, "2d"),
        (2 * D + 5 * H, "2d5h"),
        (7 * D + 23 * H, "7d23h"),
        (8 * D, "8d"),
        (8 * D + 23 * H, "8d"),
        (729 * D, "729d"),
        (2 * Y, "2y"),
        (2 * Y + 10 * D, "2y10d"),
        (7 * Y + 364 * D, "7y364d"),
        (8 * Y, "8y"),
        (20 * Y + 100 * D, "20y"),
    ],
)
def test_human_duration(seconds: int, expected: str) -> None:
    assert human_duration(timedelta(seconds=seconds)) == expected


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [(-0.5, "0s"), (-1, "0s"), (-1.9, "0s"), (-2, "<invalid>"), (-3600, "<invalid>"), (59.9, "59s"), (120.9, "2m")],
)
def test_human_duration_edges(seconds: float, expected: str) -> None:
    assert human_duration(timedelta(seconds=seconds)) == expected


def test_since_missing_or_bad_time_is_unknown() -> None:
    assert since(None, NOW) == "<unknown>"
    assert since("", NOW) == "<unknown>"
    assert since("yesterday", NOW) == "<unknown>"
    assert since(ago(seconds=42), NOW) == "42s"


def test_parse_time_accepts_micro_time_and_offsets() -> None:
    assert parse_time("2024-05-01T11:59:00.123456Z") is not None
    assert since("2024-05-01T13:59:00+02:00", NOW) == "60s"


def test_format_labels_sorted_or_none() -> None:
    assert format_labels({"b": "2", "a": "1"}) == "a=1,b=2"
    assert format_labels({}) == "<none>"
    assert format_labels(None) == "<none>"


def test_format_label_selector() -> None:
    selector = {
        "matchLabels": {"app": "web"},
        "matchExpressions": [
            {"key": "tier", "operator": "In", "values": ["b", "a"]},
            {"key": "legacy", "operator": "DoesNotExist"},
        ],
    }
    assert format_label_selector(selector) == "app=web,!legacy,tier in (a,b)"
    assert format_label_selector({}) == "<none>"
    assert format_label_selector(None) == "<none>"
    assert format_label_selector({"matchExpressions": [{"key": "a", "operator": "Bogus"}]}) == "<error>"


def test_list_with_more() -> None:
    assert list_with_more([], 0) == "<unset>"
    assert list_with_more(["a", "b"], 2) == "a,b"
    assert list_with_more(["a", "b", "c", "d"], 5) == "a,b,c + 2 more..."


def test_default_table() -> None:
    assert DEFAULT_TABLE.column_definitions() == [
        {
            "name": "Name",
            "type": "string",
            "format": "name",
            "description": DEFAULT_TABLE.columns[0].description,
            "priority": 0,
        },
        {
            "name": "Created At",
            "type": "date",
            "format": "",
            "description": DEFAULT_TABLE.columns[1].description,
            "priority": 0,
        },
    ]
    row = DEFAULT_TABLE.row(obj("r", created="2024-01-02T03:04:05+01:00"), NOW)
    assert row == {"cells": ["r", "2024-01-02T02:04:05Z"]}
    assert DEFAULT_TABLE.row({"metadata": {"name": "n"}}, NOW)["cells"] == ["n", "0001-01-01T00:00:00Z"]
