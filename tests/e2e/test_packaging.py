"""The package as a user installs it: a wheel in a fresh virtualenv, run from an empty directory and from a
user's project that has its own `app/` package, `config.py` and `wsgi.py`.

The wheel adds one import name of ours (`orch_apiserver`); `FLASK_APP=orch_apiserver flask db upgrade` must find
the schema's migrations inside the installed package from any directory, say what it did, and the installed
`orch-apiserver` must serve on SQLite (the default) and on the migrated PostgreSQL database. The Docker image is
built and started where a Docker engine answers.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import venv
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from . import REPO_ROOT, scratch_database, server_env, start_server, unavailable

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """bin/ of a new virtualenv holding only the wheel built from this tree and its install requirements."""
    root = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(root / "dist"), str(REPO_ROOT)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    wheel = next((root / "dist").glob("orch_apiserver-*.whl"))
    venv.EnvBuilder(with_pip=True).create(root / "venv")
    bin_dir = root / "venv" / "bin"
    done = subprocess.run(
        [str(bin_dir / "python"), "-m", "pip", "install", "--quiet", str(wheel)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return bin_dir


#: what README.md tells admins to set, and the image sets (Dockerfile ENV)
FLASK_APP = "orch_apiserver"


def _flask_db_upgrade(bin_dir: Path, cwd: Path, database_url: str) -> str:
    env = server_env({"ORCH_DATABASE_URL": database_url, "FLASK_APP": FLASK_APP})
    done = subprocess.run(
        [str(bin_dir / "flask"), "db", "upgrade"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_flask_db_upgrade_then_serve_from_an_empty_directory(installed: Path, tmp_path: Path):
    empty = tmp_path / "empty"
    empty.mkdir()
    with scratch_database() as url:
        first = _flask_db_upgrade(installed, empty, url)
        assert first.startswith("created the database schema at revision"), first
        again = _flask_db_upgrade(installed, empty, url)
        assert "already at revision" in again and "nothing to do" in again, again
        assert list(empty.iterdir()) == []  # nothing written where the admin stood
        server = start_server(
            tmp_path / "pg-data", database_url=url, program=[str(installed / "orch-apiserver")], cwd=empty
        )
        try:
            created = server.session.post("/api/v1/namespaces", json={"metadata": {"name": "from-the-wheel"}})
            assert created.status_code == 201, created.text
        finally:
            server.stop()


def test_two_replicas_run_the_entrypoint_at_once(installed: Path, tmp_path: Path):
    """The image's entry point (`flask db upgrade && exec orch-apiserver`) on two replicas started together:
    the advisory lock lets one migrate while the other waits, then both serve the one database."""
    entrypoint = ["/bin/sh", "-c", 'flask db upgrade && exec orch-apiserver "$@"', "entrypoint"]
    with scratch_database() as url:
        env = {"PATH": f"{installed}:{os.environ['PATH']}", "ORCH_DATABASE_URL": url, "FLASK_APP": FLASK_APP}
        with ThreadPoolExecutor(2) as pool:
            starting = [
                pool.submit(start_server, tmp_path / f"replica-{i}", env=env, program=entrypoint, cwd=tmp_path)
                for i in range(2)
            ]
            replicas = [future.result() for future in starting]
        try:
            outputs = sorted(r.log().splitlines()[0] for r in replicas)
            assert outputs[0].startswith("created the database schema"), outputs
            assert "nothing to do" in outputs[1], outputs
            created = replicas[0].session.post("/api/v1/namespaces", json={"metadata": {"name": "shared"}})
            assert created.status_code == 201, created.text
            assert replicas[1].get("/api/v1/namespaces/shared").status_code == 200
        finally:
            for replica in replicas:
                replica.stop()


def test_the_image_sets_the_flask_app_the_docs_name():
    """The image's entry point runs `flask db upgrade` from /var/lib/orch: it needs FLASK_APP as the docs say."""
    assert f"FLASK_APP={FLASK_APP}" in (REPO_ROOT / "Dockerfile").read_text()
    assert f"FLASK_APP={FLASK_APP} flask db upgrade" in (REPO_ROOT / "README.md").read_text()


