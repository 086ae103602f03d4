"""Golden playthroughs: one seeded random game per file in tests/playthroughs/, written out move by
move (the board as `str(state)` draws it, each player's observation, the legal actions or chance
outcomes with their names, the action taken, the returns at the end). `test_playthroughs.py`
plays each game again and wants the same text, so any change to rules, action names, boards,
observations or seeding shows up as a readable diff. After an intended change:

    python tests/playthrough.py --update      # rewrites every file in tests/playthroughs/
    python tests/playthrough.py GAME SEED     # prints one playthrough (GAME as in `meeple list`)
"""
from __future__ import annotations

import argparse
import hashlib
import random
import sys
from pathlib import Path

import meeple
from games import choose_random

DIRECTORY = Path(__file__).resolve().parent / "playthroughs"
# file stem -> (game string, seed): a game of each kind, chance explicit where it has chance.
PLAYTHROUGHS = {
    "abacuachego": ("abacuachego", 1),
    "harmonies_explicit": ("harmonies(chance=explicit)", 1),
    "harmonies_solo_side_b_spirits": ("harmonies(players=1,side=B,spirits=true,chance=explicit)", 1),
    "imperial_harvest": ("imperial_harvest", 1),
    "imperial_harvest_draft_interactive_random_board":
        ("imperial_harvest(teams=draft,setup=interactive,board=random)", 1),
}
SMALL_OBSERVATION = 64  # floats: written out in full; larger ones as counts and a hash


def _observation(state, player: int) -> str:
    obs = state.observation_tensor(player)
    if obs.size <= SMALL_OBSERVATION:
        return "[" + " ".join(f"{v:g}" for v in obs.tolist()) + "]"
    digest = hashlib.sha256(obs.astype("<f4").tobytes()).hexdigest()[:16]
    return f"{obs.size} floats, {int((obs != 0).sum())} nonzero, sha256 {digest}"


def playthrough(game_string: str, seed: int) -> str:
    """The playthrough text of the game `game_string` (as `meeple.load` reads it) from
    `new_initial_state(seed=seed)`, actions chosen by `choose_random` with `random.Random(seed)`."""
    game = meeple.load(game_string)
    state = game.new_initial_state(seed=seed)
    rng = random.Random(seed)
    lines = [
        f"# meeple golden playthrough (regenerate: python tests/playthrough.py --update)",
        f"game: {game_string}",
        f"seed: {seed}",
        f"loaded: {game!r}",
        f"num_players {game.num_players()}, num_distinct_actions {game.num_distinct_actions()}, "
        f"max_chance_outcomes {game.max_chance_outcomes()}, observation_shape {game.observation_shape()}, "
        f"max_game_length {game.max_game_length()}",
        "actions: random.Random(seed), uniform over the legal actions; chance outcomes by probability",
    ]
    while True:
        who = state.current_player()
        kind = "chance" if who == meeple.CHANCE else "over" if who == meeple.TERMINAL else f"player {who}"
        lines += ["", f"## move {state.move_number()}: {kind}"]
        lines += ["    " + line for line in str(state).rstrip("\n").split("\n")]
        lines += [f"observation {p}: {_observation(state, p)}" for p in range(game.num_players())]
        if state.is_terminal():
            lines.append(f"returns: {' '.join(f'{r:g}' for r in state.returns().tolist())}")
            return "\n".join(lines) + "\n"
        if state.is_chance_node():
            lines.append("chance outcomes: " + ", ".join(
                f"{o} {state.action_to_string(o)} ({p:.6g})" for o, p in state.chance_outcomes()))
        else:
            legal = state.legal_actions().tolist()
            lines.append(f"legal ({len(legal)}): " + ", ".join(f"{a} {state.action_to_string(a)}" for a in legal))
        action = choose_random(state, rng)
        lines.append(f"action: {action} {state.action_to_string(action)}")
        state.apply_action(action)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--update", action="store_true", help="rewrite every file in tests/playthroughs/")
    parser.add_argument("game", nargs="?", help="a game string, e.g. 'harmonies(players=3)'")
    parser.add_argument("seed", nargs="?", type=int, default=0)
    args = parser.parse_args(argv)
    if args.update:
        DIRECTORY.mkdir(exist_ok=True)
        for stem, (game_string, seed) in PLAYTHROUGHS.items():
            path = DIRECTORY / f"{stem}.txt"
            path.write_text(playthrough(game_string, seed), encoding="utf-8", newline="\n")
            print(f"wrote {path}")
        return 0
    if not args.game:
        parser.error("give --update, or a game (and a seed)")
    sys.stdout.write(playthrough(args.game, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
