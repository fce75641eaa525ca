"""`authorization.<domain>/v1`: subject, local, self access reviews and self rules reviews.

All four are create-only and stored nowhere; they ask the server's own authorizer (the one every
request goes through) and answer `status.allowed`, `denied`, `reason`, `evaluationError`.
"""

from __future__ import annotations

from ..auth.authz import Attributes, Authorizer, ModeChain
from ..auth.context import active
from ..auth.rbac.authorizer import RBACAuthorizer
from ..catalog import CreateCall, Obj, ResourceType, Strategy
from ..errors import BadRequest, FieldError, InternalError, Invalid, invalid, required
from ..naming import Naming
from ..user import UserInfo, current_user

CREATE = ("create",)
EXACTLY_ONE = "exactly one of nonResourceAttributes or resourceAttributes must be specified"


def _dict(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _str(value: object) -> str:
    return value if isinstance(value, str) else ""


def _requester() -> UserInfo:
    user = current_user.get()
    if user is None:
        raise InternalError("no user found for request")
    return user


def _attributes(spec: dict, user: UserInfo) -> Attributes:
    resource = spec.get("resourceAttributes")
    if isinstance(resource, dict):
        return Attributes(
            user,
            _str(resource.get("verb")),
            group=_str(resource.get("group")),
            version=_str(resource.get("version")),
            resource=_str(resource.get("resource")),
            subresource=_str(resource.get("subresource")),
            namespace=_str(resource.get("namespace")),
            name=_str(resource.get("name")),
        )
    other = _dict(spec.get("nonResourceAttributes"))
    return Attributes(user, _str(other.get("verb")), resource_request=False, path=_str(other.get("path")))


def _decide(attributes: Attributes) -> dict:
    authorizer: Authorizer = active().authorizer
    if isinstance(authorizer, ModeChain):
        decision, opinion = authorizer.evaluate(attributes)
    else:
        decision = authorizer.authorize(attributes)
        opinion = not decision.no_opinion
    status: dict = {"allowed": decision.allowed}
    if not decision.allowed and opinion:
        status["denied"] = True
    if decision.reason:
        status["reason"] = decision.reason
    return status


def _answer(obj: Obj, spec: dict, status: dict) -> Obj:
    md = _dict(obj.get("metadata"))
    return {**obj, "metadata": {**md, "creationTimestamp": None}, "spec": spec, "status": status}


class _Review(Strategy):
    generation = False
    kind = ""

    def __init__(self, naming: Naming):
        self.group = naming.group("authorization")

    def _check(self, obj: Obj, errors: list[FieldError]) -> None:
        if errors:
            raise Invalid(self.kind, self.group, _str(_dict(obj.get("metadata")).get("name")), errors)

    @staticmethod
    def _one_kind(spec: dict) -> list[FieldError]:
        given = [k for k in ("resourceAttributes", "nonResourceAttributes") if isinstance(spec.get(k), dict)]
        if len(given) != 1:
            return [required("spec.resourceAttributes", EXACTLY_ONE)]
        return []


class SubjectAccessReviewStrategy(_Review):
    kind = "SubjectAccessReview"

    def _subject(self, spec: dict) -> UserInfo:
        groups = tuple(g for g in spec.get("groups") or [] if isinstance(g, str))
        extra = {k: tuple(v) for k, v in _dict(spec.get("extra")).items() if isinstance(v, list)}
        return UserInfo(_str(spec.get("user")), _str(spec.get("uid")), groups, extra)

    def _errors(self, spec: dict) -> list[FieldError]:
        errors = self._one_kind(spec)
        if not spec.get("user") and not spec.get("groups"):
            errors.append(
                invalid("spec.user", _str(spec.get("user")), "at least one of user or group must be specified")
            )
        return errors

    def create_virtual(self, obj: Obj, call: CreateCall) -> Obj:
        spec = _dict(obj.get("spec"))
        self._check(obj, self._errors(spec))
        return _answer(obj, spec, _decide(_attributes(spec, self._subject(spec))))


class LocalSubjectAccessReviewStrategy(SubjectAccessReviewStrategy):
    kind = "LocalSubjectAccessReview"

    def _errors(self, spec: dict) -> list[FieldError]:
        errors = super()._errors(spec)
        if not isinstance(spec.get("resourceAttributes"), dict):
            return [required("spec.resourceAttributes")] + [e for e in errors if e.field != "spec.resourceAttributes"]
        if spec.get("nonResourceAttributes") is not None:
            errors.append(
                invalid(
                    "spec.nonResourceAttributes", spec["nonResourceAttributes"], "disallowed on this kind of request"
                )
            )
        return errors

    def create_virtual(self, obj: Obj, call: CreateCall) -> Obj:
        namespace = _str(_dict(obj.get("metadata")).get("namespace"))
        spec = _dict(obj.get("spec"))
        wanted = _str(_dict(spec.get("resourceAttributes")).get("namespace"))
        if isinstance(spec.get("resourceAttributes"), dict) and wanted != namespace:
            raise BadRequest(f"spec.resourceAttributes.namespace must match namespace: {namespace}")
        return super().create_virtual(obj, call)


class SelfSubjectAccessReviewStrategy(_Review):
    kind = "SelfSubjectAccessReview"

    def create_virtual(self, obj: Obj, call: CreateCall) -> Obj:
        spec = _dict(obj.get("spec"))
        self._check(obj, self._one_kind(spec))
        return _answer(obj, spec, _decide(_attributes(spec, _requester())))


class SelfSubjectRulesReviewStrategy(_Review):
    kind = "SelfSubjectRulesReview"

    def create_virtual(self, obj: Obj, call: CreateCall) -> Obj:
        spec = _dict(obj.get("spec"))
        authorizer = active().authorizer
        rbac = (
            [a for a in authorizer.authorizers if isinstance(a, RBACAuthorizer)]
            if isinstance(authorizer, ModeChain)
            else []
        )
        status: dict = {"resourceRules": [], "nonResourceRules": [], "incomplete": not rbac}
        if rbac:
            rules, missing = rbac[0].resolver.rules_for(_requester(), _str(spec.get("namespace")))
            for rule in rules:
                if rule.non_resource_urls:
                    status["nonResourceRules"].append(
                        {"verbs": list(rule.verbs), "nonResourceURLs": list(rule.non_resource_urls)}
                    )
                else:
                    status["resourceRules"].append(rule.to_api())
            if missing:
                status["evaluationError"] = ", ".join(missing)
        return _answer(obj, spec, status)


def resource_types(naming: Naming) -> list[ResourceType]:
    group = naming.group("authorization")
    sar = {"spec": {"user": "jane", "resourceAttributes": {"verb": "get", "resource": "pods", "namespace": "default"}}}
    self_sar = {"spec": {"resourceAttributes": {"verb": "get", "resource": "pods", "namespace": "ns"}}}
    return [
        ResourceType(
            group,
            "v1",
            "LocalSubjectAccessReview",
            "localsubjectaccessreviews",
            True,
            verbs=CREATE,
            strategy=LocalSubjectAccessReviewStrategy(naming),
            virtual=True,
            example=sar,
        ),
        ResourceType(
            group,
            "v1",
            "SelfSubjectAccessReview",
            "selfsubjectaccessreviews",
            False,
            verbs=CREATE,
            strategy=SelfSubjectAccessReviewStrategy(naming),
            virtual=True,
            example=self_sar,
        ),
        ResourceType(
            group,
            "v1",
            "SelfSubjectRulesReview",
            "selfsubjectrulesreviews",
            False,
            verbs=CREATE,
            strategy=SelfSubjectRulesReviewStrategy(naming),
            virtual=True,
            example={"spec": {"namespace": "ns"}},
        ),
        ResourceType(
            group,
            "v1",
            "SubjectAccessReview",
            "subjectaccessreviews",
            False,
            verbs=CREATE,
            strategy=SubjectAccessReviewStrategy(naming),
            virtual=True,
            example=sar,
        ),
    ]
