"""JSON documents for states and game records (schema in docs/serialization.md).

A state document::

    {"schema": "meeple-state/1", "game": "abacuachego",
     "parameters": {...every parameter...}, "state": {...the game's own fields...}}

Games with chance keep their random generator inside "state" (field "rng"), so a document restores
the exact future of a state. Anything malformed, truncated or inconsistent raises ValueError.
"""
from __future__ import annotations

import json
import math
import operator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterator

import numpy as np

from ._registry import list_games, load_from_document, parse_game_string

if TYPE_CHECKING:
    from ._protocol import State

STATE_SCHEMA = "meeple-state/1"
RECORD_SCHEMA = "meeple-record/1"

__all__ = ["STATE_SCHEMA", "RECORD_SCHEMA", "state_to_document", "state_to_json", "from_json",
           "state_from_document", "Record"]


def state_to_document(state) -> dict:
    game = state.game
    return {"schema": STATE_SCHEMA, "game": game.name, "parameters": game.parameters(),
            "state": state.to_dict()}


def state_to_json(state, indent: int | None = None) -> str:
    """The state as a versioned JSON document (`meeple.from_json` reads it back)."""
    return json.dumps(state_to_document(state), indent=indent)


def _parse(text: Any) -> Any:
    if isinstance(text, (bytes, bytearray)):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueError(f"document is not UTF-8: {e}") from None
    if not isinstance(text, str):
        raise TypeError(f"expected a JSON string, got {type(text).__name__}")
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("JSON document is nested too deeply") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"not valid JSON: {e}") from None


def _check_document(doc: Any, schema: str, keys: tuple[str, ...]) -> dict:
    if not isinstance(doc, dict):
        raise ValueError(f"expected a JSON object with schema {schema!r}, got {type(doc).__name__}")
    if doc.get("schema") != schema:
        raise ValueError(f"unsupported schema {doc.get('schema')!r}; expected {schema!r}")
    missing = [k for k in keys if k not in doc]
    if missing:
        raise ValueError(f"document lacks field {missing[0]!r}; expected fields: {', '.join(keys)}")
    extra = [k for k in doc if k not in keys and k != "schema"]
    if extra:
        raise ValueError(f"unknown document field {extra[0]!r}; expected fields: {', '.join(keys)}")
    if not isinstance(doc["game"], str):
        raise ValueError("field 'game' must be a string")
    if not isinstance(doc["parameters"], dict):
        raise ValueError("field 'parameters' must be an object")
    return doc


def state_from_document(doc: Any) -> State:
    doc = _check_document(doc, STATE_SCHEMA, ("game", "parameters", "state"))
    game = load_from_document(doc["game"], doc["parameters"])
    if not isinstance(doc["state"], dict):
        raise ValueError("field 'state' must be an object")
    return game.state_from_dict(doc["state"])


def from_json(text: str | bytes) -> State:
    """Reads a state document written by `state.to_json()`."""
    return state_from_document(_parse(text))


