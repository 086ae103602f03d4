"""Reinforcement learning on `meeple.VectorGame`: REINFORCE trains a softmax-linear policy (numpy
only) against the random bot, n games stepped together in C++.

In every slot the learner plays one seat (slot i plays seat i % num_players, so it learns them all)
and the random bot the others, with the moves `vec.random_actions()` drew in C++. The training
loop shows what an RL loop on a VectorGame has to get right:

- same-step autoreset: the step that ends a slot's game starts the next one at once, so
  ``rewards[i]`` scores the game that ended while ``observations[i]`` is already the new game's;
  the slot's trajectory ends with ``rewards[i, seat]`` as its return and a new one begins;
- time limits (``--max-plies``): a game that reaches the limit (``vec.elapsed_steps()``) is cut
  short with ``vec.new_game(slots)``; it has no outcome, so its trajectory is dropped, neither learnt from
  nor recorded;
- records: ``vec.game_seed(i)``, read when the slot's game starts, and the actions given to the
  slot since then replay a game, so the last finished games are kept as ``meeple.Record``s
  (``--records FILE`` writes them as JSON lines, to replay or to look at what was learnt); each
  replays to ``vec.final_state(i)`` as the slot's game ended.

The greedy policy (the legal action with the highest logit) then plays the random bot, before and
after training, in every seat; the random bot's own win rate in the learner's seats is the
reference. Any game works, but a linear policy on the raw observation is only the smallest model:

    python examples/vector_reinforce.py abacuachego --steps 3000 --max-plies 150 --records games.jsonl
"""
from __future__ import annotations

import argparse
import collections
import dataclasses
import time

import numpy as np

import meeple


