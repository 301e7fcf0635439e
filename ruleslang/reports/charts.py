"""The chart kinds of the reports, as plotly figures: bars with intervals, stacked shares, curves with
bands, intervals in panels.

Each builder takes `Series` (a name, a colour, the values and optionally their interval or band,
and the words shown when the pointer rests on a value) and returns a `plotly.graph_objects.Figure`
laid out alike: a title, a legend above the plot, the same colour for the same series in every
chart. Text that comes from a document is escaped, since plotly reads a little HTML in labels.
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

import plotly.colors
import plotly.graph_objects as go
from plotly.subplots import make_subplots

PALETTE = plotly.colors.qualitative.Plotly
PANEL_HEIGHT = 260


def color(index: int) -> str:
    """The colour of the series at `index` (variants keep theirs across charts)."""
    return PALETTE[index % len(PALETTE)]


def translucent(hex_color: str, alpha: float) -> str:
    """`hex_color` as an rgba() colour with opacity `alpha` (for bands)."""
    r, g, b = plotly.colors.hex_to_rgb(hex_color)
    return f"rgba({r},{g},{b},{alpha})"


def label(text: object) -> str:
    """Document text as a plotly label: its markup characters escaped."""
    return html.escape(str(text), quote=False)


@dataclass
class Series:
    """One named series: values at `x`, optionally an interval or band (`low`, `high`) and hover words.
    `color` is one colour, or (for bars and interval points) one per value."""

    name: str
    color: str | list[str]
    x: list
    y: list
    low: list | None = None
    high: list | None = None
    hover: list[str] | None = None


def _hover(series: Series) -> dict:
    if series.hover is None:
        return {}
    return {"customdata": [label(h) for h in series.hover],
            "hovertemplate": "%{customdata}<extra>" + label(series.name) + "</extra>"}


def _errors(series: Series, axis: str) -> dict:
    if series.low is None or series.high is None:
        return {}
    plus = [max(0.0, h - v) for v, h in zip(series.y if axis == "y" else series.x, series.high)]
    minus = [max(0.0, v - lo) for v, lo in zip(series.y if axis == "y" else series.x, series.low)]
    return {f"error_{axis}": {"type": "data", "symmetric": False, "array": plus, "arrayminus": minus,
                              "thickness": 1.5, "width": 6}}


def _layout(fig: go.Figure, title: str, height: int, percent_axis: str | None = None) -> go.Figure:
    # The title, then the legend on its own line under it, both placed in pixels from the top of the
    # figure, so neither runs into the panels' own titles below them.
    fig.update_layout(title={"text": label(title), "x": 0, "xanchor": "left", "yref": "container",
                             "y": 1 - 12 / height, "yanchor": "top"},
                      height=height, template="plotly_white",
                      margin={"l": 60, "r": 20, "t": 70 if fig.layout.showlegend is False else 100, "b": 50},
                      legend={"orientation": "h", "yref": "container", "y": 1 - 44 / height, "yanchor": "top",
                              "x": 0, "xanchor": "left"},
                      hoverlabel={"namelength": -1})
    fig.update_yaxes(automargin=True)
    if percent_axis == "y":
        fig.update_yaxes(tickformat=".0%")
    elif percent_axis == "x":
        fig.update_xaxes(tickformat=".0%")
    return fig


def grouped_bars(title: str, series: list[Series], y_title: str, percent: bool = False,
                 markers: list[Series] = (), height: int = 400) -> go.Figure:
    """Bars grouped by category (`x`), one bar per series, with the intervals as error bars;
    `markers` are drawn as points over the bars (a reference such as the calibration)."""
    fig = go.Figure()
    for s in series:
        fig.add_trace(go.Bar(name=label(s.name), x=[label(x) for x in s.x], y=s.y, marker_color=s.color,
                             offsetgroup=s.name, **_errors(s, "y"), **_hover(s)))
    for m in markers:
        fig.add_trace(go.Scatter(name=label(m.name), x=[label(x) for x in m.x], y=m.y, mode="markers",
                                 marker={"symbol": "diamond", "size": 13, "color": m.color,
                                         "line": {"width": 1.5, "color": "white"}}, **_hover(m)))
    # one series names itself in the title: no legend
    fig.update_layout(barmode="group", yaxis_title=label(y_title), showlegend=len(series) + len(markers) > 1)
    return _layout(fig, title, height, "y" if percent else None)


def stacked_shares(title: str, rows: list[str], parts: list[Series], height: int | None = None) -> go.Figure:
    """Horizontal bars, one per row, each split into the shares of `parts` (a part's `y` is its share
    in each row, in the order of `rows`)."""
    fig = go.Figure()
    for p in parts:
        fig.add_trace(go.Bar(name=label(p.name), y=[label(r) for r in rows], x=p.y, orientation="h",
                             marker_color=p.color, **_hover(p)))
    fig.update_layout(barmode="stack", xaxis={"range": [0, 1]}, yaxis={"autorange": "reversed"},
                      legend={"traceorder": "normal"})
    return _layout(fig, title, height or 160 + 50 * len(rows), "x")


def _grid(count: int, columns: int, titles: list[str]):
    """A grid of panels, `columns` wide, with about 80 pixels between rows of PANEL_HEIGHT."""
    cols = max(1, min(columns, count))
    rows = max(1, math.ceil(count / cols))
    fig = make_subplots(rows=rows, cols=cols, subplot_titles=[label(t) for t in titles],
                        horizontal_spacing=0.08, vertical_spacing=80 / (PANEL_HEIGHT * rows) if rows > 1 else 0.1)
    return fig, rows, cols


def _placed(panels: list[tuple[str, list[Series]]], cols: int):
    """(row, col, series, first) for each series of each panel of a grid `cols` wide; `first` is
    true where the series' name is met for the first time, so its legend entry shows once."""
    shown: set[str] = set()
    for i, (_, series) in enumerate(panels):
        for s in series:
            yield i // cols + 1, i % cols + 1, s, s.name not in shown
            shown.add(s.name)


