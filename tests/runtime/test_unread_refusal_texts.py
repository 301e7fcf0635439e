"""A placement planner (`pack`) reads only whether the rules refuse, not what they say: the
constraints then give the first of the same refusals (constraints that only read stop there;
others give every one, in the same order) without working out their messages, the plans are the
same, and the messages are worked out, all of them and exactly as before, wherever they are
read."""

from __future__ import annotations

import contextvars

import pytest

from game_fixtures import events, make_game, run_phases
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
            # the constraints only read: they stop at the first refusal, the one read first
            assert [r.span for r in unread] == [r.span for r in read][:1]
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


def _two_constraints(tmp_path, second: str):
    """A game under aar/base@1 and a revision whose two place constraints refuse every unit: the
    first plainly, the second by `second` (a require line)."""
    family = tmp_path / "aar"
    family.mkdir()
    (family / "base@3.rules").write_text(
        'ruleset aar/base@3\ntitle "t"\nrevises aar/base@1\n'
        'constraint first_refusal on place(p, t, list):\n'
        '    require count(list) == 0 else "no units at {t}"\n'
        'constraint second_refusal on place(p, t, list):\n'
        f'    {second}\n', encoding="utf-8")
    return make_game(["aar/base@3"], workspace=Workspace([tmp_path, packaged_root()]))


@pytest.mark.parametrize("backend", BACKENDS)
def test_constraints_that_only_read_stop_at_the_first_refusal(backend, monkeypatch, tmp_path):
    monkeypatch.setenv("RULESLANG_EVAL", backend)
    # the second constraint works out a sum over the map: its steps show whether it ran
    game = _two_constraints(tmp_path, 'require sum(x.ipc for x in territories()) < 0 else "over {t}"')
    ctx, host = game.ctx, game.host
    kinds = sorted(ctx.unittype_values)[:1]
    host.reset_budget()
    read = _refusals(ctx, "Germans", "Germany", kinds)
    read_steps = host.budget - host.steps
    host.reset_budget()
    with refusal_texts_unread():
        unread = _refusals(ctx, "Germans", "Germany", kinds)
    unread_steps = host.budget - host.steps
    assert [r.message for r in read] == ["no units at Germany", "over Germany"]
    assert [(r.span, r.message) for r in unread] == [(read[0].span, None)]
    assert unread_steps < read_steps - 50  # the map's sum was not worked out


def test_constraints_that_do_more_than_read_give_every_refusal(tmp_path):
    # a die in the second constraint: it is not only read, so it runs whatever the first said
    game = _two_constraints(tmp_path, 'require d6 > 6 else "never"')
    ctx = game.ctx
    kinds = sorted(ctx.unittype_values)[:1]
    rolled = len(game.host.rolls)
    with refusal_texts_unread():
        unread = _refusals(ctx, "Germans", "Germany", kinds)
    assert len(game.host.rolls) == rolled + 1
    assert len(unread) == 2 and all(r.message is None for r in unread)


def test_the_games_placement_reads_every_refusal_after_a_planner(tmp_path):
    """The game's own check of a placement lists every refusal with its message, even after a
    planner asked the same territory and units without them (the placement keeps both apart)."""
    game = _two_constraints(tmp_path, 'require count(list) < 2 else "one unit at most at {t}"')
    kinds = sorted(game.ctx.unittype_values)[:1] * 2
    seen = []

    class Agent:
        def decide(self, d, game):
            if d.refusals:
                return []
            with refusal_texts_unread():
                seen.append(d.context["allowed"]("Germany", kinds))
            return [("Germany", None, kinds)]

    game.agents["Germans"] = Agent()
    game.kit.purchased["Germans"] = list(kinds)
    run_phases(game, "Germans", "place")
    assert seen == [[None]]  # the planner's question: the first refusal, no message
    refused = events(game, "refused", decision="place")
    assert [e["reasons"] for e in refused] == [["no units at Germany", "one unit at most at Germany"]]
