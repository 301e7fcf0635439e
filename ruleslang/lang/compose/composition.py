"""Composition: references to rulesets found, revisions applied, the rulesets a composition uses merged.

A resolved `Ruleset` maps every name to the `Definition` in force. Each definition remembers
which ruleset wrote it (`origin`) and which earlier definitions it supersedes (`replaces`), so
merging the rulesets a composition uses can tell an override (the later one wins) from a
conflict (two rulesets define the same name independently: an error naming both).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Sequence

from ruleslang.base import reads
from ruleslang.lang.syntax import ast
from ruleslang.lang.syntax.expressions import Name
from ruleslang.lang.syntax.declarations import (AdviceDecl, AttributeDecl, CheckDecl, ConstraintDecl, Decl, Header,
                                                Override, RefLit, Remove, TagDecl, TestDecl, UnitDecl)
from ruleslang.base.diagnostics import Diagnostic, DiagnosticError, Related, error
from ruleslang.base.limits import MAX_RULESETS
from ruleslang.lang.compose.loader import PREFER_MARK, Loader, RulesetFile, parse_ref, without_mark
from ruleslang.lang.compose.previous import (PREVIOUS, hidden_name, may_name_previous, previous_uses, renamed,
                                             with_previous)
from ruleslang.base.source import Source, Span
from ruleslang.base.suggest import did_you_mean

# Kinds that may replace one another: all are called like functions and give a value.
_VALUE_KINDS = {"formula", "table", "die table", "modifiers", "constant"}


def definition_key(decl: Decl) -> str:
    """The key a declaration is filed under. Tags and attributes are read in their own places
    (a tag argument, a field), so they have namespaces of their own: a unit `diver` and a tag
    `diver` can coexist, as can an attribute `cost` and a formula `cost`. Advice is filed under
    its target (`advice proc.var`, `advice NAME`), apart from every name."""
    name = decl.name.text
    if isinstance(decl, TagDecl):
        return f"tag {name}"
    if isinstance(decl, AttributeDecl):
        return f"space attribute {name}" if decl.on_spaces else f"attribute {name}"
    if isinstance(decl, AdviceDecl):
        return advice_key(name)
    return name


def advice_key(name: str) -> str:
    """The key the advice on `name` (a decision's procedure.variable, or a value bots estimate
    with) is filed under."""
    return f"advice {name}"


@dataclass(frozen=True)
class Definition:
    """A name's meaning in a ruleset; `decl` is None when a revision removed it."""

    name: str
    decl: Decl | None
    origin: str
    replaces: frozenset = frozenset()
    previous: "Definition | None" = None  # the definition this one overrode or removed
    removed_at: Span | None = None  # the `remove` statement, for a definition a revision removed

    @property
    def key(self) -> tuple[str, str]:
        return (self.origin, self.slot)

    @property
    def slot(self) -> str:
        """The namespaced key this definition is filed under."""
        decl = self.decl or (self.previous.decl if self.previous else None)
        return definition_key(decl) if decl is not None else self.name


@dataclass(frozen=True)
class CheckDef:
    """A `check` declaration and the ruleset it comes from."""

    origin: str
    decl: CheckDecl

    @property
    def key(self) -> tuple[str, str]:
        return (self.origin, self.decl.title)


@dataclass
class Ruleset:
    """A ruleset with its revisions applied and everything it uses merged in."""

    ref: str
    file: RulesetFile | None
    definitions: dict[str, Definition]
    checks: dict[tuple[str, str], CheckDef]
    tests: tuple[TestDecl, ...]
    map: tuple[str, Span] | None
    uses: tuple["Ruleset", ...] = ()
    revises: "Ruleset | None" = None
    members: tuple[str, ...] = field(default_factory=tuple)  # every ruleset ref in the composition

    @property
    def title(self) -> str | None:
        return self.file.module.header.title if self.file else None

    @property
    def source_note(self) -> str | None:
        return self.file.module.header.source_note if self.file else None

    @property
    def change_note(self) -> str | None:
        return self.file.module.header.change_note if self.file else None

    def live(self) -> dict[str, Definition]:
        """The definitions in force (removed names left out), in a stable order."""
        return {n: d for n, d in self.definitions.items() if d.decl is not None}

    def decl(self, name: str) -> Decl | None:
        d = self.definitions.get(name)
        return d.decl if d is not None else None


