"""Evaluators for MCTS, imported by name in bot specs ("mcts:50:evaluator=evaluators:uniform"),
also in spawned selfplay workers."""
from __future__ import annotations

import numpy as np


def uniform(state):
    """Equal priors over the legal actions, no opinion on the outcome."""
    return state.legal_actions_mask(), np.zeros(len(state.returns()))


def one_random_game(state):
    """Equal priors, and the returns of one random playout (seeded by the position, reproducible)."""
    rng = np.random.default_rng(state.transposition_key())
    priors = state.legal_actions_mask()
    while not state.is_terminal():  # its own copy: the search's is safe
        legal = state.legal_actions()
        state.apply_action(int(legal[rng.integers(len(legal))]))
    return priors, state.returns()


NOT_CALLABLE = 3


def uniform_batch(states):
    """`uniform` for a list of states (MCTS batch=B): arrays with one row per state."""
    rows = [uniform(state) for state in states]
    return np.array([priors for priors, _ in rows]), np.array([values for _, values in rows])
