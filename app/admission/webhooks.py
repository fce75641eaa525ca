"""Dynamic admission: MutatingAdmissionWebhook and ValidatingAdmissionWebhook call the webhooks of the
webhook configurations with an AdmissionReview, as the reference's dispatchers do (app/admission/review.py
builds and reads the reviews)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

import jsonpatch
import orjson

from ..catalog import ResourceType
from ..errors import ApiError, BadRequest, InternalError
from ..outbound import CallFailed, ServiceResolver, post_json
from ..registry.admission import DELETE, Attributes, Plugin
from ..registry.keys import object_key
from ..selectors import LabelSelector, label_selector_from_object
from .effects import add_warning, annotate
from .review import ReviewFailed, Verdict, review_request, verdict

if TYPE_CHECKING:
    from ..naming import Naming
    from ..registry.store import Registry
    from .source import ConfigurationSource

#: validating webhooks of one request are called at once, on these threads (shared by all requests)
_PARALLEL = ThreadPoolExecutor(max_workers=16, thread_name_prefix="validating-webhook")


@dataclass(frozen=True)
class Webhook:
    """One webhook of a configuration, with its selectors parsed once."""

    configuration: str
    name: str
    client_config: dict
    rules: tuple[dict, ...]
    failure_policy: str
    match_policy: str
    namespace_selector: LabelSelector | None  # None: matches every namespace (the empty selector)
    object_selector: LabelSelector | None
    side_effects: str
    timeout: float
    review_versions: tuple[str, ...]
    reinvoke: bool = False


def compile_configuration(obj: dict) -> list[Webhook]:
    """The webhooks of one stored configuration (already defaulted and validated on write)."""
    configuration = str((obj.get("metadata") or {}).get("name") or "")
    hooks = []
    for hook in obj.get("webhooks") or []:
        hooks.append(
            Webhook(
                configuration,
                str(hook.get("name")),
                dict(hook.get("clientConfig") or {}),
                tuple(hook.get("rules") or ()),
                str(hook.get("failurePolicy") or "Fail"),
                str(hook.get("matchPolicy") or "Equivalent"),
                _selector(hook.get("namespaceSelector")),
                _selector(hook.get("objectSelector")),
                str(hook.get("sideEffects") or ""),
                float(hook.get("timeoutSeconds") or 10),
                tuple(hook.get("admissionReviewVersions") or ()),
                hook.get("reinvocationPolicy") == "IfNeeded",
            )
        )
    return hooks


def _selector(value: Any) -> LabelSelector | None:
    if not value or not (value.get("matchLabels") or value.get("matchExpressions")):
        return None
    return label_selector_from_object(value)


def rule_matches(rule: dict, operation: str, rt: ResourceType, subresource: str, namespace: str) -> bool:
    """The reference's rule matcher: operations, groups, versions, resources (`*`, `*/*`, `x/*`, `*/x`), scope."""
    operations = rule.get("operations") or ()
    if "*" not in operations and operation not in operations:
        return False
    groups, versions = rule.get("apiGroups") or (), rule.get("apiVersions") or ()
    if ("*" not in groups and rt.group not in groups) or ("*" not in versions and rt.version not in versions):
        return False
    if not any(_resource_matches(pattern, rt.plural, subresource) for pattern in rule.get("resources") or ()):
        return False
    scope = rule.get("scope") or "*"
    is_namespace = rt.group == "" and rt.plural == "namespaces"
    if scope == "Namespaced":
        return not is_namespace and bool(namespace)
    if scope == "Cluster":
        return is_namespace or not namespace
    return True


def _resource_matches(pattern: str, plural: str, subresource: str) -> bool:
    if pattern == "*/*":
        return True
    main, _, sub = pattern.partition("/")
    if main not in ("*", plural):
        return False
    if not subresource:
        return not sub  # `*` is every resource, none of their subresources
    return sub in ("*", subresource)


