"""The compiled engine loops: one call per step, mask and draw, per game; what they refuse."""

from __future__ import annotations

import ast
import dataclasses
import pathlib
import pickle

import numba
import numpy as np
import pytest

from spades_env import IllegalActionError, SpadesEngine, cards
from spades_env.engine.inputs import EngineInputError
from spades_env.games.hearts.phases import PASS
from spades_env.games.spades.params import BID
from tests.paths import ROOT

PACKAGE = ROOT / "spades_env"


@pytest.mark.parametrize("preset", ["partnership", "hearts"])
def test_state_arrays_are_the_game_state_fields_in_order(preset):
    engine = SpadesEngine(preset)
    state = engine.reset(0)
    gs = engine.spec.loops().gs  # the game's generated state_arrays.py
    assert gs.FIELDS == tuple(f.name for f in dataclasses.fields(state))
    assert all(a is getattr(state, name) for a, name in zip(gs.state_arrays(state), gs.FIELDS, strict=True))


def _imports(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
    return names


@pytest.mark.parametrize(
    ("folder", "forbidden"),
    [
        ("core", "spades_env.games"),
        ("games/spades", "spades_env.games.hearts"),
        ("games/hearts", "spades_env.games.spades"),
    ],
)
def test_the_core_imports_no_game_and_a_game_no_other_game(folder, forbidden):
    for path in sorted((PACKAGE / folder).glob("*.py")):
        bad = [m for m in _imports(path) if m.startswith(forbidden)]
        assert not bad, f"{path.name} imports {bad}"


def test_each_engine_reads_its_game_spec_and_keeps_the_public_tables():
    spades, hearts = SpadesEngine("partnership"), SpadesEngine("hearts")
    assert type(spades.spec).__name__ == "SpadesSpec" and type(hearts.spec).__name__ == "HeartsSpec"
    assert (spades.broken_suit, hearts.broken_suit) == (cards.SPADES, cards.HEARTS)
    assert spades.broken_mask == cards.TRUMP_MASK and hearts.broken_mask == cards.SUIT_MASK[cards.HEARTS]
    assert (spades.club_leads, hearts.club_leads) == (False, True)
    assert spades.trick_tables.points.sum() == 0 and hearts.trick_tables.points.sum() == 26
    assert hearts.pass_offset(np.arange(5)).tolist() == [1, 3, 2, 0, 1]
    assert spades.pass_offset(np.arange(5)).tolist() == [0, 0, 0, 0, 0]
    state = spades.reset(np.arange(3))
    assert state.broken is state.spades_broken and not state.broken.any()
    state.broken[1] = True
    assert state.spades_broken.tolist() == [False, True, False]
    assert spades.layout.bid_end - spades.layout.bid_offset == 14 and hearts.layout.bid_end == hearts.layout.bid_offset


def test_each_engine_plays_its_own_games_loops():
    """The loops an engine runs are its game's (``spec.loops()``: the game folder's generated module), whose
    rules make a hand's first decision: the bids in Spades, the pass in Hearts."""
    spades, hearts = SpadesEngine("partnership-no-blind-nil"), SpadesEngine("hearts")
    assert spades.spec.loops().__name__ == "spades_env.games.spades.loops"
    assert hearts.spec.loops().__name__ == "spades_env.games.hearts.loops"
    assert (spades.reset(np.arange(4)).phase == BID).all() and (hearts.reset(np.arange(4)).phase == PASS).all()


def test_what_an_engine_keeps_stays_bounded_when_batch_sizes_vary():
    """The engine keeps its per-batch-size buffers (row indices, step statuses) for the last few sizes only: what
    it holds, which is what it pickles, grows by far less than one buffer per size seen."""
    engine = SpadesEngine("partnership")
    for b in range(1, 10):
        engine.step(state := engine.reset(np.arange(b)), engine.random_actions(state, np.random.default_rng(b)))
    held = len(pickle.dumps(engine))
    sizes = range(10, 400)
    for b in sizes:
        engine.step(state := engine.reset(np.arange(b)), engine.random_actions(state, np.random.default_rng(b)))
        engine.legal_action_mask(state)
    every_size = sum(sizes) * (8 + 1)  # an int64 row index and an int8 status per game, for every size
    assert len(pickle.dumps(engine)) - held < every_size / 10


def test_the_first_illegal_game_by_index_is_named_and_nothing_changes():
    engine = SpadesEngine("partnership-no-blind-nil")
    state = engine.reset(np.arange(4))
    assert (state.phase == BID).all()
    before = state.copy()
    bad = engine.layout.n_actions  # no such action
    with pytest.raises(IllegalActionError, match=r"^game 1: illegal action"):
        engine.step(state, [engine.layout.bid_action(2), bad, bad, engine.layout.bid_action(3)])
    for f in dataclasses.fields(state):
        np.testing.assert_array_equal(getattr(state, f.name), getattr(before, f.name))


def test_legal_action_mask_refuses_games_out_of_the_batch_and_a_wrong_out():
    engine = SpadesEngine("partnership")
    state = engine.reset(np.arange(3))
    with pytest.raises(EngineInputError, match=r"games must be batch indices in 0\.\.2, got \[3\]"):
        engine.legal_action_mask(state, [0, 3])
    with pytest.raises(EngineInputError, match=r"games must be batch indices"):
        engine.legal_action_mask(state, [-1])
    with pytest.raises(EngineInputError, match=r"out must be a bool array of shape \(3, \d+\), got int64"):
        engine.legal_action_mask(state, out=np.zeros((3, engine.layout.n_actions), np.int64))
    out = np.ones((2, engine.layout.n_actions), bool)
    got = engine.legal_action_mask(state, [2, 0], out=out)
    assert got is out
    np.testing.assert_array_equal(out, engine.legal_action_mask(state)[[2, 0]])


def test_threads_must_be_a_count_the_machine_allows():
    with pytest.raises(EngineInputError, match=r"threads must be an integer in 1\.\.\d+ \(NUMBA_NUM_THREADS\), got 0"):
        SpadesEngine("partnership", threads=0)
    with pytest.raises(EngineInputError, match=r"threads must be an integer.*got 1\.5"):
        SpadesEngine("partnership", threads=1.5)


@pytest.mark.parametrize("preset", ["partnership", "hearts"])
def test_two_threads_play_the_same_games_as_one(preset):
    """The parallel loops (``threads=2``) give the same masks, draws, states and results."""
    one, two = SpadesEngine(preset), SpadesEngine(preset, threads=min(2, numba.config.NUMBA_NUM_THREADS))
    a, b = one.reset(np.arange(40)), two.reset(np.arange(40))
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
    hands = 0
    for _ in range(160):
        np.testing.assert_array_equal(one.legal_action_mask(a), two.legal_action_mask(b))
        actions = one.random_actions(a, rng_a)
        np.testing.assert_array_equal(actions, two.random_actions(b, rng_b))
        ra, rb = one.step(a, actions, auto_reset=True), two.step(b, actions, auto_reset=True)
        for name in ("hand_done", "match_done", "score_delta", "winner"):
            np.testing.assert_array_equal(getattr(ra, name), getattr(rb, name))
        hands += int(ra.hand_done.sum())
    for f in dataclasses.fields(a):
        np.testing.assert_array_equal(getattr(a, f.name), getattr(b, f.name))
    assert hands > 0
    bad = two.random_actions(b, np.random.default_rng(5))
    bad[7] = one.layout.n_actions
    with pytest.raises(IllegalActionError, match=r"^game 7: illegal action"):
        two.step(b, bad)


def test_the_registry_names_every_part_of_every_game_and_refuses_unknown_names():
    """``spades_env.games.GAMES``: each game's loops, scoring, encoder and reference resolve, to
    that game's own folder; an unknown game or part is refused naming what is allowed."""
    import pytest

    from spades_env import games
    from spades_env.rules import GAMES as RULE_GAMES

    assert RULE_GAMES is games.GAMES  # one registry: the rules' games are its keys
    for game in games.GAMES:
        for name in games.Game._fields:
            got = games.part(game, name)
            module = got if isinstance(got, type(games)) else __import__(got.__module__, fromlist=["_"])
            assert module.__name__.startswith(f"spades_env.games.{game}."), (game, name, module.__name__)
    assert games.part("hearts", "encoder").__name__ == "HeartsObservationEncoder"
    assert games.part("hearts", "rules").GAME == "hearts"
    with pytest.raises(ValueError, match="game must be one of \\['hearts', 'spades'\\], got 'bridge'"):
        games.part("bridge", "loops")
    with pytest.raises(ValueError, match="part must be one of"):
        games.part("spades", "bidding")
