"""What the language server answers, over an `Analysis`: hover, definitions, references, completion.

Answers are spans and plain text; `server` turns them into the protocol's types. A name is
looked up in the composition the file starts (its revisions and uses applied), so a definition
is the version in force: an override, not the text it replaced.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from ruleslang.base.source import Span
from ruleslang.lang.compose.composition import Definition
from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.expressions import Call, ForClause, Name, StringLit
from ruleslang.lang.syntax.statements import Let
from ruleslang.lang.syntax.declarations import (AdviceDecl, CheckDecl, ConstantDecl, Decl, DieTableDecl, Module,
                                                NamedType, Param, RefLit, TableDecl, TestDecl)
from ruleslang.lsp.analysis import Analysis

# A declaration's slot when it is not filed under its bare name (composition.definition_key).
_NAMESPACES = ("", "tag ", "attribute ", "space attribute ")
# How much of a definition's text a hover shows before it is cut.
_HOVER_LINES = 24


@dataclass(frozen=True)
class Target:
    """What the cursor is on: a name, a quoted text or a ruleset reference, with its span."""

    text: str
    span: Span
    node: ast.Node
    parents: tuple[ast.Node, ...]  # outermost first (the top-level item, ...)

    @property
    def is_text(self) -> bool:
        return isinstance(self.node, StringLit)


def target_at(analysis: Analysis, offset: int) -> Target | None:
    """The innermost name, text or reference of the file at a character offset."""
    if analysis.file is None:
        return None
    best: Target | None = None
    for node, parents in _walk_with_parents(analysis.file.module, ()):
        text = _text_of(node)
        span = getattr(node, "span", None)
        if text is None or span is None or not (span.start <= offset <= span.end):
            continue
        if best is None or span.end - span.start <= best.span.end - best.span.start:
            best = Target(text, span, node, parents)
    return best


def definition_of(analysis: Analysis, target: Target) -> list[Span]:
    """Where the thing under the cursor is defined: the version in force of a name, the file a
    reference names, a parameter or `let` of the enclosing definition; on the name of an override,
    the definition it replaces."""
    if isinstance(target.node, RefLit):
        return _reference_target(analysis, target.node)
    local = _local_definition(target)
    if local is not None:
        return [local]
    found = lookup(analysis, target.text)
    if found is None or found.decl is None:
        return []
    if found.decl.name.span == target.span or _is_declared_here(target):
        earlier = _previous_of(analysis, target)
        return [earlier.decl.name.span] if earlier is not None else [found.decl.name.span]
    return [found.decl.name.span]


def references_to(analysis: Analysis, target: Target) -> list[Span]:
    """Every place in the composition's files (and this file) where the name under the cursor is
    written: its definitions, overrides and uses, file by file in source order."""
    if target.is_text or isinstance(target.node, RefLit):
        return []
    if _local_definition(target) is not None:
        top = target.parents[0] if target.parents else None
        return [s for s in _name_spans(top, target.text)] if top is not None else []
    if lookup(analysis, target.text) is None:
        return []
    out: list[Span] = []
    for file in analysis.files():
        out.extend(_name_spans(file.module, target.text))
    return out


def lookup(analysis: Analysis, name: str) -> Definition | None:
    """The definition in force of `name` in the file's composition (a tag, attribute too)."""
    ruleset = analysis.ruleset
    if ruleset is None:
        return None
    for prefix in _NAMESPACES:
        found = ruleset.definitions.get(prefix + name)
        if found is not None and found.decl is not None:
            return found
    return None


def hover_text(analysis: Analysis, target: Target, constant_value=None) -> str | None:
    """Markdown for the thing under the cursor: a definition's kind, origin, doc comment and text (a
    constant's value from `constant_value(name)`), a table row picked by a quoted key, a space."""
    if isinstance(target.node, RefLit):
        spans = _reference_target(analysis, target.node)
        return f"ruleset `{target.text}`: {spans[0].source.display_name}" if spans else None
    if target.is_text:
        return _text_hover(analysis, target)
    local = _local_definition(target)
    if local is not None:
        return f"`{target.text}`: local name, {local.source.line_text(local.line).strip()}"
    found = lookup(analysis, target.text)
    if found is None or found.decl is None:
        return None
    decl = found.decl
    lines = [f"**{decl.kind}** `{target.text}` from `{found.origin}`"
             + (f" (overrides `{found.previous.origin}`)" if found.previous is not None else "")]
    doc = doc_comment(decl)
    if doc:
        lines += ["", doc]
    if isinstance(decl, ConstantDecl) and constant_value is not None:
        value = constant_value(target.text)
        if value is not None:
            lines += ["", f"value: `{value}`"]
    lines += ["", "```ruleslang", _decl_text(decl), "```"]
    return "\n".join(lines)


def doc_comment(decl: Decl) -> str:
    """The comment lines written right above a definition (`# ...`), without the marks."""
    source = decl.span.source
    line = decl.span.line - 1
    found: list[str] = []
    while line >= 1:
        text = source.line_text(line).strip()
        if not text.startswith("#"):
            break
        found.append(text.lstrip("#").strip())
        line -= 1
    return "\n".join(reversed(found))


@dataclass(frozen=True)
class Completion:
    """A completion: the text, what it is (a definition's kind, `space`, `player`, `table key`), detail."""

    label: str
    kind: str
    detail: str = ""


