"""Differential harness: the C++ engine (`meeple.load`) and the pure-Python reference
(`meeple.reference.load`) play the same seeded random game side by side and must agree at every ply.

Actions come from the engine's legal actions, chosen with `random.Random(seed)` (at a chance node
an outcome drawn with the engine's probabilities); both states start from
`new_initial_state(seed=seed)`. At every ply: same current player, legal actions, `to_dict()`,
terminal flag, move number, name of the chosen action, chance outcomes; the observation of the
player to move at every decision node and at the first chance node (a run of chance nodes ends at a
decision node or at the end, whose observations show what it drew; computing the reference's
observation at every chance node too took half of the Harmonies runs); at the end: same returns and
every player's observation.

A mismatch raises `Mismatch` (an AssertionError) naming the game, parameters, seed and ply, the
action history as strings, both states and a command that replays the game:

    PYTHONPATH=python python tests/differential.py abacuachego '{"parity": "pit"}' 1234

The slow differential tests play fixed seeds. `MEEPLE_DIFFERENTIAL_SEED_OFFSET=k` moves every one of
them by k (`seed_offset()`), so that a long run (the nightly soak, .github/workflows/soak.yml) plays
games no earlier run played; a mismatch names the seed, which replays it.
"""
from __future__ import annotations

import json
import math
import os
import random
import sys
from typing import Any

import numpy as np


class Mismatch(AssertionError):
    pass


SEED_OFFSET_VARIABLE = "MEEPLE_DIFFERENTIAL_SEED_OFFSET"
MAX_SEED_OFFSET = 2**63  # far below the engine's largest seed (2**64 - 1) even with the seeds added


def seed_offset() -> int:
    """The amount every slow differential test moves its seeds by: $MEEPLE_DIFFERENTIAL_SEED_OFFSET, or 0."""
    text = os.environ.get(SEED_OFFSET_VARIABLE, "").strip()
    if not text:
        return 0
    try:
        offset = int(text)
    except ValueError:
        raise ValueError(f"{SEED_OFFSET_VARIABLE} must be an int in 0..{MAX_SEED_OFFSET}, got {text!r}") from None
    if not 0 <= offset <= MAX_SEED_OFFSET:
        raise ValueError(f"{SEED_OFFSET_VARIABLE} must be an int in 0..{MAX_SEED_OFFSET}, got {offset}")
    return offset


def _state_text(state) -> str:
    try:
        d = state.to_dict()
    except Exception as e:  # noqa: BLE001 - a report must not fail
        d = f"<to_dict() raised {type(e).__name__}: {e}>"
    try:
        board = str(state)
    except Exception as e:  # noqa: BLE001
        board = f"<str() raised {type(e).__name__}: {e}>"
    return f"to_dict(): {d}\n{board}"


def _history_text(engine_game, seed: int | None, actions: list[int], start=None) -> str:
    """The actions as strings, named by replaying them on the engine."""
    try:
        state = start.clone() if start is not None else engine_game.new_initial_state(seed=seed)
        names = []
        for a in actions:
            names.append(f"{'chance:' if state.is_chance_node() else ''}{state.action_to_string(a)}")
            state.apply_action(a)
        return " ".join(names) if names else "(none)"
    except Exception as e:  # noqa: BLE001
        return f"{actions} (naming them failed: {type(e).__name__}: {e})"


def _fail(what, engine_game, seed, ply, actions, engine_state, reference_state, start=None):
    params = engine_game.parameters()
    lines = [
        f"engine and reference disagree: {engine_game.name} {params}",
        f"  game seed {seed}, ply {ply}: {what}",
        f"  action history ({len(actions)}): {_history_text(engine_game, seed, actions, start)}",
        f"  action numbers: {actions}",
    ]
    if start is None:
        lines.append(f"  replay: PYTHONPATH=python python tests/differential.py {engine_game.name} "
                     f"'{json.dumps(params)}' {seed}")
    else:
        lines.append(f"  start state (to_dict): {start.to_dict()}")
    lines += ["--- engine state", _state_text(engine_state),
              "--- reference state", _state_text(reference_state)]
    raise Mismatch("\n".join(lines))


def _same_observation(engine_obs, reference_obs) -> bool:
    # A short observation compares fastest as Python floats. A long one compares as float32 (the
    # engine's type): making thousands of Python floats costs more than converting the reference's
    # list, and a Harmonies score / 100 is not exact in float32, so the first way would fail there.
    if engine_obs.size <= 64 and engine_obs.tolist() == reference_obs:
        return True
    reference = np.asarray(reference_obs, dtype=np.float32)
    return reference.shape == engine_obs.shape and bool((engine_obs == reference).all())


def _choose(engine_state, legal: list[int], rng: random.Random) -> int:
    if engine_state.is_chance_node():
        u = rng.random()
        outcomes = engine_state.chance_outcomes()
        for outcome, probability in outcomes:
            if u < probability:
                return int(outcome)
            u -= probability
        return int(outcomes[-1][0])
    return legal[rng.randrange(len(legal))]


