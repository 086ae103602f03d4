"""Imperial Harvest (2 players): parameters, registration and the shipped board data.

The rules are in docs/rules/imperial-harvest.md; the engine is C++ (cpp/imperial_harvest/). The
boards, tile faces and character cards come from ``meeple/data/imperial_harvest/*.json`` and are
handed to the engine when a game is made. Player 0 is the Imperial Servants, player 1 the Northern
Raiders.

>>> import meeple
>>> game = meeple.load("imperial_harvest")
>>> state = game.new_initial_state()
>>> [state.action_to_string(a) for a in state.legal_actions()]
['rest monk', 'rest guardian', 'rest bard']
>>> for text in ("rest bard", "activate monk", "move s", "move w"):
...     state.apply_action(state.string_to_action(text))
>>> state.to_dict()["characters"][0]["cell"], state.to_dict()["activation"]["ap"]  # 3 AP + 1 Ballad - 2 moves
([7, 1], 2)
>>> state.vp(0), state.vp(1)
(0, 0)
"""
from __future__ import annotations

import json
import operator
import re
import textwrap
from functools import lru_cache
from importlib import resources
from typing import Any, NamedTuple

import numpy as np

from . import _core
from ._registry import GameSpec, Param, register
from .imperial_harvest_board import Board, camp_cells, in_moat_ring  # reads data() from this module lazily
from .imperial_harvest_board import _edge as _hedge_edge

__all__ = ["Game", "State", "PARAMETERS", "Board", "data", "describe_character", "cards_in_play", "action_word"]

BOARDS = ("standard", "symmetric", "random")
SIDES = ("basic", "advanced")
SETUPS = ("fixed", "interactive")
TEAM_MODES = ("first_game", "draft")
MAX_BOARD_SEED = 2**31 - 1


def _check_board_seed(value):
    """None, or an int 0..2**31-1 (strings from game strings and the CLI are read)."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("none", "null")):
        return None
    if isinstance(value, str):
        try:
            value = int(value.strip())
        except ValueError:
            pass
    elif not isinstance(value, (bool, np.bool_)) and hasattr(type(value), "__index__"):
        value = operator.index(value)  # a numpy integer, as for every seed
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_BOARD_SEED:
        raise ValueError(f"bad value {value!r} for parameter 'board_seed' of imperial_harvest; expected None "
                         f"(a new random board per game) or an int 0..{MAX_BOARD_SEED}")
    return value


def _check_sides(value) -> str:
    """'basic' | 'advanced' | '<imperial>/<raiders>' (the card side is chosen per team)."""
    if not isinstance(value, str):
        raise ValueError(f"bad value {value!r} for parameter 'sides' of imperial_harvest; expected "
                         "'basic', 'advanced' or '<imperial>/<raiders>' such as 'basic/advanced'")
    parts = [p.strip().lower() for p in value.split("/")]
    if len(parts) not in (1, 2) or any(p not in SIDES for p in parts):
        raise ValueError(f"bad value {value!r} for parameter 'sides' of imperial_harvest; expected "
                         "'basic', 'advanced' or '<imperial>/<raiders>' such as 'basic/advanced'")
    return parts[0] if len(parts) == 1 or parts[0] == parts[1] else "/".join(parts)


def _check_teams(value) -> str:
    """'first_game' | 'draft' | 'a,b,c/d,e,f' (imperial / raiders card ids). Only the form is
    checked here; ids and archetypes are checked against the character table by the factory."""
    problem = (f"bad value {value!r} for parameter 'teams' of imperial_harvest; expected 'first_game', "
               "'draft' or two lists of 3 character ids such as 'monk,regent,imperial_bard/barbarian,hound,nymph'")
    if not isinstance(value, str):
        raise ValueError(problem)
    text = value.strip().lower().replace(" ", "")
    if text in TEAM_MODES:
        return text
    teams = text.split("/")
    if len(teams) != 2 or any(len(t.split(",")) != 3 or "" in t.split(",") for t in teams):
        raise ValueError(problem)
    return text


def _check_characters(value):
    """None (the shipped characters.json), a dict of that schema, or a path to such a JSON file.
    A path is read at once: parameters() then holds the table itself, so a saved game is portable."""
    if value is None or (isinstance(value, str) and value.strip().lower() in ("", "none", "null", "default")):
        return None
    if isinstance(value, (str, bytes)) or hasattr(value, "__fspath__"):
        import os

        path = os.fspath(value)
        try:
            with open(path, encoding="utf-8") as f:
                value = json.load(f)
        except OSError as e:
            raise ValueError(f"cannot read the character table {path!r}: {e.strerror}") from None
        except json.JSONDecodeError as e:
            raise ValueError(f"the character table {path!r} is not JSON: {e}") from None
        except UnicodeDecodeError as e:
            raise ValueError(f"the character table {path!r} is not UTF-8 text: {e}") from None
        except ValueError:  # open() refused the name: a NUL byte, a lone surrogate (UnicodeEncodeError)
            raise ValueError(f"cannot read the character table {path!r}: not a valid file name") from None
    if not isinstance(value, dict):
        raise ValueError("parameter 'characters' of imperial_harvest must be None, a dict with the schema "
                         f"of characters.json or a path to such a file, got {type(value).__name__}")
    try:  # the game's own copy, of plain JSON values only: the C++ reads no object of the caller's
        value = json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError, RecursionError) as e:
        raise ValueError(f"character table: not JSON data (what characters.json holds): {e}") from None
    _check_character_table(value)
    return value


# The keys each object of a card table may have: characters.json's, and what the readers also take
# (a card's own numbers and its advanced side, point 35). Any other is a typo, refused.
_NUMBER_KEYS = ("ap", "item_slots", "strawberry")
_CARD_KEYS = ("id", "name", "faction", "archetype", "abilities", *_NUMBER_KEYS, "advanced")
_ABILITY_KEYS = ("ap", "per_activation", "uses_per_game", "attack", "passive", "vp", "ap_loss", "max_on_board",
                 "ap_when_charging")


def _keyed_objects(table: dict):
    """(object, the keys it may have, where it is) for each object of `table` with known keys."""
    def with_strawberry(obj, keys, where):
        yield obj, keys, where
        if isinstance(obj, dict):
            yield obj.get("strawberry"), ("bonus_ap",), f"{where}.strawberry"

    yield from with_strawberry(table.get("defaults"), _NUMBER_KEYS, "defaults")
    cards = table.get("characters")
    for card in cards if isinstance(cards, list) else ():
        where = f"character {card.get('id')!r}" if isinstance(card, dict) else "characters"
        yield from with_strawberry(card, _CARD_KEYS, where)
        if isinstance(card, dict):
            yield from with_strawberry(card.get("advanced"), _NUMBER_KEYS, f"{where}.advanced")
    abilities = table.get("abilities")
    for name, entry in abilities.items() if isinstance(abilities, dict) else ():
        yield entry, (*_ABILITY_KEYS, "advanced"), f"ability {name!r}"
        if isinstance(entry, dict):
            yield entry.get("advanced"), _ABILITY_KEYS, f"ability {name!r}.advanced"


def _check_character_table(table: dict) -> None:
    """The user's table must hold the 14 known cards (abilities are rules, so code) and the
    abilities' entries; the numbers are free."""
    shipped = data("characters")
    if table.get("schema") != shipped["schema"]:
        raise ValueError(f"character table: 'schema' must be {shipped['schema']!r} (the version of "
                         f"characters.json this meeple reads), got {table.get('schema')!r}")
    unknown = [k for k in table if k not in shipped]
    if unknown:
        raise ValueError(f"character table: unknown key {unknown[0]!r}; its keys: {', '.join(shipped)}")
    for obj, keys, where in _keyed_objects(table):
        unknown = [k for k in obj if k not in keys] if isinstance(obj, dict) else []
        if unknown:
            raise ValueError(f"character table: unknown key {unknown[0]!r} in {where}; its keys: {', '.join(keys)}")
    known = [c["id"] for c in shipped["characters"]]
    cards = table.get("characters")
    if not isinstance(cards, list) or not all(isinstance(c, dict) and isinstance(c.get("id"), str) for c in cards):
        raise ValueError("character table: 'characters' must be a list of objects with an 'id'")
    ids = [c["id"] for c in cards]
    missing = [i for i in known if i not in ids]
    extra = [i for i in ids if i not in known]
    if missing or extra or len(ids) != len(set(ids)):
        raise ValueError(f"character table: expected each of the 14 cards {', '.join(known)} once"
                         + (f"; missing {', '.join(missing)}" if missing else "")
                         + (f"; unknown {', '.join(extra)}" if extra else ""))
    if not isinstance(table.get("abilities"), dict):
        raise ValueError("character table: 'abilities' must be an object of ability numbers")


