"""Learning a policy from search, the AlphaZero way in miniature: MCTS plays itself with its
searches recorded, `meeple.selfplay.training_examples` turns the records into arrays, and a
softmax-linear policy (numpy only) is fitted to the searches' visit shares over legal actions.

The learned policy then plays without search (the legal action with the highest logit) against
the random bot, and its first choice is compared with MCTS's on positions of games it did not
see, next to two baselines: always the first legal action, and a fixed preference per action
fitted without looking at the position. Any game works; a linear policy on the raw observation is
only the smallest model that shows the pipeline:

    python examples/policy_from_search.py abacuachego --games 200 --simulations 200
"""
from __future__ import annotations

import argparse
import io

import numpy as np

import meeple
from meeple import selfplay
from meeple.bots import BaseBot, Match


def self_play_examples(game: meeple.Game, games: int, simulations: int, seed: int, workers: int = 1):
    """Arrays of `training_examples` from `games` games of MCTS against itself."""
    match = Match(game, (f"mcts:{simulations}",) * game.num_players(), seed=seed, policies=True)
    out = io.StringIO()  # one JSON record per line
    selfplay.run(match, games, out=out, workers=workers)
    return selfplay.training_examples(meeple.Record.from_json(line) for line in out.getvalue().splitlines())

def masked_log_softmax(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """log p over the legal actions of each row (-inf elsewhere)."""
    logits = np.where(masks > 0, logits, -np.inf)
    logits = logits - logits.max(axis=1, keepdims=True)
    return logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))


def fit_policy(data: dict, epochs: int = 300, learning_rate: float = 0.5, l2: float = 1e-4,
               use_observations: bool = True):
    """Weights (W, b) of logits = x W + b, fitted by full-batch gradient descent on the cross
    entropy between the search's visit shares and the masked softmax. Without
    `use_observations`, W stays 0: a fixed preference per action, the baseline to beat."""
    x, targets, masks = data["observations"], data["policies"], data["masks"]
    if not use_observations:
        x = np.zeros_like(x)
    mean, scale = x.mean(axis=0), x.std(axis=0) + 1e-6  # standardised inputs
    z = (x - mean) / scale
    weights = np.zeros((x.shape[1], targets.shape[1]))
    bias = np.zeros(targets.shape[1])
    for _ in range(epochs):
        p = np.exp(masked_log_softmax(z @ weights + bias, masks))
        gradient = (p - targets) / len(z)  # of the mean cross entropy, per logit
        if use_observations:
            weights -= learning_rate * (z.T @ gradient + l2 * weights)
        bias -= learning_rate * gradient.sum(axis=0)
    return weights / scale[:, None], bias - (mean / scale) @ weights


def cross_entropy(data: dict, weights: np.ndarray, bias: np.ndarray) -> float:
    log_p = masked_log_softmax(data["observations"] @ weights + bias, data["masks"])
    return float(-(data["policies"] * np.where(data["masks"] > 0, log_p, 0)).sum(axis=1).mean())


def top_move_agreement(data: dict, weights: np.ndarray, bias: np.ndarray) -> float:
    """How often the policy's first choice is the search's most visited action."""
    chosen = masked_log_softmax(data["observations"] @ weights + bias, data["masks"]).argmax(axis=1)
    return float((chosen == data["policies"].argmax(axis=1)).mean())


class LinearPolicy(BaseBot):
    """Plays the legal action with the highest logit: no search."""

    def __init__(self, weights: np.ndarray, bias: np.ndarray):
        self.weights, self.bias = weights, bias

    def step(self, state: meeple.State) -> int:
        logits = state.observation_tensor().reshape(-1) @ self.weights + self.bias
        legal = state.legal_actions()
        return int(legal[np.argmax(logits[legal])])


def score_against_random(game: meeple.Game, bot: BaseBot, games: int, seed: int) -> float:
    """The bot's mean return against the random bot, seats alternating."""
    total = 0.0
    for i in range(games):
        seat = i % game.num_players()
        bots: list[BaseBot] = [meeple.bots.Random(seed=seed + 1000 * i + p) for p in range(game.num_players())]
        bots[seat] = bot
        returns = meeple.bots.play_game(game, bots, seed=seed + i).returns
        assert returns is not None  # play_game plays to the end
        total += returns[seat]
    return total / games


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", nargs="?", default="abacuachego")
    parser.add_argument("--games", type=int, default=200, help="self-play games to learn from")
    parser.add_argument("--simulations", type=int, default=200, help="MCTS simulations per move")
    parser.add_argument("--evaluate", type=int, default=100, help="games against the random bot")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    game = meeple.load(args.game)
    train = self_play_examples(game, args.games, args.simulations, args.seed, args.workers)
    test = self_play_examples(game, max(4, args.games // 4), args.simulations, args.seed + 1, args.workers)
    policies = {"uniform (plays 1st legal)": (np.zeros((train["observations"].shape[1], game.num_distinct_actions())),
                                       np.zeros(game.num_distinct_actions())),
                "a preference per action": fit_policy(train, use_observations=False),
                "learned (linear)": fit_policy(train)}
    print(f"{args.game}: learned from {len(train['actions'])} positions searched with {args.simulations} "
          f"simulations; {len(test['actions'])} held out")
    print(f"{'policy (no search)':>25}  cross entropy  first choice = MCTS's  vs random ({args.evaluate} games)")
    for name, (weights, bias) in policies.items():
        score = score_against_random(game, LinearPolicy(weights, bias), args.evaluate, args.seed)
        print(f"{name:>25}  {cross_entropy(test, weights, bias):13.3f}  "
              f"{100 * top_move_agreement(test, weights, bias):20.0f}%  {score:+19.2f}")

if __name__ == "__main__":
    main()
