"""`meeple play`'s reasons for refused Imperial Harvest actions (imperial_harvest.why_illegal) over
positions random play seldom reaches: act and puppet states of varied games, damaged on purpose
(the actor moved, tokens gathered and stacked around it, facings turned, sentries placed, hedges
toggled, AP, per-activation flags, compulsions and per-game uses changed), in games whose card
table moves abilities between cards and changes their numbers.

Each such state the engine accepts is checked three ways: no reason is given for a legal action,
`why_illegal` never raises, and the reference accepts the state exactly when the engine does (a
damaged state one of them takes and the other refuses is a validation gap; the reasons found one).
The hand-built positions of every reason are in tests/test_cli.py.
"""
from __future__ import annotations

import copy
import random

import meeple
import meeple.reference
from meeple import cli
from test_imperial_harvest_part2_differential import aggressive, game_parameters

# Abilities moved to another card in a user table (one card may hold several; a passive read
# from one card, point 35, moves whole)
MOVABLE = ("battle_axe", "throwing_axe", "charm", "spear", "grapple", "command", "bite", "horns", "alluring_gaze",
           "archer", "changeling", "arcane_puppetry", "aura_of_tranquility", "tower_shield", "guardian",
           "camouflage", "silent_sentinel", "territorial", "feral", "poison_blood", "charge",
           "master_of_the_labyrinth", "compulsion", "dragon_pounce", "plant", "chop", "ventriloquism")
ONCE_FLAGS = ("grapple_used", "pounce_used", "throw_used", "charm_used", "slither_used", "charge_used", "lure_used",
              "command_used", "sentry_used")
TEAMS = ("puppeteer,regent,minotaur/nymph,sorceress,hound", "nymph,puppeteer,barbarian/regent,sorceress,minotaur",
         "minotaur,nymph,regent/puppeteer,sorceress,basilisk")


def moved_table(rng: random.Random) -> dict:
    table = meeple.imperial_harvest.data("characters")
    cards = table["characters"]
    for _ in range(rng.randrange(1, 7)):
        ability = rng.choice(MOVABLE)
        source, target = next(c for c in cards if ability in c["abilities"]), rng.choice(cards)
        if target is not source:
            source["abilities"].remove(ability)
            target["abilities"].append(ability)
    for entry in table["abilities"].values():
        if isinstance(entry.get("ap"), int) and rng.random() < 0.3:
            entry["ap"] = rng.randrange(0, 3)
    if rng.random() < 0.3:
        table["abilities"]["sentry"]["max_on_board"] = rng.randrange(0, 3)
    if rng.random() < 0.3:
        table["abilities"]["compulsion"]["ap"] = f"{rng.randrange(0, 3)}-{rng.randrange(0, 4)}"
    return table


def in_moat(x: int, y: int) -> bool:
    return (x in (2, 7) and 2 <= y <= 7) or (y in (2, 7) and 2 <= x <= 7)