class Composer:
    """Composes rulesets: references resolved through a Loader, revisions applied, uses merged; each ruleset built once."""

    def __init__(self, loader: Loader, prefer: dict[tuple[str, str], str] | None = None):
        self.loader = loader
        # family/name -> the version the user said wins (`REF!`): every `uses` of another version of
        # that ruleset is resolved to it
        self.prefer = dict(prefer or {})
        self._done: dict[Path, Ruleset] = {}
        self._read_for: dict[Path, list[str]] = {}  # the files each ruleset in `_done` was built from
        self._loading: list[tuple[Path, str, Span | None]] = []

    # ------------------------------------------------------------------------ entry points

    def resolve_ref(self, text: str, source_name: str = "<command line>", span: Span | None = None) -> Ruleset:
        """Resolve a reference given by a user: `family/name@N`, `family/name` or a path. A problem is
        located at `span` when the reference was written in a file (a scenario's `rulesets:`)."""
        if parse_ref(text) is None:
            file = self.loader.load_user_file(text)
            return self._resolve_file(file, None)
        if span is None:
            span = Span(Source(source_name, text), 0, len(text))
        ref = RefLit(text, False, span=span)
        path = self.loader.locate(ref, None)
        return self._resolve_path(path, ref.span)

    def compose(self, refs: Sequence[str]) -> Ruleset:
        """A game's composition: one ruleset that uses every ruleset named, in order.

        Two versions of one ruleset in it (named, or brought in by `uses`) are R216, unless one of
        them is named with a trailing `!` (`family/name@2!`): that version then wins, and
        every `uses` of another version of it resolves to it."""
        prefer, plain = _preferences(refs)
        if prefer and prefer != self.prefer:
            # a preference changes what `uses` resolves to: resolve apart from this composer's cache
            return Composer(self.loader, prefer).compose(list(refs))
        parts = [self.resolve_ref(r) for r in plain]
        diags: list[Diagnostic] = []
        _check_versions(parts, diags)
        if diags:
            raise DiagnosticError(diags)
        if len(parts) == 1:
            return parts[0]
        env: dict[str, Definition] = {}
        checks: dict = {}
        for part in parts:
            _merge(env, part.definitions, diags)
            checks.update(part.checks)
        map_ = _merge_maps([p.map for p in parts], diags)
        if diags:
            raise DiagnosticError(diags)
        members = _members(parts)
        return Ruleset(" + ".join(p.ref for p in parts), None, env, checks, (), map_, tuple(parts), None, members)

    # --------------------------------------------------------------------------- internals

    def _resolve_path(self, path: Path, span: Span | None) -> Ruleset:
        path = path.resolve()
        if path in self._done:
            return self._done_again(path)
        for i, (loading, ref_text, _) in enumerate(self._loading):
            if loading == path:
                chain = [r for _, r, _ in self._loading[i:]] + [ref_text]
                raise DiagnosticError(error(
                    "R204", "rulesets use each other in a cycle: " + " -> ".join(chain), span,
                    hint="a ruleset cannot use or revise itself, directly or through others"))
        if len(self._done) + len(self._loading) >= MAX_RULESETS:
            raise DiagnosticError(error("R212", f"more than {MAX_RULESETS} rulesets in one composition", span))
        file = self.loader.load(path, span)
        return self._resolve_file(file, span)

    def _done_again(self, path: Path) -> Ruleset:
        """A ruleset built earlier: a later composition depends on the files it was built from."""
        for read in self._read_for.get(path, ()):
            reads.touch(read)
        return self._done[path]

    def _resolve_file(self, file: RulesetFile, span: Span | None) -> Ruleset:
        if file.path in self._done:
            return self._done_again(file.path)
        header = file.module.header
        self._loading.append((file.path, header.ref.text, span))
        try:
            with reads.recording() as files:
                reads.touch(file.path)
                ruleset = self._build(file)
        finally:
            self._loading.pop()
        self._done[file.path] = ruleset
        self._read_for[file.path] = list(files)
        return ruleset

    def _build(self, file: RulesetFile) -> Ruleset:
        header = file.module.header
        me = header.ref.text
        diags: list[Diagnostic] = []
        folder = file.path.parent

        revised = None
        written = None if header.revises is None or header.revises.is_path else parse_ref(header.revises.text)
        if written is not None and written[2] is None:
            # `revises fam/name` would name the newest version, which may be this very file
            mine = parse_ref(me)
            earlier = [f"{written[0]}/{written[1]}@{v}" for v, _ in self.loader.versions(written[0], written[1])
                       if mine is None or mine[:2] != written[:2] or v < (mine[2] or 0)]
            raise DiagnosticError(error(
                "R213", f"revises {header.revises.text}: a revision names the version it revises",
                header.revises.span, hint=f"write revises {earlier[-1]}" if earlier else
                "write revises family/name@N, an earlier version of this ruleset"))
        if header.revises is not None:
            revised = self._resolve_path(self.loader.locate(header.revises, folder), header.revises.span)
            _check_revision(me, header, revised, diags)
        used = []
        for ref in header.uses:
            used.append(self._resolve_path(self.loader.locate(self._preferred(ref), folder), ref.span))

        env: dict[str, Definition] = {}
        checks: dict[tuple[str, str], CheckDef] = {}
        if revised is not None:
            env.update(revised.definitions)
            checks.update(revised.checks)
        for u in used:
            _merge(env, u.definitions, diags)
            checks.update(u.checks)

        own: dict[str, ast.Node] = {}
        tests: list[TestDecl] = []
        test_titles: dict[str, TestDecl] = {}
        for item in file.module.items:
            if isinstance(item, TestDecl):
                if item.title in test_titles:
                    diags.append(_duplicate(item.name, test_titles[item.title].name, "test"))
                else:
                    test_titles[item.title] = item
                    tests.append(item)
            elif isinstance(item, CheckDecl):
                key = (me, item.title)
                if key in checks:
                    diags.append(_duplicate(item.name, checks[key].decl.name, "check"))
                else:
                    checks[key] = CheckDef(me, item)
            elif isinstance(item, Decl):
                self._define(me, item, env, own, diags)
            elif isinstance(item, Override):
                self._override(me, item, env, own, diags)
            elif isinstance(item, Remove):
                self._remove(me, item, env, own, diags)

        own_map = (header.map.plain, header.map.span) if header.map is not None else None
        maps = [own_map] + [u.map for u in used] + ([revised.map] if revised else [])
        map_ = _merge_maps(maps, diags)
        if diags:
            raise DiagnosticError(diags)
        members = _members([*used, *( [revised] if revised else [])]) + (me,)
        return Ruleset(me, file, env, checks, tuple(tests), map_, tuple(used), revised, members)

    def _preferred(self, ref: RefLit) -> RefLit:
        """The reference a `uses` resolves to: the version the user preferred, where there is one."""
        parts = None if ref.is_path else parse_ref(ref.text)
        wanted = self.prefer.get(parts[:2]) if parts else None
        return replace(ref, text=wanted) if wanted else ref

    def _define(self, me, decl: Decl, env, own, diags) -> None:
        name = definition_key(decl)
        if name in own:
            diags.append(_duplicate(decl.name, _name_of(own[name]), "definition"))
            return
        current = env.get(name)
        if current is not None and current.decl is not None:
            diags.append(error(
                "R202", f"'{name}' is already defined by {current.origin}",
                decl.name.span,
                related=[Related(current.decl.name.span, f"'{name}' is defined here")],
                hint=f"write 'override {decl.kind} {name} ...' to replace it"))
            return
        own[name] = decl
        replaces = current.replaces | {current.key} if current is not None else frozenset()
        env[name] = Definition(decl.name.text, decl, me, replaces, current)

    def _override(self, me, item: Override, env, own, diags) -> None:
        decl = item.decl
        name = definition_key(decl)
        if isinstance(decl, (TestDecl, CheckDecl)):
            diags.append(error("R206", f"a {decl.kind} cannot be overridden", item.span))
            return
        if name in own:
            diags.append(error(
                "R208", f"'{name}' is defined in this same ruleset; override replaces definitions "
                        "of the rulesets this one uses or revises",
                decl.name.span, related=[Related(_name_of(own[name]).span, "defined here")]))
            return
        current = env.get(name)
        if current is None or current.decl is None:
            diags.append(_nothing_to(name, "override", decl.name.span, env))
            return
        old = current.decl
        if not _kinds_compatible(old.kind, decl.kind):
            diags.append(error(
                "R206", f"'{name}' is a {old.kind}; it cannot be overridden by a {decl.kind}",
                decl.name.span, related=[Related(old.name.span, f"the {old.kind} is defined here")]))
            return
        if isinstance(old, UnitDecl) and isinstance(decl, UnitDecl):
            decl = _merge_unit(old, decl)
        if previous_uses(decl) and PREVIOUS not in env:
            decl = self._keep_previous(decl, current, env, diags)
        own[name] = decl
        env[name] = Definition(decl.name.text, decl, me, current.replaces | {current.key}, current)

    def _keep_previous(self, decl: Decl, current: Definition, env, diags) -> Decl:
        """An override naming `previous`: the replaced definition filed under a hidden name, which
        the override's `previous` now names (R250 where the kind has nothing to call or run)."""
        if not may_name_previous(decl):
            where = next(n for n in previous_uses(decl) if not isinstance(decl, ConstraintDecl)
                         or isinstance(n, Name))  # a constraint's `run previous` is fine: its read is not
            diags.append(error(
                "R250", f"'previous' names the definition an override replaces; an override of a "
                        f"{decl.kind} cannot call or run the {current.decl.kind} it replaces", where.span,
                hint="previous is for overrides of formulas, modifier lists, tables, constants (call it, "
                     "or read it) and of phases, steps, hooks and constraints (run previous)"))
            return decl
        hidden = hidden_name(current.slot, current.origin)
        env[hidden] = Definition(hidden, renamed(current.decl, hidden), current.origin)
        return with_previous(decl, hidden)

    def _remove(self, me, item: Remove, env, own, diags) -> None:
        name = item.name.text
        keys = [k for k, d in env.items() if d.name == name and d.decl is not None]
        if len(keys) > 1:
            diags.append(error("R203", f"'{name}' names several definitions ({', '.join(keys)})", item.name.span,
                               hint="override the one to change instead"))
            return
        if keys:
            name = keys[0]
        current = env.get(name)
        if name in own:
            diags.append(error("R208", f"'{name}' is defined in this same ruleset; delete it instead "
                                       "of removing it", item.name.span))
            return
        if current is None or current.decl is None:
            diags.append(_nothing_to(name, "remove", item.name.span, env))
            return
        own[name] = item
        env[name] = Definition(current.name, None, me, current.replaces | {current.key}, current, item.span)


