"""``make bench`` runs end to end (tiny time budget), and every baseline is driven the cheap way."""

import json
import os
import random

import numpy as np
import pytest

from bench import openspiel_alternatives, openspiel_driver, rates, reference_driver, run
from spades_env.games.spades.reference import SpadesReferenceGame
from spades_env.rules import Rules


def spiel(name: str):
    game = openspiel_driver.load_game(name)
    assert game is not None, "pyspiel (open_spiel) is installed by make setup, with the bench extra"
    return game


class CountingRandom(random.Random):
    """``random.Random`` that counts its ``random()`` draws (shuffles and ``randrange`` use ``getrandbits``)."""

    draws = 0

    def getrandbits(self, k: int) -> int:
        return super().getrandbits(k)

    def random(self) -> float:
        self.draws += 1
        return super().random()


def test_bench_runs_every_row(tmp_path, capsys):
    out = tmp_path / "bench.json"
    cores = os.sched_getaffinity(0)
    try:
        figures = run.main(["--seconds", "0.01", "--batches", "8", "--learned-batch", "64", "--json", str(out)])
    finally:
        os.sched_setaffinity(0, cores)  # the bench pins itself to one core
    table = capsys.readouterr().out
    assert json.loads(out.read_text()) == figures
    names = (
        "OpenSpiel spades + observation [B=1]",
        "OpenSpiel hearts + information state [B=1]",
        "engine, random legal play [B=8]",
        "VectorSpades, hearts [B=4096]",
        "PettingZoo AEC env [B=1]",
        "PettingZoo AEC env, hearts [B=1]",
        "Gymnasium env, heuristic opponents [B=1]",
        "learned bot (two 512 x 3 torsos) [B=64]",
        "learned bot, precision=int8 [B=64]",
        "heuristic duplicate tournament [B=-]",
    )
    for name in names:
        assert figures[name] > 0, name
        assert name.split(" [")[0] in table
    assert "Observer.set_from into a float32 buffer" in table  # the table says how rows are driven


@pytest.mark.parametrize("observed", [False, True])
@pytest.mark.parametrize("name", ["spades", "hearts"])
def test_openspiel_driver_plays_legal_games_one_python_random_draw_per_node(name, observed):
    game = spiel(name)
    rng = CountingRandom(7)
    state, seen = game.new_initial_state(), []

    def observe(at, player):
        assert at is state and player == state.current_player() >= 0
        seen.append(player)

    decisions = openspiel_driver.play_random(state, rng.random, observe if observed else None)
    assert state.is_terminal() and len(seen) == (decisions if observed else 0)
    history = state.history()
    assert rng.draws == len(history)  # Python's random, one draw per node (no NumPy Generator)
    replay, players = game.new_initial_state(), 0
    for action in history:
        legal = replay.legal_actions()
        assert action in legal
        if replay.is_chance_node():
            # OpenSpiel's chance nodes are uniform over legal_actions(): drawing from that list
            # is sampling chance_outcomes() by probability.
            outcomes = replay.chance_outcomes()
            assert sorted(a for a, _ in outcomes) == sorted(legal)
            assert [p for _, p in outcomes] == pytest.approx([1 / len(legal)] * len(legal))
        else:
            players += 1
        replay.apply_action(action)
    assert decisions == players > 50


@pytest.mark.parametrize("name", ["spades", "hearts"])
def test_openspiel_observer_writes_the_tensor_into_one_float32_buffer(name):
    game = spiel(name)
    buffer, set_from = openspiel_driver.observer(game)
    assert buffer.dtype == np.float32
    state, seen, rng = game.new_initial_state(), [], random.Random(1)
    while len(seen) < 3:
        if not state.is_chance_node():
            player = state.current_player()
            set_from(state, player)
            expected = np.array(getattr(state, openspiel_driver.tensor_name(game))(player), np.float32)
            np.testing.assert_array_equal(buffer, expected)
            seen.append(buffer.copy())
        legal = state.legal_actions()
        state.apply_action(rng.choice(legal))
    assert not np.array_equal(seen[0], seen[-1])  # the same buffer, rewritten in place


def test_bench_openspiel_rows_use_the_cheap_driver(monkeypatch):
    calls = []

    def recording(state, rand, observe):
        calls.append((rand, observe))
        return 1

    monkeypatch.setattr(openspiel_driver, "play_random", recording)
    assert rates.openspiel_decisions(0.001) > 0
    assert rates.openspiel_decisions(0.001, observe=True, game="hearts") > 0
    (rand, observe), (_, observe_hearts) = calls[0], calls[-1]
    assert isinstance(rand.__self__, random.Random) and observe is None
    assert observe_hearts.__name__ == "set_from"  # OpenSpiel's Observer, not the tensor list


def test_reference_driver_plays_legal_steps_one_python_random_draw_per_decision():
    rules = Rules.preset("partnership")
    rng = CountingRandom(3)
    game = SpadesReferenceGame(rules, reference_driver._deal(rules, rng), dealer=0)
    rng.draws = 0
    game, decisions = reference_driver.play_random_steps(game, rules, rng, 300)
    assert decisions > 250 and rng.draws == decisions
    assert isinstance(game, SpadesReferenceGame)


def test_openspiel_alternatives_measure_every_way(capsys):
    """Every way of driving OpenSpiel is measured (which one is fastest is the benchmark's to say, not a test's)."""
    cores = os.sched_getaffinity(0)
    try:
        figures = openspiel_alternatives.main(["--seconds", "0.02", "--rounds", "1"])
    finally:
        os.sched_setaffinity(0, cores)
    assert "write_observation_tensor" in capsys.readouterr().out
    for name in ("spades", "hearts"):
        ways = figures[name]
        assert len(ways) == (8 if name == "spades" else 7) and min(ways.values()) > 0
        assert "openspiel_driver.play_random (the bench)" in ways


@pytest.mark.parametrize("batch", [1, 5])
def test_the_engine_rows_count_the_card_plays_of_the_state_as_it_is_stepped(batch):
    from bench.rates import play_counter
    from spades_env import SpadesEngine
    from spades_env.engine import PLAY

    engine = SpadesEngine("partnership")
    state = engine.reset(np.arange(batch))
    count = play_counter(state.phase)
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(30):
        assert count() == int(np.count_nonzero(state.phase == PLAY))
        seen.add(count())
        engine.step(state, engine.random_actions(state, rng), auto_reset=True)
    assert 0 in seen and max(seen) == batch  # bids (no play) and plays both counted


def test_the_card_value_round_benchmark_times_each_part_both_ways(capsys):
    pytest.importorskip("torch")
    from bench.card_value_rounds import main

    main(["--deals", "8", "--repeats", "1"])
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[:2]] == ["value_bids=True", "value_bids=False"]
    assert lines[2].startswith("collection without valuing the bids: ") and lines[2].endswith("x faster (8 deals)")
