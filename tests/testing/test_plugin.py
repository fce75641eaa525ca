"""The pytest plugin as an operator developer uses it: `pip install orch-apiserver`, then fixtures by name."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

USER_TESTS = """
from kubernetes import client


def test_namespace_is_fresh(orch_apiserver, orch_namespace):
    api = client.CoreV1Api(orch_apiserver.api_client())
    assert api.read_namespace(orch_namespace).status.phase == "Active"
    assert [cm.metadata.name for cm in api.list_namespaced_config_map(orch_namespace).items
            if not cm.metadata.name.endswith("root-ca.crt")] == []
    api.create_namespaced_config_map(orch_namespace, {"metadata": {"name": "mine"}})


def test_domain_from_ini(orch_apiserver):
    assert orch_apiserver.api_domain == "orch.io"
    groups = client.ApisApi(orch_apiserver.api_client()).get_api_versions().groups
    assert "rbac.authorization.orch.io" in {g.name for g in groups}


def test_server_args_from_ini(orch_apiserver):
    import ssl
    import urllib.error
    import urllib.request

    context = ssl.create_default_context(cafile=orch_apiserver.ca_file)
    try:
        urllib.request.urlopen(orch_apiserver.url + "/api", context=context)
    except urllib.error.HTTPError as err:
        assert err.code == 401  # --anonymous-auth false: no credentials, no answer
    else:
        raise AssertionError("an anonymous request was answered")


def test_clean_server_forgets(orch_clean_apiserver):
    orch_clean_apiserver.apply({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "leftover"}})


def test_after_reset(orch_apiserver):
    names = {ns.metadata.name for ns in client.CoreV1Api(orch_apiserver.api_client()).list_namespace().items}
    assert "leftover" not in names


def test_fails_and_shows_the_log(orch_apiserver, orch_namespace):
    client.CoreV1Api(orch_apiserver.api_client()).create_namespaced_config_map(
        orch_namespace, {"metadata": {"name": "Not_A_Valid_Name"}})
"""


def _run_pytest(project: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "ORCH_"))}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-v", "-rf"],
        check=False,
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_fixtures_from_the_installed_plugin(tmp_path: Path):
    (tmp_path / "pytest.ini").write_text(
        "[pytest]\norch_api_domain = orch.io\norch_server_args = --anonymous-auth false\n"
    )
    (tmp_path / "test_operator.py").write_text(USER_TESTS)
    result = _run_pytest(tmp_path)
    output = result.stdout + result.stderr
    for name in (
        "test_namespace_is_fresh",
        "test_domain_from_ini",
        "test_server_args_from_ini",
        "test_clean_server_forgets",
        "test_after_reset",
    ):
        assert f"test_operator.py::{name} PASSED" in output, output
    # the one failing test: the client's 422 and, attached to its report, what the server logged meanwhile
    assert "test_operator.py::test_fails_and_shows_the_log FAILED" in output, output
    assert "orch-apiserver log" in output, output
    assert "1 failed, 5 passed" in output, output


def test_a_server_that_cannot_start_fails_the_fixture_with_its_log(tmp_path: Path):
    (tmp_path / "pytest.ini").write_text("[pytest]\norch_database_url = postgresql+psycopg://postgres@127.0.0.1:1/x\n")
    (tmp_path / "test_it.py").write_text("def test_needs_server(orch_apiserver):\n    pass\n")
    result = _run_pytest(tmp_path)
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "TestServerError: orch-apiserver test server did not start" in output, output
    assert "--- server log ---" in output, output
