"""Build the authentication of an app once, from its settings (the Flask config keys below).

Order of the chain, as the reference: authenticating proxy, client certificates, then bearer
tokens (static file, service accounts, bootstrap, OIDC, webhook); anonymous last.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import defaults
from ..durations import parse_duration
from ..naming import Naming
from ..user import MASTERS_GROUP
from .authn import (
    AudienceAgnostic,
    BearerTokenAuthenticator,
    Chain,
    RequestAuthenticator,
    TokenAuthenticator,
    TokenUnion,
)
from .authz import AlwaysAllow, AlwaysDeny, Authorizer, ModeChain, PrivilegedGroups, parse_modes
from .authz_webhook import WebhookAuthorizer
from .bootstrap import BootstrapTokens
from .context import Authentication
from .lookup import CoreObjects
from .node import node_authorizer
from .oidc import OidcConfig, OidcTokens, ProviderKeys
from .rbac.authorizer import RBACAuthorizer
from .rbac.policy import PolicySource, Resolver
from .requestheader import RequestHeaderAuthenticator
from .serviceaccount import Keyring, SaNames, ServiceAccountTokens, TokenIssuer
from .tokenfile import StaticTokens
from .webhook import WebhookTokens, load_remote
from .x509 import ClientCertificates, load_pem_bundle

if TYPE_CHECKING:
    from ..registry.store import Registry
    from ..storage.hub import WatchHub


class AuthConfigError(ValueError):
    """A file named by an authentication setting cannot be used; the message names it."""


def _cluster_ca_file(config: Mapping[str, Any]) -> str:
    return config.get("CLUSTER_CA_CERT_FILE") or os.path.join(
        config.get("DATA_DIR") or ".", defaults.PKI_DIR, defaults.CA_CERT
    )


def _client_cas(config: Mapping[str, Any]) -> tuple:
    paths = [p for p in (_cluster_ca_file(config), config.get("CLIENT_CA_FILE")) if p and os.path.exists(p)]
    return load_pem_bundle(paths)


def _issuers(config: Mapping[str, Any]) -> tuple[str, ...]:
    issuers = tuple(config.get("SERVICE_ACCOUNT_ISSUERS") or ())
    return issuers or (config.get("SERVER_URL") or f"https://127.0.0.1:{defaults.SECURE_PORT}",)


def _keyring(config: Mapping[str, Any]) -> Keyring:
    signing = config.get("SERVICE_ACCOUNT_SIGNING_KEY_FILE") or os.path.join(
        config.get("DATA_DIR") or ".", defaults.PKI_DIR, defaults.SERVICE_ACCOUNT_KEY
    )
    return Keyring(signing, tuple(config.get("SERVICE_ACCOUNT_KEY_FILES") or ()))


def _oidc(config: Mapping[str, Any]) -> OidcTokens:
    oidc = OidcConfig(
        issuer_url=config["OIDC_ISSUER_URL"],
        client_id=config.get("OIDC_CLIENT_ID") or "",
        username_claim=config.get("OIDC_USERNAME_CLAIM") or defaults.OIDC_USERNAME_CLAIM,
        username_prefix=config.get("OIDC_USERNAME_PREFIX"),
        groups_claim=config.get("OIDC_GROUPS_CLAIM"),
        groups_prefix=config.get("OIDC_GROUPS_PREFIX"),
        required_claims=dict(config.get("OIDC_REQUIRED_CLAIMS") or {}),
        ca_file=config.get("OIDC_CA_FILE"),
        signing_algs=tuple(config.get("OIDC_SIGNING_ALGS") or (defaults.OIDC_SIGNING_ALGS,)),
    )
    timeout = float(config.get("OUTBOUND_TIMEOUT", defaults.OUTBOUND_TIMEOUT))
    provider = ProviderKeys(oidc.issuer_url, oidc.ca_file, timeout, float(config.get("OIDC_MIN_REFRESH_SECONDS", 1.0)))
    return OidcTokens(oidc, provider)


def _webhook(config: Mapping[str, Any], naming: Naming, audiences: tuple[str, ...]) -> WebhookTokens:
    version = config.get("AUTHENTICATION_TOKEN_WEBHOOK_VERSION") or defaults.AUTHENTICATION_TOKEN_WEBHOOK_VERSION
    return WebhookTokens(
        remote=load_remote(config["AUTHENTICATION_TOKEN_WEBHOOK_CONFIG_FILE"]),
        api_version=f"{naming.group('authentication')}/{version}",
        api_audiences=audiences,
        cache_ttl=float(config.get("AUTHENTICATION_TOKEN_WEBHOOK_CACHE_TTL", 120.0)),
        timeout=float(config.get("OUTBOUND_TIMEOUT", defaults.OUTBOUND_TIMEOUT)),
        deadline=float(config.get("OUTBOUND_DEADLINE", defaults.OUTBOUND_DEADLINE)),
    )


def _token_authenticators(
    config: Mapping[str, Any], naming: Naming, objects: CoreObjects, keyring: Keyring, issuers: tuple[str, ...]
) -> list[TokenAuthenticator]:
    names = SaNames(naming)
    tokens: list[TokenAuthenticator] = []
    if config.get("TOKEN_AUTH_FILE"):
        tokens.append(AudienceAgnostic(StaticTokens.from_csv(config["TOKEN_AUTH_FILE"]), issuers))
    tokens.append(
        ServiceAccountTokens(
            keyring, issuers, issuers, objects, names, bool(config.get("SERVICE_ACCOUNT_LOOKUP", True))
        )
    )
    if config.get("ENABLE_BOOTSTRAP_TOKEN_AUTH"):
        tokens.append(AudienceAgnostic(BootstrapTokens(objects, naming), issuers))
    if config.get("OIDC_ISSUER_URL"):
        tokens.append(AudienceAgnostic(_oidc(config), issuers))
    if config.get("AUTHENTICATION_TOKEN_WEBHOOK_CONFIG_FILE"):
        tokens.append(_webhook(config, naming, issuers))
    return tokens


def _authorizer(config: Mapping[str, Any], registry: Registry, naming: Naming, hub: WatchHub | None) -> ModeChain:
    modes = parse_modes(config.get("AUTHORIZATION_MODE") or defaults.AUTHORIZATION_MODE)
    webhook = None
    if "Webhook" in modes:
        if not config.get("AUTHORIZATION_WEBHOOK_CONFIG_FILE"):
            raise ValueError("the Webhook authorization mode needs --authorization-webhook-config-file")
        webhook = WebhookAuthorizer(
            remote=load_remote(config["AUTHORIZATION_WEBHOOK_CONFIG_FILE"]),
            api_version=f"{naming.group('authorization')}/v1",
            authorized_ttl=float(
                config.get(
                    "AUTHORIZATION_WEBHOOK_CACHE_AUTHORIZED_TTL",
                    parse_duration(defaults.AUTHORIZATION_WEBHOOK_CACHE_AUTHORIZED_TTL),
                )
            ),
            unauthorized_ttl=float(
                config.get(
                    "AUTHORIZATION_WEBHOOK_CACHE_UNAUTHORIZED_TTL",
                    parse_duration(defaults.AUTHORIZATION_WEBHOOK_CACHE_UNAUTHORIZED_TTL),
                )
            ),
            timeout=float(config.get("OUTBOUND_TIMEOUT", defaults.OUTBOUND_TIMEOUT)),
            deadline=float(config.get("OUTBOUND_DEADLINE", defaults.OUTBOUND_DEADLINE)),
        )
    node = node_authorizer(registry, naming) if "Node" in modes else None
    return build_authorizer(modes, Resolver(PolicySource(registry, naming, hub)), webhook, node)


def build_authentication(
    config: Mapping[str, Any], registry: Registry, naming: Naming, hub: WatchHub | None = None
) -> Authentication:
    """Everything authentication needs, from the app's config; AuthConfigError names a bad file. With a
    watch hub, the RBAC policy is cached until an RBAC object changes."""
    try:
        return _build(config, registry, naming, hub)
    except (ValueError, OSError) as err:
        raise AuthConfigError(str(err)) from err


def _build(config: Mapping[str, Any], registry: Registry, naming: Naming, hub: WatchHub | None) -> Authentication:
    objects = CoreObjects(registry)
    issuers = _issuers(config)
    keyring = _keyring(config)
    tokens = TokenUnion(tuple(_token_authenticators(config, naming, objects, keyring, issuers)))
    request: list[RequestAuthenticator] = []
    if config.get("REQUESTHEADER_CLIENT_CA_FILE"):
        request.append(
            RequestHeaderAuthenticator(
                load_pem_bundle([config["REQUESTHEADER_CLIENT_CA_FILE"]]),
                tuple(config.get("REQUESTHEADER_USERNAME_HEADERS") or ()),
                tuple(config.get("REQUESTHEADER_GROUP_HEADERS") or ()),
                tuple(config.get("REQUESTHEADER_EXTRA_HEADERS_PREFIX") or ()),
                tuple(config.get("REQUESTHEADER_ALLOWED_NAMES") or ()),
            )
        )
    cas = _client_cas(config)
    if cas:
        request.append(ClientCertificates(cas))
    request.append(BearerTokenAuthenticator(tokens, issuers))
    ca_file = _cluster_ca_file(config)
    ca_pem = Path(ca_file).read_bytes() if os.path.exists(ca_file) else b""
    names = SaNames(naming)
    return Authentication(
        naming=naming,
        chain=Chain(tuple(request), bool(config.get("ANONYMOUS_AUTH", True))),
        tokens=tokens,
        api_audiences=issuers,
        issuer=TokenIssuer(keyring, issuers[0], names),
        objects=objects,
        names=names,
        authorizer=_authorizer(config, registry, naming, hub),
        ca_pem=ca_pem,
    )


def check_authentication(config: Mapping[str, Any], naming: Naming) -> None:
    """Read every file the settings name (and make the signing key) before serving; AuthConfigError."""
    auth = build_authentication(config, None, naming)  # type: ignore[arg-type]  # nothing is looked up
    try:
        auth.issuer.keyring.check()
    except (ValueError, OSError) as err:
        raise AuthConfigError(str(err)) from err


def build_authorizer(
    modes: Sequence[str],
    resolver: Resolver | None = None,
    webhook: Authorizer | None = None,
    node: Authorizer | None = None,
) -> ModeChain:
    """The chain of --authorization-mode, after the privileged group `system:masters`."""
    chain: list[Authorizer] = [PrivilegedGroups((MASTERS_GROUP,))]
    for mode in modes:
        if mode == "AlwaysAllow":
            chain.append(AlwaysAllow())
        elif mode == "AlwaysDeny":
            chain.append(AlwaysDeny())
        elif mode == "RBAC":
            if resolver is None:
                raise ValueError("the RBAC authorizer needs the registry")
            chain.append(RBACAuthorizer(resolver))
        elif mode == "Webhook":
            if webhook is None:
                raise ValueError("the Webhook authorization mode needs --authorization-webhook-config-file")
            chain.append(webhook)
        elif mode == "Node":
            if node is None:
                raise ValueError("the Node authorizer needs the registry")
            chain.append(node)
    return ModeChain(tuple(chain))