def _name_of(node) -> ast.Ident:
    return node.name if isinstance(node, (Decl, Remove)) else node.decl.name


def _duplicate(ident: ast.Ident, first: ast.Ident, what: str) -> Diagnostic:
    return error("R202", f"{what} '{ident.text}' is defined twice", ident.span,
                 related=[Related(first.span, "first defined here")])


def _nothing_to(name: str, verb: str, span: Span, env: dict[str, Definition]) -> Diagnostic:
    live = [n for n, d in env.items() if d.decl is not None]
    hint = did_you_mean(name, live, n=3) or (
        f"{verb} applies to definitions of the rulesets this one uses or revises")
    return error("R205", f"there is no '{name}' to {verb}", span, hint=hint)


def _kinds_compatible(old: str, new: str) -> bool:
    return old == new or (old in _VALUE_KINDS and new in _VALUE_KINDS)


def _merge_unit(old: UnitDecl, new: UnitDecl) -> UnitDecl:
    """`override unit x:` states only the attributes that change."""
    attrs = {ident.text: (ident, value) for ident, value in old.attributes}
    for ident, value in new.attributes:
        attrs[ident.text] = (ident, value)
    tags = new.tags if new.tags is not None else old.tags
    title = new.title if new.title is not None else old.title
    return replace(new, attributes=tuple(attrs.values()), tags=tags, title=title)


