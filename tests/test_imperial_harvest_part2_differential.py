"""Imperial Harvest part 2: the C++ engine against the pure-Python reference over seeded random games
in which everything varies per game: drafted or custom teams, random boards (drawn from the game's
seed by each implementation, or fixed by `board_seed`), fixed or interactive setup, card sides per team, and the shipped or a user character
table (with "advanced" numbers that differ from the basic ones). Both implementations are compared at
every ply (tests/differential.py: legal actions, observation, to_dict, action strings, returns).

The slow test also counts how often each ability was used over all games and asserts every one of
them came up: a differential test that never reaches an ability proves nothing about it.

The slow test plays seeds 0..1999; MEEPLE_IH2_DIFFERENTIAL_GAMES=n and MEEPLE_DIFFERENTIAL_SEED_OFFSET=k
(tests/differential.py) make that k..k+n-1 (the nightly soak).

Replay one game:  PYTHONPATH=python python tests/test_imperial_harvest_part2_differential.py SEED
"""
from __future__ import annotations

import copy
import json
import os
import random
import sys
from collections import Counter

import meeple
import meeple.reference
import pytest
from differential import MAX_SEED_OFFSET, play_side_by_side, seed_offset

GAMES = int(os.environ.get("MEEPLE_IH2_DIFFERENTIAL_GAMES", "2000"))
SMOKE_START, SMOKE_GAMES = 5_000_000, 24

# Every active ability by the first word of its action string, and the passive ones the counter
# below can see from the states before and after an action.
ACTIVE = {"chop": "chop", "axe": "battle_axe", "throw": "throwing_axe", "charm": "charm",
          "shadow": "shadow_walk", "compel": "compulsion", "wolf": "wolf_form", "sprint": "sprint",
          "spear": "spear", "grapple": "grapple", "pounce": "dragon_pounce", "plant": "plant",
          "command": "command", "sentry": "sentry", "slither": "slither", "bite": "bite",
          "horns": "horns", "flip": "master_of_the_labyrinth", "charge": "charge",
          "lure": "alluring_gaze", "vent": "ventriloquism", "puppet": "arcane_puppetry",
          "archer": "archer"}
SETUP = {"draft": "draft", "bridge": "bridge", "camp": "camp", "place": "place"}
PASSIVE = ("changeling", "poison_blood", "petrifying_gaze", "retriever", "feral_or_sentry_defeat",
           "regent_vp_loss", "free_move")
CARD_ABILITIES = {c["id"]: set(c["abilities"]) for c in meeple.imperial_harvest.data("characters")["characters"]}
MINIMUM_USES = 10  # over GAMES games; every ability is far more frequent than this in practice


def _user_table() -> dict:
    """The shipped table with an "advanced" side whose numbers differ: +1 AP and 1 fewer item slot on
    every card, and a cheaper Sprint and Archer, so `sides` changes the game."""
    table = meeple.imperial_harvest.data("characters")
    for card in table["characters"]:
        ap = card.get("ap", table["defaults"]["ap"])
        slots = card.get("item_slots", table["defaults"]["item_slots"])
        card["advanced"] = {"ap": ap + 1, "item_slots": max(1, slots - 1)}
    table["abilities"]["sprint"]["advanced"] = {"ap": 1}
    table["abilities"]["archer"]["advanced"] = {"ap": 1}
    return table


USER_TABLE = _user_table()


def game_parameters(seed: int) -> dict:
    """The parameters of game `seed`: mostly drafted teams on random boards, both setups, every
    combination of sides, a quarter of the games with the user table."""
    r = random.Random(seed * 1_000_003 + 17)
    params = {
        "board": "random" if r.random() < 0.75 else r.choice(["standard", "symmetric"]),
        "board_seed": seed % (2**31),
        "sides": r.choice(["basic", "advanced", "basic/advanced", "advanced/basic"]),
        "teams": "draft",
        "setup": r.choice(["fixed", "interactive"]),
    }
    if r.random() < 0.2:  # a random legal custom team string instead of a draft
        params["teams"] = _random_teams(r)
    if r.random() < 0.25:
        params["characters"] = copy.deepcopy(USER_TABLE)
    if params["board"] != "random" or r.random() < 0.5:
        del params["board_seed"]  # with board="random": a board per game, drawn from its seed
    return params


