"""YAML text to data and back, with PyYAML: the only module that loads it (base/yamlio.py calls it
when a text must be read, so a command whose data all come from the cache never imports PyYAML).

`load_yaml_text` is a PyYAML `SafeLoader` that refuses anchors and aliases, custom tags, deep
nesting, oversized text and repeated keys, and that remembers where every key and value came
from, so a schema or consistency error can point at the YAML line and column. Codes:

    D601 YAML syntax          D602 anchor or alias      D603 tag
    D604 nesting too deep     D605 document too large   D606 repeated key
    D607 key that is not text D609 a number with too many digits
"""

from __future__ import annotations

import yaml

from ruleslang.base.diagnostics import Diagnostic, DiagnosticError, Related, error
from ruleslang.base.limits import MAX_DATA_CHARS, MAX_NUMBER_DIGITS, MAX_YAML_DEPTH
from ruleslang.base.positions import DataPath, Positions
from ruleslang.base.source import Source, Span, span_at

# The standard tags a document may spell out (`!!str 10`); anything else is refused.
_PLAIN_TAGS = frozenset(
    "tag:yaml.org,2002:" + name for name in ("str", "int", "float", "bool", "null", "map", "seq")
)
_NUMBER_TAGS = frozenset(("tag:yaml.org,2002:int", "tag:yaml.org,2002:float"))


class _Refused(Exception):
    def __init__(self, code: str, message: str, mark, hint: str | None = None):
        super().__init__(message)
        self.code, self.message, self.mark, self.hint = code, message, mark, hint


class _Checked:
    """Composing nodes only: no anchors, aliases or custom tags, bounded depth (a mixin over a
    YAML parser and PyYAML's Python composer)."""

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            raise _Refused("D602", f"yaml aliases are not allowed (found '*{event.anchor}')",
                           event.start_mark, "write the value out again where it is needed")
        if getattr(event, "anchor", None) is not None:
            raise _Refused("D602", f"yaml anchors are not allowed (found '&{event.anchor}')",
                           event.start_mark, "remove the anchor; data files must not share values")
        tag = getattr(event, "tag", None)
        if tag is not None and tag != "!" and tag not in _PLAIN_TAGS:
            raise _Refused("D603", f"yaml tags are not allowed (found '{tag}')", event.start_mark,
                           "remove the tag; values are plain text, numbers, booleans, lists and mappings")
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                raise _Refused("D604", f"the document nests deeper than {MAX_YAML_DEPTH} levels",
                               event.start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _Loader(_Checked, yaml.SafeLoader):
    """The pure-Python SafeLoader, checked: what reports a document's errors."""

    def __init__(self, text: str):
        super().__init__(text)
        self._depth = 0


_CParser = getattr(getattr(yaml, "cyaml", None), "CParser", None)  # libyaml's, when PyYAML was built with it
_FastLoader = None
if _CParser is not None:
    class _FastLoader(_Checked, yaml.composer.Composer, _CParser, yaml.constructor.SafeConstructor,
                      yaml.resolver.Resolver):
        """libyaml's parser under the same checked Python composer: the same nodes, marks and
        checks as `_Loader`, read about ten times faster. Its error messages are libyaml's, so
        a document it refuses is read again by `_Loader` for the diagnostics."""

        def __init__(self, text: str):
            _CParser.__init__(self, text)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)
            yaml.composer.Composer.__init__(self)
            self._depth = 0


def _mark_span(source: Source, mark, length: int = 1) -> Span:
    if mark is None:
        return Span(source, 0, min(1, len(source.text)))
    return span_at(source, mark.line + 1, mark.column + 1, length)


def _node_span(source: Source, node: yaml.Node) -> Span:
    start, end = node.start_mark.index, node.end_mark.index
    if end <= start:
        end = min(start + 1, len(source.text))
    return Span(source, start, end)


def _scalar_value(loader: _Loader, node: yaml.ScalarNode) -> object:
    # Timestamps stay text: data files carry names and numbers, never dates.
    if node.tag == "tag:yaml.org,2002:timestamp":
        return node.value
    if node.tag in _NUMBER_TAGS:
        digits = sum(ch.isdigit() for ch in node.value)
        if digits > MAX_NUMBER_DIGITS:
            raise _Refused("D609", f"number written with {digits} digits; at most {MAX_NUMBER_DIGITS} are allowed",
                           node.start_mark)
    return loader.construct_object(node, deep=True)