def _merge(env: dict[str, Definition], incoming: dict[str, Definition], diags: list[Diagnostic]) -> None:
    for name, d in incoming.items():
        current = env.get(name)
        if current is None:
            env[name] = d
        elif current.key == d.key or d.key in current.replaces:
            continue
        elif current.key in d.replaces:
            env[name] = d
        else:
            a = current.decl or (current.previous.decl if current.previous else None)
            b = d.decl or (d.previous.decl if d.previous else None)
            span = b.name.span if b is not None else None
            related = [Related(a.name.span, f"defined by {current.origin} here")] if a is not None else []
            diags.append(error(
                "R207", f"'{name}' is defined by both {current.origin} and {d.origin}", span,
                related=related,
                hint="a ruleset that uses both must say which wins with 'override'"))


def _merge_maps(maps, diags: list[Diagnostic]) -> tuple[str, Span] | None:
    chosen = None
    for m in maps:
        if m is None:
            continue
        if chosen is None:
            chosen = m
        elif chosen[0] != m[0]:
            diags.append(error("R209", f"rulesets disagree on the map: '{chosen[0]}' and '{m[0]}'", m[1],
                               related=[Related(chosen[1], f"map '{chosen[0]}' is named here")]))
    return chosen


def _check_revision(me: str, header: Header, revised: Ruleset, diags: list[Diagnostic]) -> None:
    mine, theirs = parse_ref(me), parse_ref(revised.ref)
    if mine is None or theirs is None:
        return
    if mine[:2] != theirs[:2]:
        diags.append(error(
            "R213", f"{me} revises {revised.ref}, a different ruleset", header.revises.span,
            hint="a revision keeps the family and name and raises the version; to build on another "
                 "ruleset, write 'uses'"))
    elif (mine[2] or 0) <= (theirs[2] or 0):
        diags.append(error(
            "R213", f"{me} revises {revised.ref}, which is not an earlier version", header.revises.span))


