"""JSON documents of reference states: the same "meeple-state/1" documents the engine writes
(docs/serialization.md), so a position moves between the two implementations both ways:
`meeple.from_json(reference_state.to_json())` is the engine's state, and
`reference_game.from_json(engine_state.to_json())` the reference's."""

import hashlib
import json
import operator

from . import load

SCHEMA = "meeple-state/1"
FIELDS = ("schema", "game", "parameters", "state")


SEED_LIMIT = 2 ** 64


def is_bool(value):
    """Whether `value` is a bool, Python's or numpy's (told by its type's name: no numpy here).
    numpy's bool has an __index__ before numpy 2.3, so operator.index alone would take True as 1."""
    kind = type(value)
    return kind is bool or (kind.__module__ == "numpy" and kind.__name__ in ("bool", "bool_"))


def as_int(value):
    """`value` as a Python int if it is an integer (numpy ints too), not a bool; else None."""
    if is_bool(value):
        return None
    try:
        return operator.index(value)
    except TypeError:
        return None


def document_int(value):
    """`value` as a Python int if it is an int (not a bool) or a numpy integer, as a state dict
    may hold them (numpy arrays' items); else None. Narrower than as_int: no other object's
    __index__ is run (the engine reads a document the same way)."""
    kind = type(value)
    if kind is bool or not (isinstance(value, int) or (kind.__module__ == "numpy" and not is_bool(value)
                                                         and hasattr(kind, "__index__"))):
        return None
    try:
        return operator.index(value)
    except TypeError:  # a numpy array that is no integer scalar
        return None


def action_int(action):
    """An action as an int; TypeError, with the engine's message, for one that is no integer at
    all (a bool, float, str, None...), so that a caller can tell a wrong type from an illegal
    action. A value with `__index__` is what that gives (numpy's own TypeError for an array of
    more than one element)."""
    kind = type(action)
    if is_bool(action) or not hasattr(kind, "__index__"):
        # The engine names the type by its C name: module.name for a type defined in C
        # (numpy.float64), the bare name for builtins and classes defined in Python.
        defined_in_python = kind.__flags__ & (1 << 9)  # Py_TPFLAGS_HEAPTYPE
        name = kind.__name__ if kind.__module__ == "builtins" or defined_in_python \
            else f"{kind.__module__}.{kind.__name__}"
        raise TypeError(f"an action must be an int, got {name}")
    return operator.index(action)


def check_seed(seed):
    """The seed of `new_initial_state(seed=...)` as an int (None: 0), as the engine checks it:
    TypeError for a value that is not an int, ValueError outside 0..2**64-1."""
    return 0 if seed is None else _seed_value(seed, "seed must be an int in 0..2**64-1 or None")


def check_reseed(seed):
    """The seed of `state.reseed(seed)` as an int, as the engine checks it (None is refused)."""
    return _seed_value(seed, f"reseed needs a seed: an int in 0..2**64-1, got {seed!r}")


def _seed_value(seed, not_an_int):
    value = as_int(seed)
    if value is None:
        raise TypeError(not_an_int)
    if not 0 <= value < SEED_LIMIT:
        raise ValueError(f"seed must be an int in 0..2**64-1, got {seed!r}")
    return value


def check_player(value, players, what="player"):
    """`value` as a player index 0..players-1, as the engine checks it: TypeError for a value that
    is not an int (bools included), ValueError out of range."""
    index = as_int(value)
    if index is None:
        raise TypeError(f"{what} must be an int, got {type(value).__name__}")
    if not 0 <= index < players:
        raise ValueError(f"{what} must be an int in 0..{players - 1}, got {value!r}")
    return index


def check_document_parameters(game, parameters):
    """Parameters read from a document hold their values as `parameters()` writes them: text only
    for text parameters. What `load` also reads for people (a path to a card table) is refused, so
    a document never makes the reader open a file (the engine's `load_from_document`)."""
    text = getattr(game, "_TEXT_PARAMETERS", ())
    defaults = game.parameters()
    for key, value in parameters.items():
        if key in defaults and key not in text and isinstance(value, str):
            raise ValueError(f"parameter {key!r} of {game.name} is the text {value!r}; a document holds "
                             f"the value itself, as game.parameters() writes it")


def to_document(state):
    game = state.game
    return {"schema": SCHEMA, "game": game.name, "parameters": game.parameters(), "state": state.to_dict()}


def to_json(state, indent=None):
    return json.dumps(to_document(state), indent=indent)


def transposition_key(state):
    """A 64-bit int that equal positions share: a hash of the state dict (its keys sorted)."""
    text = json.dumps(state.to_dict(), sort_keys=True)
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")


def from_json(game, text):
    """The state of `game` in document `text`; ValueError if it is malformed or of another game."""
    if isinstance(text, (bytes, bytearray)):
        text = text.decode("utf-8")  # UnicodeDecodeError is a ValueError
    if not isinstance(text, str):
        raise TypeError(f"expected a JSON string, got {type(text).__name__}")
    try:
        document = json.loads(text)  # json.JSONDecodeError is a ValueError
    except RecursionError:
        raise ValueError("JSON document is nested too deeply") from None
    if not isinstance(document, dict) or document.get("schema") != SCHEMA:
        raise ValueError(f"not a state document: expected a JSON object with schema {SCHEMA!r}")
    if sorted(document) != sorted(FIELDS):
        raise ValueError(f"a state document has exactly the fields {', '.join(FIELDS)}")
    if not isinstance(document["parameters"], dict):
        raise ValueError("field 'parameters' must be an object")
    if document["game"] != game.name:
        raise ValueError(f"document is a state of {document['game']} with other parameters than this game")
    check_document_parameters(game, document["parameters"])
    if load(game.name, **document["parameters"]).parameters() != game.parameters():
        raise ValueError(f"document is a state of {document['game']} with other parameters than this game")
    if not isinstance(document["state"], dict):
        raise ValueError("field 'state' must be an object")
    return game.state_from_dict(document["state"])
