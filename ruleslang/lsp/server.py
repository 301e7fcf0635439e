"""`ruleslang lsp`: the language server (pygls) an editor starts and talks to over stdio.

Every open or changed `.rules` buffer goes through the whole pipeline (`analysis.analyse`, the
other open buffers standing in for their files) and its diagnostics are published with ranges
and codes. Hover, go to definition, references and completion answer from that analysis
(`features`); completion falls back on the last analysis that composed, so names are offered
while the text is half typed. Each rule test gets a code lens running it
(`ruleslang.runTest URI TITLE`, also callable as a command).
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from ruleslang.base.diagnostics import Diagnostic, Severity
from ruleslang.base.source import Source, Span
from ruleslang.base.version import VERSION
from ruleslang.lsp import features
from ruleslang.lsp.analysis import Analysis, analyse, constant_value
from ruleslang.ruletests.runner import TestRunner

RUN_TEST = "ruleslang.runTest"

_SEVERITY = {Severity.ERROR: lsp.DiagnosticSeverity.Error, Severity.WARNING: lsp.DiagnosticSeverity.Warning}
_KINDS = {"formula": lsp.CompletionItemKind.Function, "table": lsp.CompletionItemKind.Struct,
          "die table": lsp.CompletionItemKind.Struct, "modifiers": lsp.CompletionItemKind.Function,
          "constant": lsp.CompletionItemKind.Constant, "unit": lsp.CompletionItemKind.Class,
          "option": lsp.CompletionItemKind.Property, "attribute": lsp.CompletionItemKind.Field,
          "player": lsp.CompletionItemKind.EnumMember, "space": lsp.CompletionItemKind.Value,
          "table key": lsp.CompletionItemKind.Keyword, "tag": lsp.CompletionItemKind.Enum}


class RulesServer(LanguageServer):
    """The server with its analyses: the last one of each open file, and the last one that composed."""

    def __init__(self, roots: Sequence[str] = ()):
        super().__init__("ruleslang", VERSION, text_document_sync_kind=lsp.TextDocumentSyncKind.Full)
        self.roots = list(roots)
        self.latest: dict[str, Analysis] = {}
        self.composed: dict[str, Analysis] = {}

    def refresh(self, uri: str) -> Analysis | None:
        """Analyse the buffer of `uri` again and publish its diagnostics."""
        path = to_fs_path(uri)
        if path is None:
            return None
        doc = self.workspace.get_text_document(uri)
        open_texts = {Path(p): self.workspace.get_text_document(u).source
                      for u in list(self.workspace.text_documents) if u != uri and (p := to_fs_path(u))}
        result = analyse(path, doc.source, open_texts=open_texts, roots=self.roots)
        self.latest[uri] = result
        if result.ruleset is not None:
            self.composed[uri] = result
        diags = [to_lsp_diagnostic(d, result.path) for d in result.diagnostics]
        self.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=diags))
        return result

    def analysis(self, uri: str) -> Analysis | None:
        return self.latest.get(uri) or self.refresh(uri)


def to_range(span: Span) -> lsp.Range:
    """A span as the protocol's range (0-based lines, columns in UTF-16 code units)."""
    return lsp.Range(_position(span.source, span.start), _position(span.source, span.end))


