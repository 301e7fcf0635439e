"""Ruleset references, revisions, overrides, removals and compositions."""

from ruleslang.lang.eval.context import EvalContext
from ruleslang.lang.eval.host import Host
from ruleslang.workspace.compositions import Workspace

from conftest import FIXTURES, codes, load, write_rulesets

BASE = """
    ruleset h/raid@1
    title "first text"
    constant multiplier = 4
    formula output(x: int) -> int = multiplier * x
    formula cap(x: int, c: int) -> int = max(0, output(x) - c)
    formula extra() -> int = 1
    test "first text example":
        expect cap(3, 4) == 8
"""


def value(loaded, name, *args):
    ctx = EvalContext(loaded.compiled, Host(0))
    return loaded.compiled.callable(name)(ctx, *args)


def test_a_revision_states_only_what_changes(tmp_path):
    ws, loaded = load(tmp_path, {"h/raid@1": BASE, "h/raid@2": """
        ruleset h/raid@2
        revises h/raid@1
        override constant multiplier = 3
        override formula cap(x: int, c: int) -> int = output(x)
        remove extra
    """}, "h/raid@2")
    assert loaded.ok, loaded.diagnostics
    assert value(loaded, "cap", 3, 4) == 9
    assert "extra" not in loaded.compiled.symbols
    # the revision does not inherit the first text's worked example
    assert loaded.ruleset.tests == ()
    first = ws.load(["h/raid@1"])
    assert value(first, "cap", 3, 4) == 8


def test_newest_version_when_none_is_given(tmp_path):
    write_rulesets(tmp_path, {"h/raid@1": BASE, "h/raid@2": "ruleset h/raid@2\nrevises h/raid@1\n"})
    ws = Workspace([tmp_path])
    assert ws.composer.resolve_ref("h/raid").ref == "h/raid@2"


def test_overrides_are_late_bound(tmp_path):
    _, loaded = load(tmp_path, {"h/raid@1": BASE, "h/house@1": """
        ruleset h/house@1
        uses h/raid@1
        override formula output(x: int) -> int = 10 * x
    """}, "h/house@1")
    assert loaded.ok, loaded.diagnostics
    # cap is defined by h/raid@1 but calls the house rule's output
    assert value(loaded, "cap", 1, 0) == 10


def test_two_rulesets_overriding_the_same_name_conflict(tmp_path):
    ws, _ = load(tmp_path, {"h/raid@1": BASE, "h/a@1": """
        ruleset h/a@1
        uses h/raid@1
        override constant multiplier = 2
    """, "h/b@1": """
        ruleset h/b@1
        uses h/raid@1
        override constant multiplier = 5
    """})
    loaded = ws.load(["h/a@1", "h/b@1"])
    assert codes(loaded.diagnostics) == ["R207"]
    assert "h/a@1 and h/b@1" in loaded.diagnostics[0].message
    assert loaded.diagnostics[0].related


def test_a_composition_where_one_ruleset_builds_on_the_other_has_no_conflict(tmp_path):
    ws, _ = load(tmp_path, {"h/raid@1": BASE, "h/a@1": """
        ruleset h/a@1
        uses h/raid@1
        override constant multiplier = 2
    """, "h/b@1": """
        ruleset h/b@1
        uses h/a@1
        override constant multiplier = 5
    """})
    loaded = ws.load(["h/raid@1", "h/a@1", "h/b@1"])
    assert loaded.ok, loaded.diagnostics
    assert value(loaded, "output", 1) == 5


REVISED = """
    ruleset h/raid@2
    revises h/raid@1
    override constant multiplier = 3
"""
HOUSE = """
    ruleset h/house@1
    uses h/raid@2
"""


def test_two_versions_of_one_ruleset_in_a_composition_are_an_error_naming_both_chains(tmp_path):
    ws, _ = load(tmp_path, {"h/raid@1": BASE, "h/raid@2": REVISED, "h/house@1": HOUSE})
    loaded = ws.load(["h/house@1", "h/raid@1"])
    assert codes(loaded.diagnostics) == ["R216"]
    message = loaded.diagnostics[0].message
    assert "h/raid@2 (h/house@1 uses h/raid@2)" in message and "h/raid@1 (named)" in message
    assert loaded.diagnostics[0].span.line == 2  # the `uses` of house@1 that brought in @2
    assert "h/raid@1!" in loaded.diagnostics[0].hint


def test_a_version_marked_to_win_replaces_every_other_version_of_it(tmp_path):
    ws, _ = load(tmp_path, {"h/raid@1": BASE, "h/raid@2": REVISED, "h/house@1": HOUSE})
    assert value(ws.load(["h/house@1"]), "output", 1) == 3
    loaded = ws.load(["h/house@1", "h/raid@1!"])
    assert loaded.ok, loaded.diagnostics
    assert value(loaded, "output", 1) == 4  # house@1's `uses h/raid@2` resolved to @1
    assert "h/raid@2" not in loaded.ruleset.members
    assert value(ws.load(["h/house@1"]), "output", 1) == 3  # the preference does not stay behind


def test_a_revision_with_the_version_it_revises_is_one_ruleset(tmp_path):
    ws, _ = load(tmp_path, {"h/raid@1": BASE, "h/raid@2": REVISED})
    loaded = ws.load(["h/raid@2"])
    assert loaded.ok, loaded.diagnostics


def test_marking_two_versions_or_an_unversioned_ref_is_refused(tmp_path):
    ws, _ = load(tmp_path, {"h/raid@1": BASE, "h/raid@2": REVISED})
    assert codes(ws.load(["h/raid@1!", "h/raid@2!"]).diagnostics) == ["R216"]
    assert codes(ws.load(["h/raid!"]).diagnostics) == ["R216"]


