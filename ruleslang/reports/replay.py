"""The page of a replayed game (`ruleslang replay SAVE_OR_LOG --html OUT`), from its document alone.

The document (runtime/pictures.py) holds, for the start and each round, the board drawn as SVG and
what happened. The page shows one of them at a time, the board with the round's summary beside it,
and a slider over the rounds (the arrow keys move it too). Everything is inline: no script, style
or font is fetched, so the page opens without a network. The same document gives the same page.
"""

from __future__ import annotations

from ruleslang.reports.html import STYLE, esc

PAGE_STYLE = """
.player { display: flex; align-items: center; gap: 12px; margin: 12px 0; }
.player input { flex: 1 1 auto; max-width: 720px; }
.player output { font-weight: 600; min-width: 6em; }
.frame { display: grid; grid-template-columns: minmax(0, 1fr) 360px; gap: 20px; align-items: start; }
.frame[hidden] { display: none; }
@media (max-width: 1000px) { .frame { grid-template-columns: minmax(0, 1fr); } }
.frame .board svg { width: 100%; height: auto; border: 1px solid var(--line); }
.frame aside { background: var(--panel); border: 1px solid var(--line); border-radius: 6px;
  padding: 10px 14px; font-size: 14px; max-height: 90vh; overflow-y: auto; }
.frame aside h3 { margin: 10px 0 4px; font-size: 15px; }
.frame aside ul { margin: 0 0 6px; padding-left: 18px; }
main { max-width: none; }
"""

# Shows the frame the slider names; the arrow keys move the slider when the page has the focus.
SCRIPT = """
(function () {
  var slider = document.getElementById('round');
  var label = document.getElementById('round-label');
  var frames = document.querySelectorAll('.frame');
  function show() {
    var i = Number(slider.value);
    frames.forEach(function (f, n) { f.hidden = n !== i; });
    label.textContent = frames[i].getAttribute('data-label');
  }
  slider.addEventListener('input', show);
  document.addEventListener('keydown', function (e) {
    if (e.target === slider) { return; }
    if (e.key === 'ArrowRight' && slider.value < slider.max) { slider.value++; show(); }
    if (e.key === 'ArrowLeft' && slider.value > 0) { slider.value--; show(); }
  });
  show();
})();
"""


def render_replay(document: dict) -> str:
    """The page of a replayed game's document: a slider over its frames, each a board and a summary."""
    frames = document.get("frames") or []
    last = max(len(frames) - 1, 0)
    shown = "".join(_frame(i, frame, i == last) for i, frame in enumerate(frames))
    subtitle = [f"record {document.get('record')}", f"map {document.get('map')}, seed {document.get('seed')}, "
                f"{document.get('rounds_played')} rounds played"
                + (", finished" if document.get("finished") else "")]
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{esc(document.get('title') or 'replay')}</title>\n<style>{STYLE}{PAGE_STYLE}</style>\n"
        "</head>\n<body>\n"
        f"<header><h1>{esc(document.get('title') or 'replay')}</h1>"
        + "".join(f"<p>{esc(line)}</p>" for line in subtitle) + "</header>\n<main>\n"
        f'<div class="player"><label for="round">round</label>'
        f'<input type="range" id="round" min="0" max="{last}" step="1" value="{last}">'
        f'<output id="round-label">{esc(frames[last]["label"]) if frames else ""}</output></div>\n'
        f"{shown}\n</main>\n<footer>Drawn by ruleslang from the replayed record; the board is laid out "
        f"{esc(document.get('layout') or '')}.</footer>\n"
        f"<script>{SCRIPT}</script>\n</body>\n</html>\n"
    )


def _frame(index: int, frame: dict, visible: bool) -> str:
    hidden = "" if visible else " hidden"
    return (f'<div class="frame" id="frame-{index}" data-label="{esc(frame["label"])}"{hidden}>'
            f'<div class="board">{frame["svg"]}</div><aside>{_summary(frame)}</aside></div>\n')


def _summary(frame: dict) -> str:
    """What happened in the round, as lists: income, what rules gave or took, battles, raids, control."""
    out = [f"<h2>{esc(frame['label'])}</h2>"]
    summary = frame.get("summary")
    if summary is None:
        out.append(f"<p>The board before the first round: {frame.get('units', 0)} units.</p>")
    else:
        out += _list("Income collected", [f"{p}: {n}" for p, n in summary.get("collected", {}).items()])
        out += _list("Gains and losses by cause", [f"{p}: {cause} {amount:+d}" for p, causes in
                                                  summary.get("gains", {}).items() for cause, amount in causes.items()])
        out += _list("Battles", [_battle(b) for b in summary.get("battles", [])])
        out += _list("Control changes", [f"{space}: {before or 'nobody'} \u2192 {after or 'nobody'}"
                                         + (" (on the move)" if moved else "")
                                         for space, before, after, moved in summary.get("control_changes", [])])
    out += _list("Raids", [f"{r.get('space')}: {r.get('attacker')} against {r.get('defender')}"
                           + (f" ({r['units_in_raid']} units)" if "units_in_raid" in r else "")
                           for r in frame.get("raids", [])])
    for rule, messages in (frame.get("rules") or {}).items():
        out += _list(f"What {rule} did", messages)
    if summary is not None and summary.get("scores"):
        out += _list("Scores", [f"{side}: {score}" for side, score in summary["scores"].items()])
    return "".join(out)


def _battle(battle: dict) -> str:
    who = f"{battle.get('attacker')} against {battle.get('defender')}"
    outcome = _OUTCOMES.get(battle.get("result"), battle.get("result") or "")
    return f"{battle.get('space')}: {who}" + (f", {outcome}" if outcome else "")


# A battle's `result` as the round summary records it, read aloud.
_OUTCOMES = {"attacker": "the attacker won", "defender": "the defender held", "retreat": "the attacker retreated"}


def _list(title: str, items: list[str]) -> list[str]:
    if not items:
        return []
    return [f"<h3>{esc(title)}</h3><ul>", *(f"<li>{esc(item)}</li>" for item in items), "</ul>"]
