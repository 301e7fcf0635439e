"""`GameState.copy` copies plain data by hand (board/state.py `_copy_data`): the same as
`copy.deepcopy` (values, types, dict order, sharing within a value), and nothing shared with
the source."""

from __future__ import annotations

import copy

from hypothesis import given, settings, strategies as st

from ruleslang.board.state import Factory, _copy_data

ATOMS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=False), st.text(max_size=3))
KEYS = st.one_of(st.text(max_size=3), st.integers(-3, 3), st.tuples(st.text(max_size=2), st.integers(0, 3)))
DATA = st.recursive(ATOMS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.tuples(inner, inner), st.dictionaries(KEYS, inner, max_size=4),
    st.builds(Factory, st.text(max_size=3), st.text(max_size=3), st.none() | st.text(max_size=2),
              st.integers(0, 3), st.dictionaries(st.text(max_size=2), inner, max_size=2))), max_leaves=12)


def _mutables(value, out: list) -> list:
    if isinstance(value, (dict, list, Factory)):
        out.append(value)
    items = value.items() if isinstance(value, dict) else vars(value).items() if isinstance(value, Factory) else \
        enumerate(value) if isinstance(value, (list, tuple)) else ()
    for _, v in items:
        _mutables(v, out)
    return out


@settings(max_examples=300, deadline=None)
@given(DATA)
def test_plain_data_is_copied_as_deepcopy_copies_it(value):
    made, deep = _copy_data(value), copy.deepcopy(value)
    assert repr(made) == repr(deep)  # values, types and the order of every dict
    assert type(made) is type(deep)
    assert not {id(m) for m in _mutables(made, [])} & {id(m) for m in _mutables(value, [])}


def test_sharing_within_a_value_and_other_objects_are_left_to_deepcopy():
    shared = [1, 2]
    value = {"a": shared, "b": shared}
    made = _copy_data(value)
    assert made["a"] is made["b"] and made["a"] is not shared  # as deepcopy keeps it

    class Other:
        def __init__(self):
            self.items = [1]
    other = {"x": Other()}
    made = _copy_data(other)
    assert made["x"] is not other["x"] and made["x"].items == [1] and made["x"].items is not other["x"].items
