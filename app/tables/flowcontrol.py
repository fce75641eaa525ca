"""Printers for API priority and fairness: FlowSchema and PriorityLevelConfiguration.

PriorityLevelConfiguration's shares column is NominalConcurrencyShares in v1 and AssuredConcurrencyShares in the
betas (the field's name there); rows read either spelling.
"""

from __future__ import annotations

from datetime import datetime

from .columns import (
    NONE,
    Cell,
    Column,
    Obj,
    TableSpec,
    age,
    age_column,
    dicts,
    integer,
    mapping,
    name_column,
    name_of,
    table,
    text,
)

PREFIX = "flowcontrol.apiserver"


def _dangling(obj: Obj) -> str:
    """MissingPL: the status of the Dangling condition, `?` when there is none."""
    for condition in dicts(obj, "status", "conditions"):
        if condition.get("type") == "Dangling":
            return text(condition, "status")
    return "?"


def _flow_schema_cells(obj: Obj, now: datetime) -> list[Cell]:
    method = mapping(obj, "spec", "distinguisherMethod")
    return [
        name_of(obj),
        text(obj, "spec", "priorityLevelConfiguration", "name"),
        integer(obj, "spec", "matchingPrecedence"),
        text(method, "type") if method else NONE,
        age(obj, now),
        _dangling(obj),
    ]


FLOW_SCHEMA_TABLE = table(
    [
        name_column(),
        Column(
            "PriorityLevel",
            description="`priorityLevelConfiguration` should reference a PriorityLevelConfiguration in the cluster.",
        ),
        Column(
            "MatchingPrecedence",
            "string",
            "`matchingPrecedence` is used to choose among the FlowSchemas that match a given request.",
        ),
        Column(
            "DistinguisherMethod",
            description="`distinguisherMethod` defines how to compute the flow "
            "distinguisher for requests that match this schema.",
        ),
        age_column(),
        Column(
            "MissingPL", description="indicates whether the priority level referenced by this flow schema is missing"
        ),
    ],
    _flow_schema_cells,
)


def _priority_level_cells(obj: Obj, now: datetime) -> list[Cell]:
    limited = mapping(obj, "spec", "limited")
    shares: Cell = NONE
    queues: Cell = NONE
    hand: Cell = NONE
    length: Cell = NONE
    if limited:
        found = limited.get("nominalConcurrencyShares", limited.get("assuredConcurrencyShares"))
        shares = found if isinstance(found, int) else 0
        queuing = mapping(limited, "limitResponse", "queuing")
        if queuing:
            queues, hand = integer(queuing, "queues"), integer(queuing, "handSize")
            length = integer(queuing, "queueLengthLimit")
    return [name_of(obj), text(obj, "spec", "type"), shares, queues, hand, length, age(obj, now)]


def _priority_level_table(shares_column: str) -> TableSpec:
    return table(
        [
            name_column(),
            Column(
                "Type",
                description="`type` indicates whether this priority level is subject to limitation on "
                "request execution.",
            ),
            Column(
                shares_column, description="`limited` specifies how requests are handled for a Limited priority level."
            ),
            Column("Queues", description="`queues` is the number of queues for this priority level."),
            Column(
                "HandSize",
                description="`handSize` is a small positive number that configures the shuffle "
                "sharding of requests into queues.",
            ),
            Column(
                "QueueLengthLimit",
                description="`queueLengthLimit` is the maximum number of requests allowed "
                "to be waiting in a given queue of this priority level at a time.",
            ),
            age_column(),
        ],
        _priority_level_cells,
    )


PRIORITY_LEVEL_TABLE = _priority_level_table("NominalConcurrencyShares")
BETA_PRIORITY_LEVEL_TABLE = _priority_level_table("AssuredConcurrencyShares")


def tables() -> dict[tuple[str, str], TableSpec]:
    return {(PREFIX, "flowschemas"): FLOW_SCHEMA_TABLE, (PREFIX, "prioritylevelconfigurations"): PRIORITY_LEVEL_TABLE}


def versioned_tables() -> dict[tuple[str, str, str], TableSpec]:
    """(group prefix, plural, version) -> printer, where a version's columns differ from the kind's."""
    return {(PREFIX, "prioritylevelconfigurations", v): BETA_PRIORITY_LEVEL_TABLE for v in ("v1beta1", "v1beta2")}
