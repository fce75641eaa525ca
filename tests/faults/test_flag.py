"""--enable-fault-injection: off by default, kept to loopback unless forced, the kind served only with it."""

from __future__ import annotations

import pytest
from orch_apiserver.cli import parse_settings
from orch_apiserver.naming import Naming
from orch_apiserver.resources import add_fault_kind, build_catalog


def settings(*flags: str) -> object:
    return parse_settings(["--data-dir", "/tmp/unused-orch-data", *flags], environ={})


def test_off_by_default_and_on_with_the_flag() -> None:
    assert settings().enable_fault_injection is False  # type: ignore[attr-defined]
    assert settings("--enable-fault-injection").enable_fault_injection is True  # type: ignore[attr-defined]
    assert settings("--enable-fault-injection=false").enable_fault_injection is False  # type: ignore[attr-defined]


def test_a_non_loopback_bind_address_is_refused_unless_forced(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as refused:
        settings("--enable-fault-injection", "--bind-address", "0.0.0.0")
    assert refused.value.code == 2
    err = capsys.readouterr().err
    assert "--enable-fault-injection" in err and "0.0.0.0" in err and "=force" in err
    forced = settings("--enable-fault-injection=force", "--bind-address", "0.0.0.0")
    assert forced.enable_fault_injection == "force"  # type: ignore[attr-defined]
    assert settings("--enable-fault-injection", "--bind-address", "::1").enable_fault_injection is True  # type: ignore[attr-defined]


def test_a_bad_value_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        settings("--enable-fault-injection=sometimes")
    assert "expected true, false or force" in capsys.readouterr().err


def test_the_kind_is_in_the_catalog_only_with_the_flag() -> None:
    naming = Naming()
    assert build_catalog(naming).lookup("testing.orch.io", "v1alpha1", "faults") is None
    served = add_fault_kind(build_catalog(naming), naming).lookup("testing.orch.io", "v1alpha1", "faults")
    assert served is not None and not served.namespaced and served.kind == "Fault"
