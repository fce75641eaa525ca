"""The two OpenAPI spellings of a schema reference: v3 `#/components/schemas/...`, v2 `#/definitions/...`."""

from __future__ import annotations

from dataclasses import dataclass

from .names import Schema


@dataclass(frozen=True)
class Dialect:
    v3: bool

    def ref(self, name: str) -> Schema:
        prefix = "#/components/schemas/" if self.v3 else "#/definitions/"
        return {"$ref": prefix + name}

    def wrap(self, name: str, siblings: Schema) -> Schema:
        """A reference carrying a description, default or extensions."""
        if not siblings:
            return self.ref(name)
        if self.v3:
            # v3 ignores a $ref's siblings, so they ride on an allOf (as the reference does).
            return {"allOf": [self.ref(name)], **siblings}
        return {**self.ref(name), **siblings}


V3 = Dialect(True)
V2 = Dialect(False)
