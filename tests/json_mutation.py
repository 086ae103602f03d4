"""Hypothesis strategies that damage JSON documents: delete a key, add a key, replace any value at
any path by a JSON value of random type, nudge an int, move an amount between two ints (which often
keeps a game state consistent, so the accepting path is exercised too), then maybe truncate the text
or splice a character into it.

    doc = json.loads(state.to_json())
    text = data.draw(mutated_text(doc))       # or: data.draw(mutated_document(doc)) for a dict
"""
from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import strategies as st

INTERESTING_INTS = [
    0, 1, -1, 2, 3, 4, 5, 9, 10, 11, 12, 13, 30, 50, 51, 52, 100, 255, 256, 999, 1000, 1001,
    29999, 30000, 30001, 59999, 60000, 60001, 65535, 65536, 2**31 - 1, 2**31, 2**32, 2**53, 2**53 + 1,
    2**63 - 1, 2**63, 2**64 - 1, 2**64, 2**70, -4, -5, -2, -2**31, -2**31 - 1, -2**63, -2**63 - 1,
    -2**64, -2**70,
]
INTERESTING_STRINGS = [
    "", " ", "nan", "NaN", "Infinity", "-Infinity", "null", "true", "false", "0", "1", "4", " 4 ",
    "-4", "yes", "pit", "count", "digit", "exact", "abacuachego", "abacuachego(parity=pit)",
    "abacuachego(", "meeple-state/1", "meeple-record/1", "meeple-state/2", "ABACUACHEGO", "\x00",
    "🙂", "explicit", "implicit",
]
# Keys an added entry may take: the documents' own field names and a few traps (`name` collides
# with the first argument of meeple.load).
INTERESTING_KEYS = [
    "schema", "game", "parameters", "state", "seed", "actions", "returns", "meta", "pits", "stores",
    "current_player", "ply", "rng", "chance", "name", "params", "pits_per_row", "seeds_per_pit",
    "win_threshold", "max_plies", "parity", "origin_match", "match", "skip_origin_on_lap", "",
    "__class__", "x",
]

ints = st.one_of(st.sampled_from(INTERESTING_INTS), st.integers(-100, 100), st.integers())
floats = st.one_of(
    st.sampled_from([0.0, -0.0, 0.5, 1.0, 5.0, -1.0, 1e300, -1e300, 2.0**64, float("nan"),
                     float("inf"), float("-inf")]),
    st.floats(allow_nan=True, allow_infinity=True),
)
strings = st.one_of(st.sampled_from(INTERESTING_STRINGS), st.text(max_size=8))
keys = st.one_of(st.sampled_from(INTERESTING_KEYS), st.text(max_size=6))
scalars = st.one_of(st.none(), st.booleans(), ints, floats, strings)
json_values = st.recursive(
    scalars,
    lambda children: st.one_of(st.lists(children, max_size=5),
                               st.dictionaries(keys, children, max_size=4)),
    max_leaves=10,
)


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every path (tuple of keys and indices) in a JSON value, the root () included."""
    found = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            found += paths(v, prefix + (k,))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += paths(v, prefix + (i,))
    return found


def get(value: Any, path: tuple) -> Any:
    for step in path:
        value = value[step]
    return value


def _set(doc: Any, path: tuple, new: Any) -> Any:
    if not path:
        return new
    get(doc, path[:-1])[path[-1]] = new
    return doc


@st.composite
def _mutate_once(draw, doc: Any) -> Any:
    all_paths = paths(doc)
    kind = draw(st.sampled_from(["delete", "add", "replace", "replace", "nudge", "move", "move"]))
    if kind == "delete":
        candidates = [p for p in all_paths if p]
        if candidates:
            path = draw(st.sampled_from(candidates))
            del get(doc, path[:-1])[path[-1]]
        return doc
    if kind == "add":
        containers = [p for p in all_paths if isinstance(get(doc, p), (dict, list))]
        if containers:
            path = draw(st.sampled_from(containers))
            target = get(doc, path)
            value = draw(json_values)
            if isinstance(target, dict):
                target[draw(keys)] = value
            else:
                target.insert(draw(st.integers(0, len(target))), value)
        return doc
    int_paths = [p for p in all_paths if type(get(doc, p)) is int]
    if kind == "nudge" and int_paths:
        path = draw(st.sampled_from(int_paths))
        delta = draw(st.one_of(st.integers(-3, 3), st.sampled_from([2**16, -2**16, 2**32, 2**64])))
        return _set(doc, path, get(doc, path) + delta)
    if kind == "move" and len(int_paths) >= 2:
        # Mostly between cousins (same container or neighbouring ones: two pits, two stores...).
        a = draw(st.sampled_from(int_paths))
        cousins = [p for p in int_paths if p != a and p[:-2] == a[:-2]]
        others = cousins if cousins and draw(st.integers(0, 3)) else [p for p in int_paths if p != a]
        b = draw(st.sampled_from(others))
        source = get(doc, a)
        amount = draw(st.integers(1, source if 0 < source <= 60000 else 12))
        _set(doc, a, get(doc, a) - amount)
        return _set(doc, b, get(doc, b) + amount)
    path = draw(st.sampled_from(all_paths))
    return _set(doc, path, draw(json_values))


@st.composite
def mutated_document(draw, doc: Any, max_mutations: int = 3) -> Any:
    """A deep copy of `doc` with 1..max_mutations mutations (structure only, no text damage)."""
    doc = copy.deepcopy(doc)
    for _ in range(draw(st.integers(1, max_mutations))):
        doc = draw(_mutate_once(doc))
    return doc


@st.composite
def mutated_text(draw, doc: Any, max_mutations: int = 3) -> str:
    """`doc` mutated, dumped as JSON (NaN/Infinity allowed, as Python writes them), then maybe
    truncated or with one character spliced in."""
    if draw(st.integers(0, 9)) == 0:
        text = json.dumps(doc)  # the intact document now and then
    else:
        text = json.dumps(draw(mutated_document(doc, max_mutations)))
    damage = draw(st.sampled_from(["none", "none", "truncate", "splice"]))
    if damage == "truncate":
        text = text[: draw(st.integers(0, max(0, len(text) - 1)))]
    elif damage == "splice":
        i = draw(st.integers(0, len(text)))
        text = text[:i] + draw(st.sampled_from(list('{}[]",:0-e.\\ ') + ["\x00", "🙂"])) + text[i:]
    return text
