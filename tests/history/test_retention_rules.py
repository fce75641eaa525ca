"""--history-retention: parsed as the flag's users write it, resolved to the storage prefixes of the kinds."""

from __future__ import annotations

import pytest
from orch_apiserver.config import ConfigError, flask_config, settings_from_env
from orch_apiserver.naming import Naming
from orch_apiserver.registry.history import retention_rules
from orch_apiserver.resources import build_catalog


def test_the_rules_come_from_the_environment_and_star_is_the_rest() -> None:
    settings = settings_from_env({"ORCH_HISTORY_RETENTION": "leases=5m, events=1h,*=7d,deployments.apps=1d12h"})
    assert settings.history_retention == (
        ("leases", 300.0),
        ("events", 3600.0),
        ("*", 604800.0),
        ("deployments.apps", 129600.0),
    )
    assert flask_config(settings)["HISTORY_RETENTION"] == settings.history_retention
    assert settings_from_env({}).history_retention is None  # unset: --history-window for everything, as before


@pytest.mark.parametrize("bad", ["leases", "leases=", "=5m", "leases=0s", "leases=soon", "leases=xd", "leases=0d"])
def test_a_malformed_rule_is_refused(bad: str) -> None:
    with pytest.raises(ConfigError):
        settings_from_env({"ORCH_HISTORY_RETENTION": bad})


def test_kinds_resolve_to_their_storage_prefixes() -> None:
    catalog = build_catalog(Naming("orch.io"))
    rules = retention_rules((("leases", 300.0), ("widgets.example.com", 60.0), ("pods", 10.0)), catalog)
    assert [(r.name, r.prefixes, r.seconds) for r in rules] == [
        ("leases", ("/coordination.orch.io/leases/",), 300.0),
        ("widgets.example.com", ("/example.com/widgets/",), 60.0),  # a custom kind, before its CRD exists
        ("pods", ("/core/pods/",), 10.0),
    ]
    with pytest.raises(ValueError, match="resource.group"):
        retention_rules((("gizmos", 1.0),), catalog)