PARAMETERS = (
    Param("board", "standard", "the board: one of boards.json, or 'random' (drawn from board_seed)",
          choices=BOARDS),
    Param("board_seed", None, "with board='random': None draws a new board for every game from its seed "
          "(new_initial_state(seed=...)); an int fixes the board to Board.random(board_seed)",
          kind=int, low=0, high=MAX_BOARD_SEED, check=_check_board_seed),
    Param("sides", "basic", "card sides: 'basic', 'advanced' or per team '<imperial>/<raiders>'",
          kind=str, check=_check_sides),
    Param("teams", "first_game", "'first_game', 'draft' (picked in the game) or 'a,b,c/d,e,f'",
          kind=str, check=_check_teams),
    Param("setup", "fixed", "'fixed' (the board's setup) or 'interactive' (bridges, camps, placement "
          "are actions)", choices=SETUPS),
    Param("characters", None, "a user card table (dict or JSON path) with other numbers; None: shipped",
          kind=object, check=_check_characters),
)


@lru_cache(maxsize=None)
def _text(name: str) -> str:
    return (resources.files("meeple") / "data" / "imperial_harvest" / name).read_text(encoding="utf-8")


def data(name: str) -> dict:
    """A fresh copy of one shipped data file: 'boards', 'tiles' or 'characters'."""
    if name not in ("boards", "tiles", "characters"):
        raise ValueError(f"unknown data file {name!r}; expected 'boards', 'tiles' or 'characters'")
    return json.loads(_text(f"{name}.json"))


def card_table(game) -> dict:
    """The card table `game` plays with: its `characters` parameter, or the shipped characters.json."""
    table = game.parameters()["characters"]
    return table if table is not None else data("characters")


def _team_sides(sides: str) -> list[str]:
    """The card side of each team (imperial, raiders) from the `sides` parameter."""
    each = sides.split("/")
    return each if len(each) == 2 else each * 2


@lru_cache(maxsize=1)
def _shipped_abilities() -> dict:
    return data("characters")["abilities"]


# The rules a user card table keeps (docs/rules/imperial-harvest.md, the `characters` parameter):
# the C++ reads some entries otherwise than the rules (and the reference) would, so those are refused.
_ONCE_PER_ACTIVATION = frozenset(("grapple", "dragon_pounce", "throwing_axe", "charm", "slither", "charge",
                                  "alluring_gaze", "command", "sentry", "sprint", "retriever"))  # *_used flags
_PER_GAME = ("plant", "chop")  # the card's uses_left
_OWN_NUMBER = {"point_of_order": "vp", "petrifying_gaze": "ap_loss", "sentry": "max_on_board",
               "horns": "ap_when_charging"}
_MAX_COMPULSIONS = 3  # kMaxCompulsions: the most compulsions a state stores
_CARD_LIMITS = (("ap", 20), ("item_slots", 8), ("bonus_ap", 10))


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_ability_entry(name: str, spec: dict, side: str) -> None:
    """One side of an ability's entry (the advanced side: the basic keys overridden)."""
    def bad(text: str) -> ValueError:
        return ValueError(f"character table: ability {name!r}{' (advanced)' if side == 'advanced' else ''}: {text}")

    for flag in ("attack", "passive"):
        if flag in spec and not isinstance(spec[flag], bool):
            raise bad(f"{flag} must be true or false, got {spec[flag]!r}")
    ap = spec.get("ap", 0)
    limit = None  # compulsion's M
    if name == "compulsion":
        parts = ap.split("-") if isinstance(ap, str) else []
        if len(parts) != 2 or not all(p.isascii() and p.isdigit() for p in parts) \
                or int(parts[1]) > _MAX_COMPULSIONS:
            raise bad(f"ap must be the text 'N-M' (N AP a step, at most M <= {_MAX_COMPULSIONS} steps an "
                      f"activation, as a state stores no more), got {ap!r}")
        limit = int(parts[1])
    elif isinstance(ap, str):
        if ap[:1] in tuple("0123456789") and "-" in ap:
            raise bad(f"an ap 'N-M' is compulsion's form only; expected an int 0..20, got {ap!r}")
        if action_word(name) is not None and name != "arcane_puppetry":
            raise bad(f"ap must be an int 0..20 (its AP cost), got {ap!r}")
    per = spec.get("per_activation")
    if name in _ONCE_PER_ACTIVATION:
        if not _is_int(per) or per != 1:
            raise bad(f"per_activation must be 1 (once per activation), got {per!r}")
    elif name == "compulsion":
        if per is not None and (not _is_int(per) or per != limit):
            raise bad(f"per_activation must be left out (the M of ap 'N-M' is the limit), got {per!r}")
    elif per is not None and (not _is_int(per) or per != 0):
        raise bad(f"per_activation must be left out or 0 (no limit an activation), got {per!r}")
    uses = spec.get("uses_per_game")
    if name in _PER_GAME:
        if not (isinstance(uses, int) and not isinstance(uses, bool) and 1 <= uses <= 200):  # narrows for mypy
            raise bad(f"uses_per_game must be an int 1..200, got {uses!r}")
    elif uses is not None and (not _is_int(uses) or uses != 0):
        raise bad(f"uses_per_game must be left out or 0 (only plant and chop have uses a game), got {uses!r}")
    own = _OWN_NUMBER.get(name)
    if own is not None and own not in spec:
        raise bad(f"missing its number {own!r} (an int 0..20)")
    foreign = [k for k in _OWN_NUMBER.values() if k != own and k in spec]
    if foreign:
        raise bad(f"has {foreign[0]!r}; " + (f"its only number is {own!r}" if own else "it has no number"))


def _check_character_rules(table: dict) -> None:
    """What the C++ reads otherwise than the rules: refused (run after the C++ has read the table,
    so every entry read here has its type). Both card sides are checked, whichever side plays."""
    abilities = table["abilities"]
    for name, entry in abilities.items():
        if name not in _shipped_abilities():
            continue
        _check_ability_entry(name, entry, "basic")
        if "advanced" in entry:
            _check_ability_entry(name, {**entry, **entry["advanced"]}, "advanced")
    cards = {c["id"]: c for c in table["characters"]}
    if "point_of_order" not in cards["regent"]["abilities"]:
        raise ValueError("character table: the regent card must have point_of_order (the Regent's VP)")
    for ident, card in cards.items():
        for name in ("point_of_order", "sentry"):
            if ident != "regent" and name in card["abilities"]:
                raise ValueError(f"character table: character {ident!r}: {name} is the regent's ability only")
    defaults = table["defaults"]
    for ident, card in cards.items():
        basic = {"ap": card.get("ap", defaults["ap"]), "item_slots": card.get("item_slots", defaults["item_slots"]),
                 "bonus_ap": card.get("strawberry", defaults["strawberry"])["bonus_ap"]}
        adv = card.get("advanced", {})
        advanced = {"ap": adv.get("ap", basic["ap"]), "item_slots": adv.get("item_slots", basic["item_slots"]),
                    "bonus_ap": adv["strawberry"]["bonus_ap"] if "strawberry" in adv else basic["bonus_ap"]}
        for side, numbers in (("", basic), ("advanced ", advanced)):
            for key, high in _CARD_LIMITS:
                if not 0 <= numbers[key] <= high:
                    raise ValueError(f"character table: character {ident!r}: {side}{key} must be in 0..{high} "
                                     "(on both sides, whichever side plays)")


def _teams_argument(teams: str, table: dict):
    """The C++ form of `teams`, checked against the card table (ids known, distinct, archetypes
    distinct within a team); ValueError names the clash."""
    if teams in TEAM_MODES:
        return teams
    cards = {c["id"]: c for c in table["characters"]}
    lists = [t.split(",") for t in teams.split("/")]
    for i in lists[0] + lists[1]:
        if i not in cards:
            raise ValueError(f"teams: unknown character {i!r}; known: {', '.join(cards)}")
        if not isinstance(cards[i].get("archetype"), str):
            raise ValueError(f"character table: character {i!r}: 'archetype' must be a string")
    # A character chosen more than once is named as such (before its archetype clashes with itself).
    flat = lists[0] + lists[1]
    repeated: dict[int, list[str]] = {}
    for i in sorted({i for i in flat if flat.count(i) > 1}):
        repeated.setdefault(flat.count(i), []).append(i)
    if repeated:
        times = "; ".join(f"{', '.join(ids)} chosen {'twice' if n == 2 else f'{n} times'}"
                          for n, ids in sorted(repeated.items(), reverse=True))
        raise ValueError(f"teams: {times}; the six characters must be distinct")
    for team, ids in zip(("imperial", "raiders"), lists):
        archetypes = [cards[i]["archetype"] for i in ids]
        for a in sorted(set(archetypes)):
            clash = [i for i, x in zip(ids, archetypes) if x == a]
            if len(clash) > 1:
                count = ("two", "three")[len(clash) - 2]
                raise ValueError(f"teams: the {team} team has {count} {a} characters ({' and '.join(clash)}); "
                                 "a team's archetypes must differ")
    return lists


