"""Safe YAML loading with positions, and schema validation as located diagnostics."""

from __future__ import annotations

import pytest

from ruleslang.base import limits, yamltext
from ruleslang.base.diagnostics import DiagnosticError
from ruleslang.base.paths import packaged_root
from ruleslang.base.source import Source, span_at
from ruleslang.base.yamlio import Positions, dump_yaml, format_path, load_schema, load_yaml, validate


def load(text: str):
    return load_yaml(Source("test.yaml", text))


def refused(text: str):
    with pytest.raises(DiagnosticError) as caught:
        load(text)
    return caught.value.diagnostics


def test_positions_point_at_values_and_keys():
    data, positions = load("players:\n  - name: Reds\n    side: North\nsize: 3\n")
    assert data == {"players": [{"name": "Reds", "side": "North"}], "size": 3}
    side = positions.span(("players", 0, "side"))
    assert (side.line, side.column, side.text) == (3, 11, "North")
    key = positions.key_span(("players", 0, "side"))
    assert (key.line, key.column, key.text) == (3, 5, "side")
    # An unknown path falls back to its nearest known ancestor.
    assert positions.span(("players", 0, "missing", 4)) == positions.span(("players", 0))


def test_keys_stay_text_and_dates_stay_text():
    data, _ = load("yes: 1\n2: two\nwhen: 2024-01-05\n")
    assert data == {"yes": 1, "2": "two", "when": "2024-01-05"}


def test_empty_document_is_none():
    assert load("# nothing\n")[0] is None


@pytest.mark.parametrize("text, code, line", [
    ("a: [1, 2\nb: 3\n", "D601", 2),
    ("a: &x 1\nb: *x\n", "D602", 1),
    ("a: 1\nb: !!python/object:os.system ls\n", "D603", 2),
    ("a: !custom 1\n", "D603", 1),
    ("a: 1\na: 2\n", "D606", 2),
    ("? [1, 2]\n: 3\n", "D607", 1),
])
def test_unsafe_or_broken_yaml_is_refused_with_a_location(text, code, line):
    diagnostics = refused(text)
    assert [d.code for d in diagnostics] == [code]
    assert diagnostics[0].span.line == line


@pytest.mark.parametrize("text, begins", [("a: {b: 1\nc: 2\n", (1, 4)), ('a: 1\nb: "open\nc: 3\n', (2, 4))])
def test_a_syntax_error_noticed_late_points_at_where_the_construct_began(text, begins):
    (diagnostic,) = refused(text)
    assert diagnostic.code == "D601" and diagnostic.span.line > begins[0]
    assert [(r.span.line, r.span.column) for r in diagnostic.related] == [begins]
    assert f"from line {begins[0]}" in diagnostic.hint


def test_alias_message_names_the_alias():
    (diagnostic,) = refused("base: &b {x: 1}\nother: *b\n")
    assert diagnostic.code == "D602" and "&b" in diagnostic.message


def test_depth_is_bounded():
    deep = "[" * (limits.MAX_YAML_DEPTH + 1) + "]" * (limits.MAX_YAML_DEPTH + 1)
    (diagnostic,) = refused(deep)
    assert diagnostic.code == "D604"
    load("[" * limits.MAX_YAML_DEPTH + "]" * limits.MAX_YAML_DEPTH)  # the limit itself is fine


def test_size_is_bounded(monkeypatch):
    monkeypatch.setattr(yamltext, "MAX_DATA_CHARS", 10)
    (diagnostic,) = refused("a: 12345678901\n")
    assert diagnostic.code == "D605"


SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["name"],
    "properties": {
        "name": {"type": "string"},
        "kind": {"enum": ["land", "sea"]},
        "spaces": {"type": "array", "items": {"type": "object", "properties": {"ipc": {"type": "integer"}}}},
        "owner": {"anyOf": [{"type": "string"}, {"type": "null"}]},
    },
}


def test_validate_states_path_expected_and_found():
    data, positions = load("kind: swamp\nspaces:\n  - ipc: 1\n  - ipc: two\nowner: 3\nnmae: x\n")
    diagnostics = validate(data, SCHEMA, positions, code="D610")
    messages = [d.message for d in diagnostics]
    assert "the document: the key 'name' is required but missing" in messages
    assert 'kind: expected one of "land", "sea", found text \'swamp\'' in messages
    assert "spaces[1].ipc: expected a whole number, found text 'two'" in messages
    assert "owner: expected text or nothing, found the number 3" in messages
    unknown = next(d for d in diagnostics if "unknown key" in d.message)
    assert unknown.hint == "did you mean 'name'?"
    assert (unknown.span.line, unknown.span.column) == (6, 1)
    ipc = next(d for d in diagnostics if d.message.startswith("spaces[1]"))
    assert (ipc.span.line, ipc.span.column) == (4, 10)
    assert all(d.code == "D610" for d in diagnostics)
    # Stable order: the same input gives the same list.
    assert [d.message for d in validate(data, SCHEMA, positions)] == messages


def test_format_path_quotes_names_with_spaces():
    assert format_path(("spaces", 3, "ipc")) == "spaces[3].ipc"
    assert format_path(("control", "Anglo Egypt")) == 'control."Anglo Egypt"'
    assert format_path(()) == "the document"


def test_positions_everywhere_maps_every_path_to_one_span():
    source = Source("<expr>", "scenario with {...}")
    span = span_at(source, 1, 1, 8)
    positions = Positions.everywhere(span)
    assert positions.span(("control", "x")) is span and positions.key_span(("a",)) is span


def test_dump_yaml_round_trips_without_anchors():
    shared = ["a", "b"]
    data = {"first": shared, "second": shared, "nested": {"deep": {"x": 1}}, "name": "yes"}
    text = dump_yaml(data, header="a header")
    assert text.startswith("# a header\n") and "&" not in text and "*" not in text
    assert load(text)[0] == data


def test_schemas_are_valid_draft_2020_12():
    import jsonschema

    for name in ("map", "scenario"):
        schema = load_schema(name)
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["$schema"].endswith("2020-12/schema")


_SAMPLES = ["a: 'éé'\nb: [1, 2, 'ü€x']\nc:\n  d: 3\n", "d: 2001-01-01\nn: 1e3\nb: yes\nx: ~\n",
            "a: &x 1\nb: *x\n", "a: !foo 1\n", "a: [1, 2\n", "a: 1\na: 2\n", "[" * 40 + "]" * 40, "\x07"]


@pytest.mark.skipif(yamltext._FastLoader is None, reason="PyYAML without libyaml")
@pytest.mark.parametrize("text", _SAMPLES + [path for path in ("maps/aar.yaml", "maps/g40.yaml")])
def test_libyaml_gives_the_data_positions_and_refusals_of_the_pure_loader(text, monkeypatch):
    if text.startswith("maps/"):
        text = (packaged_root() / text).read_text(encoding="utf-8")

    def at(span):
        return span and (span.start, span.end)

    def outcome():
        try:
            data, positions = load(text)
        except DiagnosticError as refusal:
            return [(d.code, d.message, at(d.span)) for d in refusal.diagnostics]
        return (data, {p: at(s) for p, s in positions._values.items()},
                {p: at(s) for p, s in positions._keys.items()})

    fast = outcome()
    monkeypatch.setattr(yamltext, "_FastLoader", None)
    assert fast == outcome()
