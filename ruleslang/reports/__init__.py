"""Self-contained HTML reports of the documents the commands print (docs/reports.md).

A report is rendered from a command's JSON document alone (`compare --format json`, `odds --format
json`), never from the runtime's objects: `compare.render_compare` and `odds.render_odds` take the
document and return one HTML page with its tables and plotly charts, plotly.js embedded once, so the
file opens without a network. `html` assembles the page, `charts` draws the figures, `numbers` writes
figures for people.
"""
