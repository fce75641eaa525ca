"""`x-<product>-validations`: CEL rules on a CRD schema's nodes (gate `CustomResourceValidationExpressions`, alpha
and off in v1.23, as the reference). With the gate off the field is dropped from new CRDs; with it on, rules are
checked when the CRD is written and evaluated on every write of a custom object, `self` bound to the value at the
rule's node (typed by the schema: escaped property names, bytes, durations, timestamps).

CEL comes from cel-python (celpy), imported only when a rule is compiled. It parses and evaluates but does not
type-check, so references and fields are checked here against the schema, and a non-bool result is an error at
evaluation rather than at compile time."""

from __future__ import annotations

import base64
import re
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..errors import FieldError, invalid, required
from .crd_schema import Extensions, Schema

GATE = "CustomResourceValidationExpressions"
#: CEL's reserved words: a property so named is `__<word>__` in a rule (the reference's escaping)
RESERVED = frozenset(
    {
        "true",
        "false",
        "null",
        "in",
        "as",
        "break",
        "const",
        "continue",
        "else",
        "for",
        "function",
        "if",
        "import",
        "let",
        "loop",
        "package",
        "namespace",
        "return",
        "var",
        "void",
        "while",
    }
)
_ESCAPED = re.compile(r"(__|[-./]|[^a-zA-Z0-9-./_])")
_ESCAPES = {"__": "__underscores__", ".": "__dot__", "-": "__dash__", "/": "__slash__"}
MACROS = frozenset({"all", "exists", "exists_one", "map", "filter"})


def escape(name: str) -> str | None:
    """A property's name as a CEL identifier, or None when it has none (the reference's rules)."""
    if not name or name[0].isdigit():
        return None
    if name in RESERVED:
        return f"__{name}__"
    if any(m.group() not in _ESCAPES for m in _ESCAPED.finditer(name)):
        return None
    return _ESCAPED.sub(lambda m: _ESCAPES[m.group()], name)


def has_rules(schema: Any, ext: Extensions) -> bool:
    if isinstance(schema, dict):
        return bool(schema.get(ext.validations)) or any(has_rules(v, ext) for v in _children(schema))
    return False


def drop_rules(schema: Any, ext: Extensions) -> None:
    """Remove every rule of a schema in place (what a server with the gate off stores)."""
    if isinstance(schema, dict):
        schema.pop(ext.validations, None)
        for sub in _children(schema):
            drop_rules(sub, ext)


def _children(schema: Schema) -> list[Any]:
    out = list((schema.get("properties") or {}).values()) if isinstance(schema.get("properties"), dict) else []
    for key in ("items", "additionalProperties", "not"):
        if isinstance(schema.get(key), dict):
            out.append(schema[key])
    for key in ("allOf", "anyOf", "oneOf"):
        out += [s for s in schema.get(key) or [] if isinstance(s, dict)]
    return out


# --- compiling -----------------------------------------------------------------------------------------------


class CompileError(ValueError):
    """A rule that does not compile; its text is the reference's `compilation failed: ...` detail."""


@lru_cache(maxsize=4096)
def _parse(rule: str) -> Any:
    import celpy

    try:
        return celpy.Environment().compile(rule)
    except celpy.CELParseError as err:
        where = f"<input>:{getattr(err, 'line', 1)}:{getattr(err, 'column', 1)}"
        raise CompileError(f"compilation failed: ERROR: {where}: Syntax error: {err.args[0].strip()}") from None
    except RecursionError:
        raise CompileError("compilation failed: ERROR: <input>:1:1: expression nested too deeply") from None


def checked_tree(rule: str, schema: Schema, ext: Extensions, root: bool) -> Any:
    """The rule parsed, with its names checked against the schema node it is declared on (CompileError)."""
    tree = _parse(rule.strip())
    _check_names(tree, schema, ext, root)
    return tree