def test_cycles_are_reported_with_their_path(tmp_path):
    ws, loaded = load(tmp_path, {"c/a@1": "ruleset c/a@1\nuses c/b@1\n", "c/b@1": "ruleset c/b@1\nuses c/a@1\n"})
    assert codes(loaded.diagnostics) == ["R204"]
    assert "c/a@1 -> c/b@1 -> c/a@1" in loaded.diagnostics[0].message
    assert loaded.diagnostics[0].span.line == 2


def test_missing_versions_and_names(tmp_path):
    ws, _ = load(tmp_path, {"h/raid@1": BASE, "h/x@1": "ruleset h/x@1\nuses h/raid@7\n",
                            "h/y@1": "ruleset h/y@1\nuses h/rade@1\n"})
    missing_version = ws.load(["h/x@1"]).diagnostics
    assert codes(missing_version) == ["S003"] and "versions available: @1" in missing_version[0].hint
    missing_name = ws.load(["h/y@1"]).diagnostics
    assert codes(missing_name) == ["S001"] and "h/raid" in missing_name[0].hint


def test_a_file_must_be_stored_under_its_own_name(tmp_path):
    (tmp_path / "h").mkdir()
    (tmp_path / "h" / "one@1.rules").write_text("ruleset h/two@1\n")
    loaded = Workspace([tmp_path]).load(["h/one@1"])
    assert codes(loaded.diagnostics) == ["R211"]


def test_a_user_file_may_use_the_shipped_and_fixture_rulesets(tmp_path):
    path = tmp_path / "mine.rules"
    path.write_text('ruleset me/house@1\nuses board/base@1\nformula double_cap(t: territory) -> int = 2 * cap(t)\n')
    ws = Workspace([FIXTURES])
    loaded = ws.load([str(path)])
    assert loaded.ok, loaded.diagnostics
    ctx = EvalContext(loaded.compiled, Host(0))
    from ruleslang.binding.bind import load_scenario_for_map
    from ruleslang.board.state import GameState
    from ruleslang.board.queries import BoardQueries
    state = GameState.from_scenario(load_scenario_for_map("mini", ws.roots))
    ctx = EvalContext(loaded.compiled, Host(0), state=state, board=BoardQueries(state))
    isle = ctx.space_values["Isle"]
    assert loaded.compiled.callable("double_cap")(ctx, isle) == 6


def test_maps_must_agree(tmp_path):
    ws, _ = load(tmp_path, {"m/a@1": 'ruleset m/a@1\nmap "mini"\n', "m/b@1": 'ruleset m/b@1\nmap "aar"\n'})
    loaded = ws.load(["m/a@1", "m/b@1"])
    assert codes(loaded.diagnostics) == ["R209"]


def test_a_ruleset_extending_another_may_add_names_the_other_uses_as_locals(tmp_path):
    _, loaded = load(tmp_path, {"h/raid@1": BASE, "h/ext@1": """
        ruleset h/ext@1
        uses h/raid@1
        constant x = 100
        formula c() -> int = 1
    """}, "h/ext@1")
    assert loaded.ok, loaded.diagnostics
    # cap's parameters x and c still mean its parameters, not the new globals
    assert value(loaded, "cap", 3, 4) == 8


def test_a_tag_named_like_a_formula_is_not_recursion(tmp_path):
    _, loaded = load(tmp_path, {"t/tags@1": """
        ruleset t/tags@1
        attribute cost: int
        tag flies
        unit bird:
            cost: 1
            tags: flies
        formula flies(u: unittype) -> bool = has_tag(u, flies)
    """})
    assert loaded.ok, loaded.diagnostics
    assert value(loaded, "flies", loaded.compiled.scope.enums["unittype"].by_name["bird"]) is True


def test_a_definition_that_takes_a_built_in_a_used_ruleset_calls_is_reported_there(tmp_path):
    # h/raid@1's cap calls the built-in max: a max of h/ext@1 would replace it in cap too
    _, loaded = load(tmp_path, {"h/raid@1": BASE, "h/ext@1": """
        ruleset h/ext@1
        uses h/raid@1
        formula max(a: int, b: int) -> int = a
    """}, "h/ext@1")
    [found] = [d for d in loaded.diagnostics if d.code == "R218"]
    assert found.span.source.display_name.endswith("ext@1.rules") and found.span.line == 3
    assert "h/raid@1 calls" in found.message
    [note] = found.related
    assert note.span.source.display_name.endswith("raid@1.rules") and "max(0, output(x) - c)" in note.span.text


def test_a_ruleset_may_take_a_built_in_name_no_used_ruleset_calls(tmp_path):
    _, loaded = load(tmp_path, {"h/raid@1": BASE, "h/ext@1": """
        ruleset h/ext@1
        uses h/raid@1
        formula min(a: int, b: int) -> int = a
        formula first(a: int, b: int) -> int = min(a, b)
    """}, "h/ext@1")
    assert loaded.ok, loaded.diagnostics
    assert value(loaded, "first", 5, 2) == 5


def test_a_formula_named_hits_over_aar_base_is_reported_at_its_definition(tmp_path):
    # issue 10: aar/base@1's repair phase calls the built-in hits(u)
    _, loaded = load(tmp_path, {"house/hits@1": """
        ruleset house/hits@1
        uses aar/base@1
        formula hits(x: int) -> int = x + 1
    """}, "house/hits@1")
    [found] = [d for d in loaded.diagnostics if d.code == "R218"]
    assert found.span.source.display_name.endswith("hits@1.rules") and found.span.line == 3
    assert "aar/base@1" in found.message
