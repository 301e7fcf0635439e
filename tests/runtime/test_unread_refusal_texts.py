"""A placement planner (`pack`) reads only whether the rules refuse, not what they say: the
constraints then give the same refusals (the same requires, in the same order) without working
out their messages, the plans are the same, and the messages are worked out, exactly as before,
wherever they are read."""

from __future__ import annotations

import contextvars

import pytest

from game_fixtures import make_game
from ruleslang.base.paths import packaged_root
from ruleslang.lang.eval.statements import check_action, refusal_texts_unread
from ruleslang.runtime.kit.placement import pack
from ruleslang.workspace.compositions import Workspace

HOUSE = ["aar/house-rules@1"]
BACKENDS = ["codegen", "closures"]


def _refusals(ctx, player, territory, types):
    return check_action(ctx, "place", [ctx.player_values[player], ctx.space_values[territory],
                                       tuple(ctx.unittype_values[t] for t in types)])


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_same_refusals_without_their_messages(backend, monkeypatch):
    monkeypatch.setenv("RULESLANG_EVAL", backend)
    game = make_game(HOUSE)
    ctx, state = game.ctx, game.state
    player = state.current_player or game.state.map.player_names()[0]
    types = sorted(ctx.unittype_values)
    lists = [[t] for t in types] + [[t] * 6 for t in types] + [types]
    refused = 0
    for territory in game.board.spaces("land"):
        for listed in lists:
            read = _refusals(ctx, player, territory, listed)
            with refusal_texts_unread():
                unread = _refusals(ctx, player, territory, listed)
            again = _refusals(ctx, player, territory, listed)  # read again after: the messages come back
            assert [r.span for r in unread] == [r.span for r in read]
            assert all(r.message is None for r in unread)
            assert all(isinstance(r.message, str) and r.message for r in read)
            assert [r.message for r in again] == [r.message for r in read]
            refused += bool(read)
    assert refused > 0  # some lists are refused somewhere: the comparison compared something


def test_pack_plans_the_same_as_with_the_messages():
    game = make_game(HOUSE)
    ctx = game.ctx
    player = "Germans"
    land = [t for t in game.board.spaces("land") if game.state.control.get(t) == player]
    units = sorted(ctx.unittype_values) * 3
    seen = []

    def allowed(territory, types):
        found = [r.message for r in _refusals(ctx, player, territory, types)]
        seen.extend(found)
        return found

    def allowed_read(territory, types):  # asked outside the planner's "texts unread"
        return contextvars.Context().run(allowed, territory, types)

    def at_sea(t):  # every unit placed in the territory: the constraints refuse sea units where no sea borders it
        return False

    quiet = pack(game.board, land, units, allowed, at_sea)
    assert seen and all(m is None for m in seen)
    seen.clear()
    loud = pack(game.board, land, units, allowed_read, at_sea)
    assert seen and all(isinstance(m, str) for m in seen)
    assert quiet == loud and quiet


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_unread_message_is_not_worked_out(backend, monkeypatch, tmp_path):
    monkeypatch.setenv("RULESLANG_EVAL", backend)
    family = tmp_path / "aar"
    family.mkdir()
    (family / "base@3.rules").write_text(
        'ruleset aar/base@3\ntitle "t"\nrevises aar/base@1\n'
        'constraint extra on place(p, t, list):\n'
        '    require count(list) == 0 else "rolled {d6} for {t}"\n', encoding="utf-8")
    game = make_game(["aar/base@3"], workspace=Workspace([tmp_path, packaged_root()]))
    ctx = game.ctx
    kinds = sorted(ctx.unittype_values)[:1]
    rolled = len(game.host.rolls)
    with refusal_texts_unread():
        unread = _refusals(ctx, "Germans", "Germany", kinds)
    assert len(game.host.rolls) == rolled  # the message's die was not rolled
    read = _refusals(ctx, "Germans", "Germany", kinds)
    assert len(game.host.rolls) == rolled + 1
    assert [r.span for r in unread] == [r.span for r in read]
    assert any(r.message is None for r in unread)
    assert any(r.message is not None and r.message.startswith("rolled ") and r.message.endswith(" for Germany")
               for r in read)
