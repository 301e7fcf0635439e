"""The game log (`play --log`, docs/log-format.md): logs of seeded games of several compositions
and agents validate against the package's schema (ruleslang/schemas/log.schema.json), malformed
ones do not; an independent audit (tests/log_audit.py) re-derives the board, control, factories,
the treasuries and the dice of simple battles from the log alone, and fails a corrupted log; `replay` reads a log
and refuses one of an older format with its code."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import jsonschema
import pytest

from log_audit import audit, read
from ruleslang import __version__
from ruleslang.base.diagnostics import DiagnosticError
from ruleslang.base.yamlio import load_schema
from ruleslang.cli.app import main
from ruleslang.runtime import saves
from ruleslang.runtime.game import FORMAT_VERSION

ROUNDS = "3"
GAMES = {
    "house-rules-heuristic": ["--seed", "1"],                       # the default game (defaults.yaml)
    "house-rules-random": ["--seed", "2", "--agent", "random"],
    "aa50": ["--ruleset", "aa50/house-rules@1", "--seed", "5"],
    "g40": ["--ruleset", "g40/house-rules@1", "--seed", "6"],
    "bids": ["--ruleset", "aar/base@1", "--bid", "Allies=12", "--bid", "Germans=7", "--seed", "3"],
}


@pytest.fixture(scope="module")
def logs(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("logs")
    out = {}
    for name, args in GAMES.items():
        out[name] = folder / f"{name}.jsonl"
        assert main(["play", *args, "--rounds", ROUNDS, "--quiet", "--log", str(out[name])]) == 0
    return out


@pytest.fixture(scope="module")
def schema() -> dict:
    return load_schema("log")


def kind_validators(schema: dict) -> dict[str, list]:
    """A validator per event definition, by kind: each line checked against its kind's
    definition only (the whole schema checks every definition's condition on every line, which
    takes seconds for a long log)."""
    out: dict[str, list] = {}
    for name, definition in schema["$defs"]["events"].items():
        root = {"$ref": f"#/$defs/events/{name}", "$defs": schema["$defs"]}
        out.setdefault(definition["properties"]["kind"]["const"], []).append(jsonschema.Draft202012Validator(root))
    return out


def schema_problems(lines: list[dict], schema: dict) -> list[str]:
    """What the whole schema finds wrong with a log (its lines)."""
    return [f"{list(e.absolute_path)}: {e.message}" for e in jsonschema.Draft202012Validator(schema).iter_errors(lines)]


def test_the_schema_is_a_valid_json_schema(schema):
    jsonschema.Draft202012Validator.check_schema(schema)


def test_a_whole_log_validates_against_the_schema(logs, schema):
    lines = read(logs["house-rules-random"])
    assert schema_problems(lines, schema) == []


@pytest.mark.parametrize("game", list(GAMES))
def test_every_line_of_seeded_games_validates(logs, schema, game):
    lines = read(logs[game])
    header = jsonschema.Draft202012Validator({"$ref": "#/$defs/header", "$defs": schema["$defs"]})
    start = jsonschema.Draft202012Validator({"$ref": "#/$defs/start", "$defs": schema["$defs"]})
    assert [e.message for e in header.iter_errors(lines[0])] == []
    assert [e.message for e in start.iter_errors(lines[1])] == []
    by_kind = kind_validators(schema)
    for number, event in enumerate(lines[2:], start=3):
        assert event["kind"] in by_kind, f"line {number}: kind {event['kind']!r} is not in the schema"
        assert any(v.is_valid(event) for v in by_kind[event["kind"]]), \
            f"line {number}: {event} fails the schema: " + "; ".join(
                e.message for v in by_kind[event["kind"]] for e in v.iter_errors(event))


def test_the_header_says_what_was_played(logs):
    header, start = read(logs["aa50"])[:2]
    assert header["format"] == "ruleslang-log" and header["version"] == FORMAT_VERSION
    assert header["ruleslang"] == __version__
    assert header["compose"] == ["aa50/house-rules@1"]
    assert all(len(r.get("sha256", "")) == 64 for r in header["rulesets"])
    assert header["map"]["name"] and len(header["map"]["sha256"]) == 64
    assert header["seed"] == 5 and header["rounds"] == int(ROUNDS) and header["finished"] is True
    assert set(header["agents"].values()) == {"heuristic"} and set(header["agents"]) >= set(start["treasury"])
    # the start: every unit once, in a space of the board, and control of every space
    ids = [u["id"] for u in start["units"]]
    assert len(ids) == len(set(ids)) > 100 and start["next_unit_id"] > max(ids)
    assert {u["space"] for u in start["units"]} <= set(start["control"])
    assert start["factories"] and all(f["owner"] for f in start["factories"])


def test_every_die_is_logged_where_it_fell_with_the_rule_that_rolled_it(logs):
    lines = read(logs["house-rules-heuristic"])
    rolls = [e for e in lines if e["kind"] == "roll"]
    assert len(rolls) > 50
    refs = {r["ref"] for r in lines[0]["rulesets"]}
    for roll in rolls:
        ref, line, column = roll["at"].rsplit(":", 2)
        assert ref in refs and int(line) > 0 and int(column) > 0
    # a battle's dice come between its start and its end, before the hits they score
    first = next(i for i, e in enumerate(lines) if e["kind"] == "hits" and not e["now"])
    battle = max(i for i, e in enumerate(lines[:first]) if e["kind"] == "battle")
    assert any(e["kind"] == "roll" for e in lines[battle:first])


def test_decisions_say_what_they_offered(logs):
    decisions = [e for e in read(logs["house-rules-random"]) if e["kind"] == "decision" and "decision" in e]
    for d in decisions:
        offered = d["offered"]
        if d["decision"] == "casualties":
            assert set(map(str, d["answer"])) <= set(offered["room"]) and len(d["answer"]) == offered["count"]
            assert set(d["answer"]) <= set(offered["options"])
        elif d["decision"] == "choose" and offered["mode"] == "one":
            assert d["answer"] in offered["options"]
        elif d["decision"] == "purchase":
            assert sum(offered["costs"][t] * n for t, n in d["answer"]["units"].items()) <= offered["money"]
        elif d["decision"] == "move":
            assert offered["kind"] in ("combat", "noncombat")
        elif d["decision"] == "place":
            assert all(item[0] in offered["candidates"] for item in d["answer"])
    assert {d["decision"] for d in decisions} >= {"casualties", "choose", "purchase", "move", "place"}


# ---------------------------------------------------------------- the schema refuses


def small_log(logs) -> list[dict]:
    """The beginning of a real log: its header, its start and its first hundred events."""
    return read(logs["house-rules-heuristic"])[:102]


@pytest.mark.parametrize("damage, found", [
    (lambda log: log[0].pop("version"), "'version' is a required property"),
    (lambda log: log[0].update(seed="one"), "'one' is not of type 'integer'"),
    (lambda log: log[1]["units"][0].pop("owner"), "'owner' is a required property"),
    (lambda log: log.insert(2, {"kind": "roll", "sides": 6, "at": "aar/base@1:1:1"}), "'value' is a required"),
    (lambda log: log.insert(2, {"kind": "roll", "sides": 6, "value": 0, "at": "aar/base@1:1:1"}),
     "0 is less than the minimum of 1"),
    (lambda log: log.insert(2, {"kind": "teleport", "ids": [1]}), "'teleport' is not one of"),
    (lambda log: log.insert(2, {"kind": "treasury", "player": "Germans", "amount": 3}), "'economy' is a required"),
    (lambda log: log.pop(1), "'start' was expected"),
])
def test_the_schema_rejects_a_malformed_log(logs, schema, damage, found):
    log = small_log(logs)
    assert schema_problems(log, schema) == []
    damaged = copy.deepcopy(log)
    damage(damaged)
    problems = schema_problems(damaged, schema)
    assert any(found in p for p in problems), problems


# ---------------------------------------------------------------- the independent audit


@pytest.mark.parametrize("game", ["house-rules-heuristic", "house-rules-random"])
def test_the_audit_passes_the_seeded_games(logs, game):
    problems, steps = audit(read(logs[game]))
    assert problems == []
    assert steps, "no battle of infantry and artillery only to re-derive the dice of"


def corrupted(logs, change) -> list[str]:
    lines = read(logs["house-rules-heuristic"])
    change(lines)
    return audit(lines)[0]


def test_the_audit_fails_a_die_that_does_not_give_the_hits_logged(logs):
    lines = read(logs["house-rules-heuristic"])
    _, steps = audit(lines)
    # a die turned from a hit to a miss (or back) where that changes the hits the step gives
    for step in steps:
        for line, die, need in zip(step["lines"], step["dice"], step["needs"]):
            hit = die <= need
            if (hit and step["scored"] <= len(step["targets"])) or (not hit and step["scored"] < len(step["targets"])):
                lines[line - 1]["value"] = 6 if hit else 1
                problems, _ = audit(lines)
                assert problems and "hit(s), the log has" in problems[0]
                return
    raise AssertionError("no die of the audited steps changes its step's hits")


def test_the_audit_fails_a_missing_die(logs):
    lines = read(logs["house-rules-heuristic"])
    _, steps = audit(lines)
    del lines[steps[0]["lines"][0] - 1]
    assert any("dice were rolled" in p for p in audit(lines)[0])


def test_the_audit_fails_a_treasury_that_does_not_add_up(logs):
    def change(lines):
        next(e for e in lines if e["kind"] == "treasury")["after"] += 1
    assert any("treasury was" in p for p in corrupted(logs, change))


def test_the_audit_fails_a_change_of_control_from_the_wrong_holder(logs):
    def change(lines):
        taken = next(e for e in lines if e["kind"] == "control")
        lines[1]["control"][taken["space"]] = taken["after"]
    assert any("changes hands from" in p for p in corrupted(logs, change))


def test_the_audit_fails_a_factory_taken_from_the_wrong_owner(logs):
    def change(lines):
        factory = lines[1]["factories"][0]
        other = next(p for p in lines[1]["treasury"] if p != factory["owner"])
        lines.insert(2, {"kind": "factory", "space": factory["space"], "before": other, "after": other,
                         "factory_kind": factory["kind"], "damage": 0})
    assert any("the factory of" in p for p in corrupted(logs, change))


def test_the_audit_fails_a_unit_that_never_was(logs):
    def change(lines):
        next(e for e in lines if e["kind"] == "move_units")["ids"].append(99999)
    assert any("unit 99999, which is not on the board" in p for p in corrupted(logs, change))


def test_the_audit_fails_a_unit_missing_from_the_start(logs):
    def change(lines):
        moved = next(e for e in lines if e["kind"] == "move_units")["ids"][0]
        lines[1]["units"] = [u for u in lines[1]["units"] if u["id"] != moved]
    assert any("which is not on the board" in p for p in corrupted(logs, change))


# ---------------------------------------------------------------- reading logs back


def test_replay_reads_the_log(logs, capsys):
    events = len(read(logs["g40"])) - 2
    assert main(["replay", str(logs["g40"])]) == 0
    assert capsys.readouterr().out == f"replay of {logs['g40']}: all {events} events match\n"


def test_replay_finds_a_changed_start(logs, tmp_path, capsys):
    lines = read(logs["g40"])
    lines[1]["treasury"][next(iter(lines[1]["treasury"]))]["main"] += 5
    path = tmp_path / "changed.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in lines) + "\n")
    assert main(["replay", str(path)]) == 1
    assert "diverged: the recorded starting state is not the one" in capsys.readouterr().out


def test_a_log_of_the_older_format_is_refused_with_its_code(logs, tmp_path, capsys):
    # a format-1 log: the save's description as its first line, then the events (no start, no dice)
    lines = read(logs["house-rules-heuristic"])
    old = {**lines[0], "format": "ruleslang-save", "version": 1}
    path = tmp_path / "old.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in [old] + [e for e in lines[2:] if e["kind"] != "roll"]) + "\n")
    assert main(["replay", str(path)]) == 1
    err = capsys.readouterr().err
    assert "error[D663]" in err and f"the log has format version 1; this ruleslang reads version {FORMAT_VERSION}" in err
    with pytest.raises(DiagnosticError) as info:
        saves.read_record(str(path))
    assert info.value.diagnostics[0].code == "D663"


def test_a_log_with_a_malformed_start_is_refused(logs, tmp_path, capsys):
    lines = read(logs["house-rules-heuristic"])
    del lines[1]["units"][0]["type"]
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(json.dumps(e) for e in lines) + "\n")
    assert main(["replay", str(path)]) == 1
    assert "error[D664]" in capsys.readouterr().err