def _random_teams(r: random.Random) -> str:
    cards = meeple.imperial_harvest.data("characters")["characters"]
    r.shuffle(cards)
    teams: list[list[dict]] = [[], []]
    for card in cards:
        for team in teams if r.random() < 0.5 else teams[::-1]:
            if len(team) < 3 and all(c["archetype"] != card["archetype"] for c in team):
                team.append(card)
                break
    assert all(len(t) == 3 for t in teams), "14 cards over 8 archetypes always fill two teams"
    return "/".join(",".join(c["id"] for c in t) for t in teams)


class AbilityCounter:
    """Counts ability uses from the engine's states around each action (wraps apply_action)."""

    def __init__(self):
        self.counts: Counter = Counter()

    def observe(self, state, action: int) -> None:
        before = state.to_dict()
        word = state.action_to_string(action).split()[0]
        if word in ACTIVE:
            self.counts[ACTIVE[word]] += 1
            active = before["active"]
            if (before["phase"] == "act" and active is not None
                    and ACTIVE[word] not in CARD_ABILITIES[before["characters"][active]["id"]]):
                self.counts["changeling"] += 1  # the Nymph using a borrowed ability
        elif word in SETUP:
            self.counts[SETUP[word]] += 1
        if word == "move" and before["activation"].get("free_moves", 0) > 0:
            self.counts["free_move"] += 1
        after_state = state.clone()
        after_state.apply_action(action)
        after = after_state.to_dict()
        if any(h is not None for h in before["hydras"]) and sum(h is None for h in after["hydras"]) > sum(
                h is None for h in before["hydras"]):
            self.counts["poison_blood"] += 1
        if len(after["activation"].get("gaze", [])) > len(before["activation"].get("gaze", [])):
            self.counts["petrifying_gaze"] += 1
        if after["activation"].get("retriever_used") and not before["activation"].get("retriever_used"):
            self.counts["retriever"] += 1
        if sum(after["regent_vp"]) < sum(before["regent_vp"]):
            self.counts["regent_vp_loss"] += 1
        if word not in ACTIVE and word not in ("respawn",):
            lost = [t for t in range(6) if before["characters"][t]["cell"] is not None
                    and after["characters"][t]["cell"] is None]
            if lost and word in ("move", "end", "pounce", "shadow", "slither", "charge", "rest", "activate"):
                self.counts["feral_or_sentry_defeat"] += 1


STEP = {"n": (0, -1), "e": (1, 0), "s": (0, 1), "w": (-1, 0), "ne": (1, -1), "se": (1, 1), "sw": (-1, 1),
        "nw": (-1, -1)}


def step_toward(moves: list[tuple[int, str]], cell, distance_to, rng: random.Random) -> int:
    """One of `moves` ((action, direction) pairs of a token on `cell`) whose destination has the
    least `distance_to(x, y)`, uniformly among ties."""
    x, y = cell
    after = {a: distance_to(x + STEP[direction][0], y + STEP[direction][1]) for a, direction in moves}
    best = min(after.values())
    closest = [a for a, _ in moves if after[a] == best]
    return closest[rng.randrange(len(closest))]