def _make(**params):
    boards = data("boards")
    board, random_boards = params["board"], False
    if board != "random" and params["board_seed"] is not None:  # it would be silently unused
        raise ValueError(f"board_seed={params['board_seed']} needs board='random' (board is {board!r}); "
                         "pass board='random' or drop board_seed")
    if board == "random" and params["board_seed"] is not None:  # one fixed random board
        name = f"random-{params['board_seed']}"
        boards["boards"] = {name: Board.random(params["board_seed"]).to_dict()}
        board = name
    elif board == "random":  # D37: every game draws its own board from its seed, in C++
        board, random_boards = "standard", True
    table = params["characters"] if params["characters"] is not None else data("characters")
    game = _core.ImperialHarvestGame(board=board, boards=boards, tiles=data("tiles"), characters=table,
                                     teams=_teams_argument(params["teams"], table),
                                     sides=_team_sides(params["sides"]), setup=params["setup"],
                                     parameters=dict(params), random_boards=random_boards)
    if params["characters"] is not None:
        _check_character_rules(table)
    return game


# The action word of each active ability whose word is not its own name (docs/rules/
# imperial-harvest.md, "Active, with action ids"); Changeling has none (it borrows).
_ACTION_WORDS = {"battle_axe": "axe", "throwing_axe": "throw", "shadow_walk": "shadow", "compulsion": "compel",
                 "wolf_form": "wolf", "dragon_pounce": "pounce", "master_of_the_labyrinth": "flip",
                 "alluring_gaze": "lure", "ventriloquism": "vent", "arcane_puppetry": "puppet"}
_NO_ACTION = {"changeling"}
TEAMS = ("imperial", "raiders")


@lru_cache(maxsize=None)
def _ability_of_word() -> dict[str, str]:
    """{'axe': 'battle_axe', ...}: the ability each action word plays."""
    return {word: ability for ability in _shipped_abilities() if (word := action_word(ability)) is not None}


def action_word(ability: str) -> str | None:
    """The first word of the actions that use `ability` (e.g. 'axe' for battle_axe); None for a
    passive ability and for Changeling, which borrows another's."""
    table = _shipped_abilities()
    if ability not in table:
        raise ValueError(f"unknown ability {ability!r}; abilities: {', '.join(table)}")
    if table[ability].get("passive") or ability in _NO_ACTION:
        return None
    return _ACTION_WORDS.get(ability, ability)


# What each ability does, for players (describe_character): how its action is written, then the
# rule in one or two sentences, with the card's numbers filled in from the table ({name}). The
# full rules, with every decision, are docs/rules/imperial-harvest.md points 20-63. Usage words:
# TARGET is a token (its cell x,y, or x,y:name where tokens share a cell), CELL a cell x,y, DIR
# one of n e s w, DIAG one of ne se sw nw, N a number; passive abilities have no usage.
_ABILITY_RULES: dict[str, tuple[str, str]] = {
    "chop": ("chop DIR", "removes the hedge on that edge of its cell (at most 4 hedges chopped per game)"),
    "battle_axe": ("axe TARGET", "attacks an adjacent enemy"),
    "throwing_axe": ("throw TARGET", "attacks an enemy up to 2 cells away in its line of sight (its own cell too)"),
    "agility": ("", "it may also move diagonally (move ne, se, sw, nw), as a plain move"),
    "war_cry": ("", "an enemy that acts within Manhattan distance 2 of this Bard (hedges ignored) has 1 AP "
                    "less, once per activation"),
    "inspirational_ballad": ("", "an ally (not the Bard itself) that acts within Manhattan distance 2 of this Bard "
                                 "(hedges ignored) has 1 AP more, once per activation"),
    "charm": ("charm TARGET DIR", "a token in her line of sight takes one legal step"),
    "shadow_walk": ("shadow DIR", "she steps across the hedge on that edge of her cell"),
    "compulsion": ("compel TARGET DIR", "a character takes one legal step, 1 AP a step and at most 3 steps per "
                                        "activation, all of the same character, in her line of sight at the first"),
    "feral": ("", "at all times, enemy tokens on its cell are defeated unless protected: one that steps in "
                  "or is moved in, and one whose cell it enters"),
    "wolf_form": ("wolf", "hydras do not defeat it until this activation ends"),
    "sprint": ("sprint", "3 free moves this activation (a move costs 0 AP while free moves last)"),
    "tower_shield": ("", "it cannot be attacked from the direction it faces, and Charm, Compulsion, Alluring "
                         "Gaze and Petrifying Gaze from there do not affect it"),
    "guardian": ("", "allies within 2 steps of it (not itself) cannot be attacked"),
    "spear": ("spear TARGET", "attacks an adjacent enemy in its line of sight"),
    "grapple": ("grapple TARGET CELL", "an adjacent token lands on a cell at Manhattan distance 1 or 2 from the "
                                       "Monk (not water), over any obstacle"),
    "dragon_pounce": ("pounce DIAG", "a diagonal step"),
    "plant": ("plant DIR", "puts a hedge on that free edge of its cell (at most 4 hedges planted per game)"),
    "point_of_order": ("", "the team scores {vp} VP more, 1 less (not below 0) for each defeat of one of its tokens"),
    "command": ("command TARGET DIR", "an ally (sentries too) takes one legal step"),
    "sentry": ("sentry DIR DIR", "places a sentry on the free neighbouring cell in the first direction, facing "
                                 "the second (at most {max_on_board} on the board); at all times a sentry defeats "
                                 "each unprotected enemy adjacent to it in its line of sight"),
    "poison_blood": ("", "a token adjacent to it that defeats it with an attack is defeated too (unless on its own "
                         "camp); a hydra that defeats it leaves the game"),
    "slither": ("slither DIR", "it steps across the hedge on that edge of its cell"),
    "petrifying_gaze": ("", "a character that moves into its line of sight by its own action loses {ap_loss} AP, "
                            "once per activation"),
    "retriever": ("", "after its first pluck of an activation it has 1 free move"),
    "territorial": ("", "enemy tokens can never enter or land on its cell"),
    "bite": ("bite TARGET DIR", "an adjacent enemy drops a carried strawberry on its cell, then takes one legal "
                                "step (not an attack)"),
    "horns": ("horns TARGET", "attacks an adjacent enemy; the first Horns after a Charge costs {ap_when_charging} AP"),
    "master_of_the_labyrinth": ("flip", "on a garden tile: the tile turns to its other face, mirrored along its "
                                        "facing"),
    "charge": ("charge", "up to 3 steps straight ahead toward the first token in its line of sight, which must "
                         "be an enemy 2 or more cells away; it stops before that cell. Hydras, sentries and "
                         "Feral strike after each step"),
    "alluring_gaze": ("lure TARGET N", "a token in her line of sight takes N straight steps (1 or 2) toward her; "
                                       "hydras, sentries and Feral strike after each step"),
    "aura_of_tranquility": ("", "characters on her cell or next to her (hedges ignored), allies too, cannot use "
                                   "active abilities"),
    "changeling": ("", "while she acts she can use the active abilities of adjacent characters, with their "
                       "actions, paying their cost from her AP"),
    "ventriloquism": ("vent TARGET DIR", "a token within 3 steps takes one legal step"),
    "arcane_puppetry": ("puppet TARGET", "a character within 3 steps then uses one of its active abilities, paid "
                                         "from her AP"),
    "camouflage": ("", "it cannot be attacked while a hedge lies on an edge of its cell"),
    "archer": ("archer TARGET", "attacks an enemy up to 2 cells away in its line of sight (its own cell too)"),
    "silent_sentinel": ("", "allies in its line of sight cannot be attacked"),
}
USAGE_LEGEND = ("TARGET: a token, as its cell x,y (x,y:name where tokens share a cell); CELL: x,y; "
                "DIR: n, e, s or w; DIAG: ne, se, sw or nw; N: a number. Adjacent: on the same cell, or "
                "on an orthogonal neighbour not across a hedge.")


def _title(key: str) -> str:
    return " ".join(w if w in ("of", "the") else w.capitalize() for w in key.split("_"))


def _on_side(entry: dict, side: str) -> dict:
    """An entry's numbers on `side`: the "advanced" object overrides the basic keys (point 35)."""
    numbers = {k: v for k, v in entry.items() if k != "advanced"}
    return {**numbers, **entry.get("advanced", {})} if side == "advanced" else numbers


