"""UCT written in Python over the protocol, its rollouts played in C++: a template for a search of
your own (another selection rule, progressive widening, a learned leaf value...).

Each simulation descends the tree from a copy of the root by UCB1, adds one child, and values the
new leaf with `meeple.random_playouts(game, rollouts, seed, state=leaf)`: whole random games in C++
from copies of the leaf, with the GIL released. The tree, the selection and the backup stay in
Python, where they are easy to change; the rollouts, which are most of the work, do not.

Chance: explicit chance nodes are sampled by their probabilities and are not tree nodes (the tree
is keyed by the players' actions). Implicit chance (Harmonies' default) is drawn from the state's
own generator, so each simulation reseeds its copy of the root (a determinisation, as
`meeple.bots.MCTS` does): the tree is then "open loop", its children keyed by action and only
those legal in the simulation's world taken. Works for every game and parameter set of the engine
(`meeple.load`; the rollouts run in C++, so not on `meeple.reference` states):

    python examples/python_uct.py abacuachego --simulations 200 --games 4
    PYTHONPATH=. meeple play harmonies --bot examples.python_uct:PythonUCT
"""
from __future__ import annotations

import argparse
import math
import random

import meeple
from meeple.bots import BaseBot, Random, derive_seed, play_game, sample_chance


class Node:
    """Statistics of one action sequence from the root: visits and the summed returns of each
    player, and the children by action."""

    def __init__(self, num_players: int):
        self.visits = 0
        self.totals = [0.0] * num_players
        self.children: dict[int, Node] = {}

    def ucb(self, child: Node, player: int, c: float) -> float:
        if child.visits == 0:
            return math.inf
        return child.totals[player] / child.visits + c * math.sqrt(math.log(self.visits) / child.visits)


def resolve_chance(state: meeple.State, rng: random.Random) -> None:
    while state.is_chance_node():
        state.apply_action(sample_chance(state, rng))


def search(root: meeple.State, simulations: int, rollouts: int = 4, c: float = 1.4, seed: int = 0) -> Node:
    """The tree of `simulations` simulations from `root` (a decision node of a game not over)."""
    game = root.game
    rng = random.Random(seed)
    tree = Node(game.num_players())
    scale = (game.max_utility() - game.min_utility()) / 2 or 1.0  # UCB1's c is for returns in -1..1
    for simulation in range(simulations):
        state = root.clone()
        state.reseed(derive_seed(seed, simulation))  # no effect without implicit chance
        path, node = [tree], tree
        while not state.is_terminal():
            player = state.current_player()
            legal = [int(a) for a in state.legal_actions()]
            untried = [a for a in legal if a not in node.children]
            if untried:  # expand one child, then roll out from it
                action = rng.choice(untried)
                node.children[action] = Node(game.num_players())
                state.apply_action(action)
                resolve_chance(state, rng)
                path.append(node.children[action])
                break
            action = max(legal, key=lambda a: node.ucb(node.children[a], player, c * scale))
            node = node.children[action]
            state.apply_action(action)
            resolve_chance(state, rng)
            path.append(node)
        if state.is_terminal():
            values = [float(r) for r in state.returns()]
        else:
            playouts = meeple.random_playouts(game, rollouts, seed=rng.getrandbits(64), state=state)
            values = playouts.returns.mean(axis=0).tolist()
        # Every node sums each player's returns; selection reads those of the player choosing.
        for node in path:
            node.visits += 1
            for p, value in enumerate(values):
                node.totals[p] += value
    return tree


class PythonUCT(BaseBot):
    """Plays the most visited root action of `search` (the lowest action on ties)."""

    def __init__(self, game: meeple.Game, seed: int | None = None, simulations: int = 200, rollouts: int = 4):
        if simulations < 1 or rollouts < 1:
            raise ValueError(f"simulations and rollouts must be >= 1, got {simulations} and {rollouts}")
        self.simulations, self.rollouts = simulations, rollouts
        self._seed = seed or 0
        self._searches = 0

    def step(self, state: meeple.State) -> int:
        self._searches += 1  # a fresh seed for every search, fixed by the bot's seed
        tree = search(state, self.simulations, self.rollouts, seed=derive_seed(self._seed, self._searches))
        return max(tree.children, key=lambda action: (tree.children[action].visits, -action))


def main() -> None:
    parser = argparse.ArgumentParser(description="UCT in Python, rollouts in C++, against the random bot")
    parser.add_argument("game", nargs="?", default="abacuachego", help="a game string, as `meeple list` shows")
    parser.add_argument("--simulations", type=int, default=200, help="simulations per move")
    parser.add_argument("--rollouts", type=int, default=4, help="random games in C++ per new leaf")
    parser.add_argument("--games", type=int, default=4, help="games against the random bot (seats alternate)")
    args = parser.parse_args()
    game = meeple.load(args.game)
    score = 0.0
    for i in range(args.games):
        seat = i % game.num_players()
        bots: list[BaseBot] = [Random(seed=i * 10 + p) for p in range(game.num_players())]
        bots[seat] = PythonUCT(game, seed=i, simulations=args.simulations, rollouts=args.rollouts)
        record = play_game(game, bots, seed=i)
        assert record.returns is not None
        score += record.returns[seat]
    print(f"Python UCT ({args.simulations} simulations, {args.rollouts} rollouts each) vs random in {args.game}: "
          f"mean return {score / args.games:+.2f} over {args.games} games")


if __name__ == "__main__":
    main()
