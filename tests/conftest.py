"""Shared fixtures: fixed deals written with card names (Jumanji-style dummy deals).

Property tests run derandomized by default, so that ``make test`` is the same run every time
(a CI run never fails by the luck of the draw); ``HYPOTHESIS_PROFILE=explore make test`` draws
fresh examples to hunt for new failures.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import settings

from spades_env.cards import RANK_LETTERS, parse_card
from spades_env.engine import OVER, PLAY
from spades_env.games.spades.params import BID, BLIND

settings.register_profile("repeatable", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))


def pytest_configure(config):
    """Under ``pytest -n N`` (``make test``), the xdist controller first compiles the Numba kernels into
    the cache in two parallel processes (``train.cli.warmup``: why and how), so that the workers do not
    compile the same kernels at once. ``SPADES_TEST_WARMUP=0`` skips it; a failure only warns (the
    tests then compile what they need themselves)."""
    numprocesses = getattr(config.option, "numprocesses", None)
    if hasattr(config, "workerinput") or not numprocesses or os.environ.get("SPADES_TEST_WARMUP") == "0":
        return
    import sys
    import time

    from train.cli.warmup import warm_up

    start = time.monotonic()
    for part, code, text in warm_up():
        if code:
            print(f"train.cli.warmup part {part} failed (tests compile for themselves): {text}", file=sys.stderr)
    print(f"Numba kernels compiled or loaded in {time.monotonic() - start:.0f} s (train.cli.warmup)")


def pytest_collection_modifyitems(config, items):
    """The ``slow`` tests (a wheel built and played in a fresh venv, the RLlib snippet, ...) run first, so
    that under ``pytest -n 2`` they overlap the many short tests instead of finishing alone at the end."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable: the rest keep their order


def hand(text: str) -> list[int]:
    """Card ids from space-separated names, e.g. ``"AS 10H 2C"``."""
    return [parse_card(t) for t in text.split()]


def whole_suit(letter: str) -> list[int]:
    """The 13 cards of one suit, e.g. ``whole_suit("S")``."""
    return [parse_card(r + letter) for r in RANK_LETTERS]


def step_live_games(engine, state, rng: np.random.Generator) -> bool:
    """One uniformly random legal action in each game whose match is not over (in place);
    False, and nothing played, once every match is over."""
    live = np.flatnonzero(state.phase != OVER)
    if len(live) == 0:
        return False
    sub = state.take(live)
    mask = engine.legal_action_mask(sub)
    engine.step(sub, np.argmax(rng.random(mask.shape) * mask, axis=1))
    state.put(live, sub)
    return True


@pytest.fixture
def parse_hand():
    """``parse_hand("AS KS 2H")`` -> card ids."""
    return hand


@pytest.fixture
def suit_deal() -> list[list[int]]:
    """Seat 0 holds every club, seat 1 every diamond, seat 2 every heart, seat 3 every spade.

    Whatever anyone plays, seat 3 wins all 13 tricks: nobody can follow anyone else's
    suit, so seat 3's spade wins each trick it does not lead, and it leads spades.
    """
    return [whole_suit("C"), whole_suit("D"), whole_suit("H"), whole_suit("S")]


@pytest.fixture
def bid_all():
    """``bid_all(engine, state, bids, blind=())``: drive every game through bidding.

    Every game of the batch must be at the same bidding position (same dealer and
    blind-nil options). ``bids[seat]`` is the bid; seats in ``blind`` declare blind nil.
    """

    def run(engine, state, bids, blind=()):
        lay = engine.layout
        while True:
            phase, seat = int(state.phase[0]), int(state.to_move[0])
            assert np.all(state.phase == phase) and np.all(state.to_move == seat), "games are out of step"
            if phase == PLAY:
                return
            if phase == BLIND:
                action = lay.blind_nil if seat in blind else lay.look
            else:
                assert phase == BID
                action = lay.bid_action(bids[seat])
            engine.step(state, np.full(state.batch_size, action))

    return run


@pytest.fixture
def play_randomly():
    """``play_randomly(engine, state, seed)``: random legal cards until every hand in the batch
    ends; returns the list of ``FinishedHands`` of the step(s) that ended them."""

    def run(engine, state, seed=0):
        rng = np.random.default_rng(seed)
        finished = []
        done = np.zeros(state.batch_size, bool)
        while not done.all():
            mask = engine.legal_action_mask(state)
            result = engine.step(state, np.argmax(rng.random(mask.shape) * mask, axis=1))
            finished += result.finished
            done |= result.hand_done
        return finished

    return run