def test_the_wheel_installs_one_import_name_of_ours(installed: Path):
    """Nothing generic (app, config, migrations, wsgi, tests) lands in site-packages: only orch_apiserver, its
    dist-info and the console scripts."""
    site = next((installed.parent / "lib").glob("python3*/site-packages"))
    record = next(site.glob("orch_apiserver-*.dist-info")) / "RECORD"
    entries = [line.split(",")[0] for line in record.read_text().splitlines() if line]
    top_level = {entry.split("/")[0] for entry in entries if not entry.startswith("..")}
    assert top_level == {"orch_apiserver", record.parent.name}, top_level
    scripts = sorted(Path(entry).name for entry in entries if entry.startswith(".."))
    assert scripts == ["orch-apiserver", "orchctl"], scripts
    assert not [name for name in ("app", "config", "migrations", "wsgi.py", "tests") if (site / name).exists()]
    assert (site / "orch_apiserver" / "migrations" / "versions").is_dir()


def user_project(root: Path) -> Path:
    """An operator project as users lay them out: its own `app` package, `config.py` and `wsgi.py` (a Flask app
    of its own) at the top, tests that import them and use our fixture."""
    root.mkdir()
    (root / "app").mkdir()
    (root / "app" / "__init__.py").write_text('WHOSE = "the user\'s"\n')
    (root / "config.py").write_text('SETTING = "the user\'s"\n')
    (root / "wsgi.py").write_text("from flask import Flask\n\napp = Flask(__name__)\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_mine.py").write_text(
        "import app\n"
        "import config\n"
        "from kubernetes import client\n\n\n"
        "def test_my_code_and_the_fixture_side_by_side(orch_apiserver, orch_namespace):\n"
        '    assert app.WHOSE == config.SETTING == "the user\'s"\n'
        "    core = client.CoreV1Api(orch_apiserver.api_client())\n"
        '    core.create_namespaced_config_map(orch_namespace, {"metadata": {"name": "mine"}})\n'
        '    assert "mine" in [c.metadata.name for c in core.list_namespaced_config_map(orch_namespace).items]\n'
    )
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    return root


