"""Flat Monte Carlo with batched rollouts: every legal move is scored by random games played to the
end in C++, many at once, from positions put into a `meeple.VectorGame` with `set_state`.

For each legal action of the position, `rollouts` copies of the position after it are loaded into
the slots; then all slots take random steps together (GIL released, `threads` threads) until each
slot's game has ended once (its later games are not counted). The action whose games gave the
player to move the best mean return is played. Works for every game and parameter set:

    python examples/flat_monte_carlo.py harmonies --rollouts 64 --games 4
    PYTHONPATH=. meeple play harmonies --bot examples.flat_monte_carlo:FlatMonteCarlo
"""
from __future__ import annotations

import argparse

import numpy as np

import meeple
from meeple.bots import BaseBot, Random, derive_seed, play_game


def rollout_values(state: meeple.State, rollouts: int, seed: int = 0, threads: int = 1) -> dict[int, float]:
    """The mean return, for the player to move in `state`, of `rollouts` random games after each
    legal action."""
    game, player = state.game, state.current_player()
    actions = [int(a) for a in state.legal_actions()]
    vec = meeple.VectorGame(game, len(actions) * rollouts, seed=seed, threads=threads,
                            observations=False, masks=False)  # random steps need neither
    returns = np.zeros(len(vec))
    pending = np.ones(len(vec), dtype=bool)  # slots whose loaded game has not ended yet
    for k, action in enumerate(actions):
        for slot in range(k * rollouts, (k + 1) * rollouts):
            # Each rollout draws a future of its own: with implicit chance (Harmonies) the state's
            # generator would otherwise give every rollout the draws the real game will make.
            world = state.clone()
            world.reseed(derive_seed(seed, slot))
            world.apply_action(action)
            if world.is_terminal():  # nothing to play: the result is known
                returns[slot], pending[slot] = world.returns()[player], False
            else:
                vec.set_state(slot, world)
    while pending.any():
        rewards, terminated = vec.step(vec.random_actions())
        ended = pending & terminated
        returns[ended] = rewards[ended, player]
        pending &= ~terminated
    means = returns.reshape(len(actions), rollouts).mean(axis=1)
    return dict(zip(actions, means.tolist()))


class FlatMonteCarlo(BaseBot):
    """Plays the legal action with the best mean rollout return (the lowest action on ties)."""

    def __init__(self, game: meeple.Game, seed: int | None = None, rollouts: int = 32, threads: int = 1):
        self.rollouts, self.threads = rollouts, threads
        self._seed = seed or 0
        self._searches = 0

    def step(self, state: meeple.State) -> int:
        self._searches += 1  # a fresh seed for every search, fixed by the bot's seed
        values = rollout_values(state, self.rollouts, seed=derive_seed(self._seed, self._searches),
                                threads=self.threads)
        return max(values, key=lambda action: (values[action], -action))


def main() -> None:
    parser = argparse.ArgumentParser(description="flat Monte Carlo (batched rollouts) against the random bot")
    parser.add_argument("game", nargs="?", default="harmonies", help="a game string, as `meeple list` shows")
    parser.add_argument("--rollouts", type=int, default=32, help="random games per legal action")
    parser.add_argument("--games", type=int, default=4, help="games against the random bot (seats alternate)")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    game = meeple.load(args.game)
    score = 0.0
    for i in range(args.games):
        seat = i % game.num_players()
        bots: list[BaseBot] = [Random(seed=i * 10 + p) for p in range(game.num_players())]
        bots[seat] = FlatMonteCarlo(game, seed=i, rollouts=args.rollouts, threads=args.threads)
        record = play_game(game, bots, seed=i)
        assert record.returns is not None
        score += record.returns[seat]
    print(f"flat Monte Carlo ({args.rollouts} rollouts per move) vs random in {args.game}: "
          f"mean return {score / args.games:+.2f} over {args.games} games")


if __name__ == "__main__":
    main()
