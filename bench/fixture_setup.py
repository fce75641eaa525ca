"""Set-up of the `orch_apiserver` pytest fixture in a user's project that has its own `app/`, `config.py` and
`wsgi.py` (issue 37), as the user runs it: `python -m pytest` in a fresh process, N times.

Reports the fixture's set-up as pytest measures it (`--durations`: the first test's setup phase, which starts the
session's server; imports of the server's modules included), the CPU time of that set-up (the process's, all its
threads: what the load changes least; a probe plugin measures it around the orch fixtures' set-up) and the whole
pytest process (wall and CPU), median, min and max, with the machine's load average before and after.
PYTHONDONTWRITEBYTECODE is left out of the runs' environment unless `--dont-write-bytecode` sets it (as many
container and CI images do: then nothing compiled at run time is kept, by Python or by pytest's assertion rewriting).
`--wheel` runs pytest from a new virtualenv holding the wheel built from this tree, as a user installs it (pip
compiled its byte-code); without it, this interpreter's (editable) install.
Run: `python bench/fixture_setup.py [--runs 10] [--wheel] [--dont-write-bytecode]`.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e import REPO_ROOT
from tests.e2e.test_packaging import user_project

SETUP_LINE = re.compile(r"^([0-9.]+)s setup\s+tests/test_mine\.py::", re.M)
SETUP_CPU_LINE = re.compile(r"^orch fixtures' set-up CPU ([0-9.]+)s$", re.M)
#: the probe plugin (`-p orch_setup_cpu_probe`): process CPU while the orch fixtures are set up
PROBE = """
import time

import pytest

spent = 0.0


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef, request):
    global spent
    if not fixturedef.argname.startswith("orch_"):
        return (yield)
    began = time.process_time()
    try:
        return (yield)
    finally:
        spent += time.process_time() - began


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"orch fixtures' set-up CPU {spent:.3f}s")
"""


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def wheel_python(directory: Path) -> str:
    """The interpreter of a new virtualenv holding the wheel built from this tree (and its requirements)."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(directory / "dist"), str(REPO_ROOT)],
        check=True,
        capture_output=True,
    )
    venv.EnvBuilder(with_pip=True).create(directory / "venv")
    python = directory / "venv" / "bin" / "python"
    wheel = next((directory / "dist").glob("orch_apiserver-*.whl"))
    subprocess.run([str(python), "-m", "pip", "install", "-q", str(wheel)], check=True, capture_output=True)
    return str(python)


def one_run(
    python: str, project: Path, probe_dir: Path, dont_write_bytecode: bool
) -> tuple[float, float, float, float]:
    """(fixture set-up, its CPU time, whole process, the process's CPU time), in seconds."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ORCH_", "PYTEST_", "FLASK_")) and k != "PYTHONDONTWRITEBYTECODE"
    }
    if dont_write_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(probe_dir), env.get("PYTHONPATH")]))
    cpu = _children_cpu()
    began = time.perf_counter()
    done = subprocess.run(
        [
            *(python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "orch_setup_cpu_probe"),
            *("--durations=0", "--durations-min=0"),
        ],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    whole = time.perf_counter() - began
    cpu = _children_cpu() - cpu
    if done.returncode != 0:
        raise SystemExit(f"the project's test failed:\n{done.stdout[-3000:]}{done.stderr[-2000:]}")
    match, setup_cpu = SETUP_LINE.search(done.stdout), SETUP_CPU_LINE.search(done.stdout)
    if match is None or setup_cpu is None:
        raise SystemExit(f"no setup duration or CPU in pytest's output:\n{done.stdout[-3000:]}")
    return float(match.group(1)), float(setup_cpu.group(1)), whole, cpu


def summary(name: str, values: list[float]) -> str:
    values = sorted(values)
    return (
        f"{name:22s} n={len(values)} median {statistics.median(values) * 1000:6.0f} ms"
        f"  min {values[0] * 1000:6.0f} ms  max {values[-1] * 1000:6.0f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--wheel", action="store_true", help="run from a virtualenv holding this tree's wheel")
    parser.add_argument("--dont-write-bytecode", action="store_true", help="set PYTHONDONTWRITEBYTECODE=1")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="orch-bench-fixture-") as directory:
        python = wheel_python(Path(directory)) if args.wheel else sys.executable
        project = user_project(Path(directory) / "project")
        probe_dir = Path(directory) / "probe"
        probe_dir.mkdir()
        (probe_dir / "orch_setup_cpu_probe.py").write_text(PROBE)
        # warm the caches (page, byte-code, templates) as a user's second run finds them
        one_run(python, project, probe_dir, args.dont_write_bytecode)
        print(f"machine load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        setups, setup_cpus, wholes, cpus = [], [], [], []
        for _ in range(args.runs):
            setup, setup_cpu, whole, cpu = one_run(python, project, probe_dir, args.dont_write_bytecode)
            setups.append(setup)
            setup_cpus.append(setup_cpu)
            wholes.append(whole)
            cpus.append(cpu)
        print(summary("fixture set-up", setups))
        print(summary("its CPU (all threads)", setup_cpus))
        print(summary("whole pytest process", wholes))
        print(summary("its CPU (user+sys)", cpus))
        print(f"machine load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
