"""The `rbac.authorization.<domain>/v1` group: roles, bindings and their cluster-wide twins."""

from __future__ import annotations

from ..catalog import Obj, ResourceType
from ..errors import FieldError, invalid, not_supported, required
from ..naming import Naming
from .common import NoSpecStrategy, items, part

SUBJECT_KINDS = ["ServiceAccount", "User", "Group"]


class RoleStrategy(NoSpecStrategy):
    allow_create_on_update = True  # the reference reconciles bootstrap roles with PUT
    namespaced = True

    def validate(self, obj: Obj) -> list[FieldError]:
        errors: list[FieldError] = []
        for i, rule in enumerate(items(obj, "rules")):
            path = f"rules[{i}]"
            if not rule.get("verbs"):
                errors.append(required(f"{path}.verbs", "verbs must contain at least one value"))
            urls = rule.get("nonResourceURLs") or []
            if urls and self.namespaced:
                errors.append(
                    invalid(f"{path}.nonResourceURLs", urls, "namespaced rules cannot apply to non-resource URLs")
                )
            if urls and (rule.get("apiGroups") or rule.get("resources")):
                errors.append(
                    invalid(
                        f"{path}.nonResourceURLs",
                        urls,
                        "rules cannot apply to both regular resources and non-resource URLs",
                    )
                )
            elif not urls:
                if not rule.get("apiGroups"):
                    errors.append(required(f"{path}.apiGroups", "resource rules must supply at least one api group"))
                if not rule.get("resources"):
                    errors.append(required(f"{path}.resources", "resource rules must supply at least one resource"))
        return errors


class ClusterRoleStrategy(RoleStrategy):
    namespaced = False


class BindingStrategy(NoSpecStrategy):
    allow_create_on_update = True
    #: the role kinds roleRef may name.
    role_kinds: tuple[str, ...] = ("Role", "ClusterRole")
    namespaced = True

    def default(self, obj: Obj) -> None:
        group = self.naming.group("rbac.authorization")
        role_ref = obj.get("roleRef")
        if isinstance(role_ref, dict) and not role_ref.get("apiGroup"):
            role_ref["apiGroup"] = group
        for subject in items(obj, "subjects"):
            if not subject.get("apiGroup") and subject.get("kind") in ("User", "Group"):
                subject["apiGroup"] = group

    def validate(self, obj: Obj) -> list[FieldError]:
        group = self.naming.group("rbac.authorization")
        errors: list[FieldError] = []
        role_ref = obj["roleRef"] if isinstance(obj.get("roleRef"), dict) else {}
        if role_ref.get("apiGroup") != group:
            errors.append(not_supported("roleRef.apiGroup", role_ref.get("apiGroup", ""), [group]))
        if role_ref.get("kind") not in self.role_kinds:
            errors.append(not_supported("roleRef.kind", role_ref.get("kind", ""), list(self.role_kinds)))
        if not role_ref.get("name"):
            errors.append(required("roleRef.name"))
        for i, subject in enumerate(items(obj, "subjects")):
            errors += self._subject_errors(subject, f"subjects[{i}]", group)
        return errors

    def _subject_errors(self, subject: Obj, path: str, group: str) -> list[FieldError]:
        kind = subject.get("kind")
        errors: list[FieldError] = []
        if not subject.get("name"):
            errors.append(required(f"{path}.name"))
        if kind == "ServiceAccount":
            if subject.get("apiGroup"):
                errors.append(not_supported(f"{path}.apiGroup", subject["apiGroup"], [""]))
            if not self.namespaced and not subject.get("namespace"):
                errors.append(required(f"{path}.namespace"))
        elif kind in ("User", "Group"):
            if subject.get("apiGroup") != group:
                errors.append(not_supported(f"{path}.apiGroup", subject.get("apiGroup", ""), [group]))
        else:
            errors.append(not_supported(f"{path}.kind", kind or "", SUBJECT_KINDS))
        return errors

    def validate_change(self, obj: Obj, old: Obj) -> list[FieldError]:
        if obj.get("roleRef") != old.get("roleRef"):
            return [invalid("roleRef", part(obj, "roleRef"), "cannot change roleRef")]
        return []


class ClusterRoleBindingStrategy(BindingStrategy):
    role_kinds = ("ClusterRole",)
    namespaced = False


def resource_types(naming: Naming) -> list[ResourceType]:
    group = naming.group("rbac.authorization")
    rules = [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]}]
    subjects = [{"kind": "User", "name": "jane", "apiGroup": group}]
    return [
        ResourceType(
            group,
            "v1",
            "ClusterRoleBinding",
            "clusterrolebindings",
            False,
            strategy=ClusterRoleBindingStrategy(naming),
            name_rule="path",
            example={"roleRef": {"apiGroup": group, "kind": "ClusterRole", "name": "view"}, "subjects": subjects},
        ),
        ResourceType(
            group,
            "v1",
            "ClusterRole",
            "clusterroles",
            False,
            strategy=ClusterRoleStrategy(naming),
            name_rule="path",
            example={"rules": rules},
        ),
        ResourceType(
            group,
            "v1",
            "RoleBinding",
            "rolebindings",
            True,
            strategy=BindingStrategy(naming),
            name_rule="path",
            example={"roleRef": {"apiGroup": group, "kind": "Role", "name": "pod-reader"}, "subjects": subjects},
        ),
        ResourceType(
            group,
            "v1",
            "Role",
            "roles",
            True,
            strategy=RoleStrategy(naming),
            name_rule="path",
            example={"rules": rules},
        ),
    ]
