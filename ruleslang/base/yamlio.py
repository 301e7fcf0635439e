"""Safe YAML reading with positions, and JSON Schema validation with located diagnostics.

Maps, scenarios and saves all come in through `load_yaml`, whose reader (base/yamltext.py, the
one module that imports PyYAML, loaded when a text is read) refuses anchors and aliases, custom
tags, deep nesting, oversized text and repeated keys, and remembers where every key and value came
from (`Positions`, base/positions.py), so a schema or consistency error can point at the YAML line
and column. Codes:

    D601 YAML syntax          D602 anchor or alias      D603 tag
    D604 nesting too deep     D605 document too large   D606 repeated key
    D607 key that is not text D608 file cannot be read
    D610 (or the caller's code) a value that fails its JSON Schema
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Mapping

from ruleslang.base import reads
from ruleslang.base.cache import library_stamp, read_cached, touch, write_cached

from ruleslang.base.fileio import is_file
from ruleslang.base.diagnostics import Diagnostic, DiagnosticError, Related, error
from ruleslang.base.limits import MAX_DATA_CHARS
from ruleslang.base.paths import package_folder
from ruleslang.base.positions import DataPath, Positions
from ruleslang.base.source import Source, Span
from ruleslang.base.suggest import did_you_mean

if TYPE_CHECKING:
    # start-up time: jsonschema is imported where a document is validated; here only for annotations
    import jsonschema

SCHEMA_PACKAGE = "ruleslang.schemas"
KEY_MARK = object()  # ends a data path that names a mapping key rather than its value
__all__ = ["Positions", "Problems", "load_yaml", "dump_yaml", "read_source", "not_a_file", "load_schema", "validate",
           "validate_text", "format_path", "describe_value", "kept_data", "keep_data"]




class Problems:
    """The located problems found in one loaded document: a data path, a message, a position."""

    def __init__(self, positions: Positions, found: list[Diagnostic] | None = None):
        self.positions = positions
        self.found = found if found is not None else []

    def add(self, code: str, path: tuple, message: str, *, hint: str | None = None,
            at_key: bool = False, related: Iterable[Related] = ()) -> None:
        """Report `message` about the value at `path` (or about its key, with `at_key`)."""
        span = self.positions.key_span(path) if at_key else self.positions.span(path)
        self.found.append(error(code, f"{format_path(path)}: {message}", span, hint=hint, related=related))


def load_yaml(source: Source) -> tuple[object, Positions]:
    """Parse one YAML document safely; return the data and the positions of every path
    (base/yamltext.py, which says what it refuses and with which codes)."""
    # (a map kept as JSON, or read back with a kept program, is never read as YAML)
    # start-up time: PyYAML is loaded only to read a text
    from ruleslang.base.yamltext import load_yaml_text

    return load_yaml_text(source)


def dump_yaml(data: object, *, header: str | None = None) -> str:
    """Data as YAML that `load_yaml` reads back: keys in the given order, short lists inline."""
    # start-up time: PyYAML is loaded only to write a text
    from ruleslang.base.yamltext import dump_yaml_text

    return dump_yaml_text(data, header=header)


def not_a_file(path: str, span: Span | None = None, code: str = "D608") -> Diagnostic | None:
    """The diagnostic for a path that names no file (it is missing, or a folder), else None.

    Located at `span` when the path was written in a file (a scenario's `map:`).
    """
    found = Path(path)
    if is_file(found):
        return None
    try:
        message = f"{path} is a folder, not a file" if found.is_dir() else f"no such file: {path}"
    except OSError as exc:  # what the system refuses to look up (a name past its limit), said where it was written
        return error("D613", f"{exc.strerror or exc}: {path}", span, file=None if span else path)
    return error(code, message, span, file=None if span else path)


def read_source(path: Path, code: str = "D608") -> Source:
    """Read a data file as a `Source`; a missing or unreadable file is a located diagnostic."""
    try:
        if path.stat().st_size > MAX_DATA_CHARS * 4:
            raise DiagnosticError(error("D605", f"the file is too large: {path.stat().st_size} bytes",
                                        file=str(path)))
        data = path.read_bytes()
        reads.note(path, data)
        # decoded as `read_text` would: universal newlines
        text = data.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except FileNotFoundError:
        raise DiagnosticError(error(code, f"no such file: {path}", file=str(path))) from None
    except IsADirectoryError:
        raise DiagnosticError(error(code, f"{path} is a folder, not a file", file=str(path))) from None
    except UnicodeDecodeError as exc:
        raise DiagnosticError(error(code, f"the file is not utf-8 text (byte {exc.start})",
                                    file=str(path))) from None
    except OSError as exc:
        raise DiagnosticError(error(code, f"cannot read the file: {exc.strerror or exc}",
                                    file=str(path))) from None
    return Source(str(path), text)


@functools.lru_cache(maxsize=None)
def _schema_text(name: str) -> str:
    folder = package_folder(SCHEMA_PACKAGE) or Path(__file__).resolve().parents[1] / "schemas"
    return (folder / f"{name}.schema.json").read_text(encoding="utf-8")


def load_schema(name: str) -> dict:
    """The JSON Schema `ruleslang/schemas/<name>.schema.json` (a fresh copy each call)."""
    return json.loads(_schema_text(name))


# ---------------------------------------------------------------- validation

def format_path(path: Iterable) -> str:
    """A data path as a reader writes it: `spaces[3].ipc`, `control."New Place"`."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            text = str(part)
            if text.replace("_", "").isalnum() and not text[:1].isdigit():
                out += ("." if out else "") + text
            else:
                out += ("." if out else "") + json.dumps(text)
    return out or "the document"


_TYPE_WORDS = {
    "object": "a mapping", "array": "a list", "string": "text", "integer": "a whole number",
    "number": "a number", "boolean": "true or false", "null": "nothing",
}


def describe_value(value: object) -> str:
    """How a found value reads in a message: `text 'x'`, `the number 3`, `a list`."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"text '{shown}'"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _expected_types(schema_type) -> str:
    types = [schema_type] if isinstance(schema_type, str) else list(schema_type)
    return " or ".join(_TYPE_WORDS.get(t, t) for t in types)


def _allowed_keys(schema: Mapping) -> list[str]:
    return sorted(schema.get("properties", {}))


def _branch_errors(err: jsonschema.ValidationError) -> list[jsonschema.ValidationError] | None:
    """The errors of the first anyOf / oneOf alternative whose type fits the value, if any."""
    branches: dict[int, list[jsonschema.ValidationError]] = {}
    for sub in err.context or ():
        branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    here = tuple(err.absolute_path)
    for index in sorted(branches):
        mismatched = any(e.validator == "type" and tuple(e.absolute_path) == here for e in branches[index])
        if not mismatched:
            return branches[index]
    return None


def _explain(err: jsonschema.ValidationError) -> list[tuple[str, DataPath]]:
    """(message, path to point at) for one schema error; an anyOf may give several.

    A path ending in `KEY_MARK` points at the key itself (a key that is badly spelled).
    """
    path = tuple(err.absolute_path)
    where = format_path(path)
    found = describe_value(err.instance)
    kind = err.validator
    if "propertyNames" in err.absolute_schema_path and isinstance(err.instance, str):
        what = err.schema.get("description", "another key")
        return [(f"{where}: the key '{err.instance}' is not allowed here: expected {what}",
                 path + (err.instance, KEY_MARK))]
    if kind == "type":
        return [(f"{where}: expected {_expected_types(err.validator_value)}, found {found}", path)]
    if kind == "required":
        missing = [k for k in err.validator_value if isinstance(err.instance, dict) and k not in err.instance]
        name = missing[0] if missing else err.message.split("'")[1]
        return [(f"{where}: the key '{name}' is required but missing", path)]
    if kind == "enum":
        choices = ", ".join(json.dumps(c) for c in err.validator_value)
        return [(f"{where}: expected one of {choices}, found {found}", path)]
    if kind == "const":
        return [(f"{where}: expected {json.dumps(err.validator_value)}, found {found}", path)]
    if kind in ("minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum"):
        words = {"minimum": "at least", "exclusiveMinimum": "more than",
                 "maximum": "at most", "exclusiveMaximum": "less than"}[kind]
        return [(f"{where}: expected a number {words} {err.validator_value}, found {found}", path)]
    if kind in ("minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"):
        words = "at least" if kind.startswith("min") else "at most"
        noun = {"Items": "a list of", "Length": "text of", "Properties": "a mapping with"}[kind[3:]]
        unit = {"Items": "items", "Length": "characters", "Properties": "keys"}[kind[3:]]
        return [(f"{where}: expected {noun} {words} {err.validator_value} {unit}, found {found}", path)]
    if kind == "pattern":
        what = err.schema.get("description") or f"text matching {err.validator_value}"
        return [(f"{where}: expected {what}, found {found}", path)]
    if kind == "uniqueItems":
        return [(f"{where}: expected a list without repeats, found {found} with a repeated item", path)]
    if kind in ("anyOf", "oneOf"):
        fitting = _branch_errors(err)
        if fitting is not None:
            return [explained for sub in fitting for explained in _explain(sub)]
        wanted = [e.validator_value for e in err.context if e.validator == "type"]
        types = [t for w in wanted for t in ([w] if isinstance(w, str) else w)]
        if types:
            return [(f"{where}: expected {_expected_types(list(dict.fromkeys(types)))}, found {found}", path)]
    if kind == "propertyNames":
        return [(f"{where}: the key {found} is not allowed here", path)]
    message = err.message[:1].lower() + err.message[1:]
    return [(f"{where}: {message}", path)]


def _unknown_keys(err: jsonschema.ValidationError, positions: Positions, code: str) -> Iterator[Diagnostic]:
    path = tuple(err.absolute_path)
    allowed = _allowed_keys(err.schema)
    patterns = list(err.schema.get("patternProperties", {}))
    # Keys are text in a YAML document; data built elsewhere may hold other keys.
    for key in sorted((k for k in err.instance if k not in allowed
                       and not any(re.search(p, str(k)) for p in patterns)), key=str):
        hint = did_you_mean(str(key), allowed, n=1) or (
            "allowed keys: " + ", ".join(allowed) if allowed else None)
        yield error(code, f"{format_path(path)}: unknown key '{key}'",
                    positions.key_span(path + (key,)), hint=hint)


def _whole_number(checker, instance) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


@functools.lru_cache(maxsize=1)
def _validator_class():
    # start-up time: jsonschema loads only when a document is validated (not for one known valid)
    import jsonschema

    # JSON Schema counts 3.0 as an integer; the documents ruleslang reads hold counts, rounds and ids
    # that Python uses as whole numbers, so an integer is written as one.
    return jsonschema.validators.extend(
        jsonschema.Draft202012Validator,
        type_checker=jsonschema.Draft202012Validator.TYPE_CHECKER.redefine("integer", _whole_number))


# At most this many texts are remembered as valid (the ones used last).
MAX_KNOWN_VALID = 256


@functools.lru_cache(maxsize=1)
def _reader_digest() -> bytes:
    """This module's own source and its YAML reader's: how a text becomes data (and is validated)
    is part of the verdict."""
    here = Path(__file__)
    return hashlib.sha256(here.read_bytes() + here.with_name("yamltext.py").read_bytes()).digest()


# At most this many documents' data are kept as JSON (the ones used last).
MAX_KEPT_DATA = 32


def _data_name(text: str) -> str:
    key = hashlib.sha256(_reader_digest() + library_stamp("yaml").encode() + b"\0"
                         + text.encode("utf-8", "surrogatepass"))
    return f"yamldata-{key.hexdigest()[:40]}"


def kept_data(source: Source) -> object | None:
    """The data of a document read before and kept with `keep_data` (the same text and reader), or
    None. It comes without positions: a caller that finds a problem in it reads the text again."""
    payload = read_cached(_data_name(source.text))
    if payload is None:
        return None
    try:
        return json.loads(payload)
    except ValueError:
        return None


def keep_data(source: Source, data: object) -> None:
    """Keep the data `load_yaml` read from `source` as JSON, for a document read often and known
    good (a map: parsing YAML is most of what loading one costs)."""
    write_cached(_data_name(source.text), json.dumps(data, separators=(",", ":")).encode(), keep=MAX_KEPT_DATA)


def validate_text(data: object, schema_name: str, positions: Positions, text: str, *,
                  code: str = "D610") -> list[Diagnostic]:
    """`validate` `data`, read from `text`, against the schema `schema_name`; a text found valid
    before (the same text, schema and reader: a marker in the user's cache, base/cache.py) is not
    validated again. Only a clean verdict is remembered, so every diagnostic is still computed."""
    key = hashlib.sha256(_reader_digest())
    key.update(_schema_text(schema_name).encode("utf-8"))
    key.update(b"\0" + text.encode("utf-8", "surrogatepass"))
    marker = f"valid-{key.hexdigest()[:40]}"
    if read_cached(marker) == b"valid":
        touch(marker)
        return []
    problems = validate(data, load_schema(schema_name), positions, code=code)
    if not problems:
        write_cached(marker, b"valid", keep=MAX_KNOWN_VALID)
    return problems


def validate(data: object, schema: dict, positions: Positions, *, code: str = "D610") -> list[Diagnostic]:
    """Every way `data` fails `schema`, as located diagnostics in a stable order.

    Each message states the data path (`spaces[3].ipc`), what was expected and what was found;
    an unknown key gets a did-you-mean from the keys the schema allows.
    """
    validator = _validator_class()(schema)
    errors = sorted(validator.iter_errors(data),
                    key=lambda e: ([str(p) for p in e.absolute_path], e.validator, e.message))
    if any(e.validator != "unevaluatedProperties" for e in errors):
        # a property that failed its own check counts as unevaluated too: say only what failed
        errors = [e for e in errors if e.validator != "unevaluatedProperties"]
    out: list[Diagnostic] = []
    for err in errors:
        if err.validator == "additionalProperties" and isinstance(err.instance, dict):
            out.extend(_unknown_keys(err, positions, code))
            continue
        for message, path in _explain(err):
            span = positions.key_span(path[:-1]) if path[-1:] == (KEY_MARK,) else positions.span(path)
            out.append(error(code, message, span))
    return out
