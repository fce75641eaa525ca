"""Label and field selectors: parsing the query-string syntax and the structured form, and matching.

Error texts follow the reference server's wording so users see familiar messages.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from .errors import BadRequest, invalid

# ---------------------------------------------------------------------------------------------
# Label key / value validation (shared with anything else that validates labels)
# ---------------------------------------------------------------------------------------------

_QNAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_QNAME_RE = re.compile(f"^{_QNAME_FMT}$")
_QNAME_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
)
_QNAME_MAX = 63
_DNS_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS_SUBDOMAIN_FMT = f"{_DNS_LABEL_FMT}(\\.{_DNS_LABEL_FMT})*"
_DNS_SUBDOMAIN_RE = re.compile(f"^{_DNS_SUBDOMAIN_FMT}$")
_DNS_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, "
    "'-' or '.', and must start and end with an alphanumeric character"
)
_DNS_SUBDOMAIN_MAX = 253
_LABEL_VALUE_FMT = f"({_QNAME_FMT})?"
_LABEL_VALUE_RE = re.compile(f"^{_LABEL_VALUE_FMT}$")
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, "
    "'-', '_' or '.', and must start and end with an alphanumeric character"
)
_INT_RE = re.compile(r"^[+-]?[0-9]+$")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _regex_error(msg: str, fmt: str, *examples: str) -> str:
    """The reference's "(e.g. 'x',  or 'y', regex used for validation is '...')" suffix, spacing included."""
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def _max_len(n: int) -> str:
    return f"must be no more than {n} characters"