def completions(analysis: Analysis, in_text: bool) -> list[Completion]:
    """What may be written at the cursor: inside quotes, spaces, players and table keys; elsewhere,
    every name in force (formulas, tables, unit types, constants, ...)."""
    ruleset = analysis.ruleset
    out: dict[str, Completion] = {}
    if in_text:
        gm = analysis.loaded.game_map if analysis.loaded is not None else None
        if gm is not None:
            for space in gm.spaces:
                out.setdefault(space.name, Completion(space.name, "space", f"{space.kind} space"))
            for player in gm.players:
                out.setdefault(player.name, Completion(player.name, "player", "player"))
        for name, decl in _live(ruleset):
            if isinstance(decl, (TableDecl, DieTableDecl)):
                for row in decl.rows:
                    for key in row.keys:
                        if isinstance(key, StringLit) and key.is_plain:
                            out.setdefault(key.plain, Completion(key.plain, "table key", f"a key of {name}"))
        return list(out.values())
    for name, decl in _live(ruleset):
        out.setdefault(decl.name.text, Completion(decl.name.text, decl.kind, _first_line(decl)))
    return list(out.values())


def tests_of(analysis: Analysis) -> list[TestDecl]:
    """The rule tests written in the file, in order."""
    if analysis.file is None:
        return []
    return [item for item in analysis.file.module.items if isinstance(item, TestDecl)]


# ------------------------------------------------------------------------------------ internals


def _walk_with_parents(node: ast.Node, parents: tuple) -> Iterator[tuple[ast.Node, tuple]]:
    yield node, parents
    inner = parents + (node,) if not isinstance(node, Module) else parents
    for child in ast.children(node):
        yield from _walk_with_parents(child, inner)


def _text_of(node: ast.Node) -> str | None:
    if isinstance(node, ast.Ident):
        return node.text
    if isinstance(node, Name):
        return node.id
    if isinstance(node, NamedType):
        return node.name
    if isinstance(node, StringLit) and node.is_plain:
        return node.plain
    if isinstance(node, RefLit):
        return node.text
    return None


def _live(ruleset) -> list[tuple[str, Decl]]:
    if ruleset is None:
        return []
    return [(d.name, d.decl) for d in ruleset.live().values()
            if not isinstance(d.decl, (TestDecl, CheckDecl, AdviceDecl))]


def _reference_target(analysis: Analysis, ref: RefLit) -> list[Span]:
    """The header of the file a `uses`/`revises` reference names (the version it resolves to)."""
    try:
        path = analysis.workspace.loader.locate(ref, analysis.path.parent)
        file = analysis.workspace.loader.load(path)
    except Exception:  # noqa: BLE001 - a reference that does not resolve has its diagnostic already
        return []
    return [file.module.header.ref.span]


def _local_definition(target: Target) -> Span | None:
    """The parameter, `let` or loop variable of the enclosing definition a name stands for."""
    if not isinstance(target.node, (Name, ast.Ident)) or not target.parents:
        return None
    for node, _ in _walk_with_parents(target.parents[0], ()):
        ident = None
        if isinstance(node, (Param, Let)):
            ident = node.name
        elif isinstance(node, ForClause):
            ident = node.var
        if ident is not None and ident.text == target.text:
            return ident.span
    return None


def _is_declared_here(target: Target) -> bool:
    """True when the cursor is on the name of a declaration (or of an override's declaration)."""
    return bool(target.parents) and isinstance(target.parents[-1], Decl) and \
        target.parents[-1].name.span == target.span


def _previous_of(analysis: Analysis, target: Target) -> Definition | None:
    """The definition an override written at the cursor replaces."""
    found = lookup(analysis, target.text)
    while found is not None:
        if found.decl is not None and found.decl.name.span == target.span:
            previous = found.previous
            return previous if previous is not None and previous.decl is not None else None
        found = found.previous
    return None


def _name_spans(node: ast.Node, name: str) -> list[Span]:
    out = []
    for n in ast.walk(node):
        if isinstance(n, (ast.Ident, Name, NamedType)) and _text_of(n) == name:
            out.append(n.span)
    return sorted(out, key=lambda s: s.start)


def _decl_text(decl: Decl) -> str:
    lines = decl.span.source.text[decl.span.start:decl.span.end].rstrip().splitlines()
    if len(lines) > _HOVER_LINES:
        lines = lines[:_HOVER_LINES] + [f"# ... {len(lines) - _HOVER_LINES} more lines"]
    return "\n".join(lines)


def _first_line(decl: Decl) -> str:
    return decl.span.source.line_text(decl.span.line).strip()


def _text_hover(analysis: Analysis, target: Target) -> str | None:
    """A quoted key of a table call (the row it picks) or a space or player of the map."""
    for parent in reversed(target.parents):
        if isinstance(parent, Call) and isinstance(parent.func, Name):
            found = lookup(analysis, parent.func.id)
            decl = found.decl if found is not None else None
            if isinstance(decl, TableDecl):
                for row in decl.rows:
                    if any(isinstance(k, StringLit) and k.plain == target.text for k in row.keys):
                        text = row.span.source.text[row.span.start:row.span.end].strip()
                        return f"row of table `{decl.name.text}` ({found.origin}):\n\n```ruleslang\n{text}\n```"
            break
    gm = analysis.loaded.game_map if analysis.loaded is not None else None
    if gm is None:
        return None
    space = gm.resolve_space(target.text)
    if space is not None:
        info = gm.space(space)
        facts = [f"{info.kind} space"] + ([f"held by {info.owner} at the start"] if info.owner else [])
        return f"space `{space}` of map `{gm.name}`: " + ", ".join(facts)
    player = gm.resolve_player(target.text)
    if player is not None:
        info = gm.player(player)
        return f"player `{player}` of map `{gm.name}`" + (f", side {info.side}" if info.side else "")
    return None