def damage(d: dict, rng: random.Random) -> None:
    """Changes the act or puppet state dict `d` in place around its actor (see the module's text)."""
    bridges = [tuple(b) for b in d["bridges"]]
    land = [(x, y) for x in range(10) for y in range(10) if not in_moat(x, y) or (x, y) in bridges]
    actor = d["activation"]["puppet"] if d["phase"] == "puppet" else d["active"]
    me = d["characters"][actor]
    if rng.random() < (0.7 if d["phase"] == "act" else 0.2):  # a puppet moved away mostly has no action left
        me["cell"] = list(rng.choice(land))
    x, y = me["cell"]
    near = [(x + dx, y + dy) for dx in range(-3, 4) for dy in range(-3, 4)
            if (x + dx, y + dy) in land and abs(dx) + abs(dy) <= 3]
    for token, other in enumerate(d["characters"]):
        if token == actor or other["cell"] is None:
            continue
        if rng.random() < 0.5:
            other["cell"] = list(rng.choice(near))
        if rng.random() < 0.5:
            other["facing"] = rng.choice("nesw")
        if rng.random() < 0.1:
            other["cell"] = list(me["cell"])
    if any(c["id"] == "regent" for c in d["characters"]):
        for i in range(2):
            roll = rng.random()
            if roll < 0.4:
                d["sentries"][i] = {"cell": list(rng.choice(near)), "facing": rng.choice("nesw")}
            elif roll < 0.6:
                d["sentries"][i] = None
    if rng.random() < 0.5:
        me["facing"] = rng.choice("nesw")
    for _ in range(rng.randrange(0, 4)):  # hedges toggled near the actor
        a = rng.choice(near)
        b = (a[0] + 1, a[1]) if rng.random() < 0.5 else (a[0], a[1] + 1)
        if b[0] > 9 or b[1] > 9:
            continue
        edge = sorted([list(a), list(b)], key=lambda c: (c[1], c[0]))
        if edge in d["hedges"]:
            d["hedges"].remove(edge)
        else:
            d["hedges"] = sorted(d["hedges"] + [edge])  # in to_dict's order
        d["planted_hedges"] = [h for h in d["planted_hedges"] if h in d["hedges"]]
    activation = d["activation"]
    activation["ap"] = rng.choice([0, 1, 1, 2, 3, 4])
    for flag in ONCE_FLAGS:
        if rng.random() < 0.15:
            activation[flag] = not activation[flag]
    if rng.random() < 0.2:
        activation["charged"] = not activation["charged"]
    if rng.random() < 0.2:
        activation["compulsions"] = rng.randrange(0, 4)
        activation["compel_target"] = None if activation["compulsions"] == 0 else rng.randrange(0, 6)
    for character in d["characters"]:
        if character.get("uses_left") is not None and rng.random() < 0.2:
            character["uses_left"] = rng.randrange(0, 2)


def test_no_reason_for_a_legal_action_in_damaged_states():
    why_illegal = cli.game_spec("imperial_harvest").why_illegal
    states, explained, puppet_states = 0, 0, 0
    for seed in range(12):
        rng = random.Random(seed)
        params = game_parameters(seed)
        params["teams"] = TEAMS[seed % 3] if seed % 4 else "draft"
        if seed % 2:
            params["characters"] = moved_table(rng)
        try:
            game = meeple.load("imperial_harvest", **params)
        except ValueError:  # a table that gives a one-card passive to two cards (point 35)
            continue
        reference = meeple.reference.load("imperial_harvest", **params)
        state = game.new_initial_state(seed=seed)
        while not state.is_terminal():
            legal = state.legal_actions().tolist()
            d = state.to_dict()
            if d["phase"] == "puppet" or (d["phase"] == "act" and rng.random() < 0.3):
                for _ in range(3 if d["phase"] == "act" else 12):  # puppet phases are rarer
                    damaged = copy.deepcopy(d)
                    damage(damaged, rng)
                    engine_error = reference_error = None
                    try:
                        checked = game.state_from_dict(damaged)
                    except ValueError as error:
                        engine_error = str(error)
                    try:
                        reference.state_from_dict(damaged)
                    except ValueError as error:
                        reference_error = str(error)
                    assert (engine_error is None) == (reference_error is None), (seed, engine_error, reference_error)
                    if engine_error is not None:
                        continue
                    states += 1
                    puppet_states += checked.to_dict()["phase"] == "puppet"
                    allowed = set(checked.legal_actions().tolist())
                    for action in range(17, 429):  # move .. sprint: the actor's own actions
                        reason = why_illegal(checked, action)
                        assert reason is None or action not in allowed, (seed, checked.action_to_string(action), reason)
                        explained += reason is not None
            puppets = [a for a in legal if state.action_to_string(a).startswith("puppet ")]
            state.apply_action(rng.choice(puppets) if puppets and rng.random() < 0.7 else aggressive(state, legal, rng))
    assert states > 200 and puppet_states > 20 and explained > 50_000, (states, puppet_states, explained)