class WebhookDispatcher(Plugin):
    """What both webhook plugins share: finding the webhooks a write reaches, and calling one."""

    configurations: tuple[str, ...] = ()

    def __init__(
        self,
        registry: Registry,
        source: ConfigurationSource[Webhook],
        naming: Naming,
        resolve: ServiceResolver | None = None,
        duration: Any = None,
    ) -> None:
        self.registry, self.source, self.naming, self.resolve, self.duration = (
            registry,
            source,
            naming,
            resolve,
            duration,
        )
        self.review_group = naming.group("admission")
        self.exempt_group = naming.group("admissionregistration")

    def handles(self, attrs: Attributes) -> bool:
        rt = attrs.rt
        if rt.group == self.exempt_group and rt.plural in (
            "mutatingwebhookconfigurations",
            "validatingwebhookconfigurations",
        ):
            return False  # a bad webhook must never lock its own configuration
        return attrs.operation in self.operations and bool(self.source.current())

    def invocations(self, attrs: Attributes) -> list[tuple[Webhook, ResourceType]]:
        """The webhooks this write reaches, each with the kind version it registered for."""
        out = []
        namespace_labels: dict | None = None
        for hook in self.source.current():
            matched = self._matched_type(hook, attrs)
            if matched is None:
                continue
            if hook.namespace_selector is not None:
                if namespace_labels is None:
                    namespace_labels = self._namespace_labels(attrs)
                if namespace_labels is not None and not hook.namespace_selector.matches(namespace_labels):
                    continue
            if hook.object_selector is not None and not any(
                obj is not None and hook.object_selector.matches((obj.get("metadata") or {}).get("labels") or {})
                for obj in (attrs.obj, attrs.old)
            ):
                continue
            out.append((hook, matched))
        return out

    def _matched_type(self, hook: Webhook, attrs: Attributes) -> ResourceType | None:
        if any(rule_matches(r, attrs.operation, attrs.rt, attrs.subresource, attrs.namespace) for r in hook.rules):
            return attrs.rt
        if hook.match_policy != "Equivalent":
            return None
        catalog = self.registry.catalog
        stored_as = catalog.storage_type(attrs.rt)
        for other in catalog:
            if other is attrs.rt or catalog.storage_type(other) is not stored_as:
                continue
            if attrs.subresource and other.subresource(attrs.subresource) is None:
                continue
            if any(rule_matches(r, attrs.operation, other, attrs.subresource, attrs.namespace) for r in hook.rules):
                return other
        return None

    def _namespace_labels(self, attrs: Attributes) -> dict | None:
        """None: every namespace selector matches (a cluster-scoped kind other than Namespace)."""
        rt = attrs.rt
        if rt.group == "" and rt.plural == "namespaces":
            obj = attrs.obj if attrs.obj is not None else attrs.old
            return ((obj or {}).get("metadata") or {}).get("labels") or {}
        if not attrs.namespace:
            return None
        namespaces = self.registry.catalog.known_type("", "v1", "namespaces")
        stored = self.registry.storage.get(object_key(namespaces, None, attrs.namespace))
        return ((stored.decode().get("metadata") or {}).get("labels") or {}) if stored is not None else {}

    @staticmethod
    def served(obj: dict | None, rt: ResourceType) -> dict | None:
        return None if obj is None or rt.conversion is None else rt.conversion.from_storage(obj)

    def call(self, hook: Webhook, matched: ResourceType, attrs: Attributes, mutating: bool) -> Verdict:
        """One AdmissionReview round trip. Raises ReviewFailed when no valid answer came."""
        if attrs.dry_run and hook.side_effects not in ("None", "NoneOnDryRun"):
            raise BadRequest(f'admission webhook "{hook.name}" does not support dry run')
        version = next((v for v in hook.review_versions if v in ("v1", "v1beta1")), "")
        if not version:
            raise ReviewFailed(
                hook.name,
                "could not create admission objects: webhook does not accept known "
                "AdmissionReview versions (v1, v1beta1)",
                400,
            )
        uid = str(uuid.uuid4())
        as_is = matched.conversion is None or attrs.object_kind is not None
        obj = attrs.obj if as_is else self.served(attrs.obj, matched)
        old = attrs.old if as_is else self.served(attrs.old, matched)
        review = review_request(f"{self.review_group}/{version}", uid, attrs, matched, obj, old)
        start, rejected = time.perf_counter(), True
        try:
            status, data = post_json(hook.client_config, review, hook.timeout, self.resolve, timeout_in_query=True)
            result = verdict(hook.name, f"{self.review_group}/{version}", uid, status, data, mutating)
            rejected = not result.allowed
            return result
        except CallFailed as err:
            raise ReviewFailed(hook.name, f"failed to call webhook: {err}", 503) from None
        finally:
            if self.duration is not None:
                self.duration.labels(
                    name=hook.name,
                    type="admit" if mutating else "validating",
                    operation=attrs.operation,
                    rejected=str(rejected).lower(),
                ).observe(time.perf_counter() - start)

    def failed(self, hook: Webhook, err: ReviewFailed, annotation: str) -> None:
        """A webhook that could not be asked: refuse (failurePolicy Fail) or carry on and say so in audit."""
        if hook.failure_policy != "Ignore":
            raise InternalError(str(err)) from None
        annotate(annotation, hook.name)

    def effects(self, hook: Webhook, result: Verdict) -> None:
        for text in result.warnings:
            add_warning(text)
        for key, value in result.audit_annotations.items():
            annotate(f"{hook.name}/{key}", value)
        if not result.allowed:
            raise result.denial(hook.name)


