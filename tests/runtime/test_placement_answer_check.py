"""The placement's check of an agent's answer reads the messages of the rules' refusals, so it
asks again what a planner (`pack`) asked without them. On the same board, a list of units no
constraint refused without its messages is refused by none with them (a constraint that only
reads differs only in the message it works out on a refusal): the check takes that answer and
asks no constraint again. A list refused without its messages is asked again, and its messages
are worked out as before."""

from __future__ import annotations

from game_fixtures import events, make_game, run_phases
import ruleslang.runtime.kit.placement as placement
from ruleslang.lang.eval.statements import refusal_texts_read, refusal_texts_unread
from ruleslang.runtime.agents.heuristic import HeuristicAgent

HOUSE = ["aar/house-rules@1"]


def _counted(monkeypatch) -> list[tuple]:
    """The place constraints asked from now on: (messages read, territory, unit types)."""
    asked: list[tuple] = []
    real = placement.check_action

    def counted(ctx, action, args):
        if action == "place":
            asked.append((refusal_texts_read(), args[1].name, tuple(u.name for u in args[2])))
        return real(ctx, action, args)
    monkeypatch.setattr(placement, "check_action", counted)
    return asked


def test_the_answer_check_asks_no_constraint_the_planner_found_accepting(monkeypatch):
    game = make_game(HOUSE, default_agent="heuristic")
    asked = _counted(monkeypatch)
    run_phases(game, "Germans", "purchase", "place")
    placed = events(game, "place", player="Germans")[-1]["placed"]
    assert placed  # the heuristic agent bought units and placed them at territories of its plan
    planned = {(territory, types) for read, territory, types in asked if not read}
    assert all((territory, tuple(types)) in planned for territory, _, types in placed)
    # the answer's check took the planner's answers: no constraint asked with messages read
    # (before: one `check_action` for each territory of the answer)
    assert [a for a in asked if a[0]] == []


class _Trying(HeuristicAgent):
    """The heuristic agent, which first asks the placement's `allowed` of a list the rules refuse
    (a non-infantry unit where no factory stands), without its messages and then with them."""

    tried: dict = {}

    def decide(self, decision, game):
        if decision.kind == "place":
            allowed = decision.context["allowed"]
            territory = self.tried["at"] = next(t for t in decision.context["candidates"]
                                                if t not in game.state.factories)
            with refusal_texts_unread():
                self.tried["unread"] = allowed(territory, ["artillery"])
            self.tried["read"] = allowed(territory, ["artillery"])
        return super().decide(decision, game)


def test_a_list_refused_without_its_messages_is_asked_again_with_them(monkeypatch):
    game = make_game(HOUSE, default_agent="heuristic")
    game.agents["Germans"] = _Trying(1, "Germans")
    asked = _counted(monkeypatch)
    run_phases(game, "Germans", "purchase", "place")
    assert _Trying.tried["unread"] == [None]
    read = _Trying.tried["read"]
    assert read and all(isinstance(m, str) and "factory" in m for m in read)
    # asked again once, with its messages; the answer's own lists are not (the test above)
    assert [a for a in asked if a[0]] == [(True, _Trying.tried["at"], ("artillery",))]