def play_side_by_side(engine_game, reference_game, seed: int, *, engine_state=None,
                      reference_state=None, rng: random.Random | None = None,
                      max_actions: int | None = None, verbose: bool = False, chooser=None) -> int:
    """Plays one random game on both sides (from the given states, or from
    new_initial_state(seed=seed)); returns the number of actions played. Raises Mismatch.
    `chooser(engine_state, legal, rng) -> action` replaces the uniform choice at decision nodes
    (a biased policy reaches rare rules more often)."""
    start = None
    if engine_state is None:
        engine_state = engine_game.new_initial_state(seed=seed)
        reference_state = reference_game.new_initial_state(seed=seed)
    else:
        start = engine_state.clone()
    rng = rng if rng is not None else random.Random(seed)
    actions: list[int] = []
    e, r = engine_state, reference_state
    chance_observed = False  # the observation at a chance node has been compared once

    def fail(what):
        _fail(what, engine_game, seed, len(actions), actions, e, r, start)

    while True:
        try:
            player, ref_player = e.current_player(), r.current_player()
            if player != ref_player:
                fail(f"current player: engine {player}, reference {ref_player}")
            legal, ref_legal = e.legal_actions().tolist(), list(r.legal_actions())
            if legal != ref_legal:
                fail(f"legal actions:\n    engine    {legal}\n    reference {ref_legal}")
            chance = e.is_chance_node()
            if not chance or not chance_observed:
                chance_observed = chance_observed or chance
                obs, ref_obs = e.observation_tensor(), r.observation_tensor()
                if not _same_observation(obs, ref_obs):
                    fail(f"observation:\n    engine    {obs.tolist()}\n    reference {list(ref_obs)}")
            d, ref_d = e.to_dict(), r.to_dict()
            if d != ref_d:
                fail(f"to_dict():\n    engine    {d}\n    reference {ref_d}")
            terminal = e.is_terminal()
            if terminal != r.is_terminal() or e.move_number() != r.move_number():
                fail(f"is_terminal/move_number: engine {terminal}/{e.move_number()}, "
                     f"reference {r.is_terminal()}/{r.move_number()}")
            if chance != r.is_chance_node():
                fail(f"is_chance_node: engine {chance}, reference {r.is_chance_node()}")
            if chance:
                outcomes, ref_outcomes = e.chance_outcomes(), list(r.chance_outcomes())
                if [o for o, _ in outcomes] != [o for o, _ in ref_outcomes] or not all(
                        math.isclose(p, q, rel_tol=1e-9, abs_tol=1e-12)
                        for (_, p), (_, q) in zip(outcomes, ref_outcomes)):
                    fail(f"chance outcomes:\n    engine    {outcomes}\n    reference {ref_outcomes}")
            if terminal or (max_actions is not None and len(actions) >= max_actions):
                break
            action = (chooser(e, legal, rng) if chooser is not None and not chance
                      else _choose(e, legal, rng))
            if not chance:
                name, ref_name = e.action_to_string(action), r.action_to_string(action)
                if name != ref_name:
                    fail(f"action_to_string({action}): engine {name!r}, reference {ref_name!r}")
            if verbose:
                print(f"ply {len(actions)}: player {player} plays {action} "
                      f"({e.action_to_string(action)})\n{e}")
            e.apply_action(action)
            try:
                r.apply_action(action)
            except Exception as ex:  # noqa: BLE001
                actions.append(action)
                fail(f"reference rejected action {action}: {type(ex).__name__}: {ex}")
            actions.append(action)
        except Mismatch:
            raise
        except Exception as ex:  # noqa: BLE001 - any crash is reported with the game's context
            fail(f"{type(ex).__name__} while comparing: {ex}")

    if terminal:
        returns, ref_returns = e.returns().tolist(), list(r.returns())
        if len(returns) != len(ref_returns) or not all(
                math.isclose(a, b, abs_tol=1e-12) for a, b in zip(returns, ref_returns)):
            fail(f"returns: engine {returns}, reference {ref_returns}")
    for p in range(engine_game.num_players()):
        if not _same_observation(e.observation_tensor(p), r.observation_tensor(p)):
            fail(f"observation of player {p}: engine {e.observation_tensor(p).tolist()}, "
                 f"reference {list(r.observation_tensor(p))}")
    return len(actions)


def run_games(name: str, params: dict[str, Any], seeds) -> dict:
    """Plays every seed of `seeds`; returns {"games": n, "plies": total}. Raises Mismatch."""
    import meeple
    import meeple.reference

    engine_game = meeple.load(name, **params)
    reference_game = meeple.reference.load(name, **params)
    games = plies = 0
    for seed in seeds:
        plies += play_side_by_side(engine_game, reference_game, seed)
        games += 1
    return {"games": games, "plies": plies}


if __name__ == "__main__":  # replay one game verbosely
    import meeple
    import meeple.reference

    if len(sys.argv) != 4:
        sys.exit("usage: differential.py GAME 'PARAMS_JSON' SEED")
    game_name, params_json, game_seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    parameters = json.loads(params_json)
    plies = play_side_by_side(meeple.load(game_name, **parameters),
                              meeple.reference.load(game_name, **parameters), game_seed, verbose=True)
    print(f"agreed for {plies} plies")