def describe_character(character: str, side: str = "basic", characters: dict | None = None,
                       rules_text: bool = True, width: int = 100) -> str:
    """A character card as a player reads it: faction, archetype and numbers on `side`, then each
    ability with its cost and limits and the action word that plays it (from `characters`, the
    game's card table; default the shipped characters.json), and, with `rules_text`, how the action
    is written (words as in USAGE_LEGEND) and what the ability does in brief, in lines of `width`
    columns. The full rules are in docs/rules/imperial-harvest.md (points 20-63).

    >>> print(describe_character("barbarian"))
    Barbarian (barbarian; raiders, warrior; basic side): 3 AP, 2 item slots, strawberry bonus +1 AP
      Chop: 0 AP, 3 uses per game; action 'chop'
        chop DIR: removes the hedge on that edge of its cell (at most 4 hedges chopped per game)
      Battle Axe: 1 AP, attack; action 'axe'
        axe TARGET: attacks an adjacent enemy
      Throwing Axe: 1 AP, attack, once per activation; action 'throw'
        throw TARGET: attacks an enemy up to 2 cells away in its line of sight (its own cell too)
    >>> print(describe_character("basilisk", rules_text=False))
    Basilisk (basilisk; unaffiliated, creature; basic side): 3 AP, 2 item slots, strawberry bonus +1 AP
      Poison Blood: passive
      Slither: 1 AP, once per activation; action 'slither'
      Petrifying Gaze: passive, ap loss 2
    """
    table = characters if characters is not None else data("characters")
    cards = {c["id"]: c for c in table["characters"]}
    if character not in cards:
        raise ValueError(f"unknown character {character!r}; known: {', '.join(cards)}")
    if side not in ("basic", "advanced"):
        raise ValueError(f"side must be 'basic' or 'advanced', got {side!r}")
    card = cards[character]
    numbers = {**table["defaults"], **_on_side({k: v for k, v in card.items()
                                                 if k in ("ap", "item_slots", "strawberry", "advanced")}, side)}
    lines = [f"{card['name']} ({card['id']}; {card['faction']}, {card['archetype']}; {side} side): "
             f"{numbers['ap']} AP, {numbers['item_slots']} item slots, "
             f"strawberry bonus +{numbers['strawberry']['bonus_ap']} AP"]
    for ability in card["abilities"]:
        rules = _on_side(table["abilities"][ability], side)
        ap = rules.get("ap")
        parts = ["passive"] if rules.get("passive") else [f"AP {ap}" if isinstance(ap, str) and not ap[:1].isdigit()
                                                          else f"{ap} AP"]
        if rules.get("attack"):
            parts.append("attack")
        per = rules.get("per_activation")
        if per:
            parts.append("once per activation" if per == 1 else f"{per} times per activation")
        if rules.get("uses_per_game") is not None:
            parts.append(f"{rules['uses_per_game']} uses per game")
        parts += [f"{key.replace('_', ' ')} {value}" for key, value in rules.items()
                  if key not in ("passive", "ap", "attack", "per_activation", "uses_per_game")]
        word = action_word(ability)
        lines.append(f"  {_title(ability)}: {', '.join(parts)}" + (f"; action '{word}'" if word else ""))
        if rules_text:
            usage, rule = _ABILITY_RULES[ability]
            lines.append(textwrap.fill((f"{usage}: " if usage else "") + rule.format_map(rules), width=width,
                                       initial_indent="    ", subsequent_indent="      "))
    return "\n".join(lines)


def cards_in_play(state, width: int = 78) -> str:
    """`describe_character` of each team's characters on its card side (with per-game uses left),
    during a draft of the characters still to draft, then USAGE_LEGEND; the rules text and the
    legend in lines of `width` columns (`meeple play` breaks longer card headings)."""
    d = state.to_dict()
    parameters = state.game.parameters()
    table = card_table(state.game)
    sides = _team_sides(parameters["sides"])
    parts, drafted = [], set()
    for token, character in enumerate(d["characters"]):
        team = token // 3
        if character["id"] is None:
            parts.append(f"{TEAMS[team]} slot {token % 3}: not drafted yet")
            continue
        drafted.add(character["id"])
        uses = "" if character["uses_left"] is None else f"\n  uses left: {character['uses_left']}"
        parts.append(f"{TEAMS[team]}: {describe_character(character['id'], sides[team], table, width=width)}{uses}")
    if len(drafted) < len(d["characters"]):
        pool = [c["id"] for c in table["characters"] if c["id"] not in drafted]
        side = sides[0] if sides[0] == sides[1] else "basic"
        parts.append(f"Still to draft (shown on the {side} side):\n\n"
                     + "\n\n".join(describe_character(c, side, table, width=width) for c in pool))
    parts.append(textwrap.fill(USAGE_LEGEND, width=width))
    return "\n\n".join(parts)


# The moves each phase takes (by their first word), and what a person is told who tries another.
_PHASE_MOVES = {
    "rest": (("rest",), "first choose the character that rests this turn ('rest NAME')"),
    "pick": (("activate", "forfeit"), "first choose the character to act next ('activate NAME', or 'forfeit NAME')"),
    "hydra": (("hydra",), "first move a hydra one step ('hydra H DIR')"),
    "respawn": (("respawn",), "first choose the cell where the character named above respawns ('respawn COL,ROW')"),
    "draft": (("draft",), "the draft comes first ('draft NAME')"),
    "bridges": (("bridge",), "the bridges come first ('bridge COL,ROW')"),
    "camps": (("camp",), "the camps come first ('camp KIND CORNER')"),
    "placement": (("place",), "first place the character named above ('place COL,ROW DIR')"),
}
_TURN_WORDS = {word for words, _ in _PHASE_MOVES.values() for word in words}


def why_illegal(state: Any, action: int) -> str | None:
    """Why the move `action` is not legal now, for a person: a move of another phase of the turn,
    or the reasons an acting character's (or a puppet's) own action is refused (the board's edge,
    a hedge, water, AP, no strawberry, a target out of sight...). None where there is no such
    simple reason; the rules document has them all. Each reason alone rules the move out (a test
    checks none is given for a legal move)."""
    word, *rest = state.action_to_string(action).split()
    d = state.to_dict()
    phase = d["phase"]
    if phase in ("act", "puppet"):
        return _acting_reason(state, d, action, word, rest)
    if phase in _PHASE_MOVES:
        words, reason = _PHASE_MOVES[phase]
        if word not in words:
            return reason
        token = d["team"] * 3 + action % 3  # rest, activate and forfeit: ids 0..8, own slot = id % 3
        if word == "rest" and token == d["last_rested"][d["team"]]:
            return f"the {rest[0]} rested last turn, so it acts this turn"
        if word in ("activate", "forfeit") and (token == d["resting"] or token in d["done"]):
            return f"the {rest[0]} {'rests this turn' if token == d['resting'] else 'has had its go this turn'}"
        return None
    return None


_STEPS = {"n": (0, -1), "e": (1, 0), "s": (0, 1), "w": (-1, 0), "ne": (1, -1), "se": (1, 1), "sw": (-1, 1),
          "nw": (-1, -1)}
_STEPS_NESW = [_STEPS[d] for d in "nesw"]
_OPPOSITE = {"n": "s", "e": "w", "s": "n", "w": "e"}
_DIRECTION_OF = {step: {"n": "north", "e": "east", "s": "south", "w": "west"}[d] for d, step in _STEPS.items()
                 if len(d) == 1}


_NOT_PUPPETABLE = ("changeling", "arcane_puppetry", "sprint")  # D31: what a puppet does not use


