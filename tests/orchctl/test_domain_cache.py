"""How orchctl tells a server's API domain from its discovery groups, and its per-server cache (no server)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from orch_apiserver.orchctl.domain import CACHE_TTL, DomainCache, UnknownDomain, domain_of_groups

REFERENCE_GROUPS = ["apps", "authentication.k8s.io", "authorization.k8s.io", "rbac.authorization.k8s.io", "batch"]


def test_the_domain_is_the_one_both_marker_groups_share() -> None:
    assert domain_of_groups(REFERENCE_GROUPS) == "k8s.io"
    assert domain_of_groups(["authorization.orch.io", "authentication.orch.io", "apps"]) == "orch.io"
    # a custom group that looks like one marker does not confuse it
    assert domain_of_groups([*REFERENCE_GROUPS, "authentication.example.com"]) == "k8s.io"


def test_no_answer_rather_than_a_wrong_one() -> None:
    with pytest.raises(UnknownDomain, match="name none; pass --api-domain"):
        domain_of_groups(["apps", "authentication.k8s.io"])
    with pytest.raises(UnknownDomain, match=r"several \(example.com, k8s.io\)"):
        domain_of_groups([*REFERENCE_GROUPS, "authentication.example.com", "authorization.example.com"])


def test_the_cache_is_per_server_and_per_certificate_authority(tmp_path: Path) -> None:
    first = DomainCache(str(tmp_path), "https://127.0.0.1:6443", b"ca-one")
    assert first.read() is None
    first.write("k8s.io")
    assert DomainCache(str(tmp_path), "https://127.0.0.1:6443", b"ca-one").read() == "k8s.io"
    assert first.path == tmp_path / "discovery" / "127.0.0.1_6443" / "api-domain.json"
    # a new server at the same address (another CA) and another address do not inherit it
    assert DomainCache(str(tmp_path), "https://127.0.0.1:6443", b"ca-two").read() is None
    assert DomainCache(str(tmp_path), "https://127.0.0.1:7443", b"ca-one").read() is None
    first.forget()
    assert first.read() is None


def test_a_cached_domain_expires_and_a_broken_file_is_a_miss(tmp_path: Path) -> None:
    cache = DomainCache(str(tmp_path), "https://api.example.com", None)
    cache.write("orch.io")
    entry = json.loads(cache.path.read_text())
    cache.path.write_text(json.dumps(dict(entry, written=time.time() - CACHE_TTL - 1)))
    assert cache.read() is None
    cache.path.write_text("{not json")
    assert cache.read() is None


def test_an_unwritable_cache_costs_only_a_request(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    cache = DomainCache(str(blocker), "https://api.example.com", None)  # its directory cannot be made
    cache.write("orch.io")
    assert cache.read() is None