def _check_names(tree: Any, schema: Schema, ext: Extensions, root: bool) -> None:
    """What cel-go's checker would refuse: names other than `self` and macro variables, and fields the
    schema does not declare in a `self.a.b` chain."""
    from lark import Token, Tree

    bound = {"self"}
    for node in tree.iter_subtrees():
        if node.data == "member_dot_arg" and len(node.children) >= 3 and str(node.children[1]) in MACROS:
            first = node.children[2].children[0] if isinstance(node.children[2], Tree) else None
            bound |= (
                {str(t) for t in first.scan_values(lambda v: isinstance(v, Token) and v.type == "IDENT")}
                if isinstance(first, Tree)
                else set()
            )
    for node in tree.iter_subtrees():
        if node.data == "ident" and node.children and str(node.children[0]) not in bound:
            token = node.children[0]
            raise CompileError(
                f"compilation failed: ERROR: <input>:{token.line}:{token.column}: undeclared "
                f"reference to '{token}' (in container '')"
            )
        if node.data == "member_dot":
            chain = _self_chain(node)
            if chain:
                _check_chain(chain, schema, ext, root)


def _self_chain(node: Any) -> list[Any] | None:
    """`self.a.b` as the tokens [a, b], or None when the chain does not start at `self`."""
    from lark import Tree

    names: list[Any] = []
    while isinstance(node, Tree) and node.data == "member_dot":
        names.insert(0, node.children[1])
        node = node.children[0]
        if isinstance(node, Tree) and node.data == "member" and len(node.children) == 1:
            node = node.children[0]
    if isinstance(node, Tree) and node.data == "primary" and node.children:
        ident = node.children[0]
        if isinstance(ident, Tree) and ident.data == "ident" and str(ident.children[0]) == "self":
            return names
    return None


def _check_chain(names: list[Any], schema: Schema, ext: Extensions, root: bool) -> None:
    for token in names:
        if schema.get(ext.preserve_unknown_fields) or schema.get(ext.int_or_string) or schema.get("type") != "object":
            return
        declared = {escape(k): v for k, v in (schema.get("properties") or {}).items() if escape(k)}
        if root or schema.get(ext.embedded_resource):
            declared.setdefault("apiVersion", {"type": "string"})
            declared.setdefault("kind", {"type": "string"})
            declared.setdefault(
                "metadata",
                {"type": "object", "properties": {"name": {"type": "string"}, "generateName": {"type": "string"}}},
            )
        if not declared and isinstance(schema.get("additionalProperties"), dict):
            return  # a map: any key may be asked for
        if str(token) not in declared:
            raise CompileError(
                f"compilation failed: ERROR: <input>:{token.line}:{token.column}: undefined field '{token}'"
            )
        schema, root = declared[str(token)] or {}, False


#: evaluation steps (AST nodes visited) all rules together may take on one object, about a second here: a bound on
#: the time rules can hold a request (cel-python has no cost estimate; the reference bounds them by cost)
COST_LIMIT = 200_000
BUDGET_EXCEEDED = "validation failed due to running out of cost budget, no further validation rules will be run"


_BUDGET: ContextVar[list[int]] = ContextVar("cel_budget")


class OverBudget(Exception):
    """The rules' evaluation ran past COST_LIMIT (at `path` once known)."""

    path = ""


@lru_cache(maxsize=1)
def _runner_class() -> type:
    import celpy
    from celpy.evaluation import Evaluator

    class Budgeted(Evaluator):
        budget: list[int]

        def sub_evaluator(self, ast: Any) -> Evaluator:  # a macro's body: same budget
            sub = Budgeted(ast, activation=self.activation)
            sub.budget = self.budget
            return sub

        def visit_children(self, tree: Any) -> Any:
            self.budget[0] -= 1
            if self.budget[0] < 0:
                raise OverBudget()
            return super().visit_children(tree)

    class Runner(celpy.InterpretedRunner):
        def evaluate(self, context: Any) -> Any:
            evaluator = Budgeted(ast=self.ast, activation=self.new_activation())
            evaluator.budget = _BUDGET.get()
            return evaluator.evaluate(context)

    return Runner