def aggressive(state, legal: list[int], rng: random.Random) -> int:
    """A biased random policy for odd seeds: uniform play rarely brings enemies together (they start in
    opposite camps), so attacks and most abilities would hardly ever be legal. This one takes an
    ability action when it can (60%), else mostly steps toward the nearest enemy token (60%)."""
    names = [state.action_to_string(a) for a in legal]
    abilities = [a for a, n in zip(legal, names) if n.split()[0] in ACTIVE]
    if abilities and rng.random() < 0.6:
        return abilities[rng.randrange(len(abilities))]
    moves = [(a, n.split()[1]) for a, n in zip(legal, names) if n.startswith("move ")]
    if moves and rng.random() < 0.6:
        d = state.to_dict()
        me = d["active"]
        if me is not None and d["characters"][me]["cell"] is not None:
            mine = 0 if me < 3 else 1
            enemies = [c["cell"] for i, c in enumerate(d["characters"]) if c["cell"] and (i >= 3) == (mine == 0)]
            if enemies:
                return step_toward(moves, d["characters"][me]["cell"],
                                   lambda x, y: min(abs(x - ex) + abs(y - ey) for ex, ey in enemies), rng)
    return legal[rng.randrange(len(legal))]


def chooser_for(seed: int):
    return aggressive if seed % 2 else None


def play(seed: int, counter: AbilityCounter | None = None) -> int:
    params = game_parameters(seed)
    engine_game = meeple.load("imperial_harvest", **params)
    reference_game = meeple.reference.load("imperial_harvest", **params)
    chooser = chooser_for(seed)
    plies = play_side_by_side(engine_game, reference_game, seed, chooser=chooser)
    if counter is not None:  # count on a replay of the engine alone (same choices)
        state, rng = engine_game.new_initial_state(seed=seed), random.Random(seed)
        while not state.is_terminal():
            legal = state.legal_actions().tolist()
            action = chooser(state, legal, rng) if chooser else legal[rng.randrange(len(legal))]
            counter.observe(state, action)
            state.apply_action(action)
    return plies


def test_parameters_cover_every_option():
    seen = Counter()
    for seed in range(200):
        p = game_parameters(seed)
        seen[p["board"]] += 1
        seen[p["sides"]] += 1
        seen[p["setup"]] += 1
        seen["custom teams" if p["teams"] != "draft" else "draft"] += 1
        seen["user table" if "characters" in p else "shipped table"] += 1
    for seed in range(200):
        p = game_parameters(seed)
        seen["per-game board" if p["board"] == "random" and "board_seed" not in p else "-"] += 1
    for option in ("per-game board", "random", "standard", "symmetric", "basic", "advanced", "basic/advanced",
                   "advanced/basic", "fixed", "interactive", "custom teams", "draft", "user table",
                   "shipped table"):
        assert seen[option] > 0, option


def test_differential_smoke():
    for seed in range(SMOKE_START, SMOKE_START + SMOKE_GAMES):
        play(seed)


def test_differential_top_seeds():
    """The largest seeds of a soak run (tests/differential.py's offset): both draw 64-bit seeds alike."""
    for seed in range(MAX_SEED_OFFSET + 10**6, MAX_SEED_OFFSET + 10**6 + 6):
        play(seed)


@pytest.mark.slow
def test_differential_random_games_every_ability_used():
    counter = AbilityCounter()
    first = seed_offset()
    plies = sum(play(seed, counter) for seed in range(first, first + GAMES))
    assert plies > GAMES * 20
    wanted = sorted(set(ACTIVE.values()) | set(SETUP.values()) | set(PASSIVE))
    print(f"\nability uses over {GAMES} games ({plies} plies):")
    for name in wanted:
        print(f"  {name:28s} {counter.counts[name]}")
    if GAMES >= 2_000:
        rare = {name: counter.counts[name] for name in wanted if counter.counts[name] < MINIMUM_USES}
        assert not rare, f"abilities used fewer than {MINIMUM_USES} times: {rare}"


if __name__ == "__main__":
    seed_arg = int(sys.argv[1])
    print(json.dumps({k: v for k, v in game_parameters(seed_arg).items() if k != "characters"}))
    params_arg = game_parameters(seed_arg)
    print(play_side_by_side(meeple.load("imperial_harvest", **params_arg),
                            meeple.reference.load("imperial_harvest", **params_arg), seed_arg, verbose=True,
                            chooser=chooser_for(seed_arg)))