def _position(source: Source, offset: int) -> lsp.Position:
    line, column = source.position(offset)
    before = source.line_text(line)[:column - 1]
    return lsp.Position(line - 1, len(before.encode("utf-16-le")) // 2)


def to_offset(source: Source, position: lsp.Position) -> int:
    """The character offset of a protocol position in `source`."""
    text = source.line_text(position.line + 1)
    units = 0
    column = 0
    while column < len(text) and units < position.character:
        units += 2 if ord(text[column]) > 0xFFFF else 1
        column += 1
    return source.offset(position.line + 1, column + 1)


def to_location(span: Span) -> lsp.Location:
    return lsp.Location(uri=from_fs_path(span.source.name), range=to_range(span))


def to_lsp_diagnostic(diag: Diagnostic, path: Path) -> lsp.Diagnostic:
    """A diagnostic of the file at `path`; one located in another file (a ruleset it uses) or in
    none is shown at the top of this file, with where it is in its message."""
    message = diag.message + (f"\nhint: {diag.hint}" if diag.hint else "")
    here = diag.span is not None and Path(diag.span.source.name) == path
    if here:
        where = to_range(diag.span)
    else:
        file, line, column = diag.location()
        at = ":".join(str(x) for x in (file, line, column) if x is not None)
        message = f"{at}: {message}" if at else message
        where = lsp.Range(lsp.Position(0, 0), lsp.Position(0, 0))
    related = [lsp.DiagnosticRelatedInformation(to_location(r.span), r.message)
               for r in diag.related if getattr(r, "span", None) is not None]
    return lsp.Diagnostic(range=where, message=message, severity=_SEVERITY.get(diag.severity,
                          lsp.DiagnosticSeverity.Information), code=diag.code, source="ruleslang",
                          related_information=related or None)


def _target(ls: RulesServer, uri: str, position: lsp.Position):
    result = ls.analysis(uri)
    if result is None or result.file is None:
        return None, None
    return result, features.target_at(result, to_offset(result.file.source, position))


def build_server(roots: Sequence[str] = ()) -> RulesServer:
    """The language server, its features registered; `roots` are folders of rulesets searched first."""
    server = RulesServer(roots)

    @server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: RulesServer, params: lsp.DidOpenTextDocumentParams):
        ls.refresh(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: RulesServer, params: lsp.DidChangeTextDocumentParams):
        ls.refresh(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: RulesServer, params: lsp.DidSaveTextDocumentParams):
        ls.refresh(params.text_document.uri)

    @server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: RulesServer, params: lsp.DidCloseTextDocumentParams):
        ls.latest.pop(params.text_document.uri, None)
        ls.composed.pop(params.text_document.uri, None)

    @server.feature(lsp.TEXT_DOCUMENT_HOVER)
    def hover(ls: RulesServer, params: lsp.HoverParams):
        result, target = _target(ls, params.text_document.uri, params.position)
        if target is None:
            return None
        text = features.hover_text(result, target, lambda name: constant_value(result, name))
        if text is None:
            return None
        return lsp.Hover(lsp.MarkupContent(lsp.MarkupKind.Markdown, text), to_range(target.span))

    @server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: RulesServer, params: lsp.DefinitionParams):
        result, target = _target(ls, params.text_document.uri, params.position)
        if target is None:
            return None
        return [to_location(s) for s in features.definition_of(result, target)] or None

    @server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
    def references(ls: RulesServer, params: lsp.ReferenceParams):
        result, target = _target(ls, params.text_document.uri, params.position)
        if target is None:
            return None
        return [to_location(s) for s in features.references_to(result, target)]

    @server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=['"']))
    def completion(ls: RulesServer, params: lsp.CompletionParams):
        uri = params.text_document.uri
        ls.analysis(uri)
        result = ls.composed.get(uri) or ls.latest.get(uri)
        if result is None:
            return None
        line = ls.workspace.get_text_document(uri).lines[params.position.line] \
            if params.position.line < len(ls.workspace.get_text_document(uri).lines) else ""
        in_text = line[:params.position.character].count('"') % 2 == 1
        items = [lsp.CompletionItem(label=c.label, kind=_KINDS.get(c.kind), detail=c.detail or c.kind)
                 for c in features.completions(result, in_text)]
        return lsp.CompletionList(is_incomplete=False, items=items)

    @server.feature(lsp.TEXT_DOCUMENT_CODE_LENS)
    def code_lens(ls: RulesServer, params: lsp.CodeLensParams):
        uri = params.text_document.uri
        result = ls.analysis(uri)
        if result is None:
            return []
        return [lsp.CodeLens(range=to_range(test.name.span),
                             command=lsp.Command(title="\u25b6 run test", command=RUN_TEST,
                                                 arguments=[uri, test.title]))
                for test in features.tests_of(result)]

    @server.command(RUN_TEST)
    def run_test(ls: RulesServer, *args):
        """Run the rule tests of a file (all, or the one titled by the second argument): their results
        as `ruleslang test --format json` gives them, also shown to the user."""
        uri = args[0] if args else None
        title = args[1] if len(args) > 1 else None
        path = to_fs_path(uri) if isinstance(uri, str) else None
        opened = {to_fs_path(u) for u in ls.workspace.text_documents}
        result = ls.refresh(uri) if path is not None and path in opened else None
        if result is None or result.loaded is None or not result.loaded.ok:
            message = "the ruleset has errors: fix them to run its tests" if result is not None else \
                f"open the file first: {uri}"
            ls.window_show_message(lsp.ShowMessageParams(lsp.MessageType.Error, message))
            return {"results": [], "error": message}
        runner = TestRunner(result.workspace)
        wanted = [t for t in result.loaded.ruleset.tests if title is None or t.title == title]
        results = [runner.run_one(result.loaded, t).to_json() for t in wanted]
        failed = [r for r in results if r["status"] != "pass"]
        summary = f"{len(results) - len(failed)} passed, {len(failed)} failed" + "".join(
            f"\n{r['test']}: {r['status']}: {r.get('message', '')}" for r in failed)
        kind = lsp.MessageType.Info if not failed else lsp.MessageType.Error
        ls.window_show_message(lsp.ShowMessageParams(kind, summary))
        return {"results": results}

    return server


def serve(roots: Sequence[str] = ()) -> None:
    """Serve one editor over stdin and stdout until it exits."""
    build_server(roots).start_io()
