"""Alpha-beta search written against the meeple protocol, as a bot for `meeple play`/`selfplay`.

Negamax with alpha-beta pruning over `child()` (clone and apply in one call), for any two-player
game without chance; the evaluation is Abacuachego's store difference (from `to_dict()`), the
search's own choice for other games is left to you. Run it against the random bot and the C++ MCTS bot:

    python examples/alpha_beta.py --depth 4 --games 10

or plug it in by its import path (the repository root on PYTHONPATH):

    PYTHONPATH=. meeple play abacuachego --bot examples.alpha_beta:AlphaBeta
    PYTHONPATH=. meeple selfplay abacuachego --games 20 --bots examples.alpha_beta:AlphaBeta,random
"""
from __future__ import annotations

import argparse
import math
import random

import meeple
from meeple.bots import MCTS, BaseBot, Random, play_game


def store_difference(state: meeple.State, player: int) -> float:
    """Abacuachego: grains in `player`'s store minus the opponent's; the result when it is over."""
    if state.is_terminal():
        return 1000.0 * float(state.returns()[player])
    stores = state.to_dict()["stores"]
    return float(stores[player] - stores[1 - player])


def child_value(state: meeple.State, action: int, player: int, depth: int, alpha: float, beta: float) -> float:
    """The value for `player` (to move in `state`) of playing `action`, searched `depth` plies on."""
    child = state.child(action)
    if child.is_terminal() or depth == 0:
        return store_difference(child, player)
    # A last grain sown into the mover's own store gives another turn (Abacuachego rule 8): ask who
    # moves next rather than assume that the players alternate.
    if child.current_player() == player:
        return negamax(child, depth, alpha, beta)
    return -negamax(child, depth, -beta, -alpha)


def negamax(state: meeple.State, depth: int, alpha: float, beta: float) -> float:
    """The value of `state` (not over) for the player to move, searched `depth` plies deep."""
    player = state.current_player()
    best = -math.inf
    for action in state.legal_actions():
        best = max(best, child_value(state, int(action), player, depth - 1, alpha, beta))
        alpha = max(alpha, best)
        if alpha >= beta:
            break
    return best


class AlphaBeta(BaseBot):
    """Plays the action of best negamax value (ties broken at random, seeded)."""

    def __init__(self, game: meeple.Game, seed: int | None = None, depth: int = 4):
        if game.num_players() != 2 or game.max_chance_outcomes() != 0:
            raise ValueError("this alpha-beta searches two-player games without chance")
        self.depth = depth
        self._rng = random.Random(seed)

    def step(self, state: meeple.State) -> int:
        player = state.current_player()
        scored = [(child_value(state, int(a), player, self.depth - 1, -math.inf, math.inf), self._rng.random(), int(a))
                  for a in state.legal_actions()]
        return max(scored)[2]  # the best value; among equals, the largest random tie-breaker


def main() -> None:
    parser = argparse.ArgumentParser(description="alpha-beta against the random and MCTS bots")
    parser.add_argument("--depth", type=int, default=4)
    parser.add_argument("--games", type=int, default=10, help="games against each opponent (seats alternate)")
    parser.add_argument("--mcts", type=int, default=300, help="simulations of the MCTS opponent")
    args = parser.parse_args()
    game = meeple.load("abacuachego")
    for name, make in (("random", lambda seed: Random(seed)),
                       (f"mcts:{args.mcts}", lambda seed: MCTS(game, simulations=args.mcts, seed=seed))):
        score = 0.0
        for i in range(args.games):
            seat = i % 2  # alpha-beta moves first in even games
            bots = [AlphaBeta(game, seed=i, depth=args.depth), make(i)]
            record = play_game(game, bots if seat == 0 else bots[::-1], seed=i)
            assert record.returns is not None
            score += record.returns[seat]
        print(f"alpha-beta depth {args.depth} vs {name}: {score:+.0f} over {args.games} games "
              f"(+1 a win, -1 a loss)")


if __name__ == "__main__":
    main()
