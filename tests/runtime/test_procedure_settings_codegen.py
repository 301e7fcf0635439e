"""The settings of runtime procedures (`runtime battle with {fights: u => ...}`) run as generated
Python under the code generator, as closures under RULESLANG_EVAL=closures: the same answers, and
an error in a setting is placed at the rule under both."""

from __future__ import annotations

import pytest

from game_fixtures import events, load_dice, make_game, run_phases
from ruleslang.base.errors import EvalError
from ruleslang.base.paths import packaged_root
from ruleslang.runtime.config import procedure_config, runtime_procedures
from ruleslang.workspace.compositions import Workspace

EE, KARELIA = "Eastern Europe", "Karelia S.S.R."
# aar/base@1's battle phase with `fights` reading an index past a one-element list for any unit
# with an attack (E507 at the index)
FAILING_BATTLE = (
    'ruleset aar/base@3\ntitle "t"\nrevises aar/base@1\n'
    'override phase battle: runtime battle with {round: "round_steps", start: "battle_start", capture: "capture",\n'
    '    raid: "bombing_raid", fights: u => [true][u.attack], hit_points: u => u.hit_points}\n')


def _fighter_attack(refs, workspace=None):
    units = {EE: {"Germans": {"fighter": 1}}, KARELIA: {"Russians": {"infantry": 1}}}
    orders = {"Germans": [{"round": 1, "combat": [{"from": EE, "type": "fighter", "to": KARELIA}]}]}
    game = make_game(refs, scenario={"setup": "empty", "units": units}, orders=orders, workspace=workspace)
    load_dice(game, [1, 6])
    run_phases(game, "Germans", "combat_move", "battle")
    return game


@pytest.mark.parametrize("backend", ["codegen", "closures"])
def test_a_battle_plays_the_same_under_both_back_ends(backend, monkeypatch):
    monkeypatch.setenv("RULESLANG_EVAL", backend)
    game = _fighter_attack(["aar/base@1"])
    assert game.ctx.compiled.backend == backend
    assert [(e["result"], e["taken"]) for e in events(game, "battle_end")] == [("attacker", False)]


def test_under_the_code_generator_every_setting_of_a_game_is_generated(monkeypatch):
    monkeypatch.setenv("RULESLANG_EVAL", "codegen")
    game = make_game(["aar/house-rules@1"])
    configs = [procedure_config(game.ctx, proc) for name in ("move", "battle", "place", "purchase")
               for _, proc in runtime_procedures(game.ctx.compiled, name)]
    assert len(configs) >= 4
    seen = 0
    for config in configs:
        for name, node in config.fields.items():
            fn = config._fn(name)
            # a condition's body is the generated function the wrapper calls; a plain setting is one
            body = fn.__closure__[0].cell_contents if fn.__closure__ else fn
            assert hasattr(body, "generated_source"), (config.proc.name.text, name)
            seen += 1
    assert seen > 20
    assert not any(key.startswith("runtime ") for key in game.ctx.compiled.not_generated)


def test_an_error_in_a_setting_is_placed_at_the_rule_under_both_back_ends(tmp_path, monkeypatch):
    family = tmp_path / "aar"
    family.mkdir()
    (family / "base@3.rules").write_text(FAILING_BATTLE, encoding="utf-8")
    found = {}
    for backend in ("closures", "codegen"):
        monkeypatch.setenv("RULESLANG_EVAL", backend)
        with pytest.raises(EvalError) as caught:
            _fighter_attack(["aar/base@3"], Workspace([tmp_path, packaged_root()]))
        span = caught.value.span
        found[backend] = (caught.value.code, caught.value.message, span.text, span.line, span.column)
    assert found["codegen"] == found["closures"]
    code, message, text, line, _ = found["codegen"]
    assert code == "E507" and "outside a list of 1" in message
    assert text == "[true][u.attack]" and line == 5
