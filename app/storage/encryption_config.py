"""Reading an EncryptionConfiguration file (`--encryption-provider-config`) into the store's Encryption, and making
the default one a new data dir gets. A bad file stops the server at start: every problem names the file and the
field, in the reference's words where it has them."""

from __future__ import annotations

import base64
import binascii
import os
import secrets
from typing import Any

import yaml

from .encryption import KEY_LENGTHS, KEYED, Encryption, Identity, Provider, Transformer

KIND = "EncryptionConfiguration"
#: providers we know but do not build (a KMS plugin speaks gRPC; not built here)
NOT_BUILT = ("kms",)
EXPECTED_PROVIDERS = "KMS, AESGCM, AESCBC, Secretbox, Identity"


class EncryptionConfigError(Exception):
    """`<file>: <field>: <problem>`."""

    def __init__(self, path: str, field: str, problem: str) -> None:
        super().__init__(f"{path}: {field}: {problem}" if field else f"{path}: {problem}")


def api_versions(api_domain: str) -> tuple[str, ...]:
    """The reference's group, and ours under the configured domain."""
    ours = f"apiserver.config.{api_domain}/v1"
    return tuple(dict.fromkeys(("apiserver.config.k8s.io/v1", ours)))


def load_if_present(path: str | None, api_domain: str) -> Encryption | None:
    """The EncryptionConfiguration at `path` (checked at start: app/config.py), none when there is no file."""
    return load(path, api_domain) if path and os.path.exists(path) else None


def load(path: str, api_domain: str) -> Encryption:
    try:
        with open(path, encoding="utf-8") as handle:
            document = yaml.safe_load(handle)
    except OSError as err:
        raise EncryptionConfigError(path, "", f"cannot read the file: {err.strerror or err}") from None
    except yaml.YAMLError as err:
        raise EncryptionConfigError(path, "", f"not valid YAML: {err}") from None
    return parse(document, path, api_domain)


def parse(document: Any, path: str, api_domain: str) -> Encryption:
    if not isinstance(document, dict):
        raise EncryptionConfigError(path, "", f"not an {KIND} (a YAML mapping is expected)")
    versions = api_versions(api_domain)
    if document.get("kind") != KIND:
        raise EncryptionConfigError(path, "kind", f'Unsupported value: "{document.get("kind")}": supported: "{KIND}"')
    if document.get("apiVersion") not in versions:
        supported = ", ".join(f'"{v}"' for v in versions)
        raise EncryptionConfigError(
            path, "apiVersion", f'Unsupported value: "{document.get("apiVersion")}": supported values: {supported}'
        )
    entries = document.get("resources")
    if not isinstance(entries, list) or not entries:
        raise EncryptionConfigError(path, "resources", "Required value: resources is a required field")
    rules: list[tuple[str, Transformer]] = []
    for i, entry in enumerate(entries):
        field = f"resources[{i}]"
        if not isinstance(entry, dict):
            raise EncryptionConfigError(path, field, "Invalid value: a mapping with resources and providers")
        transformer = Transformer(_providers(entry.get("providers"), path, f"{field}.providers"))
        names = entry.get("resources")
        if not isinstance(names, list) or not names:
            raise EncryptionConfigError(
                path, f"{field}.resources", "Required value: at least one resource must be specified"
            )
        for j, name in enumerate(names):
            rules.append((_key_prefix(name, path, f"{field}.resources[{j}]"), transformer))
    return Encryption(rules, path)


def _key_prefix(resource: Any, path: str, field: str) -> str:
    """The storage-key prefix (app/registry/keys.py) of `secrets`, `widgets.example.com`, `*.apps`, `*.` or `*.*`."""
    if not isinstance(resource, str) or not resource or resource != resource.lower():
        raise EncryptionConfigError(path, field, f'Invalid value: "{resource}": resource name must be lowercase')
    if resource == "*.*":
        return "/"
    plural, _, group = resource.partition(".")
    if plural == "*":
        return f"/{group or 'core'}/"
    if "*" in resource:
        raise EncryptionConfigError(
            path, field, f'Invalid value: "{resource}": wildcards are allowed only as "*.group", "*." or "*.*"'
        )
    return f"/{group or 'core'}/{plural}/"