def _acting_reason(state: Any, d: dict, action: int, word: str, rest: list[str]) -> str | None:
    """why_illegal in phases act and puppet: `action`, `word` and its arguments `rest`, for the
    active character, or for the Puppeteer's puppet (point 54)."""
    activation = d["activation"]
    puppet = activation["puppet"] if d["phase"] == "puppet" else None
    token = d["active"] if puppet is None else puppet
    me = d["characters"][token]
    if puppet is None and word in _TURN_WORDS:
        return "a character is acting: its actions, then 'end' (the board's first line names it)"
    if me["cell"] is None:
        return None
    cards = _Cards(d, state.game)
    abilities = cards.abilities[token]
    # 'activate NAME' of its own slot names the active character; a puppet may be an enemy
    name = state.action_to_string(3 + token % 3).split()[1] if puppet is None else cards.names[token]
    ability = _ability_of_word().get(word)
    if puppet is not None and (reason := _puppet_word_reason(cards, d["active"], token, word, ability)):
        return reason
    ap, free_moves = activation["ap"], activation["free_moves"]
    x, y = me["cell"]
    no_ap = f"the {name} has no AP left"
    if word == "move":
        if len(rest[0]) == 2 and "agility" not in abilities:
            return f"the {name} has no Agility: it moves n, e, s or w"
        if ap + free_moves == 0:
            return no_ap
        return _step_reason(d, cards, token, name, (x, y), rest[0], ap + free_moves - 1)
    if word in ("pluck", "deposit", "pass") and ap == 0:
        return no_ap
    if word == "pluck" and [x, y] not in d["strawberries"]:
        return f"there is no strawberry on {x},{y}"
    if word in ("deposit", "discard", "pass") and me["strawberries"] == 0:
        return f"the {name} carries no strawberry"
    if word == "deposit":
        camp = d["camps"].get(f"{TEAMS[token // 3]}_strawberry")
        if camp is not None and not any(_adjacent(d, (x, y), cell) for cell in camp_cells(camp)):
            return (f"{x},{y} is not on or next to (across no hedge) your strawberry camp, the "
                    f"'{TEAMS[token // 3][0]}' cells")
    if word == "face":
        if activation["face_used"]:
            return f"the {name} has turned once this activation already"
        if rest[0] == me["facing"]:
            return f"the {name} faces {rest[0]} already"
    if ability is None:  # pass, or an action with no simple reason
        return _targeted_reason(d, cards, token, name, action, word, rest)
    borrowed = ability not in abilities
    if borrowed and "changeling" not in abilities:
        return f"the {name} has no {_title(ability)} ability ('cards' shows each character's abilities)"
    if borrowed and ability in ("changeling", "arcane_puppetry"):
        return f"the {name} has no {_title(ability)} ability, and Changeling does not borrow it"
    if borrowed and not any(ability in cards.abilities[t] and (c := d["characters"][t]["cell"]) is not None
                            and _adjacent(d, (x, y), tuple(c)) for t in range(6) if t != token):
        return (f"the {name} has no {_title(ability)} ability, and no character next to it (across no hedge) "
                f"has it to lend (Changeling)")
    # A puppet is chosen out of the Aura (point 54), which the puppet phase does not ask again
    if puppet is None and (calmed := _aura_reason(d, cards, token, (x, y))) is not None:
        return f"the {name} {calmed}"
    # The numbers, per-game uses and side are the card's that has the ability: the actor's own,
    # the lender's when borrowed (point 51, D41), the puppet's (point 54)
    if (spent := _spent_reason(d, cards, ability, token)) is not None:
        return f"the {name} {spent}"
    rules = cards.numbers(ability)
    cost = _compulsion_numbers(rules)[0] if ability == "compulsion" else rules.get("ap")
    # As the engine: Horns after a Charge costs less, and Puppetry costs what the puppet's ability does
    if isinstance(cost, int) and cost > ap and ability not in ("horns", "arcane_puppetry"):
        return f"{_title(ability)} costs {cost} AP and the {name} has {ap} left"
    # A puppet's step is a forced move (D21), which may end on a shared cell
    left_after = ap - cost + free_moves if isinstance(cost, int) and puppet is None else 1
    if word == "pounce":  # a diagonal step; free moves never pay for it (D24)
        return _step_reason(d, cards, token, name, (x, y), rest[0], left_after)
    if word in ("shadow", "slither"):  # a step across the hedge on that edge
        return _edge_reason(d, word, (x, y), rest) or _step_reason(d, cards, token, name, (x, y), rest[0], left_after,
                                                                   across_hedge=True)
    return (_edge_reason(d, word, (x, y), rest) or _special_reason(d, cards, token, name, word, rest, rules)
            or _targeted_reason(d, cards, token, name, action, word, rest))


def _spent_reason(d: dict, cards: _Cards, ability: str, token: int) -> str | None:
    """Why `token` has no use of `ability` left now (its words follow its name): once an
    activation and used, its per-game uses gone, Compulsion's steps gone (D56 too); None if it
    has. The limits are the card's that has the ability: the token's own, the lender's when
    borrowed (point 51, D41), the puppet's (point 54)."""
    owner = cards.holder(ability)
    assert owner is not None  # the token's or an adjacent lender's
    rules = cards.numbers(ability)
    if rules.get("per_activation") == 1 and d["activation"].get(f"{action_word(ability)}_used"):
        return f"has used {_title(ability)} this activation (once per activation)"
    if ability in _PER_GAME and d["characters"][owner]["uses_left"] == 0:
        whose = "its" if owner == token else f"the {cards.names[owner]}'s"
        return f"has used up {whose} {_title(ability)} for this game"
    if ability == "compulsion" and d["activation"]["compulsions"] >= (most := _compulsion_numbers(rules)[1]):
        return (f"has no compulsion left this activation (at most {most}, and none once the token it compels has "
                f"been defeated, D56)")
    return None


def _compulsion_numbers(rules: dict) -> tuple[int, int]:
    """Compulsion's ap "N-M": N AP a step, at most M steps an activation."""
    cost, most = (int(part) for part in rules["ap"].split("-"))
    return cost, most


def _puppet_word_reason(cards: _Cards, puppeteer: int, puppet: int, word: str, ability: str | None) -> str | None:
    """Point 54, D31: why the puppet may not take an action with `word` (its `ability`, None if no
    ability plays it), None if it is one of the puppet's own active abilities."""
    own = sorted(w for a in cards.abilities[puppet] if a not in _NOT_PUPPETABLE and (w := action_word(a)))
    name = cards.names[puppet]
    if ability is None:
        return (f"the {cards.names[puppeteer]} works the {name} as a puppet: first one action by one of its "
                f"active abilities ({', '.join(own)})")
    if ability in _NOT_PUPPETABLE:
        return f"a puppet does not use {_title(ability)} (D31)"
    if ability not in cards.abilities[puppet]:
        return (f"the {name} has no {_title(ability)} ability: as a puppet it uses its own active abilities "
                f"({', '.join(own)})")
    return None


def _special_reason(d: dict, cards: _Cards, token: int, name: str, word: str, rest: list[str],
                    rules: dict) -> str | None:
    """Why the sentry placement, Flip or Charge of `token` (on its cell, with the ability's numbers
    `rules`) is refused, its AP and per-activation use aside (points 47, 48, 60); None otherwise."""
    cell, facing = tuple(d["characters"][token]["cell"]), d["characters"][token]["facing"]
    if word == "sentry":
        placed, most = sum(sentry is not None for sentry in d["sentries"]), min(2, rules["max_on_board"])
        if placed >= most:
            return (f"{'no' if placed == 0 else placed} sentr{'y is' if placed == 1 else 'ies are'} on the board, "
                    f"and at most {most} may be")
        (dx, dy) = _STEPS[rest[0]]
        to = (cell[0] + dx, cell[1] + dy)
        if (blocked := _orthogonal_block(d, {tuple(b) for b in d["bridges"]}, cell, to)) is not None:
            return f"a sentry is placed a step away: {blocked}"
        if _token_at(d, to):
            return f"{to[0]},{to[1]} holds a token: a sentry is placed on a cell with none"
    if word == "flip":
        if not d["tiles"]:
            return "this board has no garden tiles to turn"
        if _garden_slot(d, cell) is None:
            return f"{cell[0]},{cell[1]} is on no garden tile (the moat, a bridge or a camp)"
    if word == "charge":
        return _charge_reason(d, cards, token, name, cell, facing)
    return None