def _build(loader: _Loader, source: Source, node: yaml.Node, path: DataPath,
           positions: Positions, problems: list[Diagnostic]) -> object:
    if isinstance(node, yaml.ScalarNode):
        return _scalar_value(loader, node)
    if isinstance(node, yaml.SequenceNode):
        items = []
        for i, child in enumerate(node.value):
            positions.add(path + (i,), _node_span(source, child))
            items.append(_build(loader, source, child, path + (i,), positions, problems))
        return items
    result: dict = {}
    for key_node, value_node in node.value:
        key_span = _node_span(source, key_node)
        if not isinstance(key_node, yaml.ScalarNode):
            problems.append(error("D607", "a mapping key must be plain text, found a "
                                  + ("list" if isinstance(key_node, yaml.SequenceNode) else "mapping"),
                                  key_span))
            continue
        # Keys are always the text as written: `yes:` stays "yes", `1:` stays "1".
        key = key_node.value
        if key in result:
            first = positions.key_span(path + (key,))
            problems.append(error("D606", f"the key '{key}' is given twice", key_span,
                                  related=[] if first is None else [Related(first, "first given here")]))
            continue
        positions.add(path + (key,), _node_span(source, value_node), key_span)
        result[key] = _build(loader, source, value_node, path + (key,), positions, problems)
    return result


def load_yaml_text(source: Source) -> tuple[object, Positions]:
    """Parse one YAML document safely; return the data and the positions of every path.

    Raises `DiagnosticError` for bad syntax (D601), anchors or aliases (D602), tags (D603),
    nesting deeper than `limits.MAX_YAML_DEPTH` (D604), text longer than
    `limits.MAX_DATA_CHARS` (D605), repeated keys (D606) and keys that are not text (D607).
    An empty document loads as `None`.
    """
    if len(source.text) > MAX_DATA_CHARS:
        raise DiagnosticError(error(
            "D605", f"the file is too large: {len(source.text)} characters, at most {MAX_DATA_CHARS} allowed",
            file=source.display_name))
    if _FastLoader is not None:
        try:
            return _load_with(_FastLoader, source)
        except (DiagnosticError, yaml.YAMLError):
            pass  # refused: the pure loader says why, in its words and at its positions
    return _load_with(_Loader, source)


def _load_with(loader_class, source: Source) -> tuple[object, Positions]:
    positions = Positions(source)
    loader = None
    try:
        loader = loader_class(source.text)  # the reader already refuses characters YAML forbids
        node = loader.get_single_node()
        if node is None:
            # An empty document sits at the start of its file, so what is said about it names the file.
            positions.add((), Span(source, 0, 0))
            return None, positions
        positions.add((), _node_span(source, node))
        problems: list[Diagnostic] = []
        data = _build(loader, source, node, (), positions, problems)
    except _Refused as refused:
        raise DiagnosticError(error(refused.code, refused.message, _mark_span(source, refused.mark),
                                    hint=refused.hint)) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = (exc.problem or exc.context or "invalid yaml").rstrip(".")
        message = f"yaml syntax error: {problem}"
        if exc.context and exc.problem and exc.context != exc.problem:
            message += f" ({exc.context})"
        related, hint = [], None
        if exc.context_mark is not None and exc.problem_mark is not None and \
                exc.context_mark.line != exc.problem_mark.line:
            # PyYAML notices an unclosed bracket or quote where the next thing fails to fit, often a
            # line or more after the mistake: point at where the construct began as well
            what = (exc.context or "").replace("while parsing ", "").replace("while scanning ", "") or "it"
            related = [Related(_mark_span(source, exc.context_mark), f"{what} begins here")]
            hint = f"look at {what} from line {exc.context_mark.line + 1}: is something left unclosed?"
        raise DiagnosticError(error("D601", message, _mark_span(source, mark), related=related, hint=hint)) from None
    except yaml.YAMLError as exc:  # reader errors: characters YAML does not allow
        mark = getattr(exc, "position", None)
        span = span_at(source, *source.position(mark)) if isinstance(mark, int) else None
        raise DiagnosticError(error("D601", f"yaml syntax error: {str(exc).splitlines()[0].lower()}",
                                    span, file=source.display_name)) from None
    finally:
        if loader is not None:
            loader.dispose()
    if problems:
        raise DiagnosticError(problems)
    return data, positions


class _Dumper(yaml.SafeDumper):
    """Writes plain YAML: never an anchor or alias; lists of scalars and short mappings inline."""

    def ignore_aliases(self, data) -> bool:
        return True

    def represent_dict(self, data):
        flat = all(not isinstance(v, (dict, list)) for v in data.values())
        return self.represent_mapping("tag:yaml.org,2002:map", data,
                                      flow_style=flat and len(str(data)) <= 90)

    def represent_list(self, data):
        flat = all(not isinstance(v, (dict, list)) for v in data)
        return self.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=flat)


_Dumper.add_representer(dict, _Dumper.represent_dict)
_Dumper.add_representer(list, _Dumper.represent_list)


def dump_yaml_text(data: object, *, header: str | None = None) -> str:
    """Data as YAML that `load_yaml_text` reads back: keys in the given order, short lists inline."""
    text = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110)
    if header:
        text = "".join(f"# {line}\n" if line else "#\n" for line in header.splitlines()) + text
    return text