def _providers(items: Any, path: str, field: str) -> tuple[Provider, ...]:
    if not isinstance(items, list) or not items:
        raise EncryptionConfigError(path, field, "Required value: at least one provider must be specified")
    providers: list[Provider] = []
    for i, item in enumerate(items):
        at = f"{field}[{i}]"
        if not isinstance(item, dict) or len(item) != 1:
            problem = (
                "more than one provider specified in a single element, should split into different list elements"
                if isinstance(item, dict) and len(item) > 1
                else f"provider does not contain any of the expected providers: {EXPECTED_PROVIDERS}"
            )
            raise EncryptionConfigError(path, at, f"Invalid value: {problem}")
        ((kind, body),) = item.items()
        if kind == "identity":
            providers.append(Identity())
        elif kind in KEYED:
            providers.extend(_keys(kind, body, path, f"{at}.{kind}.keys"))
        elif kind in NOT_BUILT:
            raise EncryptionConfigError(path, f"{at}.{kind}", "Unsupported value: the kms provider is not built here")
        else:
            raise EncryptionConfigError(
                path,
                at,
                f'Invalid value: "{kind}": provider does not contain any of the expected providers: '
                f"{EXPECTED_PROVIDERS}",
            )
    return tuple(providers)


def _keys(kind: str, body: Any, path: str, field: str) -> list[Provider]:
    keys = body.get("keys") if isinstance(body, dict) else None
    if not isinstance(keys, list) or not keys:
        raise EncryptionConfigError(path, field, "Required value: keys are required")
    made: list[Provider] = []
    for i, key in enumerate(keys):
        at = f"{field}[{i}]"
        name = key.get("name") if isinstance(key, dict) else None
        if not isinstance(name, str) or not name:
            raise EncryptionConfigError(path, f"{at}.name", "Required value: key name is required")
        if ":" in name:
            raise EncryptionConfigError(path, f"{at}.name", f'Invalid value: "{name}": should not contain ":"')
        if any(getattr(p, "name", None) == name for p in made):
            raise EncryptionConfigError(path, f"{at}.name", f'Duplicate value: "{name}"')
        text = key.get("secret")
        if not isinstance(text, str) or not text:
            raise EncryptionConfigError(path, f"{at}.secret", "Required value: secret is required")
        try:
            secret = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            raise EncryptionConfigError(
                path, f"{at}.secret", 'Invalid value: "REDACTED": secret is not a valid base64 encoded string'
            ) from None
        lengths = KEY_LENGTHS[kind]
        if len(secret) not in lengths:
            expected = " ".join(str(n) for n in lengths)
            raise EncryptionConfigError(
                path,
                f"{at}.secret",
                f'Invalid value: "REDACTED": secret is not of the expected length, got {len(secret)}, '
                f"expected one of [{expected}]",
            )
        made.append(KEYED[kind](name, secret))
    return made


def default_document(api_domain: str, key_name: str, secret: bytes) -> dict:
    """Secrets sealed with one new secretbox key; values written before (plain) stay readable through identity."""
    return {
        "apiVersion": api_versions(api_domain)[-1],
        "kind": KIND,
        "resources": [
            {
                "resources": ["secrets"],
                "providers": [
                    {"secretbox": {"keys": [{"name": key_name, "secret": base64.b64encode(secret).decode()}]}},
                    {"identity": {}},
                ],
            }
        ],
    }


def ensure_default(path: str, api_domain: str) -> bool:
    """Write the default configuration at `path` (mode 0600) unless a file is there; True when written."""
    if os.path.exists(path):
        return False
    key_name = f"key-{secrets.token_hex(4)}"  # a name of its own: a replica with another key says which it lacks
    text = "# generated by orch-apiserver: keep it secret, back it up with the database (docs/security.md)\n"
    text += yaml.safe_dump(default_document(api_domain, key_name, secrets.token_bytes(32)), sort_keys=False)
    partial = f"{path}.tmp-{os.getpid()}"
    descriptor = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(partial, path)
    return True