@dataclass
class Rule:
    text: str
    message: str
    program: Any


def compile_rules(schema: Schema, ext: Extensions, root: bool) -> list[Rule]:
    import celpy

    rules = []
    for item in schema.get(ext.validations) or []:
        text = str(item.get("rule") or "").strip()
        if not text:
            continue
        tree = checked_tree(text, schema, ext, root)
        program = celpy.Environment(runner_class=_runner_class()).program(tree, functions=_string_functions())
        rules.append(Rule(text, str(item.get("message") or "").strip(), program))
    return rules


def rule_errors(schema: Schema, path: str, ext: Extensions, root: bool) -> list[FieldError]:
    """The reference's checks of one schema node's rules when a CRD is written."""
    rules = schema.get(ext.validations)
    if not rules:
        return []
    where = f"{path}.{ext.validations}"
    if not isinstance(rules, list):
        return [invalid(where, rules, "must be a list")]
    errors: list[FieldError] = []
    for i, item in enumerate(rules):
        item = item if isinstance(item, dict) else {}
        text, message = str(item.get("rule") or ""), item.get("message")
        if not text.strip():
            errors.append(required(f"{where}[{i}].rule", "rule is not specified"))
        elif message is not None and not str(message).strip():
            errors.append(invalid(f"{where}[{i}].message", message, "message must be non-empty if specified"))
        elif message and "\n" in str(message).strip():
            errors.append(invalid(f"{where}[{i}].message", message, "message must not contain line breaks"))
        elif "\n" in text.strip() and not message:
            errors.append(required(f"{where}[{i}].message", "message must be specified if rule contains line breaks"))
    if errors:
        return errors
    if not schema.get("type") and not schema.get(ext.int_or_string):
        return [
            FieldError(
                "InternalError",
                where,
                "rule declared on schema that does not support validation "
                f"rules type: '' {ext.preserve_unknown_fields}: 'true'",
                show_value=False,
            )
        ]
    for i, item in enumerate(rules):
        try:
            checked_tree(str(item["rule"]), schema, ext, root)
        except CompileError as err:
            errors.append(invalid(f"{where}[{i}].rule", item, str(err)))
    return errors


# --- evaluating ----------------------------------------------------------------------------------------------


