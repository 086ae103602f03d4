"""Bots that break the rules, for the tests of how play_game, Match, selfplay and play report a
failing bot (imported by spec, e.g. "misbehaving_bots:Illegal", also in spawned workers)."""
from __future__ import annotations

import contextlib

from meeple.bots import BaseBot


class Illegal(BaseBot):
    def step(self, state):
        return 10**6


class Boom(BaseBot):
    """Raises at its third move."""

    def __init__(self, seed=None):
        self.moves = 0

    def restart(self):
        self.moves = 0

    def step(self, state):
        self.moves += 1
        if self.moves == 3:
            raise RuntimeError("boom")
        return int(state.legal_actions()[0])


class BoomInGameSeven(BaseBot):
    """Fails only in the game whose seed it is given: to fail part-way through a selfplay file."""

    def __init__(self, seed=None):
        from meeple.bots import Match, derive_seed

        fatal = Match("abacuachego", ("misbehaving_bots:BoomInGameSeven", "random")).game_seed(7)
        self.fails = seed == derive_seed(fatal, 0)

    def step(self, state):
        if self.fails:
            raise RuntimeError("game seven")
        return int(state.legal_actions()[0])


class BrokenConstructor(BaseBot):
    def __init__(self, seed=None):
        raise TypeError("my constructor bug")


class ChangesTheState(BaseBot):
    """Plays a move on the state it is shown, then answers the first legal action of the original."""

    def step(self, state):
        first = int(state.legal_actions()[0])
        state.apply_action(first)
        return first


class Tracker(BaseBot):
    """Follows the game through step and inform_action, and checks it is in step with it."""

    def __init__(self, seed=None):
        self.known = 0

    def restart(self):
        self.known = 0

    def inform_action(self, state, player, action):
        assert state.move_number() == self.known, (state.move_number(), self.known)
        self.known += 1

    def step(self, state):
        assert state.move_number() == self.known, (state.move_number(), self.known)
        self.known += 1
        return int(state.legal_actions()[0])


class Exits(BaseBot):
    """Calls sys.exit(3) at its first move."""

    def step(self, state):
        raise SystemExit(3)


class ExitsWhenMade(BaseBot):
    def __init__(self, seed=None):
        raise SystemExit(0)



def _pools_result_queue():
    """The result queue of the ProcessPoolExecutor worker this runs in (its worker function's)."""
    import sys

    frame = sys._getframe()
    while frame.f_code.co_name != "_process_worker":
        frame = frame.f_back
    return frame.f_locals["result_queue"]


def _send_half_a_result(results) -> None:
    """The start of a 1 MiB message: the pool's manager thread then waits for the rest."""
    import os
    import struct

    os.write(results._writer.fileno(), struct.pack("!i", 1 << 20) + b"\x80" * 100)


class HalfSentResult(BaseBot):
    """In a process-pool worker: writes the start of a result message to the pool's result pipe,
    as a worker stopped while sending a result leaves it, touches the file named by
    $MEEPLE_TEST_MARKER, and waits to be stopped."""

    def step(self, state):
        import os
        import time

        results = _pools_result_queue()
        with results._wlock or contextlib.nullcontext():  # the other worker then waits to send
            _send_half_a_result(results)
            open(os.environ["MEEPLE_TEST_MARKER"], "a").close()
            time.sleep(3600)


class HalfSentResultThenDies(BaseBot):
    """As HalfSentResult, but the worker then ends at once (as one killed by the system would)."""

    def step(self, state):
        import os

        _send_half_a_result(_pools_result_queue())
        os._exit(9)
