"""The repository's directories and the one import name they install as (docs/architecture.md "One import name")."""

from __future__ import annotations

import configparser
import subprocess
import sys

from tests.e2e import REPO_ROOT

#: repository directory -> installed package, as setup.cfg's package_dir maps them
ROOTS = {"app": "orch_apiserver", "migrations": "orch_apiserver.migrations"}
#: the two names the package must not import itself by
ABSOLUTE = ("orch_apiserver", "app")


def _setup_cfg() -> configparser.ConfigParser:
    parser = configparser.ConfigParser()
    parser.read(REPO_ROOT / "setup.cfg")
    return parser


def test_every_package_directory_is_in_the_wheel() -> None:
    """A subpackage missing from setup.cfg works in a source tree and is absent from users' installs."""
    listed = set(_setup_cfg()["options"]["packages"].split())
    on_disk = set()
    for directory, package in ROOTS.items():
        for init in (REPO_ROOT / directory).rglob("__init__.py"):
            parts = init.parent.relative_to(REPO_ROOT / directory).parts
            on_disk.add(".".join((package, *parts)))
    assert listed == on_disk


def test_importing_the_repository_directory_as_app_fails_clearly() -> None:
    """With the repository root on sys.path `import app` would load a second copy of every module: refused."""
    done = subprocess.run(
        [sys.executable, "-c", "import app"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 1
    assert "ImportError: orch-apiserver is imported as orch_apiserver, not app" in done.stderr


def test_the_package_refers_to_itself_only_relatively() -> None:
    """No module of the package names it absolutely (`orch_apiserver.` or `app.` imports)."""
    offenders = []
    for path in (REPO_ROOT / "app").rglob("*.py"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            words = line.split()
            if len(words) >= 2 and words[0] in ("from", "import") and words[1].split(".")[0] in ABSOLUTE:
                offenders.append(f"{path.relative_to(REPO_ROOT)}:{number}: {line.strip()}")
    assert offenders == []