@dataclass
class CelValidator:
    """The compiled rules of one CRD version's schema, mirroring its shape; built once per served version."""

    ext: Extensions
    rules: list[Rule] = field(default_factory=list)
    properties: dict[str, CelValidator] = field(default_factory=dict)
    items: CelValidator | None = None
    additional: CelValidator | None = None
    root: bool = False

    @classmethod
    def build(cls, schema: Any, ext: Extensions, root: bool = True) -> CelValidator | None:
        if not isinstance(schema, dict) or not has_rules(schema, ext):
            return None
        node = cls(ext, root=root)
        try:
            node.rules = compile_rules(schema, ext, root)
        except CompileError:
            node.rules = []  # refused when the CRD was written; an older server's leftovers are not enforced
        for key, sub in (schema.get("properties") or {}).items():
            if child := cls.build(sub, ext, bool(isinstance(sub, dict) and sub.get(ext.embedded_resource))):
                node.properties[key] = child
        if isinstance(schema.get("items"), dict):
            node.items = cls.build(schema["items"], ext, bool(schema["items"].get(ext.embedded_resource)))
        if isinstance(schema.get("additionalProperties"), dict):
            extra = schema["additionalProperties"]
            node.additional = cls.build(extra, ext, bool(extra.get(ext.embedded_resource)))
        return node

    def validate(self, value: Any, schema: Schema) -> list[FieldError]:
        """Every rule of the schema on the object, within one budget of COST_LIMIT steps."""
        token = _BUDGET.set([COST_LIMIT])
        try:
            return self._validate(value, schema, "")
        except OverBudget as over:
            return [invalid(over.path, "object", BUDGET_EXCEEDED)]
        finally:
            _BUDGET.reset(token)

    def _validate(self, value: Any, schema: Schema, path: str) -> list[FieldError]:
        if value is None:
            return []  # rules see only values that are there (a nullable field's rule skips null)
        errors = self._evaluate(value, schema, path) if self.rules else []
        if isinstance(value, list) and self.items is not None:
            for i, item in enumerate(value):
                errors += self.items._validate(item, schema.get("items") or {}, f"{path}[{i}]")
        elif isinstance(value, dict):
            properties = schema.get("properties") or {}
            for key, item in value.items():
                if key in self.properties:
                    errors += self.properties[key]._validate(item, properties.get(key) or {}, _join(path, key))
                elif self.additional is not None and key not in properties:
                    errors += self.additional._validate(
                        item, schema.get("additionalProperties") or {}, f"{path}[{key}]"
                    )
        return errors

    def _evaluate(self, value: Any, schema: Schema, path: str) -> list[FieldError]:
        try:
            activation = {"self": to_cel(value, schema, self.ext, self.root)}
            return [error for rule in self.rules if (error := self._run(rule, activation, value, path))]
        except OverBudget as over:
            over.path = over.path or path
            raise

    @staticmethod
    def _run(rule: Rule, activation: dict, value: Any, path: str) -> FieldError | None:
        import celpy
        from celpy.celtypes import BoolType

        said = rule.message or rule.text
        try:
            result = rule.program.evaluate(activation)
        except celpy.CELEvalError as err:
            result = err
        except (ArithmeticError, LookupError, TypeError, ValueError, RecursionError) as err:
            result = celpy.CELEvalError(str(err), type(err))
        if isinstance(result, celpy.CELEvalError):
            return invalid(path, _shown(value), _evaluation_error(result, said))
        if not isinstance(result, BoolType):
            return invalid(path, _shown(value), f"cel expression must evaluate to a bool evaluating rule: {said}")
        return None if result else invalid(path, _shown(value), rule.message or f"failed rule: {rule.text}")


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _shown(value: Any) -> Any:
    """What an error shows of the value: scalars as they are, objects and lists by their type."""
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list):
        return "array"
    return value


def _evaluation_error(err: Any, said: str) -> str:
    text = str(err.args[0]) if err.args else str(err)
    if "overload" in text:
        return (
            f"'no such overload': call arguments did not match a supported operator, function or macro "
            f"signature for rule: {said}"
        )
    if text.startswith("no such member in mapping: "):
        text = "no such key: " + text.removeprefix("no such member in mapping: ").strip("'")
    elif len(err.args) > 1 and err.args[1] is IndexError:
        text = "index out of bounds"
    elif len(err.args) > 1 and err.args[1] is ZeroDivisionError:
        text = "division by zero"
    return f"{text} evaluating rule: {said}"


def _charge() -> None:
    """Converting a value costs a step of the budget too (a 3 MiB list is a million values)."""
    budget = _BUDGET.get(None)
    if budget is not None:
        budget[0] -= 1
        if budget[0] < 0:
            raise OverBudget()


def _plain(value: Any) -> Any:
    """A JSON value without a schema (preserved unknown fields, int-or-string) as CEL's dynamic value."""
    from celpy import celtypes as cel

    _charge()
    if isinstance(value, dict):
        return cel.MapType({cel.StringType(k): _plain(v) for k, v in value.items()})
    if isinstance(value, list):
        return cel.ListType([_plain(v) for v in value])
    if isinstance(value, bool):
        return cel.BoolType(value)
    if isinstance(value, int):
        return cel.IntType(value)
    if isinstance(value, float):
        return cel.DoubleType(value)
    if isinstance(value, str):
        return cel.StringType(value)
    return None