def band_panels(title: str, panels: list[tuple[str, list[Series]]], y_title: str, x_title: str = "round",
                columns: int = 2) -> go.Figure:
    """One panel per (title, series): each series a line of its `y` over `x` in a shaded band from
    `low` to `high` (the 10-90% band). A series keeps its colour and legend entry in every panel."""
    fig, rows, cols = _grid(len(panels), columns, [t for t, _ in panels])
    for row, col, s, first in _placed(panels, cols):
        if s.low is not None and s.high is not None and s.x:
            fig.add_trace(go.Scatter(x=list(s.x) + list(reversed(s.x)), y=list(s.high) + list(reversed(s.low)),
                                     fill="toself", fillcolor=translucent(s.color, 0.18), line={"width": 0},
                                     hoverinfo="skip", showlegend=False, legendgroup=s.name,
                                     name=label(s.name) + " band"), row=row, col=col)
        fig.add_trace(go.Scatter(x=s.x, y=s.y, mode="lines+markers", name=label(s.name), legendgroup=s.name,
                                 showlegend=first, line={"color": s.color, "width": 2},
                                 marker={"size": 5}, **_hover(s)), row=row, col=col)
    fig.update_xaxes(title_text=label(x_title))
    fig.update_yaxes(title_text=label(y_title), col=1)
    return _layout(fig, title, 110 + PANEL_HEIGHT * rows)


def interval_panels(title: str, panels: list[tuple[str, list[Series]]], x_title: str) -> go.Figure:
    """One panel per (title, series), stacked, each as tall as its categories: each series draws
    points at `x` for the categories `y`, with its interval from `low` to `high` as a horizontal
    error bar; a dotted line marks zero."""
    sizes = [max(1, len({y for s in series for y in s.y})) for _, series in panels]
    heights = [40 + 32 * n for n in sizes]
    gap = 70
    plot_height = sum(heights) + gap * (len(panels) - 1)
    fig = make_subplots(rows=len(panels), cols=1, subplot_titles=[label(t) for t, _ in panels],
                        row_heights=heights, vertical_spacing=gap / plot_height if len(panels) > 1 else 0)
    for row, col, s, first in _placed(panels, 1):
        fig.add_trace(go.Scatter(x=s.x, y=[label(y) for y in s.y], mode="markers", name=label(s.name),
                                 legendgroup=s.name, showlegend=first,
                                 marker={"color": s.color, "size": 10},
                                 **_errors(s, "x"), **_hover(s)), row=row, col=col)
    for row in range(1, len(panels) + 1):
        fig.add_vline(x=0, line={"color": "#888", "width": 1, "dash": "dot"}, row=row, col=1)
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(title_text=label(x_title), row=len(panels), col=1)
    return _layout(fig, title, 150 + plot_height)


def bar_panels(title: str, panels: list[tuple[str, list[Series]]], y_title: str, x_title: str,
               columns: int = 2, percent: bool = False) -> go.Figure:
    """One panel per (title, series): grouped bars of each series' `y` at the categories `x`."""
    fig, rows, cols = _grid(len(panels), columns, [t for t, _ in panels])
    for row, col, s, first in _placed(panels, cols):
        fig.add_trace(go.Bar(x=[label(x) for x in s.x], y=s.y, name=label(s.name), legendgroup=s.name,
                             showlegend=first, marker_color=s.color, offsetgroup=s.name,
                             **_errors(s, "y"), **_hover(s)), row=row, col=col)
    fig.update_xaxes(title_text=label(x_title), type="category")
    fig.update_yaxes(title_text=label(y_title), col=1)
    if percent:
        fig.update_yaxes(tickformat=".0%")
    fig.update_layout(barmode="group")
    return _layout(fig, title, 110 + PANEL_HEIGHT * rows)
