"""`ruleslang diff` shows what changed inside a block of statements, and an added definition whole."""

from conftest import load
from ruleslang.lang.diff import diff_rulesets

OLD = """
    ruleset h/r@1
    phase collect:
        let p = 2
        if p > 40:
            log "rich"
        log "done"
    sequence turn: collect
"""
NEW = """
    ruleset h/r@2
    revises h/r@1
    override phase collect:
        let p = 2
        if p > 30:
            log "rich"
        log "done"
    phase gift:
        log "a gift"
        log "another"
"""


def test_a_changed_phase_shows_its_changed_lines_and_an_added_one_shows_whole(tmp_path):
    ws, _ = load(tmp_path, {"h/r@1": OLD, "h/r@2": NEW})
    result = diff_rulesets(ws.composer.resolve_ref("h/r@1"), ws.composer.resolve_ref("h/r@2"))
    by_name = {c.name: c for c in result.changes}
    changed = by_name["collect"].details
    assert "-    if p > 40:" in changed and "+    if p > 30:" in changed
    assert "definition changed" not in changed and not any("log \"done\"" in line and line[0] in "+-"
                                                           for line in changed)
    assert by_name["gift"].change == "added"
    assert by_name["gift"].details == ['phase gift:\n    log "a gift"\n    log "another"']
    text = result.to_text()
    assert "      phase gift:\n          log \"a gift\"\n" in text  # every line of it indented
