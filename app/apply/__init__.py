"""Server-side apply and field ownership (`metadata.managedFields`), as the reference computes them.

Pure functions over plain dicts; no storage, no HTTP. The lead's registry calls `record_update` on
every non-apply write and `apply` for PATCH with `application/apply-patch+yaml`.

Public entry points:
    record_update(old, new, manager, struct, api_version, now, subresource=None, fields_filter=None)
    apply(live, applied, manager, struct, api_version, force, now, subresource=None, kind=None,
          fields_filter=None)
    default_manager(user_agent)          manager of a write without `fieldManager`
    reset_fields(has_status, subresource) -> FieldFilter   the status/spec split
    FieldSet, PathElement, make_path, path_string, field_pe, key_pe, value_pe, index_pe
    fieldset_from_object(obj, struct), encode_fields_v1(fs), decode_fields_v1(tree)
    ManagerEntry, decode_managed_fields, encode_managed_fields, sort_entries, is_reset,
    managed_for_update, validate_managed_fields, validate_field_manager
    conflict_message(conflicts), conflict_causes(conflicts), Conflict
    errors: ApplyConflict (409), ManagedFieldsInApply / ApplyTypeMismatch (400, ApplyBadRequest),
            ApplyInvalidObject (400) / ManagedFieldsUndecodable (500)
"""

from __future__ import annotations

from .errors import (
    ApplyBadRequest,
    ApplyConflict,
    ApplyInvalidObject,
    ApplyTypeMismatch,
    Conflict,
    ManagedFieldsInApply,
    ManagedFieldsUndecodable,
    conflict_causes,
    conflict_message,
)
from .fieldpath import (
    EMPTY,
    FieldSet,
    PathElement,
    field_pe,
    index_pe,
    key_pe,
    make_path,
    path_string,
    value_pe,
)
from .fieldsv1 import FieldsV1Error, decode_fields_v1, encode_fields_v1
from .filters import FieldFilter, default_manager, reset_fields
from .managed import (
    ManagedFieldsError,
    ManagerEntry,
    decode_managed_fields,
    encode_managed_fields,
    format_time,
    is_reset,
    sort_entries,
    validate_field_manager,
    validate_managed_fields,
)
from .server_side import apply
from .typed import fieldset_from_object
from .update import managed_for_update, record_update

__all__ = [
    "EMPTY",
    "ApplyBadRequest",
    "ApplyConflict",
    "ApplyInvalidObject",
    "ApplyTypeMismatch",
    "Conflict",
    "FieldFilter",
    "FieldSet",
    "FieldsV1Error",
    "ManagedFieldsError",
    "ManagedFieldsInApply",
    "ManagedFieldsUndecodable",
    "ManagerEntry",
    "PathElement",
    "apply",
    "conflict_causes",
    "conflict_message",
    "decode_fields_v1",
    "decode_managed_fields",
    "default_manager",
    "encode_fields_v1",
    "encode_managed_fields",
    "field_pe",
    "fieldset_from_object",
    "format_time",
    "index_pe",
    "is_reset",
    "key_pe",
    "make_path",
    "managed_for_update",
    "path_string",
    "record_update",
    "reset_fields",
    "sort_entries",
    "validate_field_manager",
    "validate_managed_fields",
    "value_pe",
]
