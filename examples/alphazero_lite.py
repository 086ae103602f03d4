"""AlphaZero in miniature, numpy only: a small network guides MCTS in self-play, learns from those
searches, and guides the next round's searches better.

Each iteration:

1. Self-play: `--games` games are played at once. Every move, the roots of all unfinished games go
   to one `MCTS.search_many` call, whose searches share the network: each evaluator call values
   the new leaves of every tree together (`batch=B` leaves per tree), so the network sees lists of
   hundreds of states, not one. Dirichlet noise on the root priors and moves drawn from the visit
   shares for the first `--sampled-plies` plies vary the games; later the most visited move is
   played. Each position keeps its observation, legal mask, visit shares and mover; each game's
   final returns become the value targets.
2. Training: a one-hidden-layer tanh network with a policy head (a softmax over the legal actions)
   and a value head (every player's return, seats counted from the mover: for two players the
   mover's v and the opponent's, which it learns to be -v) is fitted to the positions of the last
   few iterations by minibatch gradient descent on policy cross-entropy plus value squared error,
   the gradients written out by hand.
3. Evaluation, the learner in every seat in turn: the network alone (its most likely legal move,
   no search) against `meeple.bots.Random`, and the network guiding MCTS (no noise) against
   `Random` and against plain MCTS, whose random rollouts the network's values replace.

The untrained network (policy head and value head zero: uniform priors, no opinion on values)
is evaluated the same way first, so the table shows what learning added. The policy loss is a
cross-entropy to the visit shares, which never falls below their own entropy (about 1.8 here):
it falls slowly while the play improves fast. Any game works in principle (the network is sized
from the game); on Abacuachego the defaults take about half a minute:

    python examples/alphazero_lite.py abacuachego --iterations 8 --games 64 --simulations 64
"""
from __future__ import annotations

import argparse
import dataclasses
import time
from collections.abc import Callable, Sequence

import numpy as np

import meeple
from meeple.bots import MCTS, Random, derive_seed

Chooser = Callable[[list[meeple.State]], Sequence[int]]  # the learner's moves for a list of states