@dataclass
class Record:
    """A whole game as its inputs: replaying `actions` from `seed` rebuilds every state exactly.

    With the default (implicit) chance, chance is drawn from the seeded state, so `actions` holds
    only the players' actions; with explicit chance it holds the chance outcomes too.

    The fields follow the rules `Record.from_json` reads them by (docs/serialization.md), checked
    when the record is made and again when it is written or replayed (the fields stay open to
    change): `game` a name of `meeple.list_games()`, exactly; `parameters` a dict of parameter
    values as `game.parameters()` writes them (not the text `meeple.load` also reads); `seed` None
    or an int in 0..2**64-1; `actions` a list of ints; `returns` None or a list of finite numbers
    (one per player, checked when written); `meta` a dict of JSON values (str keys, finite
    numbers, lists, dicts). An int is a Python int or a numpy integer, never a bool or a float:
    nothing is converted on the way to JSON but numpy scalars to their equal Python values. A
    value of the wrong type raises TypeError and one out of range ValueError, naming the field. A
    game meeple does not know at all (one of your own that `bots.play_game` played) is refused
    only when the record is written or replayed.

    >>> import meeple
    >>> game = meeple.load("abacuachego")
    >>> state = game.new_initial_state(seed=7)
    >>> record = meeple.Record("abacuachego", game.parameters(), seed=7)
    >>> for a in (4, 7):
    ...     record.actions.append(a); state.apply_action(a)
    >>> record.replay() == state
    True
    """

    game: str
    parameters: dict = field(default_factory=dict)
    seed: int | None = 0
    actions: list[int] = field(default_factory=list)
    returns: list[float] | None = None
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._check()

    def _check(self, written: bool = False) -> Any:
        """Checks the fields; returns the game (None for a game `meeple.load` does not know, which
        `play_game` may play in memory: such a record is refused when written). With `written`,
        also that the game is known and returns hold one number per player."""
        game = _record_game(self.game, self.parameters, unknown_too=not written)
        _record_seed(self.seed)
        _record_actions(self.actions)
        _record_returns(self.returns, game if written else None)
        _record_meta(self.meta)
        return game

    def load_game(self):
        """The record's game (its fields checked first)."""
        game = _record_game(self.game, self.parameters)
        _record_seed(self.seed)
        _record_actions(self.actions)
        return game

    def states(self) -> Iterator[Any]:
        """Yields the initial state, then the state after each action (each a fresh clone)."""
        state = self.load_game().new_initial_state(seed=self.seed)
        yield state.clone()
        for i, a in enumerate(self.actions):
            try:
                state.apply_action(a)
            except (ValueError, TypeError) as e:
                raise ValueError(f"record action #{i} ({a!r}) cannot be replayed: {e}") from None
            yield state.clone()

    def replay(self):
        """The final state of the record. Its `returns` are not compared with the state's: they
        are the writer's (a game adjudicated before its end may have some; docs/serialization.md)."""
        state = self.load_game().new_initial_state(seed=self.seed)
        for i, a in enumerate(self.actions):
            try:
                state.apply_action(a)
            except (ValueError, TypeError) as e:
                raise ValueError(f"record action #{i} ({a!r}) cannot be replayed: {e}") from None
        return state

    def to_document(self) -> dict:
        """The record as the plain data of its JSON document; TypeError or ValueError naming the
        field if one breaks the rules `from_json` reads by (so a written record always reads back,
        the same)."""
        self._check(written=True)
        doc: dict[str, Any] = {"schema": RECORD_SCHEMA, "game": self.game, "parameters": dict(self.parameters),
                               "seed": None if self.seed is None else operator.index(self.seed),
                               "actions": [operator.index(a) for a in self.actions]}
        if self.returns is not None:
            doc["returns"] = [float(r) for r in self.returns]
        if self.meta:
            doc["meta"] = self.meta
        return doc

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_document(), indent=indent, allow_nan=False, default=_numpy_scalar)

    @classmethod
    def from_document(cls, doc: Any) -> "Record":
        if isinstance(doc, dict):
            optional = tuple(k for k in ("returns", "meta") if k in doc)
        else:
            optional = ()
        doc = _check_document(doc, RECORD_SCHEMA, ("game", "parameters", "seed", "actions") + optional)
        actions = doc["actions"]
        try:  # the same rules as a Record made in Python; a document's faults are all ValueError
            record = cls(doc["game"], dict(doc["parameters"]), doc["seed"],
                         list(actions) if isinstance(actions, list) else actions, doc.get("returns"),
                         doc.get("meta", {}))
            _record_returns(record.returns, record.load_game())
        except TypeError as e:
            raise ValueError(str(e)) from None
        return record

    @classmethod
    def from_json(cls, text: str | bytes) -> "Record":
        return cls.from_document(_parse(text))


# --- the rules of a record's fields (Record, Record.from_json) ----------------------------------

_PLAIN = "JSON values: None, bool, int, float (numpy scalars too), str, lists and dicts with str keys"


def _what(value: Any) -> str:
    """'float 2.9' (the type and the value, cut short)."""
    try:
        text = repr(value)
    except ValueError:  # an int past sys.get_int_max_str_digits()
        text = "..."
    return f"{type(value).__name__} {text if len(text) <= 60 else text[:57] + '...'}"


