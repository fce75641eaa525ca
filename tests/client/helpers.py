"""Writers for client config files and real exec-plugin executables."""

from __future__ import annotations

import base64
import json
import os
import stat
import textwrap
from pathlib import Path
from typing import Any

import yaml
from orch_apiserver.naming import DEFAULT_API_DOMAIN, Naming

NAMING = Naming(DEFAULT_API_DOMAIN)
EXEC_V1 = NAMING.group("client.authentication") + "/v1"
EXEC_V1BETA1 = NAMING.group("client.authentication") + "/v1beta1"
EXEC_INFO = NAMING.env_var("EXEC_INFO")

# A plugin that logs each run's ORCH_EXEC_INFO (one JSON line) and prints output number <run> from a JSON list
# (the last one again once they run out). Paths come from its env so one script serves every test.
PLUGIN_SOURCE = textwrap.dedent("""\
    #!{python}
    import json, os, sys
    log = os.environ["PLUGIN_LOG"]
    with open(log, "a") as handle:
        handle.write(os.environ.get({info!r}, "") + "\\n")
    runs = sum(1 for _ in open(log))
    outputs = json.load(open(os.environ["PLUGIN_OUTPUTS"]))
    output = outputs[min(runs, len(outputs)) - 1]
    if isinstance(output, dict) and "exit" in output:
        sys.stderr.write(output.get("stderr", ""))
        sys.exit(output["exit"])
    sys.stdout.write(output if isinstance(output, str) else json.dumps(output))
""")


def write_plugin(path: Path) -> Path:
    import sys

    path.write_text(PLUGIN_SOURCE.format(python=sys.executable, info=EXEC_INFO))
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def credential(api_version: str = EXEC_V1, **status: Any) -> dict:
    return {"apiVersion": api_version, "kind": "ExecCredential", "status": status}


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def write_config(
    path: Path,
    server: str,
    *,
    cluster: dict | None = None,
    user: dict | None = None,
    namespace: str | None = None,
    name: str = "test",
) -> Path:
    context: dict[str, Any] = {"cluster": name, "user": name}
    if namespace:
        context["namespace"] = namespace
    document = {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": name,
        "clusters": [{"name": name, "cluster": {"server": server, **(cluster or {})}}],
        "users": [{"name": name, "user": user or {}}],
        "contexts": [{"name": name, "context": context}],
    }
    path.write_text(yaml.safe_dump(document))
    return path


class Plugin:
    """A plugin executable, its outputs file and its run log, in one directory."""

    def __init__(self, directory: Path, outputs: list[Any]) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        self.path = write_plugin(directory / "plugin.py")
        self.log = directory / "runs.log"
        self.outputs_file = directory / "outputs.json"
        self.set_outputs(outputs)

    def set_outputs(self, outputs: list[Any]) -> None:
        self.outputs_file.write_text(json.dumps(outputs))

    @property
    def runs(self) -> list[dict]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def exec_section(self, api_version: str = EXEC_V1, **extra: Any) -> dict:
        section: dict[str, Any] = {
            "command": str(self.path),
            "apiVersion": api_version,
            "env": [
                {"name": "PLUGIN_LOG", "value": str(self.log)},
                {"name": "PLUGIN_OUTPUTS", "value": str(self.outputs_file)},
            ],
        }
        if api_version == EXEC_V1:
            section["interactiveMode"] = "IfAvailable"
        section.update(extra)
        return {k: v for k, v in section.items() if v is not None}


def ca_data(server_ca_file: Path) -> str:
    return b64(Path(server_ca_file).read_bytes())


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(NAMING.env_var(""))}
