"""JSON documents of reference states: the same "meeple-state/1" documents the engine writes
(docs/serialization.md), so a position moves between the two implementations both ways:
`meeple.from_json(reference_state.to_json())` is the engine's state, and
`reference_game.from_json(engine_state.to_json())` the reference's."""

import hashlib
import json

from . import load

SCHEMA = "meeple-state/1"
FIELDS = ("schema", "game", "parameters", "state")


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
    if (document["game"] != game.name
            or load(game.name, **document["parameters"]).parameters() != game.parameters()):
        raise ValueError(f"document is a state of {document['game']} with other parameters than this game")
    if not isinstance(document["state"], dict):
        raise ValueError("field 'state' must be an object")
    return game.state_from_dict(document["state"])
