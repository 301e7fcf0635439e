"""A self-contained HTML page: sections of text, tables and plotly charts, plotly.js embedded once.

The page is built from parts (`Text`, `Table`, `Chart`, `Lines`, `Row`) grouped in `Section`s, and
rendered by `Page.render` to one HTML string that needs no network when it is opened: the style is
inline, plotly.js is inlined once in the head, and each chart is a div with the script that draws
it. Every text of a document is escaped; chart ids are numbered in page order, so the same document
gives the same page, byte for byte.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field

import plotly.graph_objects as go
import plotly.offline

# The modebar keeps zoom and the picture download (drawn in the browser); no logo link, no cloud.
CHART_CONFIG = {"displaylogo": False, "responsive": True, "showSendToCloud": False}

STYLE = """
:root { --ink: #1f2430; --muted: #5b6272; --line: #d9dce3; --panel: #f6f7f9; --good: #17663a; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); }
header { padding: 24px 32px 12px; border-bottom: 1px solid var(--line); }
header h1 { margin: 0 0 4px; font-size: 24px; }
header p { margin: 4px 0; color: var(--muted); }
nav { margin-top: 10px; display: flex; flex-wrap: wrap; gap: 6px 14px; font-size: 14px; }
nav a { color: #2456a6; text-decoration: none; }
main { padding: 8px 32px 32px; max-width: 1280px; }
section { padding: 16px 0 8px; border-bottom: 1px solid var(--line); }
section h2 { font-size: 20px; margin: 0 0 6px; }
section h3 { font-size: 16px; margin: 14px 0 4px; }
p.lead { margin: 4px 0 12px; max-width: 900px; }
/* A grid, not a flex row: plotly sizes a chart when its script runs, before the explanation after it
   is parsed, so the chart's column must have its width already. */
.chart { display: grid; grid-template-columns: minmax(0, 1fr) 280px; gap: 20px; align-items: start; margin: 10px 0; }
@media (max-width: 900px) { .chart { grid-template-columns: minmax(0, 1fr); } }
.chart aside, .box { background: var(--panel); border: 1px solid var(--line);
  border-radius: 6px; padding: 10px 14px; font-size: 14px; }
.chart aside p, .box p { margin: 0 0 8px; }
.row { display: flex; gap: 20px; flex-wrap: wrap; align-items: flex-start; }
.row > * { flex: 1 1 320px; min-width: 0; }
table { border-collapse: collapse; margin: 8px 0 12px; font-size: 14px; }
caption { text-align: left; color: var(--muted); padding-bottom: 4px; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 10px; text-align: left; vertical-align: top; }
th { background: var(--panel); font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.yes { color: var(--good); font-weight: 600; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 10px 14px;
  overflow-x: auto; font-size: 13px; }
footer { padding: 12px 32px 24px; color: var(--muted); font-size: 13px; }
"""


def esc(text: object) -> str:
    """`text` as HTML text, every markup character escaped."""
    return html.escape(str(text), quote=True)


@dataclass
class Text:
    """Paragraphs of plain text (each string one paragraph); `box` draws them as a panel."""

    paragraphs: list[str]
    box: bool = False


@dataclass
class Cell:
    """A table cell: its text, an optional tooltip (the exact value) and class (`num`, `yes`)."""

    text: str
    title: str | None = None
    cls: str | None = None


@dataclass
class Table:
    """A table: headers, rows of cells (a str is a text cell), an optional caption."""

    headers: list[str]
    rows: list[list[Cell | str]]
    caption: str | None = None


@dataclass
class Chart:
    """A plotly figure with its plain-language explanation beside it."""

    figure: go.Figure
    explanation: list[str]


@dataclass
class Lines:
    """Lines shown as they are (a semantic diff), under an optional heading."""

    lines: list[str]
    heading: str | None = None


@dataclass
class Row:
    """Parts side by side (they wrap on a narrow screen)."""

    parts: list


@dataclass
class Section:
    """A titled section: a lead paragraph, then its parts in order."""

    id: str
    title: str
    lead: str
    parts: list = field(default_factory=list)

    def add(self, *parts) -> Section:
        """Append parts; returns the section for chaining."""
        self.parts.extend(parts)
        return self


@dataclass
class Page:
    """A whole report: a title, lines under it, sections, a footer."""

    title: str
    subtitle: list[str]
    footer: str
    sections: list[Section] = field(default_factory=list)

    def section(self, id: str, title: str, lead: str) -> Section:
        """A new section, added to the page."""
        found = Section(id, title, lead)
        self.sections.append(found)
        return found

    def render(self) -> str:
        """The page as one self-contained HTML document."""
        renderer = _Renderer()
        body = "\n".join(renderer.section(s) for s in self.sections)
        nav = " ".join(f'<a href="#{esc(s.id)}">{esc(s.title)}</a>' for s in self.sections)
        subtitle = "".join(f"<p>{esc(line)}</p>" for line in self.subtitle)
        return (
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{esc(self.title)}</title>\n<style>{STYLE}</style>\n"
            "<script>window.PlotlyConfig = {MathJaxConfig: 'local'};</script>\n"
            f"<script>{plotly.offline.get_plotlyjs()}</script>\n</head>\n<body>\n"
            f"<header><h1>{esc(self.title)}</h1>{subtitle}<nav>{nav}</nav></header>\n"
            f"<main>\n{body}\n</main>\n<footer>{esc(self.footer)}</footer>\n</body>\n</html>\n"
        )


class _Renderer:
    """Renders parts in page order, numbering the charts so their ids are stable."""

    def __init__(self) -> None:
        self.charts = 0

    def section(self, section: Section) -> str:
        inner = "\n".join(self.part(p) for p in section.parts)
        return (f'<section id="{esc(section.id)}"><h2>{esc(section.title)}</h2>'
                f'<p class="lead">{esc(section.lead)}</p>\n{inner}</section>')

    def part(self, part) -> str:
        if isinstance(part, Text):
            paragraphs = "".join(f"<p>{esc(p)}</p>" for p in part.paragraphs)
            return f'<div class="box">{paragraphs}</div>' if part.box else paragraphs
        if isinstance(part, Table):
            return self.table(part)
        if isinstance(part, Chart):
            return self.chart(part)
        if isinstance(part, Lines):
            heading = f"<h3>{esc(part.heading)}</h3>" if part.heading else ""
            return f"{heading}<pre>{esc(chr(10).join(part.lines))}</pre>"
        if isinstance(part, Row):
            return '<div class="row">' + "".join(f"<div>{self.part(p)}</div>" for p in part.parts) + "</div>"
        raise TypeError(f"not a part of a page: {part!r}")

    def chart(self, chart: Chart) -> str:
        self.charts += 1
        figure = chart.figure.to_html(full_html=False, include_plotlyjs=False, div_id=f"chart-{self.charts}",
                                      config=CHART_CONFIG)
        how = "".join(f"<p>{esc(p)}</p>" for p in chart.explanation)
        return f'<div class="chart"><div class="figure">{figure}</div><aside>{how}</aside></div>'

    @staticmethod
    def table(table: Table) -> str:
        head = "".join(f"<th>{esc(h)}</th>" for h in table.headers)
        rows = []
        for row in table.rows:
            cells = []
            for cell in row:
                cell = cell if isinstance(cell, Cell) else Cell(cell)
                attrs = (f' class="{esc(cell.cls)}"' if cell.cls else "") + (f' title="{esc(cell.title)}"'
                                                                              if cell.title else "")
                cells.append(f"<td{attrs}>{esc(cell.text)}</td>")
            rows.append("<tr>" + "".join(cells) + "</tr>")
        caption = f"<caption>{esc(table.caption)}</caption>" if table.caption else ""
        return f"<table>{caption}<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
