"""API Priority and Fairness bootstrap configuration, as the reference's v1.23 keeps it
(pkg/apis/flowcontrol/bootstrap, pkg/registry/flowcontrol/ensurer):

- mandatory objects (`exempt` and `catch-all`, each a FlowSchema and a PriorityLevelConfiguration): created when
  missing, their spec put back whenever it differs;
- suggested objects (system, node-high, leader-election, workload-high, workload-low, global-default, ...):
  created when missing, their spec updated while `apf.<key domain>/autoupdate-spec` says "true" (absent or not a
  boolean: only while generation is 1, i.e. nobody changed it).

The server writes them as itself (the reference's loopback client), not as a service account.
"""

from __future__ import annotations

import copy
import logging
from typing import TYPE_CHECKING, Any

from ..errors import AlreadyExists, Conflict, NotFound
from .base import Client, Context, Controller

if TYPE_CHECKING:
    from ..catalog import ResourceType
    from ..naming import Naming

log = logging.getLogger(__name__)

NAME = "apf-configuration"
VERSION = "v1beta2"  # the version the reference's v1.23 bootstrap objects are written in
EXEMPT = "exempt"
CATCH_ALL = "catch-all"
ALL = ["*"]
MASTERS_GROUP = "system:masters"
NODES_GROUP = "system:nodes"
EVERYONE = ("system:unauthenticated", "system:authenticated")
SERVICE_ACCOUNTS_GROUP = "system:serviceaccounts"


def autoupdate_annotation(naming: Naming) -> str:
    """The reference's `apf.kubernetes.io/autoupdate-spec`, in this server's key domain."""
    return f"{naming.key_group('apf')}/autoupdate-spec"


def _queuing(queues: int, hand_size: int, length: int) -> dict[str, Any]:
    return {"type": "Queue", "queuing": {"queues": queues, "handSize": hand_size, "queueLengthLimit": length}}


def _limited(shares: int, response: dict[str, Any]) -> dict[str, Any]:
    return {"type": "Limited", "limited": {"assuredConcurrencyShares": shares, "limitResponse": response}}


def _groups(*names: str) -> list[dict[str, Any]]:
    return [{"kind": "Group", "group": {"name": name}} for name in names]


def _users(*names: str) -> list[dict[str, Any]]:
    return [{"kind": "User", "user": {"name": name}} for name in names]


def _service_accounts(namespace: str) -> list[dict[str, Any]]:
    return [{"kind": "ServiceAccount", "serviceAccount": {"name": "*", "namespace": namespace}}]


def _resources(
    verbs: list[str], groups: list[str], resources: list[str], namespaces: list[str], cluster: bool
) -> dict[str, Any]:
    rule: dict[str, Any] = {"verbs": verbs, "apiGroups": groups, "resources": resources, "namespaces": namespaces}
    if cluster:
        rule["clusterScope"] = True
    return rule


def _everything(subjects: list[dict[str, Any]]) -> dict[str, Any]:
    """Rules matching every request of `subjects`."""
    return {
        "subjects": subjects,
        "resourceRules": [_resources(ALL, ALL, ALL, ALL, True)],
        "nonResourceRules": [{"verbs": ALL, "nonResourceURLs": ALL}],
    }


#: the part of each bootstrap level's seats other levels may borrow: the reference's v1.26+ bootstrap values
#: (`lendablePercent`, absent from the v1beta1/v1beta2 objects this server serves); other levels lend nothing
LENDABLE_PERCENT = {
    "system": 33,
    "node-high": 25,
    "leader-election": 0,
    "workload-high": 50,
    "workload-low": 90,
    "global-default": 50,
    CATCH_ALL: 0,
}


def priority_levels(naming: Naming) -> tuple[list[dict], list[dict]]:
    """(mandatory, suggested) PriorityLevelConfigurations: the reference's v1.23 names and specs."""
    mandatory = [
        (EXEMPT, {"type": "Exempt"}),
        (CATCH_ALL, _limited(5, {"type": "Reject"})),
    ]
    suggested = [
        ("system", _limited(30, _queuing(64, 6, 50))),
        ("node-high", _limited(40, _queuing(64, 6, 50))),
        ("leader-election", _limited(10, _queuing(16, 4, 50))),
        ("workload-high", _limited(40, _queuing(128, 6, 50))),
        ("workload-low", _limited(100, _queuing(128, 6, 50))),
        ("global-default", _limited(20, _queuing(128, 6, 50))),
    ]
    return (
        [_object(naming, "PriorityLevelConfiguration", name, spec) for name, spec in mandatory],
        [_object(naming, "PriorityLevelConfiguration", name, spec) for name, spec in suggested],
    )


