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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterator

from ._registry import load, load_from_document

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

    def load_game(self):
        return load(self.game, **self.parameters)

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
        """The final state of the record."""
        state = self.load_game().new_initial_state(seed=self.seed)
        for i, a in enumerate(self.actions):
            try:
                state.apply_action(a)
            except (ValueError, TypeError) as e:
                raise ValueError(f"record action #{i} ({a!r}) cannot be replayed: {e}") from None
        return state

    def to_document(self) -> dict:
        if self.returns is not None and not all(math.isfinite(float(r)) for r in self.returns):
            raise ValueError(f"record returns must be finite, got {self.returns!r}")
        doc: dict[str, Any] = {"schema": RECORD_SCHEMA, "game": self.game, "parameters": dict(self.parameters),
               "seed": self.seed, "actions": [int(a) for a in self.actions]}
        if self.returns is not None:
            doc["returns"] = [float(r) for r in self.returns]
        if self.meta:
            doc["meta"] = self.meta
        return doc

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self.to_document(), indent=indent)

    @classmethod
    def from_document(cls, doc: Any) -> "Record":
        if isinstance(doc, dict):
            optional = tuple(k for k in ("returns", "meta") if k in doc)
        else:
            optional = ()
        doc = _check_document(doc, RECORD_SCHEMA, ("game", "parameters", "seed", "actions") + optional)
        seed, actions = doc["seed"], doc["actions"]
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64):
            raise ValueError(f"field 'seed' must be null or an int in 0..2**64-1, got {seed!r}")
        if not isinstance(actions, list) or any(isinstance(a, bool) or not isinstance(a, int) for a in actions):
            raise ValueError("field 'actions' must be a list of ints")
        returns = doc.get("returns")
        if returns is not None and (not isinstance(returns, list) or
                                    any(isinstance(r, bool) or not isinstance(r, (int, float))
                                        or not math.isfinite(r) for r in returns)):
            raise ValueError("field 'returns' must be a list of finite numbers")
        meta = doc.get("meta", {})
        if not isinstance(meta, dict):
            raise ValueError("field 'meta' must be an object")
        game = load_from_document(doc["game"], doc["parameters"])  # validates game and parameters now
        if returns is not None and len(returns) != game.num_players():
            raise ValueError(f"field 'returns' must hold one number per player ({game.num_players()}), "
                             f"got {len(returns)}")
        return cls(doc["game"], dict(doc["parameters"]), seed, list(actions), returns, meta)

    @classmethod
    def from_json(cls, text: str | bytes) -> "Record":
        return cls.from_document(_parse(text))