def qualified_name_errors(value: str) -> list[str]:
    """Problems with `value` as a label key: optional DNS-subdomain prefix and '/', then a 63-char name."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) > 2:
        return [
            "a qualified name "
            + _regex_error(_QNAME_MSG, _QNAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            if len(prefix) > _DNS_SUBDOMAIN_MAX:
                errs.append("prefix part " + _max_len(_DNS_SUBDOMAIN_MAX))
            if not _DNS_SUBDOMAIN_RE.match(prefix):
                errs.append("prefix part " + _regex_error(_DNS_SUBDOMAIN_MSG, _DNS_SUBDOMAIN_FMT, "example.com"))
    if not name:
        errs.append("name part must be non-empty")
    elif len(name) > _QNAME_MAX:
        errs.append("name part " + _max_len(_QNAME_MAX))
    if not _QNAME_RE.match(name):
        errs.append("name part " + _regex_error(_QNAME_MSG, _QNAME_FMT, "MyName", "my.name", "123-abc"))
    return errs


def label_value_errors(value: str) -> list[str]:
    """Problems with `value` as a label value: empty, or at most 63 chars of the qualified-name pattern."""
    errs: list[str] = []
    if len(value) > _QNAME_MAX:
        errs.append(_max_len(_QNAME_MAX))
    if not _LABEL_VALUE_RE.match(value):
        errs.append(_regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


def _parse_int64(text: str) -> int | None:
    """Strict base-10 int64, as the reference parses `>`/`<` operands (no spaces, no underscores)."""
    if not _INT_RE.match(text):
        return None
    number = int(text)
    return number if _INT64_MIN <= number <= _INT64_MAX else None


def _aggregate(messages: list[str]) -> str:
    unique = list(dict.fromkeys(messages))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


# ---------------------------------------------------------------------------------------------
# Label selector model
# ---------------------------------------------------------------------------------------------

EQUALS, DOUBLE_EQUALS, NOT_EQUALS = "=", "==", "!="
IN, NOT_IN, EXISTS, DOES_NOT_EXIST = "in", "notin", "exists", "!"
GREATER_THAN, LESS_THAN = "gt", "lt"
_BINARY_OPERATORS = (IN, NOT_IN, EQUALS, DOUBLE_EQUALS, NOT_EQUALS, GREATER_THAN, LESS_THAN)
_RENDERED_OPERATOR = {
    EQUALS: "=",
    DOUBLE_EQUALS: "==",
    NOT_EQUALS: "!=",
    IN: " in ",
    NOT_IN: " notin ",
    GREATER_THAN: ">",
    LESS_THAN: "<",
}


@dataclass(frozen=True)
class Requirement:
    """One ANDed term of a label selector; `values` is sorted and de-duplicated."""

    key: str
    operator: str
    values: tuple[str, ...] = ()

    def matches(self, labels: Mapping[str, str]) -> bool:
        present = self.key in labels
        op = self.operator
        if op in (IN, EQUALS, DOUBLE_EQUALS):
            return present and labels[self.key] in self.values
        if op in (NOT_IN, NOT_EQUALS):
            # a missing key satisfies a negative requirement
            return not present or labels[self.key] not in self.values
        if op == EXISTS:
            return present
        if op == DOES_NOT_EXIST:
            return not present
        if op in (GREATER_THAN, LESS_THAN) and present and len(self.values) == 1:
            have, want = _parse_int64(labels[self.key]), _parse_int64(self.values[0])
            if have is None or want is None:
                return False  # a non-integer label value never compares
            return have > want if op == GREATER_THAN else have < want
        return False

    def __str__(self) -> str:
        if self.operator == EXISTS:
            return self.key
        if self.operator == DOES_NOT_EXIST:
            return "!" + self.key
        joined = ",".join(self.values)
        if self.operator in (IN, NOT_IN):
            joined = f"({joined})"
        return self.key + _RENDERED_OPERATOR[self.operator] + joined


@dataclass(frozen=True)
class LabelSelector:
    """An AND of requirements. No requirements selects everything; `nothing=True` selects nothing."""

    requirements: tuple[Requirement, ...] = ()
    nothing: bool = False

    @classmethod
    def everything(cls) -> LabelSelector:
        return cls()

    @classmethod
    def select_nothing(cls) -> LabelSelector:
        return cls(nothing=True)

    @property
    def empty(self) -> bool:
        """True when the selector matches every object (no requirements and not the nothing-selector)."""
        return not self.nothing and not self.requirements

    def matches(self, labels: Mapping[str, str] | None) -> bool:
        if self.nothing:
            return False
        have = labels or {}
        return all(r.matches(have) for r in self.requirements)

    def __str__(self) -> str:
        return ",".join(str(r) for r in self.requirements)


def _new_requirement(key: str, op: str, values: Iterable[str]) -> Requirement:
    """Validate one requirement the way the reference does; raises BadRequest with the aggregate."""
    vals = list(values)
    key_errs = qualified_name_errors(key)
    if key_errs:
        raise BadRequest(str(invalid("key", key, "; ".join(key_errs))))
    errs: list[str] = []
    if op in (IN, NOT_IN) and not vals:
        errs.append(str(invalid("values", vals, "for 'in', 'notin' operators, values set can't be empty")))
    elif op in (EQUALS, DOUBLE_EQUALS, NOT_EQUALS) and len(vals) != 1:
        errs.append(str(invalid("values", vals, "exact-match compatibility requires one single value")))
    elif op in (EXISTS, DOES_NOT_EXIST) and vals:
        errs.append(str(invalid("values", vals, "values set must be empty for exists and does not exist")))
    elif op in (GREATER_THAN, LESS_THAN):
        if len(vals) != 1:
            errs.append(str(invalid("values", vals, "for 'Gt', 'Lt' operators, exactly one value is required")))
        for i, v in enumerate(vals):
            if _parse_int64(v) is None:
                errs.append(str(invalid(f"values[{i}]", v, "for 'Gt', 'Lt' operators, the value must be an integer")))
    for i, v in enumerate(vals):
        value_errs = label_value_errors(v)
        if value_errs:
            errs.append(str(invalid(f"values[{i}][{key}]", v, "; ".join(value_errs))))
    if errs:
        raise BadRequest(_aggregate(errs))
    return Requirement(key, op, tuple(sorted(set(vals))))


def _selector(requirements: list[Requirement]) -> LabelSelector:
    # stable sort by key gives the reference's canonical order
    return LabelSelector(tuple(sorted(requirements, key=lambda r: r.key)))


# ---------------------------------------------------------------------------------------------
# Label selector query-string parser
# ---------------------------------------------------------------------------------------------

_WHITESPACE = frozenset(" \t\r\n")
_SPECIAL = frozenset("=!(),<>")
_ID, _EOS = "identifier", "end of string"
_KEYWORDS = {"in": IN, "notin": NOT_IN}
_OPERATOR_TOKENS = {
    "=": EQUALS,
    "==": DOUBLE_EQUALS,
    "!=": NOT_EQUALS,
    ">": GREATER_THAN,
    "<": LESS_THAN,
    IN: IN,
    NOT_IN: NOT_IN,
}


def _lex(text: str) -> list[tuple[str, str]]:
    """Tokens as (kind, literal); symbols are their own kind, `in`/`notin` are keyword kinds."""
    tokens: list[tuple[str, str]] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in _WHITESPACE:
            i += 1
        if i >= n:
            tokens.append((_EOS, ""))
            return tokens
        if text[i] in _SPECIAL:
            # longest match: the only two-character symbols are "!=" and "=="
            sym = text[i : i + 2] if text[i : i + 2] in ("!=", "==") else text[i]
            tokens.append((sym, sym))
            i += len(sym)
            continue
        start = i
        while i < n and text[i] not in _WHITESPACE and text[i] not in _SPECIAL:
            i += 1
        word = text[start:i]
        tokens.append((_KEYWORDS.get(word, _ID), word))


class _ParseError(Exception):
    pass


class _LabelParser:
    def __init__(self, text: str):
        self.text = text
        self.tokens = _lex(text)
        self.pos = 0

    def _peek(self) -> tuple[str, str]:
        # outside operator position the keywords are plain identifiers (a key or value may be "in")
        kind, lit = self.tokens[self.pos]
        return (_ID if kind in (IN, NOT_IN) else kind), lit

    def _take(self, keywords: bool = False) -> tuple[str, str]:
        kind, lit = self.tokens[self.pos]
        self.pos = min(self.pos + 1, len(self.tokens) - 1)  # end of string repeats forever
        return (_ID if not keywords and kind in (IN, NOT_IN) else kind), lit

    def _found(self, lit: str, expected: str, comma: bool = True) -> str:
        sep = "," if comma else ""
        msg = f"found '{lit}'{sep} expected: {expected}"
        # the reference prints '' at end of input; name the selector so the user sees what was cut short
        return msg + (f' (at end of selector "{self.text}")' if lit == "" else "")

    def parse(self) -> LabelSelector:
        requirements: list[Requirement] = []
        while True:
            kind, lit = self._peek()
            if kind == _EOS:
                return _selector(requirements)
            if kind not in (_ID, "!"):
                raise BadRequest(self._found(lit, "!, identifier, or 'end of string'"))
            try:
                requirements.append(self._requirement())
            except (_ParseError, BadRequest) as err:
                raise BadRequest(f"unable to parse requirement: {err}") from None
            kind, lit = self._take()
            if kind == _EOS:
                return _selector(requirements)
            if kind != ",":
                raise BadRequest(self._found(lit, "',' or 'end of string'"))
            kind, lit = self._peek()
            if kind not in (_ID, "!"):
                raise BadRequest(self._found(lit, "identifier after ','"))

    def _requirement(self) -> Requirement:
        negated = False
        kind, lit = self._take()
        if kind == "!":
            negated = True
            kind, lit = self._take()
        if kind != _ID:
            raise _ParseError(self._found(lit, "identifier"))
        key_errs = qualified_name_errors(lit)
        if key_errs:
            raise _ParseError(str(invalid("<nil>", lit, "; ".join(key_errs))))
        if negated:
            return _new_requirement(lit, DOES_NOT_EXIST, ())
        if self._peek()[0] in (_EOS, ","):
            return _new_requirement(lit, EXISTS, ())
        op = self._operator()
        values = self._values() if op in (IN, NOT_IN) else self._exact_value()
        return _new_requirement(lit, op, values)

    def _operator(self) -> str:
        kind, lit = self._take(keywords=True)
        if kind not in _OPERATOR_TOKENS:
            raise _ParseError(self._found(lit, ", ".join(_BINARY_OPERATORS)))
        return _OPERATOR_TOKENS[kind]

    def _values(self) -> list[str]:
        kind, lit = self._take()
        if kind != "(":
            raise _ParseError(self._found(lit, "'('", comma=False))
        kind, lit = self._peek()
        if kind == ")":
            self._take()
            return []  # stricter than the reference, which reads "()" as the empty string
        if kind not in (_ID, ","):
            raise _ParseError(self._found(lit, "',', ')' or identifier"))
        values = self._identifier_list()
        kind, lit = self._take()
        if kind != ")":
            raise _ParseError(self._found(lit, "')'"))
        return sorted(set(values))

    def _identifier_list(self) -> list[str]:
        """Values up to (not including) ')'; empty slots as in "(a,,b)" or "(a,)" are empty strings."""
        values: list[str] = []
        while True:
            kind, lit = self._take()
            if kind == _ID:
                values.append(lit)
                nxt, nlit = self._peek()
                if nxt == ")":
                    return values
                if nxt != ",":
                    raise _ParseError(self._found(nlit, "',' or ')'"))
            elif kind == ",":
                if not values:
                    values.append("")  # "(," starts with an empty value
                nxt, _ = self._peek()
                if nxt == ")":
                    values.append("")
                    return values
                if nxt == ",":
                    self._take()
                    values.append("")
            else:
                raise _ParseError(self._found(lit, "',', or identifier"))

    def _exact_value(self) -> list[str]:
        kind, lit = self._peek()
        if kind in (_EOS, ","):
            return [""]  # "k=" means the label is present and empty
        kind, lit = self._take()
        if kind != _ID:
            raise _ParseError(self._found(lit, "identifier"))
        return [lit]


def parse_label_selector(text: str) -> LabelSelector:
    """Parse the `labelSelector` query syntax; the empty (or blank) string selects everything."""
    return _LabelParser(text).parse()


_STRUCTURED_OPERATORS = {"In": IN, "NotIn": NOT_IN, "Exists": EXISTS, "DoesNotExist": DOES_NOT_EXIST}


def label_selector_from_object(sel: dict | None) -> LabelSelector:
    """Convert a structured `{matchLabels, matchExpressions}` selector.

    `None` (no selector at all) selects NOTHING; `{}` (a selector with no terms) selects EVERYTHING.
    Callers whose field treats an absent selector differently must handle `None` themselves.
    """
    if sel is None:
        return LabelSelector.select_nothing()
    if not isinstance(sel, dict):
        raise BadRequest(f"invalid label selector: expected an object, got {sel!r}")
    match_labels = sel.get("matchLabels") or {}
    expressions = sel.get("matchExpressions") or []
    if not isinstance(match_labels, dict):
        raise BadRequest(f"invalid label selector: matchLabels must be an object, got {match_labels!r}")
    if not isinstance(expressions, list):
        raise BadRequest(f"invalid label selector: matchExpressions must be a list, got {expressions!r}")
    requirements: list[Requirement] = []
    for key, value in match_labels.items():
        if not isinstance(value, str):
            raise BadRequest(f"invalid label selector: matchLabels[{key}] must be a string, got {value!r}")
        requirements.append(_new_requirement(str(key), EQUALS, [value]))
    for expr in expressions:
        requirements.append(_expression(expr))
    return _selector(requirements)


def _expression(expr: object) -> Requirement:
    if not isinstance(expr, dict):
        raise BadRequest(f"invalid label selector: matchExpressions entry must be an object, got {expr!r}")
    operator = expr.get("operator", "")
    if operator not in _STRUCTURED_OPERATORS:
        raise BadRequest(f'"{operator}" is not a valid label selector operator')
    values = expr.get("values") or []
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise BadRequest(f"invalid label selector: values must be a list of strings, got {values!r}")
    key = expr.get("key", "")
    if not isinstance(key, str):
        raise BadRequest(f"invalid label selector: key must be a string, got {key!r}")
    return _new_requirement(key, _STRUCTURED_OPERATORS[operator], values)


# ---------------------------------------------------------------------------------------------
# Field selectors
# ---------------------------------------------------------------------------------------------

GENERIC_FIELDS = ("metadata.name", "metadata.namespace")
_FIELD_OPERATORS = ("!=", "==", "=")  # order matters: the first operator found at a position wins


def escape_field_value(value: str) -> str:
    """Escape `\\`, `,` and `=` so a value can be embedded in a field selector."""
    return value.replace("\\", "\\\\").replace(",", "\\,").replace("=", "\\=")


def _unescape_field_value(value: str) -> str:
    out: list[str] = []
    chars = iter(value)
    for ch in chars:
        if ch == "\\":
            nxt = next(chars, None)
            if nxt is None or nxt not in "\\,=":
                seq = "\\" + (nxt or "")
                raise BadRequest(f"invalid field selector: invalid escape sequence: {seq}")
            out.append(nxt)
        elif ch in ",=":
            # the reference prints the rune's number here; the character itself is more useful
            raise BadRequest(f"invalid field selector: unescaped character in value: '{ch}'")
        else:
            out.append(ch)
    return "".join(out)


def _split_terms(text: str) -> list[str]:
    """Split on commas that are not escaped with a backslash."""
    terms: list[str] = []
    start, escaped = 0, False
    for i, ch in enumerate(text):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif ch == ",":
            terms.append(text[start:i])
            start = i + 1
    terms.append(text[start:])
    return terms


def _split_term(term: str) -> tuple[str, str, str] | None:
    for i in range(len(term)):
        for op in _FIELD_OPERATORS:
            if term.startswith(op, i):
                return term[:i], op, term[i + len(op) :]
    return None


@dataclass(frozen=True)
class FieldSelector:
    """An AND of (field, op, value) with op "=" or "!="; sorted by the raw term like the reference."""

    requirements: tuple[tuple[str, str, str], ...] = ()

    @property
    def empty(self) -> bool:
        return not self.requirements

    @property
    def fields(self) -> set[str]:
        return {f for f, _, _ in self.requirements}

    def matches(self, get: Callable[[str], str | None]) -> bool:
        """`get(field)` returns the object's value as a string; a missing field counts as ""."""
        for field, op, value in self.requirements:
            have = get(field) or ""
            if (have == value) != (op == "="):
                return False
        return True

    def check_supported(self, supported: Iterable[str], generic_only: bool) -> None:
        """Reject any field the kind cannot filter on, worded as the reference words it."""
        allowed = set(supported)
        for field, _, _ in self.requirements:
            if field in allowed:
                continue
            if generic_only:
                raise BadRequest(
                    f'"{field}" is not a known field selector: only ' + ", ".join(f'"{g}"' for g in GENERIC_FIELDS)
                )
            raise BadRequest(f"field label not supported: {field}")

    def exact_value(self, field: str) -> str | None:
        """The value of an `=` requirement on `field`, or None; narrowing by it is safe, other terms still apply."""
        for f, op, value in self.requirements:
            if f == field and op == "=":
                return value
        return None

    def __str__(self) -> str:
        return ",".join(f"{f}{op}{escape_field_value(v)}" for f, op, v in self.requirements)


def parse_field_selector(text: str) -> FieldSelector:
    """Parse the `fieldSelector` query syntax (`=`, `==`, `!=`; comma = AND); empty selects everything."""
    if not text:
        return FieldSelector()
    requirements: list[tuple[str, str, str]] = []
    for term in sorted(_split_terms(text)):
        if term == "":
            continue  # the reference tolerates empty terms such as a trailing comma
        parts = _split_term(term)
        if parts is None:
            raise BadRequest(f"invalid selector: '{text}'; can't understand '{term}'")
        field, op, raw = parts
        requirements.append((field, "!=" if op == "!=" else "=", _unescape_field_value(raw)))
    return FieldSelector(tuple(requirements))