def _charge_reason(d: dict, cards: _Cards, token: int, name: str, cell: tuple[int, int], facing: str) -> str | None:
    """Point 48, D43: why `token` (`name`) on `cell` facing `facing` cannot charge, None if it can."""
    ray, hydras = _ray(d, cell, facing), {tuple(h) for h in d["hydras"] if h is not None}
    ahead = ray[-1] if ray else cell  # the ray ends on the first cell holding a token or a hydra, if any
    if ahead in hydras:
        return f"the hydra on {ahead[0]},{ahead[1]} is the first in the {name}'s line of sight: no charge (D43)"
    if not ray or not _token_at(d, ahead):
        return f"no token stands in the {name}'s line of sight (facing {facing}) to charge at"
    (dx, dy) = _STEPS[facing]
    first = [t for t in range(8) if _token_cell(d, t) == list(ahead)]
    if abs(ahead[0] - cell[0]) + abs(ahead[1] - cell[1]) < 2:
        return (f"the first token in the {name}'s line of sight, on {ahead[0]},{ahead[1]}, is next to it: a charge "
                f"needs room")
    if not any(cards.team(t) not in (None, token // 3) for t in first):
        return (f"the first token in the {name}'s line of sight, the {cards.names[first[0]]} on {ahead[0]},{ahead[1]}, "
                f"is no enemy")
    # (an enemy Hound's cell is never the first step: the Hound would be the first token, next to it)
    blocked = _orthogonal_block(d, {tuple(b) for b in d["bridges"]}, cell, (cell[0] + dx, cell[1] + dy))
    return None if blocked is None else f"the {name}'s first step {facing} is blocked: {blocked}"


def _aura_reason(d: dict, cards: _Cards, token: int, cell: tuple[int, int]) -> str | None:
    """Point 50: why `token` on `cell` may not use active abilities (its words follow its name),
    None if it may: it is on or next to the Nymph's cell (hedges ignored)."""
    nymph = cards.holder("aura_of_tranquility")
    if nymph in (None, token) or (at := d["characters"][nymph]["cell"]) is None or \
            abs(at[0] - cell[0]) + abs(at[1] - cell[1]) > 1:
        return None
    other = cards.names[nymph]
    where = f"shares its cell {cell[0]},{cell[1]} with the {other}" if tuple(at) == cell else \
        f"stands next to the {other} on {at[0]},{at[1]}"
    return f"{where}, whose Aura of Tranquility keeps it from using active abilities"


_MAX_EDGE_TOKENS = 4  # hedge and chopped-hedge tokens in the box (points 28, 31)


def _edge_reason(d: dict, word: str, cell: tuple[int, int], rest: list[str]) -> str | None:
    """Why `word` (chop, plant, shadow, slither) on an edge of `cell` is refused: the edge holds
    no hedge to chop or step across, or one already to plant, or the tokens are used up."""
    if word not in ("chop", "plant", "shadow", "slither"):
        return None
    (x, y), (dx, dy) = cell, _STEPS[rest[0]]
    beyond, side = (x + dx, y + dy), _DIRECTION_OF[(dx, dy)]
    on_board = 0 <= beyond[0] < 10 and 0 <= beyond[1] < 10
    hedged = on_board and _hedge_between(d, cell, beyond)
    if word == "plant":
        if not on_board:
            return f"{x},{y} is on the board's edge: there is no cell to the {rest[0]}"
        if hedged:
            return f"a hedge stands on the {side} edge of {x},{y} already"
        if d["hedges_planted"] >= _MAX_EDGE_TOKENS:
            return f"{_MAX_EDGE_TOKENS} hedges have been planted in this game, all there are"
        return None
    if not hedged:
        return f"there is no hedge on the {side} edge of {x},{y} to {'chop' if word == 'chop' else 'step across'}"
    if word == "chop" and d["hedges_chopped"] >= _MAX_EDGE_TOKENS:
        return f"{_MAX_EDGE_TOKENS} hedges have been chopped in this game, all the tokens there are"
    return None


def _targeted_reason(d: dict, cards: _Cards, token: int, name: str, action: int, word: str,
                     rest: list[str]) -> str | None:
    """_target_reason for an action on a target token (None for others)."""
    if word not in _TARGETED:
        return None
    offset, per_target = action - _TARGETED[word].first, _TARGETED[word].per_target
    return _target_reason(d, cards, token, name, word, offset // per_target, offset % per_target + 1,
                          rest[0], rest[1] if len(rest) > 1 else "")


class _Targeting(NamedTuple):
    """How an action on a target token is written and checked: its first action id and ids per
    target; who may be targeted ("enemy", "ally", "other": anyone but the actor, or "character":
    any character but the actor); where: adjacent (point 12), in the line of sight (point 13) up to
    `reach` cells (10: the whole ray), within `reach` steps (point 15), or None."""
    first: int
    per_target: int
    who: str
    where: str | None
    reach: int = 1


# Actions on a target token (docs/rules/imperial-harvest.md points 21-63)
_TARGETED = {
    "spear": _Targeting(173, 1, "enemy", "sight"), "axe": _Targeting(185, 1, "enemy", "adjacent"),
    "throw": _Targeting(193, 1, "enemy", "sight", 2), "horns": _Targeting(305, 1, "enemy", "adjacent"),
    "archer": _Targeting(371, 1, "enemy", "sight", 2), "bite": _Targeting(273, 4, "enemy", "adjacent"),
    "grapple": _Targeting(69, 12, "other", "adjacent"), "pass": _Targeting(33, 4, "other", "adjacent"),
    "charm": _Targeting(201, 4, "other", "sight", 10), "lure": _Targeting(315, 2, "other", "sight", 10),
    "command": _Targeting(379, 4, "ally", None), "compel": _Targeting(237, 4, "other", None, 10),
    "vent": _Targeting(331, 4, "other", "steps", 3), "puppet": _Targeting(363, 1, "character", "steps", 3),
}
_ATTACKS = ("spear", "axe", "throw", "horns", "archer")


def _short_name(card: dict) -> str:
    """Point 8: the last word of the card's name, lower-case ('guardian' for Imperial Guardian)."""
    return card["name"].split()[-1].lower()


def _token_cell(d: dict, token: int) -> Any:
    """The cell [x, y] of a character (0..5) or sentry (6, 7) of the state `d`; None off the board."""
    return d["characters"][token]["cell"] if token < 6 else (d["sentries"][token - 6] or {}).get("cell")


class _Cards:
    """The abilities and short names of the tokens of a state `d` of `game` (its card table):
    tokens 0..5 their cards', sentries 6..7 none (point 37)."""

    def __init__(self, d: dict, game: Any):
        self.game, self.table = game, card_table(game)
        self.sides = _team_sides(game.parameters()["sides"])
        cards = {c["id"]: c for c in self.table["characters"]}
        self.abilities = [set(cards[c["id"]]["abilities"]) for c in d["characters"]] + [set(), set()]
        self.names = [_short_name(cards[c["id"]]) for c in d["characters"]] + ["sentry"] * 2

    def team(self, token: int) -> int | None:
        """A character's team; a sentry's is the Regent's (the card with Sentry), None if none plays."""
        if token < 6:
            return token // 3
        return next((t // 3 for t in range(6) if "sentry" in self.abilities[t]), None)

    def holder(self, ability: str) -> int | None:
        """The token whose card has `ability`, one read from one card (point 35); None if none."""
        return next((t for t in range(6) if ability in self.abilities[t]), None)

    def numbers(self, ability: str) -> dict:
        """The numbers of an ability on the side of the card that has it (the first, point 35); the
        basic side's if no card in play has it."""
        owner = self.holder(ability)
        return _on_side(self.table["abilities"][ability], "basic" if owner is None else self.sides[owner // 3])


def _target_reason(d: dict, cards: _Cards, token: int, name: str, word: str, target: int, number: int,
                   written: str, landing_text: str) -> str | None:
    """Why the active `token` cannot `word` token `target` (written as in the action; `number`: a
    pass's strawberries; `landing_text`: a grapple's landing cell, or the direction of a forced
    step, as written); None if no simple reason."""
    who, where, reach = _TARGETED[word].who, _TARGETED[word].where, _TARGETED[word].reach
    if word == "pass" and target >= 6:
        return "sentries carry nothing: strawberries are passed to characters"
    if who == "character" and target >= 6:
        return f"a sentry is no character: {_title(_ability_of_word()[word])} works on characters"
    at = _token_cell(d, target)
    if at is None:
        return f"{written} is not on the board"
    if target == token:
        return f"the {name} cannot {word} itself"
    team = cards.team(target)
    ally = team == token // 3
    yours = "your team" if token // 3 == d["team"] else f"the {name}'s team"  # a puppet may be an enemy
    if who == "enemy" and ally:
        targets = "attacks target" if word in _ATTACKS else f"{word.capitalize()} targets"
        return f"{written} is on {yours}: {targets} enemies"
    if who == "ally" and team is not None and not ally:
        return f"{written} is not on {yours}: {word.capitalize()} moves allies"
    carried = d["characters"][token]["strawberries"]
    if word == "pass" and number > carried:
        return f"the {name} carries {carried} strawberr{'y' if carried == 1 else 'ies'}"
    cell, facing, target_cell = tuple(d["characters"][token]["cell"]), d["characters"][token]["facing"], tuple(at)
    if word == "compel":  # D6: the first compulsion of an activation picks, in sight, the one it moves
        compelled, first = d["activation"]["compel_target"], d["activation"]["compulsions"] == 0
        if not first and compelled is not None and compelled != target:
            moved = _token_cell(d, compelled)
            where_moved = f" on {moved[0]},{moved[1]}" if moved is not None else ""
            return (f"the {name}'s compulsions this activation all move the {cards.names[compelled]}{where_moved} "
                    f"(D6)")
        where = "sight" if first else None
    if where == "sight" and not _in_sight(d, cell, facing, target_cell, reach):
        upto = f", up to {reach} cell{'s' if reach > 1 else ''}" if reach < 10 else ""
        return f"{written} is not in the {name}'s line of sight (facing {facing}{upto})"
    if where == "adjacent" and not _adjacent(d, cell, target_cell):
        return f"{written} is not next to the {name} (on its cell or beside it, across no hedge)"
    if where == "steps" and not _within_steps(d, cell, target_cell, reach):
        return f"{written} is more than {reach} steps from the {name} (steps around hedges and water, point 15)"
    if word == "puppet":
        if (calmed := _aura_reason(d, cards, target, target_cell)) is not None:
            return f"{written} {calmed}"
        if (idle := _idle_puppet_reason(d, cards, target, name)) is not None:
            return f"{written} {idle}"
    if word == "lure":
        distance = abs(target_cell[0] - cell[0]) + abs(target_cell[1] - cell[1])
        if distance == 0:
            return f"{written} is on the {name}'s own cell: Alluring Gaze draws a token from a cell away or more"
        if number > distance:
            return f"{written} is next to the {name}: one step brings it to the {name}'s cell"
    if word == "grapple" and (landing := re.fullmatch(r"(-?\d+),(-?\d+)", landing_text)):
        x, y = int(landing[1]), int(landing[2])
        if not (0 <= x < 10 and 0 <= y < 10):
            return f"the landing cell {x},{y} is off the board"
        if in_moat_ring(x, y) and [x, y] not in d["bridges"]:
            return f"the landing cell {x},{y} is water"
        if (x, y) == target_cell:
            return f"the landing cell {x},{y} is the target's own cell: a grapple moves it elsewhere"
        if (keeper := _territorial_keeper(d, cards, team, (x, y))) is not None:
            return f"the landing cell {x},{y} is {keeper}"
    if (word in _ATTACKS or word in _SHIELDED) and \
            (protected := _protection_reason(d, cards, name, cell, word, target, target_cell, team, written)):
        return protected
    if word == "lure":  # n steps toward the actor, each legal (point 49)
        (dx, dy), here = _STEPS[_OPPOSITE[facing]], target_cell
        bridges = {tuple(b) for b in d["bridges"]}
        for i in range(number):
            to = (here[0] + dx, here[1] + dy)
            blocked = _orthogonal_block(d, bridges, here, to)
            if blocked is None and (keeper := _territorial_keeper(d, cards, team, to)) is not None:
                blocked = f"{to[0]},{to[1]} is {keeper}"
            if blocked is not None:
                which = "step" if number == 1 else ("first step", "second step")[i]
                return f"{written} cannot take its {which} toward the {name}: {blocked}"
            here = to
    if word in _FORCED_STEPS and landing_text in _STEPS:
        (dx, dy), bridges = _STEPS[landing_text], {tuple(b) for b in d["bridges"]}
        to = (target_cell[0] + dx, target_cell[1] + dy)
        blocked = _orthogonal_block(d, bridges, target_cell, to)
        if blocked is None and (keeper := _territorial_keeper(d, cards, team, to)) is not None:
            blocked = f"{to[0]},{to[1]} is {keeper}"
        if blocked is not None:
            return f"{written} cannot step {landing_text}: {blocked}"
    return None


# Line-of-sight effects a Tower Shield blocks (point 24), and the forced moves of one legal step
# (points 9, 44) in the direction the action names
_SHIELDED = {"charm": "Charm", "lure": "Alluring Gaze", "compel": "Compulsion"}
_FORCED_STEPS = ("charm", "vent", "command", "bite", "compel")


def _protection_reason(d: dict, cards: _Cards, name: str, cell: tuple[int, int], word: str, target: int,
                       target_cell: tuple[int, int], team: int | None, written: str) -> str | None:
    """Point 23: what protects `target` on `target_cell` (of `team`) from an attack from `cell` by
    the active character `name`; point 24: a Tower Shield against Charm and Alluring Gaze."""
    if "tower_shield" in cards.abilities[target]:
        facing = d["characters"][target]["facing"]
        (dx, dy), (ox, oy) = _STEPS[facing], (cell[0] - target_cell[0], cell[1] - target_cell[1])
        if (ox, oy) != (0, 0) and ox * dy == oy * dx and ox * dx + oy * dy > 0:  # on the ray it faces along
            blocked = "attacks" if word in _ATTACKS else _SHIELDED[word]
            return (f"{written} is the {cards.names[target]}, whose Tower Shield faces {facing}, toward the "
                    f"{name}: it blocks {blocked} from that side")
    if word not in _ATTACKS:
        return None
    camp = d["camps"].get(f"{TEAMS[team]}_character") if team is not None else None
    if camp is not None and target_cell in camp_cells(camp):
        return f"{written} stands on its own character camp, where it cannot be attacked"
    guardian = cards.holder("guardian")
    if guardian not in (None, target) and cards.team(guardian) == team and \
            (at := d["characters"][guardian]["cell"]) is not None and _within_steps(d, tuple(at), target_cell, 2):
        return (f"{written} is within 2 steps of its ally the {cards.names[guardian]} on {at[0]},{at[1]}, "
                f"whose Guardian ability protects it from attacks")
    if "camouflage" in cards.abilities[target]:
        x, y = target_cell
        for dx, dy in _STEPS_NESW:
            if 0 <= x + dx < 10 and 0 <= y + dy < 10 and _hedge_between(d, target_cell, (x + dx, y + dy)):
                return (f"{written} is the {cards.names[target]}, beside a hedge (on its cell's "
                        f"{_DIRECTION_OF[(dx, dy)]} edge): Camouflage protects it from attacks")
    sentinel = cards.holder("silent_sentinel")
    if sentinel not in (None, target) and cards.team(sentinel) == team and \
            (at := d["characters"][sentinel]["cell"]) is not None and \
            _in_sight(d, tuple(at), d["characters"][sentinel]["facing"], target_cell, 10):
        return (f"{written} is in the line of sight of its ally the {cards.names[sentinel]} on {at[0]},{at[1]}, "
                f"whose Silent Sentinel protects it from attacks")
    return None


def _within_steps(d: dict, start: tuple[int, int], goal: tuple[int, int], n: int) -> bool:
    """Point 15: `goal` is at most `n` legal steps (point 9; tokens do not block) from `start`."""
    bridges = {tuple(b) for b in d["bridges"]}
    reached, frontier = {start}, [start]
    for _ in range(n):
        frontier = [to for here in frontier for dx, dy in _STEPS_NESW
                    if (to := (here[0] + dx, here[1] + dy)) not in reached
                    and _orthogonal_block(d, bridges, here, to) is None]
        reached.update(frontier)
    return goal in reached


def _in_sight(d: dict, cell: tuple[int, int], facing: str, target: tuple[int, int], reach: int) -> bool:
    """Point 13: `target` is in the line of sight from `cell` facing `facing`, up to `reach` cells:
    the own cell, then the ray, which a hedge and the board's edge stop before the next cell, and
    the first cell holding a character, sentry or hydra stops after itself."""
    return target == cell or target in _ray(d, cell, facing)[:reach]


def _ray(d: dict, cell: tuple[int, int], facing: str) -> list[tuple[int, int]]:
    """Point 13: the cells of the line of sight beyond `cell` facing `facing`, nearest first: a
    hedge or the board's edge ends it before the next cell, the first cell holding a character,
    sentry or hydra ends it after itself."""
    held = {tuple(c["cell"]) for c in d["characters"] if c["cell"] is not None}
    held |= {tuple(s["cell"]) for s in d["sentries"] if s is not None}
    held |= {tuple(h) for h in d["hydras"] if h is not None}
    (dx, dy), here = _STEPS[facing], cell
    ray: list[tuple[int, int]] = []
    while True:
        ahead = (here[0] + dx, here[1] + dy)
        if not (0 <= ahead[0] < 10 and 0 <= ahead[1] < 10) or _hedge_between(d, here, ahead):
            return ray
        ray.append(ahead)
        if ahead in held:
            return ray
        here = ahead


def _territorial_keeper(d: dict, cards: _Cards, team: int | None, cell: tuple[int, int]) -> str | None:
    """Point 44: why a token of `team` may not enter `cell` (the cell of an enemy Hound), None if
    it may."""
    hound = cards.holder("territorial")
    if hound is None or (at := d["characters"][hound]["cell"]) is None or tuple(at) != cell or \
            cards.team(hound) == team:
        return None
    return f"the cell of the enemy {cards.names[hound]}, whose Territorial keeps its enemies off it"


def _step_reason(d: dict, cards: _Cards, token: int, name: str, cell: tuple[int, int], direction: str,
                 left_after: int, across_hedge: bool = False) -> str | None:
    """Why the active `token` cannot step from `cell` in `direction` (point 9-11), with
    `left_after` AP and free moves left after paying for the move (1: a forced step, which may end
    on a shared cell); `across_hedge`: Shadow Walk or Slither, which step over a hedge on that
    edge. None if no simple reason."""
    (x, y), (dx, dy) = cell, _STEPS[direction]
    to = (x + dx, y + dy)
    if not (0 <= to[0] < 10 and 0 <= to[1] < 10):
        return f"{x},{y} is on the board's edge: there is no cell to the {direction}"
    bridges = {tuple(b) for b in d["bridges"]}
    if dx and dy:
        if in_moat_ring(*to) and to not in bridges:
            return f"{to[0]},{to[1]} is water (the moat is crossed on its bridges)"
        if cell in bridges or to in bridges:
            return "a diagonal move never goes onto or off a bridge"
        closed = [_route_block(d, cards, bridges, token // 3, cell, middle, to) for middle in ((to[0], y), (x, to[1]))]
        if all(closed):
            return f"both routes to {to[0]},{to[1]} are closed (point 10): {closed[0]}; {closed[1]}"
    elif (blocked := _orthogonal_block(d, bridges, cell, to, across_hedge)) is not None:
        return blocked
    if (keeper := _territorial_keeper(d, cards, token // 3, to)) is not None:
        return f"{to[0]},{to[1]} is {keeper}"
    shared = any(other != token and c["cell"] == list(to) for other, c in enumerate(d["characters"])) or \
        any(sentry is not None and sentry["cell"] == list(to) for sentry in d["sentries"])
    if left_after < 1 and shared:
        return (f"{to[0]},{to[1]} holds another token: the {name} may move onto it only with AP left to "
                f"move on")
    return None


def _route_block(d: dict, cards: _Cards, bridges: set, team: int, cell: tuple[int, int], middle: tuple[int, int],
                 to: tuple[int, int]) -> str | None:
    """What closes the two-step route of a diagonal move from `cell` through `middle` to `to`
    (point 10: both steps legal, the middle cell not an enemy Hound's) for a token of `team`;
    None if it is open."""
    if (block := _orthogonal_block(d, bridges, cell, middle) or _orthogonal_block(d, bridges, middle, to)):
        return block
    keeper = _territorial_keeper(d, cards, team, middle)
    return None if keeper is None else f"{middle[0]},{middle[1]} is {keeper}"


def _orthogonal_block(d: dict, bridges: set, cell: tuple[int, int], to: tuple[int, int],
                      across_hedge: bool = False) -> str | None:
    """What stops an orthogonal step (point 9) from `cell` to `to` (`bridges`: the bridge cells),
    but tokens, and but a hedge if `across_hedge`; None if nothing."""
    if not (0 <= to[0] < 10 and 0 <= to[1] < 10):
        return f"{cell[0]},{cell[1]} is on the board's edge"
    if in_moat_ring(*to) and to not in bridges:
        return f"{to[0]},{to[1]} is water (the moat is crossed on its bridges)"
    if not across_hedge and _hedge_between(d, cell, to):
        return f"a hedge stands between {cell[0]},{cell[1]} and {to[0]},{to[1]}"
    for bridge in (cell, to):
        along = "east-west" if bridge[0] in (2, 7) else "north-south"
        if bridge in bridges and (to[0] != cell[0]) != (along == "east-west"):
            return f"the bridge on {bridge[0]},{bridge[1]} runs {along}: it is entered and left along it"
    return None


def _idle_puppet_reason(d: dict, cards: _Cards, puppet: int, puppeteer: str) -> str | None:
    """Point 54: why `puppet` could use none of its active abilities now (its words follow its
    name), as far as the cards and AP tell; None otherwise."""
    own = [a for a in cards.abilities[puppet] if a not in _NOT_PUPPETABLE and action_word(a) is not None]
    if not own:
        return "has no active ability a puppet may use (Changeling, Arcane Puppetry and Sprint are not, D31)"
    activation, costs = d["activation"], []
    for ability in own:  # the cost of each ability the puppet may still use this activation
        if _spent_reason(d, cards, ability, puppet) is not None:
            continue
        rules = cards.numbers(ability)
        cost = _compulsion_numbers(rules)[0] if ability == "compulsion" else rules.get("ap", 0)
        if ability == "horns" and activation["charged"]:
            cost = rules["ap_when_charging"]
        costs.append(cost if isinstance(cost, int) else 0)
    if not costs:
        return "has no active ability left to use (each once an activation, or used up for the game)"
    if min(costs) > activation["ap"]:
        return (f"could use none of its active abilities: the cheapest costs {min(costs)} AP and the {puppeteer} "
                f"has {activation['ap']} left")
    # Otherwise the engine tells: it refuses a puppet phase in which the puppet has no legal action
    trial = {**d, "phase": "puppet", "activation": {**activation, "puppet": puppet}}
    try:
        cards.game.state_from_dict(trial)
    except ValueError as error:
        if "no legal action" in str(error):
            words = sorted(str(action_word(ability)) for ability in own)
            return f"could use none of its active abilities ({', '.join(words)}) where it stands now"
    return None


def _token_at(d: dict, cell: tuple[int, int]) -> bool:
    """A character or sentry stands on `cell`."""
    return any(_token_cell(d, t) == list(cell) for t in range(8))


def _garden_slot(d: dict, cell: tuple[int, int]) -> str | None:
    """The garden-tile slot of the state's board (point 47) that `cell` lies in, None if none."""
    board = data("tiles")["board"]
    for slot in d["tiles"] or ():
        geometry = {**board["rect_slots"], **board["square_slots"]}[slot]
        (ox, oy), (w, h) = geometry["origin"], geometry["size"]
        if ox <= cell[0] < ox + w and oy <= cell[1] < oy + h:
            return slot
    return None


def _hedge_between(d: dict, a: tuple[int, int], b: tuple[int, int]) -> bool:
    return [list(cell) for cell in _hedge_edge(a, b)] in d["hedges"]


def _adjacent(d: dict, a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Point 12: the same cell, or orthogonal neighbours with no hedge between."""
    distance = abs(a[0] - b[0]) + abs(a[1] - b[1])
    return distance == 0 or (distance == 1 and not _hedge_between(d, a, b))


def narrate(before: Any, action: int, after: Any) -> str | None:
    """The tokens a move defeated and the hydras it removed, for `meeple play` (on the board a
    defeated character just vanishes). None if there are none."""
    was, now = before.to_dict(), after.to_dict()
    table = card_table(after.game)
    names = {c["id"]: _short_name(c) for c in table["characters"]}
    defeated = [f"{('imperial', 'raider')[token // 3]}-{names[c['id']]}"
                for token, (b, c) in enumerate(zip(was["characters"], now["characters"]))
                if b["cell"] is not None and c["cell"] is None]
    defeated += [f"sentry{i + 1}" for i, (b, c) in enumerate(zip(was["sentries"], now["sentries"]))
                 if b is not None and c is None]
    if before.action_to_string(action).startswith("sentry ") and None in was["sentries"]:
        placed = was["sentries"].index(None)  # the engine fills the lowest free slot
        if now["sentries"][placed] is None:  # next to a hydra, say: gone before it shows on the board
            defeated.append(f"sentry{placed + 1} (as soon as placed)")
    gone = [f"hydra {h + 1}" for h, (b, c) in enumerate(zip(was["hydras"], now["hydras"]))
            if b is not None and c is None]
    parts = ([f"Defeated: {', '.join(defeated)}."] if defeated else []) + \
        ([f"{' and '.join(gone).capitalize()} {'leaves' if len(gone) == 1 else 'leave'} the game."] if gone else [])
    return " ".join(parts) or None


_DIRECTION_WORDS = {"north": "n", "east": "e", "south": "s", "west": "w", "northeast": "ne", "southeast": "se",
                    "southwest": "sw", "northwest": "nw"}


def spell_move(state: Any, text: str) -> str:
    """A person's spelling of a move as the move's own string: directions as words ('move north',
    'pounce north-east'), and a character's id with spaces or hyphens ('draft imperial bard',
    'rest skin-changer'). Only for text that is no move string as it stands."""
    words = text.lower().replace("north-", "north").replace("south-", "south").split()
    words = [_DIRECTION_WORDS.get(w, w) for w in words]
    if len(words) > 2 and words[0] in ("draft", "rest", "activate", "forfeit", "puppet"):
        words[1:] = ["_".join(words[1:])]
    return " ".join(w.replace("-", "_") for w in words)


register(GameSpec(
    name="imperial_harvest",
    description="Imperial Harvest: two teams of three gather strawberries in a hedged garden (2 players)",
    params=PARAMETERS,
    factory=_make,
    cards_text=cards_in_play,
    cards_help="each character's numbers and abilities: how each action is written, what it does",
    moves_help="A turn: 'rest NAME' (one of your three characters rests), then for each of the other two\n"
               "'activate NAME', its actions ('move DIR', 'face DIR', 'pluck', 'deposit', abilities) and\n"
               "'end', or 'forfeit NAME' and a hydra step. Directions n, e, s, w (ne, se, sw, nw for\n"
               "diagonal abilities; or north, north-east...); cells COL,ROW as drawn. Rules:\n"
               "docs/rules/imperial-harvest.md.",
    spell_move=spell_move,
    why_illegal=why_illegal,
    narrate=narrate,
    player_names=("Imperial Servants", "Northern Raiders"),
))

Game: type = _core.ImperialHarvestGame
State: type = _core.ImperialHarvestState