@dataclasses.dataclass
class LinearPolicy:
    """logits = W @ x + b over every action id, x the observation standardised (one learning rate
    then suits any game's observation)."""

    weights: np.ndarray  # (num_distinct_actions, observation size)
    bias: np.ndarray  # (num_distinct_actions,)
    mean: np.ndarray  # of the observations, for the standardising
    scale: np.ndarray

    def inputs(self, observations: np.ndarray) -> np.ndarray:
        return (observations.reshape(len(observations), -1) - self.mean) / self.scale

    def logits(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One row per observation, -inf on the illegal actions (`masks` bool)."""
        return np.where(masks, self.inputs(observations) @ self.weights.T + self.bias, -np.inf)

    def sample(self, observations: np.ndarray, masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One action per row, drawn from the softmax over the legal actions (Gumbel-max: the
        argmax of the logits plus Gumbel noise is such a draw, with no normalising)."""
        gumbel = -np.log(-np.log(rng.random(masks.shape)))
        return np.argmax(self.logits(observations, masks) + gumbel, axis=1)

    def greedy(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return np.argmax(self.logits(observations, masks), axis=1)


def untrained_policy(game: meeple.Game, seed: int, slots: int = 64, steps: int = 100) -> LinearPolicy:
    """W = 0 and b = 0: every legal action equally likely (greedy: the first legal one). The
    standardising comes from the observations of random games, `slots` of them for `steps` plies."""
    vec = meeple.VectorGame(game, slots, seed=seed)
    seen = []
    for _ in range(steps):
        seen.append(vec.observations.reshape(slots, -1).copy())
        vec.step(vec.random_actions())
    observations = np.concatenate(seen)
    actions = game.num_distinct_actions()
    return LinearPolicy(np.zeros((actions, observations.shape[1])), np.zeros(actions),
                        observations.mean(axis=0), observations.std(axis=0) + 1e-3)


@dataclasses.dataclass
class Training:
    """What `train` did: the policy, the VectorGame as it was left (the slots' final states), the
    last finished games as Records, and counts."""

    policy: LinearPolicy
    vec: meeple.VectorGame
    records: list[meeple.Record]
    scored: int = 0  # games finished, learnt from
    cut: int = 0  # games cut at max_plies, dropped
    moves_learnt: int = 0  # the learner's moves in the scored games
    total_length: int = 0  # the scored games' plies (their players' actions, chance outcomes not counted)
    seconds: float = 0.0


def train(game: meeple.Game, n: int = 256, steps: int = 3000, seed: int = 0, max_plies: int | None = 150,
          learning_rate: float = 0.3, update_every: int = 8, keep_records: int = 8,
          policy: LinearPolicy | None = None) -> Training:
    """REINFORCE against the random bot in n slots for `steps` steps (n plies each), the policy
    updated every `update_every` steps from the games that finished meanwhile. `max_plies` None:
    no time limit but the game's own."""
    policy = untrained_policy(game, seed) if policy is None else policy
    rng = np.random.default_rng(seed)
    vec = meeple.VectorGame(game, n, seed=seed)
    seat = np.arange(n) % game.num_players()  # the learner's, per slot
    baseline = np.zeros(game.num_players())  # a running mean return per seat: the first mover's edge is no credit
    # Per slot, its game so far: the learner's (observation, mask, action)s, every action and its seed
    # (readable only while the game runs: once it ends, game_seed(i) is the next game's).
    trajectories: list[list] = [[] for _ in range(n)]
    actions_given: list[list[int]] = [[] for _ in range(n)]
    seeds = [vec.game_seed(i) for i in range(n)]
    finished: list = []  # (trajectory, return, seat) of the games finished since the last update
    records: collections.deque = collections.deque(maxlen=keep_records)
    result = Training(policy, vec, [])
    start = time.perf_counter()
    for step in range(steps):
        masks = vec.masks.view(bool)
        learner = vec.current_player == seat
        actions = np.where(learner, policy.sample(vec.observations, masks, rng), vec.random_actions())
        moved = np.flatnonzero(learner)  # indexing copies the rows, which the step would overwrite
        for i, observation, mask in zip(moved, vec.observations[moved], masks[moved]):
            trajectories[i].append((observation, mask, actions[i]))
        for given, action in zip(actions_given, actions.tolist()):
            given.append(action)
        rewards, terminated = vec.step(actions)
        # Same-step autoreset: slot i holds its next game already; rewards[i] (and final_state(i)) are the last one's.
        for i in np.flatnonzero(terminated):
            finished.append((trajectories[i], rewards[i, seat[i]], seat[i]))
            result.scored += 1
            result.moves_learnt += len(trajectories[i])
            result.total_length += len(actions_given[i])
            records.append((seeds[i], actions_given[i], rewards[i].tolist(), int(i)))
        # The time limit: a game still going at max_plies has no outcome to learn from; its slot starts again.
        # (A game the step ended has a new one in its slot, with no step yet: it is not cut.)
        cut = vec.elapsed_steps() >= max_plies if max_plies else np.zeros(n, dtype=bool)
        if cut.any():
            vec.new_game(cut)
            result.cut += int(cut.sum())
        for i in np.flatnonzero(terminated | cut):
            trajectories[i], actions_given[i], seeds[i] = [], [], vec.game_seed(i)
        if (step + 1) % update_every == 0 and finished:
            update(policy, finished, baseline, learning_rate)
            finished = []
    # Games still going are dropped like cut ones, as are those finished since the last update.
    result.seconds = time.perf_counter() - start
    if replayable(game):  # made only now: a Record checks its fields, costly for every game
        result.records = [meeple.Record(game.name, game.parameters(), seed=game_seed, actions=actions, returns=returns,
                                        meta={"slot": slot}) for game_seed, actions, returns, slot in records]
    return result


def replayable(game: meeple.Game) -> bool:
    """Whether a slot's game seed and actions replay its games: not with explicit chance, whose
    outcomes the slot draws itself, and which are not among the actions."""
    return game.parameters().get("chance") != "explicit"


def update(policy: LinearPolicy, finished: list, baseline: np.ndarray, learning_rate: float) -> None:
    """One REINFORCE step: every learner move's log-probability is raised by its game's return
    minus the seat's baseline (lowered if negative), averaged over the moves."""
    rows = [(observation, mask, action, g - baseline[s])
            for trajectory, g, s in finished for observation, mask, action in trajectory]
    for s in range(len(baseline)):  # after the advantages, so that no game is its own baseline
        returns = [g for _, g, seat in finished if seat == s]
        if returns:
            baseline[s] += 0.1 * (np.mean(returns) - baseline[s])
    if not rows:
        return
    x = policy.inputs(np.stack([row[0] for row in rows]))
    masks = np.stack([row[1] for row in rows])
    actions = np.array([row[2] for row in rows])
    advantages = np.array([row[3] for row in rows])
    logits = np.where(masks, x @ policy.weights.T + policy.bias, -np.inf)
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    gradient = -p  # of log p(action) with respect to the logits: onehot(action) - p
    gradient[np.arange(len(actions)), actions] += 1
    gradient *= advantages[:, None] / len(actions)
    policy.weights += learning_rate * gradient.T @ x
    policy.bias += learning_rate * gradient.sum(axis=0)


def win_rate(game: meeple.Game, policy: LinearPolicy | None, games: int, seed: int) -> float:
    """How often the greedy policy (None: the random bot) wins against the random bot: one game in
    each of `games` slots, the seats taken in turn; a win is a return above every other player's."""
    vec = meeple.VectorGame(game, games, seed=seed)
    seat = np.arange(games) % game.num_players()
    others = np.arange(game.num_players()) != seat[:, None]
    won = np.zeros(games, dtype=bool)
    playing = np.ones(games, dtype=bool)  # the slot's first game still going: the later ones do not count
    while playing.any():
        actions = vec.random_actions()
        if policy is not None:
            actions = np.where(vec.current_player == seat, policy.greedy(vec.observations, vec.masks.view(bool)),
                               actions)
        rewards, terminated = vec.step(actions)
        best_other = np.where(others, rewards, -np.inf).max(axis=1)
        won |= playing & terminated & (rewards[np.arange(games), seat] > best_other)
        playing &= ~terminated
    return float(won.mean())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("game", nargs="?", default="abacuachego")
    parser.add_argument("--n", type=int, default=256, help="games stepped together")
    parser.add_argument("--steps", type=int, default=3000, help="training steps, of n plies each")
    parser.add_argument("--max-plies", type=int, default=150,
                        help="time limit: a game this long is cut short, unscored (0: none)")
    parser.add_argument("--learning-rate", type=float, default=0.3)
    parser.add_argument("--evaluate", type=int, default=1000, help="games against the random bot")
    parser.add_argument("--records", metavar="FILE", help="write the last finished games to FILE, as JSON lines")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    game = meeple.load(args.game)
    policy = untrained_policy(game, args.seed)
    reference = win_rate(game, None, args.evaluate, seed=args.seed + 1)
    before = win_rate(game, policy, args.evaluate, seed=args.seed + 1)
    done = train(game, args.n, args.steps, args.seed, args.max_plies or None, args.learning_rate, policy=policy)
    after = win_rate(game, done.policy, args.evaluate, seed=args.seed + 1)
    print(f"{args.game}: {args.steps} steps of {args.n} games in {done.seconds:.1f} s "
          f"({args.steps / done.seconds:.0f} steps/s, {args.steps * args.n / done.seconds:.0f} plies/s); "
          f"learnt from {done.scored} games (mean length {done.total_length / max(done.scored, 1):.0f} plies)"
          + (f", {done.cut} cut at {args.max_plies} plies" if args.max_plies else ""))
    print(f"win rate vs random over {args.evaluate} games, greedy policy: {before:.3f} before training -> "
          f"{after:.3f} after (the random bot in its seats: {reference:.3f})")
    if args.records:
        with open(args.records, "w") as out:
            out.writelines(record.to_json() + "\n" for record in done.records)
        print(f"wrote the last {len(done.records)} finished games to {args.records}"
              + ("" if replayable(game) else " (none: with explicit chance they would not replay)"))


if __name__ == "__main__":
    main()