@dataclasses.dataclass
class Network:
    """observation -> tanh hidden layer -> policy logits over every action id, and tanh values: one
    per player, entry k for the player k seats after the mover. Inputs are standardised (`mean`,
    `scale`) so that one learning rate suits any game's observation."""

    mean: np.ndarray  # (observation size,)
    scale: np.ndarray
    hidden_weights: np.ndarray  # (observation size, hidden)
    hidden_bias: np.ndarray
    policy_weights: np.ndarray  # (hidden, actions)
    policy_bias: np.ndarray
    value_weights: np.ndarray  # (hidden, players)
    value_bias: np.ndarray

    def forward(self, observations: np.ndarray, masks: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Hidden activations, the policy (0 on illegal actions) and the values by seat from the mover."""
        hidden = np.tanh((observations - self.mean) / self.scale @ self.hidden_weights + self.hidden_bias)
        logits = np.where(masks > 0, hidden @ self.policy_weights + self.policy_bias, -np.inf)
        policy = np.exp(logits - logits.max(axis=1, keepdims=True))
        policy /= policy.sum(axis=1, keepdims=True)
        return hidden, policy, np.tanh(hidden @ self.value_weights + self.value_bias)

    def evaluate_batch(self, states: Sequence[meeple.State]) -> tuple[np.ndarray, np.ndarray]:
        """MCTS's evaluator with `batch=`: priors (len(states), actions) and values by seat
        (len(states), players), each row's values turned from the mover's view to the seats'."""
        observations = np.stack([state.observation_tensor() for state in states])
        masks = np.stack([state.legal_actions_mask() for state in states])
        _, priors, from_mover = self.forward(observations, masks)
        players = from_mover.shape[1]
        movers = np.array([state.current_player() for state in states])
        seats = (movers[:, None] + np.arange(players)) % players  # seat of the player k after the mover
        values = np.empty_like(from_mover)
        values[np.arange(len(states))[:, None], seats] = from_mover
        return priors, values


def untrained_network(game: meeple.Game, hidden: int, seed: int) -> Network:
    """Random hidden weights and zero heads: uniform priors over the legal actions and values 0, so
    the search guided by it knows only the rules. The input standardising comes from random games."""
    vec = meeple.VectorGame(game, 64, seed=seed)
    seen = []
    for _ in range(100):
        seen.append(vec.observations.copy())
        vec.step(vec.random_actions())
    observations = np.concatenate(seen)
    inputs, actions, players = observations.shape[1], game.num_distinct_actions(), game.num_players()
    rng = np.random.default_rng(seed)
    return Network(observations.mean(axis=0), observations.std(axis=0) + 1e-3,
                   rng.normal(0, 1 / np.sqrt(inputs), (inputs, hidden)), np.zeros(hidden),
                   np.zeros((hidden, actions)), np.zeros(actions), np.zeros((hidden, players)), np.zeros(players))


@dataclasses.dataclass
class Examples:
    """Positions to learn from, one row each; `values` by seat counted from the mover, as the network's."""

    observations: np.ndarray
    masks: np.ndarray
    policies: np.ndarray  # the search's visit shares
    values: np.ndarray

    def __len__(self) -> int:
        return len(self.observations)

    def rows(self, indices: np.ndarray) -> Examples:
        return Examples(self.observations[indices], self.masks[indices], self.policies[indices], self.values[indices])

    @staticmethod
    def concatenate(parts: Sequence[Examples]) -> Examples:
        return Examples(*(np.concatenate([getattr(part, field.name) for part in parts])
                          for field in dataclasses.fields(Examples)))


def self_play(game: meeple.Game, network: Network, games: int, simulations: int, batch: int, sampled_plies: int,
              dirichlet_alpha: float, seed: int) -> tuple[Examples, list[meeple.Record]]:
    """`games` games of the network-guided search against itself, all searched together: one
    `search_many` call per move of all unfinished games. Returns their positions, game after game,
    and the games as Records (each replays from its seed and actions)."""
    # No reuse_tree: a kept subtree's visits were gathered without its new root's noise, and policy
    # targets from them learnt less in two trials (seeds 0 and 1, defaults otherwise: after 8
    # iterations the network alone won 0.63 and 0.93 against random, against 0.86 and 0.95 afresh).
    bot = MCTS(game, simulations=simulations, evaluator=network.evaluate_batch, batch=batch,
               dirichlet_alpha=dirichlet_alpha, seed=seed)
    rng = np.random.default_rng(seed)
    records = [meeple.Record(game.name, game.parameters(), seed=derive_seed(seed, i)) for i in range(games)]
    states = [game.new_initial_state(seed=record.seed) for record in records]
    # Per game: (observation, mask, visit shares, mover) of each position searched.
    histories: list[list[tuple[np.ndarray, np.ndarray, np.ndarray, int]]] = [[] for _ in range(games)]
    while playing := [i for i, state in enumerate(states) if not state.is_terminal()]:
        roots = [states[i] for i in playing]
        for i, root, result in zip(playing, roots, bot.search_many(roots)):
            histories[i].append((root.observation_tensor(), root.legal_actions_mask(), result.policy(),
                                 root.current_player()))
            if root.move_number() < sampled_plies:  # temperature 1: a move in proportion to its visits
                actions, visits = zip(*result.visits.items())
                action = int(rng.choice(actions, p=np.array(visits) / sum(visits)))
            else:
                action = result.action
            root.apply_action(action)
            records[i].actions.append(action)
    for record, state in zip(records, states):
        record.returns = state.returns().tolist()
    rows = [(observation, mask, policy, np.roll(state.returns(), -mover))  # returns by seat from the mover
            for state, history in zip(states, histories) for observation, mask, policy, mover in history]
    return Examples(*(np.stack(column) for column in zip(*rows))), records


def gradients(network: Network, examples: Examples) -> dict[str, np.ndarray]:
    """The gradient of the two `losses` summed, by the name of each weight array of the network."""
    inputs = (examples.observations - network.mean) / network.scale
    hidden, policy, values = network.forward(examples.observations, examples.masks)
    # Of the mean loss: by each policy logit (softmax cross-entropy), by each value before its tanh,
    # then by each hidden unit before its tanh.
    policy_gradient = (policy - examples.policies) / len(examples)
    value_gradient = 2 * (values - examples.values) * (1 - values**2) / len(examples)
    hidden_gradient = ((policy_gradient @ network.policy_weights.T + value_gradient @ network.value_weights.T)
                       * (1 - hidden**2))
    return {"hidden_weights": inputs.T @ hidden_gradient, "hidden_bias": hidden_gradient.sum(axis=0),
            "policy_weights": hidden.T @ policy_gradient, "policy_bias": policy_gradient.sum(axis=0),
            "value_weights": hidden.T @ value_gradient, "value_bias": value_gradient.sum(axis=0)}


def train(network: Network, examples: Examples, epochs: int, learning_rate: float, seed: int,
          minibatch: int = 128) -> tuple[float, float]:
    """Minibatch gradient descent on the mean policy cross-entropy plus the mean squared value
    error; returns the `losses` over all the examples after training."""
    rng = np.random.default_rng(seed)
    for epoch in range(epochs):
        # A step size falling to 0 by the last epoch: the network ends where the noise of minibatches has died down.
        step_size = learning_rate * (1 - epoch / epochs)
        order = rng.permutation(len(examples))
        for start in range(0, len(order), minibatch):
            for name, gradient in gradients(network, examples.rows(order[start:start + minibatch])).items():
                weights = getattr(network, name)
                weights -= step_size * gradient  # in place: the network's own array
    return losses(network, examples)


def losses(network: Network, examples: Examples) -> tuple[float, float]:
    """(policy cross-entropy, value squared error summed over the players), means over the examples."""
    _, policy, values = network.forward(examples.observations, examples.masks)
    log_policy = np.log(np.where(examples.masks > 0, policy, 1.0))  # 0 where illegal: the targets are 0 there
    cross_entropy = -(examples.policies * log_policy).sum(axis=1).mean()
    return float(cross_entropy), float(((values - examples.values) ** 2).sum(axis=1).mean())


def greedy_network(network: Network) -> Chooser:
    """The network alone: its most likely legal move, no search."""
    return lambda states: network.evaluate_batch(states)[0].argmax(axis=1).tolist()


def guided_search(game: meeple.Game, network: Network, simulations: int, batch: int, seed: int) -> Chooser:
    """MCTS guided by the network, no noise: the most visited move, all states searched together."""
    bot = MCTS(game, simulations=simulations, evaluator=network.evaluate_batch, batch=batch, seed=seed)
    return lambda states: [result.action for result in bot.search_many(states)]


def rollout_search(game: meeple.Game, simulations: int, seed: int) -> Chooser:
    """Plain MCTS, random rollouts in place of the network: what the learnt evaluator has to beat."""
    bot = MCTS(game, simulations=simulations, seed=seed)
    return lambda states: [result.action for result in bot.search_many(states)]


def random_player(seed: int) -> Chooser:
    """`meeple.bots.Random`, one move for each state."""
    bot = Random(seed=seed)
    return lambda states: [bot.step(state) for state in states]


def win_rate(game: meeple.Game, learner: Chooser, opponent: Chooser, games: int, seed: int) -> float:
    """How often the learner wins (a return above every other player's) against the opponent in the
    other seats, in `games` games played together, game i with the learner in seat i mod players."""
    players = game.num_players()
    states = [game.new_initial_state(seed=derive_seed(seed, i)) for i in range(games)]
    learner_seat = [i % players for i in range(games)]
    while playing := [i for i, state in enumerate(states) if not state.is_terminal()]:
        learner_moves = [i for i in playing if states[i].current_player() == learner_seat[i]]
        opponent_moves = [i for i in playing if states[i].current_player() != learner_seat[i]]
        for movers, choose in ((learner_moves, learner), (opponent_moves, opponent)):
            if movers:  # a network cannot stack an empty list
                for i, action in zip(movers, choose([states[i] for i in movers])):
                    states[i].apply_action(int(action))
    wins = sum(state.returns()[seat] > np.delete(state.returns(), seat).max()
               for state, seat in zip(states, learner_seat))
    return float(wins / games)


@dataclasses.dataclass
class Iteration:
    """One row of the table: the network after `index` iterations (0: untrained), its losses on
    what it learnt from and its win rates."""

    index: int
    positions: int = 0  # learnt from: this iteration's self-play positions and those kept from before
    plies_per_game: float = float("nan")  # in this iteration's self-play
    policy_loss: float = float("nan")
    value_loss: float = float("nan")
    network_vs_random: float = 0.0
    search_vs_random: float = 0.0
    search_vs_rollouts: float = 0.0
    seconds: float = 0.0


def evaluate(game: meeple.Game, network: Network, simulations: int, batch: int, games: int, seed: int
             ) -> tuple[float, float, float]:
    """Win rates over `games` games: the network alone against the random bot, the network guiding
    MCTS against the random bot, and against plain MCTS with as many simulations."""
    search = guided_search(game, network, simulations, batch, derive_seed(seed, 1))
    return (win_rate(game, greedy_network(network), random_player(derive_seed(seed, 2)), games, seed),
            win_rate(game, search, random_player(derive_seed(seed, 2)), games, seed),
            win_rate(game, search, rollout_search(game, simulations, derive_seed(seed, 3)), games, seed))


def alphazero(game: meeple.Game, iterations: int = 8, games: int = 64, simulations: int = 64, batch: int = 8,
              sampled_plies: int = 12, dirichlet_alpha: float = 1.0, hidden: int = 64, window: int = 3,
              epochs: int = 20, learning_rate: float = 0.05, evaluation_games: int = 200, seed: int = 0,
              report: Callable[[Iteration], None] = lambda row: None) -> tuple[Network, list[Iteration]]:
    """The loop: evaluate the untrained network, then `iterations` times self-play, train (on the
    positions of the last `window` iterations), evaluate. Every row goes to `report` as it is done."""
    network = untrained_network(game, hidden, seed)
    recent: list[Examples] = []  # the self-play positions of the last `window` iterations
    rows = []
    for index in range(iterations + 1):
        start = time.perf_counter()
        row = Iteration(index)
        if index > 0:
            new_examples, records = self_play(game, network, games, simulations, batch, sampled_plies,
                                              dirichlet_alpha, derive_seed(seed, index, 0))
            recent = recent[len(recent) + 1 - window:] + [new_examples]
            examples = Examples.concatenate(recent)
            row.plies_per_game = float(np.mean([len(record.actions) for record in records]))
            row.positions = len(examples)
            row.policy_loss, row.value_loss = train(network, examples, epochs, learning_rate,
                                                    derive_seed(seed, index, 1))
        # The same games and opponents every iteration (derive_seed(seed, 0)): the rows differ only by the network.
        row.network_vs_random, row.search_vs_random, row.search_vs_rollouts = evaluate(
            game, network, simulations, batch, evaluation_games, derive_seed(seed, 0))
        row.seconds = time.perf_counter() - start
        report(row)
        rows.append(row)
    return network, rows


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", nargs="?", default="abacuachego")
    parser.add_argument("--iterations", type=int, default=8)
    parser.add_argument("--games", type=int, default=64, help="self-play games per iteration, played together")
    parser.add_argument("--simulations", type=int, default=64, help="MCTS simulations per move")
    parser.add_argument("--batch", type=int, default=8, help="leaves per tree in each evaluator call")
    parser.add_argument("--sampled-plies", type=int, default=12, help="plies whose moves are drawn from the visits")
    parser.add_argument("--dirichlet-alpha", type=float, default=1.0, help="root noise in self-play")
    parser.add_argument("--hidden", type=int, default=64, help="hidden units")
    parser.add_argument("--window", type=int, default=3, help="iterations of positions trained on")
    parser.add_argument("--epochs", type=int, default=20, help="passes over those positions per iteration")
    parser.add_argument("--learning-rate", type=float, default=0.05)
    parser.add_argument("--evaluate", type=int, default=200, help="games per win rate")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    game = meeple.load(args.game)
    print(f"{args.game}: {args.games} self-play games per iteration, {args.simulations} simulations per move")
    print(f"win rates over {args.evaluate} games, the learner in every seat in turn; plain MCTS: random rollouts, "
          f"{args.simulations} simulations\n")
    print(f"{'self-play':>21}{'training':>11}{'network alone':>49}{'network + MCTS':>21}")
    print("iteration  plies/game  positions  policy loss  value loss  seconds      vs random  vs random  vs plain MCTS")
    start = time.perf_counter()

    def report(row: Iteration) -> None:
        if row.index == 0:
            learnt = f"{'untrained':>9}  {'-':>10}  {'-':>9}  {'-':>11}  {'-':>10}"
        else:
            learnt = (f"{row.index:9d}  {row.plies_per_game:10.1f}  {row.positions:9d}  {row.policy_loss:11.3f}  "
                      f"{row.value_loss:10.3f}")
        print(f"{learnt}  {row.seconds:7.1f}  {row.network_vs_random:13.3f}  {row.search_vs_random:9.3f}  "
              f"{row.search_vs_rollouts:13.3f}", flush=True)

    alphazero(game, iterations=args.iterations, games=args.games, simulations=args.simulations, batch=args.batch,
              sampled_plies=args.sampled_plies, dirichlet_alpha=args.dirichlet_alpha, hidden=args.hidden,
              window=args.window, epochs=args.epochs, learning_rate=args.learning_rate,
              evaluation_games=args.evaluate, seed=args.seed, report=report)
    print(f"{time.perf_counter() - start:.1f} s in all")


if __name__ == "__main__":
    main()