def test_a_project_with_its_own_app_and_config_uses_the_fixture(installed: Path, tmp_path: Path):
    """`python -m pytest` puts the project first on sys.path: its `app` and `config` are its own, and the
    orch_apiserver fixture still works (with ours installed as top-level `app`, the plugin failed to load)."""
    project = user_project(tmp_path / "project")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ORCH_", "PYTEST_", "FLASK_"))}
    run = subprocess.run(
        [str(installed / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "1 passed" in run.stdout


def test_flask_db_upgrade_from_a_project_directory(installed: Path, tmp_path: Path):
    """An admin standing in a project with its own wsgi.py, app/ and config.py: FLASK_APP names our app."""
    project = user_project(tmp_path / "project")
    with scratch_database() as url:
        first = _flask_db_upgrade(installed, project, url)
        assert first.startswith("created the database schema at revision"), first
        assert "nothing to do" in _flask_db_upgrade(installed, project, url)


def test_the_installed_server_starts_on_sqlite_by_default(installed: Path, tmp_path: Path):
    empty = tmp_path / "empty"
    empty.mkdir()
    server = start_server(tmp_path / "data", program=[str(installed / "orch-apiserver")], cwd=empty)
    try:
        assert server.get("/version").json()["gitVersion"].startswith("v1.23.")
        assert (tmp_path / "data" / "orch.db").exists() or any((tmp_path / "data").glob("*.db"))
    finally:
        server.stop()


def test_an_operator_project_tests_itself_with_the_installed_fixture(installed: Path, tmp_path: Path):
    """examples/operator, installed beside the wheel as a user's project would be, runs its own tests with the
    orch_apiserver fixture the wheel registers (a packaging mistake fails here, not at a user's)."""
    project = tmp_path / "operator"
    shutil.copytree(REPO_ROOT / "examples" / "operator", project)
    done = subprocess.run(
        [str(installed / "python"), "-m", "pip", "install", "--quiet", f"{project}[test]"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ORCH_", "PYTEST_"))}
    run = subprocess.run(
        [str(installed / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "1 passed" in run.stdout


def test_the_wheel_needs_nothing_the_test_extra_brings(installed: Path):
    """Every module of the package imports in the fresh virtualenv (only install_requires present), the test
    server and its pytest plugin included; the migrations are alembic's scripts, run by alembic, not imported."""
    script = (
        "import importlib, pkgutil, orch_apiserver\n"
        "import kubernetes.config, pytest  # what TestServer.api_client() and the plugin import\n"
        "bad = []\n"
        "for m in pkgutil.walk_packages(orch_apiserver.__path__, 'orch_apiserver.'):\n"
        "    if m.name.endswith('__main__') or m.name.startswith('orch_apiserver.migrations'):\n"
        "        continue\n"
        "    try:\n"
        "        importlib.import_module(m.name)\n"
        "    except ImportError as err:\n"
        "        bad.append(f'{m.name}: {err}')\n"
        "print('\\n'.join(bad))\n"
    )
    done = subprocess.run(
        [str(installed / "python"), "-c", script], cwd="/", capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "", done.stdout


def _docker() -> str:
    docker = shutil.which("docker")
    if docker is None or subprocess.run([docker, "info"], capture_output=True, timeout=30, check=False).returncode:
        pytest.skip(
            "no Docker engine answers `docker info` here: install Docker and start its daemon to build "
            "and run the image"
        )
    return docker


def test_the_docker_image_builds_migrates_and_serves(tmp_path: Path):
    docker = _docker()
    tag = f"orch-apiserver-test:{os.getpid()}"
    build = subprocess.run(
        [docker, "build", "-q", "-t", tag, str(REPO_ROOT)], capture_output=True, text=True, timeout=1200, check=False
    )
    if build.returncode != 0:
        if "network" in build.stderr.lower() or "pull" in build.stderr.lower():
            unavailable(f"docker build could not fetch its base image: {build.stderr[-500:]}")
        raise AssertionError(build.stderr[-3000:])
    container = ""
    try:
        run = subprocess.run(
            [docker, "run", "-d", "-p", "127.0.0.1::6443", tag], capture_output=True, text=True, timeout=120, check=True
        )
        container = run.stdout.strip()
        health, deadline = "", time.monotonic() + 180
        while health not in ("healthy", "unhealthy") and time.monotonic() < deadline:
            health = subprocess.run(
                [docker, "inspect", "-f", "{{.State.Health.Status}}", container],
                capture_output=True,
                text=True,
                timeout=30,
                check=False,
            ).stdout.strip()
            time.sleep(0.5)
        logs = subprocess.run(
            [docker, "logs", container], capture_output=True, text=True, timeout=30, check=False
        ).stderr
        assert health == "healthy", logs[-3000:]
    finally:
        if container:
            subprocess.run([docker, "rm", "-f", container], capture_output=True, timeout=60, check=False)
        subprocess.run([docker, "rmi", "-f", tag], capture_output=True, timeout=120, check=False)


@pytest.fixture(autouse=True)
def _no_orch_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for key in [k for k in os.environ if k.startswith("ORCH_") and k != "ORCH_TEST_DATABASE_URL"]:
        monkeypatch.delenv(key)
    yield


def test_the_plugin_leaves_the_servers_modules_to_their_byte_code(installed: Path, tmp_path: Path):
    """pytest assertion-rewrites the modules of a pytest11 plugin's distribution: it would recompile all of the
    server's modules at each run where PYTHONDONTWRITEBYTECODE=1 is set (issue 56). Only the plugin's own module is
    rewritten; the server's load through Python's own loader, from the byte-code pip compiled."""
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    (project / "tests" / "test_loaders.py").write_text(
        "import sys\n\n\n"
        "def test_loaders(orch_apiserver):\n"
        "    loaders = {\n"
        "        name: type(module.__loader__).__name__\n"
        "        for name, module in list(sys.modules.items())\n"
        '        if name.startswith("orch_apiserver.") and getattr(module, "__file__", None)\n'
        "    }\n"
        '    assert loaders.pop("orch_apiserver.testing.plugin") == "AssertionRewritingHook"\n'
        "    loaders.pop(\"orch_apiserver.testing\")  # the plugin's parent: imported before the plugin's hooks run\n"
        '    assert len(loaders) > 100 and "orch_apiserver.factory" in loaders\n'
        '    rewritten = sorted(name for name, loader in loaders.items() if loader != "SourceFileLoader")\n'
        "    assert not rewritten, rewritten\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ORCH_", "PYTEST_", "FLASK_"))}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    run = subprocess.run(
        [str(installed / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert "1 passed" in run.stdout