class MutatingWebhooks(WebhookDispatcher):
    name = "MutatingAdmissionWebhook"

    def admit(self, attrs: Attributes) -> None:
        invocations = self.invocations(attrs)
        after: dict[int, dict | None] = {}  # IfNeeded webhooks: the object as they left it
        for index, (hook, matched) in enumerate(invocations):
            self._invoke(hook, matched, attrs, 0, index)
            if hook.reinvoke:
                after[index] = attrs.obj
        for index, (hook, matched) in enumerate(invocations):  # once more where a later change came
            if index in after and after[index] != attrs.obj:
                self._invoke(hook, matched, attrs, 1, index)

    def _invoke(self, hook: Webhook, matched: ResourceType, attrs: Attributes, round_: int, index: int) -> None:
        try:
            result = self.call(hook, matched, attrs, mutating=True)
        except ReviewFailed as err:
            self.failed(hook, err, f"failed-open.mutation.webhook.{self.review_group}/round_{round_}_index_{index}")
            return
        self.effects(hook, result)
        if result.patch and attrs.obj is not None and attrs.operation != DELETE:
            attrs.obj = self._patched(hook, matched, attrs, result.patch)
            attrs.mutated = True
            annotate(
                f"patch.webhook.{self.review_group}/round_{round_}_index_{index}",
                orjson.dumps(
                    {
                        "configuration": hook.configuration,
                        "webhook": hook.name,
                        "patchType": "JSONPatch",
                        "patch": orjson.loads(result.patch),
                    }
                ).decode(),
            )
        annotate(
            f"mutation.webhook.{self.review_group}/round_{round_}_index_{index}",
            orjson.dumps(
                {"configuration": hook.configuration, "webhook": hook.name, "mutated": bool(result.patch)}
            ).decode(),
        )

    def _patched(self, hook: Webhook, matched: ResourceType, attrs: Attributes, patch: bytes) -> dict:
        """The stored-version object after the webhook's JSONPatch, applied in the version it registered for."""
        obj, conversion = attrs.obj or {}, None if attrs.object_kind is not None else matched.conversion
        served = obj if conversion is None else conversion.from_storage(obj)
        try:
            operations = jsonpatch.JsonPatch(orjson.loads(patch))
            patched = operations.apply(served)
        except (
            jsonpatch.JsonPatchException,
            jsonpatch.JsonPointerException,
            orjson.JSONDecodeError,
            TypeError,
            ValueError,
            KeyError,
            IndexError,
        ) as err:
            raise InternalError(f'admission webhook "{hook.name}" returned an invalid patch: {err}') from None
        if (
            not isinstance(patched, dict)
            or patched.get("apiVersion") != served.get("apiVersion")
            or patched.get("kind") != served.get("kind")
            or not isinstance(patched.get("metadata", {}), dict)
        ):
            raise InternalError(f'admission webhook "{hook.name}" changed the apiVersion or kind of the object')
        return patched if conversion is None else conversion.to_storage(patched)


class ValidatingWebhooks(WebhookDispatcher):
    name = "ValidatingAdmissionWebhook"

    def validate(self, attrs: Attributes) -> None:
        invocations = self.invocations(attrs)
        if not invocations:
            return
        calls: list[Callable[[], Verdict]] = [
            partial(self.call, hook, matched, attrs, mutating=False) for hook, matched in invocations
        ]
        futures = [_PARALLEL.submit(call) for call in calls[1:]]  # the first runs on this thread
        outcomes: list[Verdict | ApiError] = [_outcome(calls[0])] + [_outcome(f.result) for f in futures]
        denial: ApiError | None = None
        for index, ((hook, _), outcome) in enumerate(zip(invocations, outcomes)):
            try:
                if isinstance(outcome, ReviewFailed):
                    self.failed(
                        hook, outcome, f"failed-open.validating.webhook.{self.review_group}/round_0_index_{index}"
                    )
                elif isinstance(outcome, ApiError):
                    raise outcome
                else:
                    self.effects(hook, outcome)
            except ApiError as err:
                denial = denial or err
        if denial is not None:
            raise denial


def _outcome(call: Callable[[], Verdict]) -> Verdict | ApiError:
    try:
        return call()
    except ApiError as err:
        return err