def to_cel(value: Any, schema: Schema, ext: Extensions, root: bool = False) -> Any:
    """A JSON value as CEL sees it at a schema node (the reference's UnstructuredToVal)."""
    from celpy import celtypes as cel

    if value is None:
        return None
    _charge()
    if not isinstance(schema, dict) or schema.get(ext.int_or_string) or not schema.get("type"):
        return _plain(value)
    kind = schema.get("type")
    if kind == "object" and isinstance(value, dict):
        properties = schema.get("properties") or {}
        if properties or root or schema.get(ext.embedded_resource):
            out = {}
            for key, item in value.items():
                if key in properties and (name := escape(key)):
                    out[cel.StringType(name)] = to_cel(item, properties[key] or {}, ext)
            if root or schema.get(ext.embedded_resource):
                _type_and_meta(value, out)
            return cel.MapType(out)
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            return cel.MapType({cel.StringType(k): to_cel(v, extra, ext) for k, v in value.items()})
        return _plain(value)
    if kind == "array" and isinstance(value, list):
        items = schema.get("items") or {}
        return cel.ListType([to_cel(item, items, ext) for item in value])
    if kind == "string" and isinstance(value, str):
        return _formatted(value, schema.get("format"))
    if kind == "integer" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return cel.IntType(int(value))
    if kind == "number" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return cel.DoubleType(float(value))
    return _plain(value)


def _type_and_meta(value: dict, out: dict) -> None:
    from celpy import celtypes as cel

    for key in ("apiVersion", "kind"):
        if isinstance(value.get(key), str):
            out[cel.StringType(key)] = cel.StringType(value[key])
    meta: dict = value["metadata"] if isinstance(value.get("metadata"), dict) else {}
    out[cel.StringType("metadata")] = cel.MapType(
        {cel.StringType(k): cel.StringType(meta[k]) for k in ("name", "generateName") if isinstance(meta.get(k), str)}
    )


def _formatted(value: str, fmt: Any) -> Any:
    from celpy import celtypes as cel

    try:
        if fmt == "byte":
            return cel.BytesType(base64.b64decode(value))
        if fmt == "duration":
            return cel.DurationType(value)
        if fmt in ("date-time", "datetime"):
            return cel.TimestampType(value)
        if fmt == "date":
            return cel.TimestampType(f"{value}T00:00:00Z")
    except (ValueError, TypeError):
        pass  # not in its format: validated as a string elsewhere, seen as one here
    return cel.StringType(value)


@lru_cache(maxsize=1)
def _string_functions() -> dict[str, Any]:
    """cel-go's strings extension, which the reference's rules may use."""
    from celpy import celtypes as cel

    def _index(s: Any, sub: Any, start: Any = 0) -> Any:
        return cel.IntType(str(s).find(str(sub), int(start)))

    return {
        "charAt": lambda s, i: cel.StringType(str(s)[int(i) : int(i) + 1]),
        "indexOf": _index,
        "lastIndexOf": lambda s, sub: cel.IntType(str(s).rfind(str(sub))),
        "lowerAscii": lambda s: cel.StringType(str(s).lower()),
        "upperAscii": lambda s: cel.StringType(str(s).upper()),
        "replace": lambda s, old, new, n=-1: cel.StringType(str(s).replace(str(old), str(new), int(n))),
        "split": lambda s, sep, n=-1: cel.ListType(
            [cel.StringType(p) for p in str(s).split(str(sep), int(n) - 1)] if int(n) != 0 else []
        ),
        "substring": lambda s, start, end=None: cel.StringType(str(s)[int(start) : None if end is None else int(end)]),
        "trim": lambda s: cel.StringType(str(s).strip()),
        "join": lambda items, sep="": cel.StringType(str(sep).join(str(i) for i in items)),
    }
