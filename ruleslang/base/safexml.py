"""Reading XML safely, keeping the line and column of every element.

Game files from strangers go through defusedxml's SAX parser: entity declarations (billion
laughs, external entities) are refused, and the document's external DTD is skipped, never
fetched. Codes:

    D640 the XML cannot be read or parsed    D641 refused (an entity or external reference)
"""

from __future__ import annotations

import io
import xml.sax
import xml.sax.handler
import xml.sax.xmlreader
from dataclasses import dataclass, field
from pathlib import Path

import defusedxml.expatreader
from defusedxml.common import DefusedXmlException, ExternalReferenceForbidden

from ruleslang.base.diagnostics import DiagnosticError, error
from ruleslang.base.limits import MAX_DATA_CHARS, MAX_NESTING
from ruleslang.base.source import Source, span_at


@dataclass
class XmlElement:
    """One element of the document, with the line and column where it starts."""

    tag: str
    attrs: dict[str, str]
    line: int
    column: int
    children: list["XmlElement"] = field(default_factory=list)

    def all(self, tag: str) -> list["XmlElement"]:
        """The children with this tag."""
        return [c for c in self.children if c.tag == tag]

    def first(self, tag: str) -> "XmlElement | None":
        """The first child with this tag, or None."""
        return next((c for c in self.children if c.tag == tag), None)

    def walk(self, tag: str):
        """Every descendant with this tag, in document order."""
        for child in self.children:
            if child.tag == tag:
                yield child
            yield from child.walk(tag)


class _SafeParser(defusedxml.expatreader.DefusedExpatParser):
    """defusedxml's expat reader that skips (never fetches) the document's external DTD.

    Game files often start with `<!DOCTYPE game SYSTEM "game.dtd">`; defusedxml would refuse the
    reference outright. Skipping it is safe: entity declarations stay forbidden and any other
    external reference is refused.
    """

    def reset(self):
        super().reset()
        self._parser.ExternalEntityRefHandler = self._external_reference

    def _external_reference(self, context, base, sysid, pubid):
        if context is None:  # the DOCTYPE's external subset: skip it
            return 1
        raise ExternalReferenceForbidden(context, base, sysid, pubid)


class _TooDeep(Exception):
    def __init__(self, line: int, column: int):
        super().__init__(line, column)
        self.line, self.column = line, column


class _TreeBuilder(xml.sax.handler.ContentHandler):
    def __init__(self):
        super().__init__()
        self.locator = None
        self.stack: list[XmlElement] = []
        self.root: XmlElement | None = None

    def setDocumentLocator(self, locator):
        self.locator = locator

    def startElement(self, name, attrs):
        if len(self.stack) >= MAX_NESTING:
            raise _TooDeep(self.locator.getLineNumber(), self.locator.getColumnNumber() + 1)
        element = XmlElement(name, dict(attrs), self.locator.getLineNumber(), self.locator.getColumnNumber() + 1)
        if self.stack:
            self.stack[-1].children.append(element)
        else:
            self.root = element
        self.stack.append(element)

    def endElement(self, name):
        self.stack.pop()


def read_xml(path: Path) -> tuple[XmlElement, Source]:
    """Parse an XML file safely; raise `DiagnosticError` (D640, D641) when it cannot be."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DiagnosticError(error("D640", f"cannot read the file: {exc.strerror or exc}",
                                    file=str(path))) from None
    if len(data) > MAX_DATA_CHARS:
        raise DiagnosticError(error("D640", f"the file is too large: {len(data)} bytes, at most "
                                    f"{MAX_DATA_CHARS} allowed", file=str(path)))
    source = Source(str(path), data.decode("utf-8", errors="replace"))
    parser = _SafeParser(forbid_dtd=False, forbid_entities=True, forbid_external=True)
    parser.setFeature(xml.sax.handler.feature_external_ges, False)
    builder = _TreeBuilder()
    parser.setContentHandler(builder)
    stream = xml.sax.xmlreader.InputSource()
    stream.setByteStream(io.BytesIO(data))
    try:
        parser.parse(stream)
    except LookupError as exc:  # the XML declaration names an encoding Python does not know
        raise DiagnosticError(error("D640", f"the file declares an encoding that cannot be read ({exc})",
                                    span_at(source, 1, 1, len(source.line_text(1))),
                                    hint="TripleA game files are UTF-8 or ISO-8859-1")) from None
    except DefusedXmlException as exc:
        line = parser.getLineNumber() or 1
        text = source.line_text(line)
        where = span_at(source, line, len(text) - len(text.lstrip()) + 1, len(text.strip()))
        name = getattr(exc, "name", None)
        system = getattr(exc, "sysid", None)
        what = f"the entity '{name}'" if name else "an external reference"
        raise DiagnosticError(error(
            "D641", f"refused: the file declares {what}" + (f" (system {system})" if system else ""), where,
            hint="a data file needs no entity declarations; remove the <!ENTITY ...> lines")) from None
    except _TooDeep as exc:
        raise DiagnosticError(error("D640", f"the elements nest deeper than {MAX_NESTING} levels",
                                    span_at(source, exc.line, exc.column))) from None
    except xml.sax.SAXParseException as exc:
        where = span_at(source, exc.getLineNumber() or 1, (exc.getColumnNumber() or 0) + 1)
        raise DiagnosticError(error("D640", f"xml syntax error: {exc.getMessage()}", where)) from None
    if builder.root is None:
        raise DiagnosticError(error("D640", "the file holds no xml element", file=str(path)))
    return builder.root, source