def flow_schemas(naming: Naming) -> tuple[list[dict], list[dict]]:
    """(mandatory, suggested) FlowSchemas: the reference's v1.23 names and specs (`kube-` components and the
    `kube-system` namespace in this server's spelling)."""
    prefix, system = naming.namespace_prefix, naming.system_namespace
    controller_manager, scheduler = f"{prefix}-controller-manager", f"{prefix}-scheduler"
    system_accounts = f"{prefix}-system-service-accounts"
    leader_election = ["get", "create", "update"]
    mandatory = [
        _flow_schema(naming, EXEMPT, EXEMPT, 1, None, _everything(_groups(MASTERS_GROUP))),
        _flow_schema(naming, CATCH_ALL, CATCH_ALL, 10000, "ByUser", _everything(_groups(*EVERYONE))),
    ]
    suggested = [
        _flow_schema(naming, "system-nodes", "system", 500, "ByUser", _everything(_groups(NODES_GROUP))),
        _flow_schema(
            naming,
            "system-node-high",
            "node-high",
            400,
            "ByUser",
            {
                "subjects": _groups(NODES_GROUP),
                "resourceRules": [
                    _resources(ALL, [""], ["nodes", "nodes/status"], ALL, True),
                    _resources(ALL, [naming.group("coordination")], ["leases"], ALL, False),
                ],
            },
        ),
        _flow_schema(
            naming,
            "probes",
            EXEMPT,
            2,
            None,
            {
                "subjects": _groups(*EVERYONE),
                "nonResourceRules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz", "/readyz", "/livez"]}],
            },
        ),
        _flow_schema(
            naming,
            "system-leader-election",
            "leader-election",
            100,
            "ByUser",
            {
                "subjects": [
                    *_users(f"system:{controller_manager}", f"system:{scheduler}"),
                    *_service_accounts(system),
                ],
                "resourceRules": [
                    _resources(leader_election, [""], ["endpoints", "configmaps"], [system], False),
                    _resources(leader_election, [naming.group("coordination")], ["leases"], ALL, False),
                ],
            },
        ),
        _flow_schema(
            naming,
            "workload-leader-election",
            "leader-election",
            200,
            "ByUser",
            {
                "subjects": _service_accounts(system),
                "resourceRules": [
                    _resources(leader_election, [""], ["endpoints", "configmaps"], ALL, False),
                    _resources(leader_election, [naming.group("coordination")], ["leases"], ALL, False),
                ],
            },
        ),
        _flow_schema(
            naming,
            controller_manager,
            "workload-high",
            800,
            "ByNamespace",
            _everything(_users(f"system:{controller_manager}")),
        ),
        _flow_schema(
            naming, scheduler, "workload-high", 800, "ByNamespace", _everything(_users(f"system:{scheduler}"))
        ),
        _flow_schema(
            naming, system_accounts, "workload-high", 900, "ByNamespace", _everything(_service_accounts(system))
        ),
        _flow_schema(
            naming,
            "service-accounts",
            "workload-low",
            9000,
            "ByUser",
            _everything(_groups(SERVICE_ACCOUNTS_GROUP)),
        ),
        _flow_schema(naming, "global-default", "global-default", 9900, "ByUser", _everything(_groups(*EVERYONE))),
    ]
    return mandatory, suggested


def _flow_schema(
    naming: Naming, name: str, level: str, precedence: int, distinguisher: str | None, rules: dict[str, Any]
) -> dict:
    spec: dict[str, Any] = {
        "priorityLevelConfiguration": {"name": level},
        "matchingPrecedence": precedence,
        "rules": [rules],
    }
    if distinguisher:
        spec["distinguisherMethod"] = {"type": distinguisher}
    return _object(naming, "FlowSchema", name, spec)