def _members(parts) -> tuple[str, ...]:
    out: list[str] = []
    for part in parts:
        for ref in part.members:
            if ref not in out:
                out.append(ref)
    return tuple(out)


def _preferences(refs: Sequence[str]) -> tuple[dict[tuple[str, str], str], list[str]]:
    """The versions marked to win (`family/name@N!`) and the references without their marks."""
    prefer: dict[tuple[str, str], str] = {}
    plain: list[str] = []
    for text in refs:
        if text.endswith(PREFER_MARK):
            text = without_mark(text)
            parts = parse_ref(text)
            if parts is None or parts[2] is None:
                raise DiagnosticError(error(
                    "R216", f"'{text}{PREFER_MARK}': only a ruleset with its version can be marked to win",
                    None, hint="write family/name@N! (for example house/raids@1!)"))
            if parts[:2] in prefer and prefer[parts[:2]] != text:
                raise DiagnosticError(error(
                    "R216", f"two versions of {parts[0]}/{parts[1]} are marked to win: "
                            f"{prefer[parts[:2]]}{PREFER_MARK} and {text}{PREFER_MARK}", None))
            prefer[parts[:2]] = text
        plain.append(text)
    return prefer, plain


def _versions_in(parts: Sequence[Ruleset]) -> dict[tuple[str, str], dict[int | None, tuple[list[str], Span | None]]]:
    """family/name -> version -> (the chain of rulesets that reached it, the `uses` that wrote it), for
    every ruleset of a composition named or reached through `uses`. A version a revision builds on
    (`revises`) is part of that revision, not a version of its own in the composition."""
    found: dict[tuple[str, str], dict[int | None, tuple[list[str], Span | None]]] = {}
    seen: set[tuple[int, bool]] = set()

    def walk(ruleset: Ruleset, chain: list[str], counted: bool, span: Span | None) -> None:
        if (id(ruleset), counted) in seen:
            return
        seen.add((id(ruleset), counted))
        parts = parse_ref(ruleset.ref)
        if counted and parts is not None:
            found.setdefault(parts[:2], {}).setdefault(parts[2], (chain + [ruleset.ref], span))
        written = ruleset.file.module.header.uses if ruleset.file is not None else ()
        for used, ref in zip(ruleset.uses, written):
            walk(used, chain + [ruleset.ref], True, ref.span)
        if ruleset.revises is not None:
            walk(ruleset.revises, chain + [ruleset.ref], False, None)

    for part in parts:
        walk(part, [], True, None)
    return found


