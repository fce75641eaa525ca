"""`authentication.<domain>/v1`: token reviews and self-subject reviews, both create-only and stored nowhere."""

from __future__ import annotations

from datetime import UTC, datetime

from ..auth.authn import AuthenticationError
from ..auth.context import active
from ..catalog import CreateCall, Obj, ResourceType, Strategy
from ..errors import BadRequest, InternalError
from ..naming import Naming
from ..user import current_user

CREATE = ("create",)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class TokenReviewStrategy(Strategy):
    """Reviews `spec.token` with this server's own token authenticators (so it can be another's webhook)."""

    generation = False

    def create_virtual(self, obj: Obj, call: CreateCall) -> Obj:
        spec = obj["spec"] if isinstance(obj.get("spec"), dict) else {}
        token = spec.get("token")
        if not isinstance(token, str) or not token:
            raise BadRequest("token is required for TokenReview in authentication")
        auth = active()
        wanted = spec.get("audiences") or list(auth.api_audiences)
        if not isinstance(wanted, list) or not all(isinstance(a, str) for a in wanted):
            raise BadRequest("spec.audiences must be a list of strings")
        status: dict = {}
        try:
            result = auth.tokens.review(token, tuple(wanted))
        except AuthenticationError as err:
            status = {"user": {}, "error": str(err)}
        else:
            if not result.audiences:
                status = {"user": {}, "error": "error validating audience"}
            else:
                status = {"authenticated": True, "user": result.user.to_api(), "audiences": list(result.audiences)}
        md = obj["metadata"] if isinstance(obj.get("metadata"), dict) else {}
        return {**obj, "metadata": {**md, "creationTimestamp": None}, "spec": spec, "status": status}


class SelfSubjectReviewStrategy(Strategy):
    """Answers with the attributes of the user making the request (`kubectl auth whoami`)."""

    generation = False

    def create_virtual(self, obj: Obj, call: CreateCall) -> Obj:
        user = current_user.get()
        if user is None:
            raise InternalError("no user found for request")
        md = obj["metadata"] if isinstance(obj.get("metadata"), dict) else {}
        return {**obj, "metadata": {**md, "creationTimestamp": _now()}, "status": {"userInfo": user.to_api()}}


def resource_types(naming: Naming) -> list[ResourceType]:
    group = naming.group("authentication")
    return [
        ResourceType(
            group,
            "v1",
            "SelfSubjectReview",
            "selfsubjectreviews",
            False,
            verbs=CREATE,
            strategy=SelfSubjectReviewStrategy(),
            virtual=True,
        ),
        ResourceType(
            group,
            "v1",
            "TokenReview",
            "tokenreviews",
            False,
            verbs=CREATE,
            strategy=TokenReviewStrategy(),
            virtual=True,
            example={"spec": {"token": "t0k3n"}},
        ),
    ]