def _object(naming: Naming, kind: str, name: str, spec: dict[str, Any]) -> dict:
    return {
        "apiVersion": f"{naming.group('flowcontrol.apiserver')}/{VERSION}",
        "kind": kind,
        "metadata": {"name": name, "annotations": {autoupdate_annotation(naming): "true"}},
        "spec": spec,
    }


def _parse_bool(value: Any) -> bool | None:
    """Go's strconv.ParseBool: None when `value` is not one of its spellings."""
    if value in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if value in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    return None


def desired_update(current: dict, bootstrap: dict, mandatory: bool, annotation: str) -> dict | None:
    """What `current` should become (None: leave it): the reference's ensure strategy."""
    md = current.get("metadata") or {}
    annotations = md.get("annotations") or {}
    auto_update = mandatory
    if not auto_update:
        parsed = _parse_bool(annotations.get(annotation))
        auto_update = parsed if parsed is not None else md.get("generation") == 1
    fix_annotation = _parse_bool(annotations.get(annotation)) is not auto_update
    fix_spec = auto_update and not _same_spec(current.get("spec") or {}, bootstrap["spec"])
    if not (fix_annotation or fix_spec):
        return None
    out = copy.deepcopy(current)
    if fix_annotation:
        out_md = out.setdefault("metadata", {})
        out_md["annotations"] = {**(out_md.get("annotations") or {}), annotation: "true" if auto_update else "false"}
    if fix_spec:
        out["spec"] = copy.deepcopy(bootstrap["spec"])
    return out


def _same_spec(current: dict, bootstrap: dict) -> bool:
    """Whether `current` (as served, defaults filled in) says what `bootstrap` says: every field the bootstrap
    sets is equal; a field only the stored object has is a default the server filled in."""
    return _covers(current, bootstrap)


def _covers(current: Any, wanted: Any) -> bool:
    if isinstance(wanted, dict):
        return isinstance(current, dict) and all(_covers(current.get(k), v) for k, v in wanted.items())
    if isinstance(wanted, list):
        return (
            isinstance(current, list)
            and len(current) == len(wanted)
            and all(_covers(c, w) for c, w in zip(current, wanted, strict=True))
        )
    return bool(current == wanted)


class ApfConfigurationProducer(Controller):
    """The reference's `priority-and-fairness-config-producer`: keeps the bootstrap objects as described above;
    a deleted or changed mandatory object is put back on the next sync (it watches both kinds)."""

    name = NAME
    resync_seconds = 60.0  # the reference re-ensures once a minute
    min_sync_interval = 0.2

    def __init__(self, ctx: Context) -> None:
        super().__init__(ctx)
        self.client = Client(ctx, None)  # the server's own writes
        self.flow_schemas = ctx.kind("flowcontrol.apiserver", "flowschemas", VERSION)
        self.priority_levels = ctx.kind("flowcontrol.apiserver", "prioritylevelconfigurations", VERSION)
        self.annotation = autoupdate_annotation(ctx.naming)

    def watches(self) -> list[ResourceType]:
        return [self.flow_schemas, self.priority_levels]

    def sync(self) -> None:
        levels_mandatory, levels_suggested = priority_levels(self.naming)
        schemas_mandatory, schemas_suggested = flow_schemas(self.naming)
        for rt, mandatory, suggested in (
            (self.priority_levels, levels_mandatory, levels_suggested),
            (self.flow_schemas, schemas_mandatory, schemas_suggested),
        ):
            for obj in suggested:
                self.ensure(rt, obj, mandatory=False)
            for obj in mandatory:
                self.ensure(rt, obj, mandatory=True)

    def ensure(self, rt: ResourceType, bootstrap: dict, mandatory: bool) -> None:
        name = bootstrap["metadata"]["name"]
        try:
            current = self.client.find(rt, None, name)
            if current is None:
                self.client.create(rt, None, bootstrap)
                log.info("created %s %s", bootstrap["kind"], name)
                return
            wanted = desired_update(current, bootstrap, mandatory, self.annotation)
            if wanted is not None:
                self.client.update(rt, None, wanted)
                log.info("updated %s %s", bootstrap["kind"], name)
        except (AlreadyExists, Conflict, NotFound):
            log.info("%s %s changed meanwhile; the next sync looks again", bootstrap["kind"], name)