def composition_rulesets(ruleset: Ruleset) -> list[str]:
    """The rulesets a composition plays, one version each: those named and those reached through
    `uses` (the versions revisions build on are parts of the revisions)."""
    parts = ruleset.uses if ruleset.file is None else (ruleset,)
    found = _versions_in(parts)
    refs = [f"{family}/{name}@{version}" if version is not None else f"{family}/{name}"
            for (family, name), versions in found.items() for version in versions]
    return [ref for ref in ruleset.members if ref in refs] + [ref for ref in refs if ref not in ruleset.members]


def _check_versions(parts: Sequence[Ruleset], diags: list[Diagnostic]) -> None:
    """R216 for two versions of one ruleset in a composition, naming the chain that brought in each."""
    for (family, name), versions in _versions_in(parts).items():
        if len(versions) < 2:
            continue
        ways = [_brought_in(chain) for chain, _ in versions.values()]
        spans = [span for _, span in versions.values() if span is not None]
        first = min(versions, key=lambda v: v or 0)
        diags.append(error(
            "R216", f"the composition holds two versions of {family}/{name}: " + " and ".join(ways),
            spans[-1] if spans else None,
            related=[Related(span, "a version is brought in here") for span in spans[:-1]],
            hint=f"say which wins by naming it with a trailing '{PREFER_MARK}' "
                 f"({family}/{name}@{first}{PREFER_MARK}), or leave one out"))


def _brought_in(chain: list[str]) -> str:
    """How a ruleset came into a composition: named, or the `uses` chain that reached it."""
    if len(chain) == 1:
        return f"{chain[0]} (named)"
    return f"{chain[-1]} (" + " uses ".join(chain) + ")"


def composition_rulesets_of(ruleset: Ruleset) -> list[Ruleset]:
    """Every ruleset of a composition once: the composition first, then depth first what each uses
    (the last named first) and revises."""
    out: list[Ruleset] = []
    seen: set[int] = set()
    stack = [ruleset]
    while stack:
        found = stack.pop()
        if id(found) in seen:
            continue
        seen.add(id(found))
        out.append(found)
        stack.extend(found.uses)
        if found.revises is not None:
            stack.append(found.revises)
    return out


def composition_lines(ruleset: Ruleset) -> list[str]:
    """The resolved composition as an indented tree: each ruleset, what it uses and revises, and a
    version that stands in for the one a `uses` wrote (a version marked to win with `!`). A ruleset
    met a second time is named and not expanded again."""
    lines: list[str] = []
    shown: set[int] = set()

    def walk(r: Ruleset, depth: int, how: str) -> None:
        again = id(r) in shown
        lines.append("  " * depth + how + r.ref + (" (above)" if again and (r.uses or r.revises) else ""))
        if again:
            return
        shown.add(id(r))
        written = r.file.module.header.uses if r.file is not None else ()
        for i, used in enumerate(r.uses):
            wrote = written[i].text if i < len(written) else used.ref
            walk(used, depth + 1, "uses " if wrote == used.ref else f"uses (in place of {wrote}) ")
        if r.revises is not None:
            walk(r.revises, depth + 1, "revises ")

    if ruleset.file is None:  # several rulesets named: their composition
        lines.append("composition of " + ", ".join(part.ref for part in ruleset.uses))
        for part in ruleset.uses:
            walk(part, 1, "")
    else:
        walk(ruleset, 0, "")
    return lines