def _is_int(value: Any) -> bool:
    """A Python int or numpy integer, not a bool (what JSON writes as an integer, unchanged)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _record_game(name: Any, parameters: Any, unknown_too: bool = False) -> Any:
    """The game of a record's fields `game` and `parameters`, checked as a document's (an exact
    name; values, not text). With `unknown_too`, None for a name `meeple.load` does not know."""
    if not isinstance(name, str):
        raise TypeError(f"field 'game' must be a game name (str), one of {', '.join(list_games())}; "
                        f"got {_what(name)}")
    if not isinstance(parameters, dict):
        raise TypeError(f"field 'parameters' must be a dict of parameter values, got {_what(parameters)}")
    _plain(parameters, "parameters")
    if unknown_too and name not in list_games() and not _names_a_known_game(name):
        return None
    return load_from_document(name, parameters)


def _names_a_known_game(text: str) -> bool:
    """Whether `meeple.load` reads `text` as one of its games ('imperial-harvest',
    'abacuachego(parity=pit)'): a record names it exactly, so that is refused at once."""
    try:
        base = parse_game_string(text)[0] if "(" in text else text.replace("-", "_")
    except ValueError:
        return False
    return base in list_games()


def _record_seed(seed: Any) -> None:
    if seed is None:
        return
    if not _is_int(seed):
        raise TypeError(f"field 'seed' must be None or an int in 0..2**64-1, got {_what(seed)}")
    if not 0 <= seed < 2**64:
        raise ValueError(f"field 'seed' must be None or an int in 0..2**64-1, got {_what(seed)}")


def _record_actions(actions: Any) -> None:
    if not isinstance(actions, list):
        hint = " (array.tolist() makes one)" if isinstance(actions, np.ndarray) else ""
        raise TypeError(f"field 'actions' must be a list of ints, got {_what(actions)}{hint}")
    if set(map(type, actions)) <= {int}:  # plain ints, the usual case, checked at C speed (bool is not int)
        return
    for i, a in enumerate(actions):
        if not _is_int(a):
            raise TypeError(f"field 'actions' must be a list of ints; actions[{i}] is {_what(a)}")


def _record_returns(returns: Any, game: Any = None) -> None:
    """None or a list of finite numbers; with `game`, one per player."""
    if returns is None:
        return
    if not isinstance(returns, list):
        hint = " (array.tolist() makes one)" if isinstance(returns, np.ndarray) else ""
        raise TypeError(f"field 'returns' must be None or a list of finite numbers, got {_what(returns)}{hint}")
    for i, r in enumerate(returns):
        if isinstance(r, (bool, np.bool_)) or not isinstance(r, (int, float, np.integer, np.floating)):
            raise TypeError(f"field 'returns' must be a list of finite numbers; returns[{i}] is {_what(r)}")
        try:
            finite = math.isfinite(r)
        except OverflowError:  # an int beyond the floats
            finite = False
        if not finite:
            raise ValueError(f"field 'returns' must be a list of finite numbers; returns[{i}] is {_what(r)}")
    if game is not None and len(returns) != game.num_players():
        raise ValueError(f"field 'returns' must hold one number per player ({game.num_players()}), "
                         f"got {len(returns)}")


def _record_meta(meta: Any) -> None:
    if not isinstance(meta, dict):
        raise TypeError(f"field 'meta' must be a dict, got {_what(meta)}")
    _plain(meta, "meta")


def _plain(value: Any, name: str) -> None:
    """`value` must be JSON that reads back equal: TypeError naming the place of anything else (a
    tuple, a set, a non-str key, an object), ValueError for NaN, infinity or a cycle. numpy scalars
    are their Python values (`to_json` writes those)."""
    stack: list[tuple[Any, tuple, bool]] = [(value, (), False)]
    open_containers: set[int] = set()  # on the path from the top: met again, a cycle
    done: set[int] = set()  # checked whole (shared, not cyclic)
    while stack:
        item, path, leaving = stack.pop()
        if leaving:
            open_containers.discard(id(item))
            done.add(id(item))
            continue
        if isinstance(item, (dict, list)):
            if id(item) in done:
                continue
            if id(item) in open_containers:
                raise ValueError(f"field {name!r}: {_where(name, path)} contains itself; JSON has no cycles")
            open_containers.add(id(item))
            stack.append((item, path, True))
            if isinstance(item, dict):
                for key, child in item.items():
                    if not isinstance(key, str):
                        raise TypeError(f"field {name!r}: {_where(name, path)} has the key {_what(key)}; JSON "
                                        "object keys are str")
                    stack.append((child, path + (key,), False))
            else:
                for i, child in enumerate(item):
                    if child is None or type(child) in _SCALARS or type(child) is list and all(map(_scalar, child)):
                        continue  # the common case (e.g. a policy's [action, visits]) without the stack
                    stack.append((child, path + (i,), False))
        elif isinstance(item, (float, np.floating)):
            if not math.isfinite(item):
                raise ValueError(f"field {name!r}: {_where(name, path)} is {item!r}; JSON numbers are finite")
        elif not (item is None or isinstance(item, (str, int, np.integer, np.bool_))):
            raise TypeError(f"field {name!r}: {_where(name, path)} is {_what(item)}; a record holds {_PLAIN}")


_SCALARS = frozenset((int, str, bool))


def _scalar(value: Any) -> bool:
    """None, or an int, str, bool or finite float of exactly those types."""
    kind = type(value)
    return value is None or kind in _SCALARS or kind is float and value - value == 0  # inf, nan: not 0


def _numpy_scalar(value: Any) -> Any:
    """json.dumps' `default`: a numpy scalar (which `_plain` let through) as its Python value."""
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    raise TypeError(f"{_what(value)} is not JSON")


def _where(name: str, path: tuple) -> str:
    return name + "".join(f"[{part!r}]" for part in path)
