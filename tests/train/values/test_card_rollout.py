"""Card values with the network's own continuation (``card_rollout: network``, ``train.values.card_values.
card_values_by_network``): each legal card's hand played out by the network at the learner's seats and the heuristic
at the others; with the heuristic in the network's place, exactly the compiled heuristic rollouts' values."""

import dataclasses

import numpy as np
import pytest

from tests.paths import ROOT

torch = pytest.importorskip("torch")

from agents.base import DecisionContext  # noqa: E402
from agents.heuristic import HeuristicAgent  # noqa: E402
from agents.neural import SpadesPolicy  # noqa: E402
from spades_env.engine import SpadesEngine  # noqa: E402
from spades_env.observation import encoder_for  # noqa: E402
from spades_env.rules import resolve_rules  # noqa: E402
from tests.run_logs import run_scalars  # noqa: E402
from train.runs.checkpoint import load_checkpoint  # noqa: E402
from train.values.bid_values import BidLearner, deal_and_bid, play_card_positions  # noqa: E402
from train.values.bid_values_config import BidValuesConfig  # noqa: E402
from train.values.bid_values_train import train  # noqa: E402
from train.values.card_values import card_values_by_network, card_values_on_deal  # noqa: E402


def positions_of(rules: str, deals: int = 12, keep: float = 0.3):
    engine = SpadesEngine(resolve_rules(rules))
    encoder = encoder_for(engine)
    torch.manual_seed(1)
    policy = SpadesPolicy(encoder.size, engine.layout.n_actions, engine.layout.bid_offset, hidden=16, depth=1).eval()
    learner = BidLearner(policy, engine, encoder, torch.device("cpu"))
    heuristic = HeuristicAgent()
    _, state = deal_and_bid(engine, np.arange(deals), learner, heuristic, 0.0, np.random.default_rng(0))
    return (
        engine,
        learner,
        heuristic,
        play_card_positions(engine, state, learner, heuristic, keep, np.random.default_rng(0)),
    )


class HeuristicAsNetwork:
    """A learner whose cards are the heuristic's."""

    def __init__(self, engine, heuristic):
        self.engine, self.heuristic = engine, heuristic

    def cards(self, state, games, masks):
        return self.heuristic.act(None, masks, DecisionContext(self.engine, state, games, state.to_move[games]))


@pytest.mark.parametrize("rules", ["partnership", "cutthroat-4", "hearts"])
def test_with_the_heuristic_as_the_network_the_values_are_the_compiled_heuristic_rollouts(rules):
    engine, _, heuristic, positions = positions_of(rules)
    assert len(positions) > 20
    expected = card_values_on_deal(engine, positions, heuristic)
    got = card_values_by_network(engine, positions, HeuristicAsNetwork(engine, heuristic), heuristic, chunk=37)
    np.testing.assert_allclose(got, expected, atol=1e-4)
    assert (got[~positions.mask] == 0).all() and np.ptp(got[positions.mask]) > 0


def reference_value(engine, positions, learner, heuristic, i: int, card: int) -> float:
    """Decision ``i`` with ``card`` played, then the hand played out one game at a time in the engine: the learner's
    side by the network, the others by the heuristic; its side's points minus the others' mean (Hearts: negated)."""
    from spades_env.engine import PLAY

    state = positions.state.take(np.array([i]))
    side = engine.side_of_seat[positions.seat[i]]
    action = np.array([card])
    for _ in range(engine.hand_size * engine.n_players):
        result = engine.step(state, action)
        if result.hand_done[0]:
            f = result.finished[0]
            points = engine.spec.adjusted_points(engine.rules, f)[0]
            points = -points if engine.rules.game == "hearts" else points
            return float(points[side] - (points.sum() - points[side]) / (engine.n_sides - 1))
        assert state.phase[0] == PLAY
        masks = engine.legal_action_mask(state)
        at = np.zeros(1, np.int64)
        if engine.side_of_seat[state.to_move[0]] == side:
            action = learner.cards(state, at, masks)
        else:
            action = heuristic.act(None, masks, DecisionContext(engine, state, at, state.to_move))
    raise AssertionError("the hand did not end")


@pytest.mark.parametrize("rules", ["partnership", "hearts"])
def test_each_value_is_the_hand_played_out_by_the_network_at_the_learners_side(rules):
    engine, learner, heuristic, positions = positions_of(rules, deals=6, keep=0.2)
    values = card_values_by_network(engine, positions, learner, heuristic)
    heuristic_values = card_values_on_deal(engine, positions, heuristic)
    checked = 0
    for i in range(0, len(positions), 3):
        for card in np.flatnonzero(positions.mask[i]):
            assert values[i, card] == pytest.approx(reference_value(engine, positions, learner, heuristic, i, card))
            checked += 1
    assert checked >= 10
    assert not np.allclose(values, heuristic_values)  # the untrained network plays otherwise than the heuristic


@pytest.mark.parametrize("rules", ["partnership", "hearts"])
def test_the_learner_plays_a_lone_legal_card_without_the_network_and_the_others_as_the_network_does(rules):
    engine, learner, _, positions = positions_of(rules, deals=6, keep=1.0)
    asked, real = [], learner.card_choices
    learner.card_choices = lambda obs, masks: asked.append(len(obs)) or real(obs, masks)
    state = positions.state
    masks = engine.legal_action_mask(state)
    lone = masks[:, : engine.layout.bid_offset].sum(axis=1) == 1
    every = np.arange(state.batch_size)
    wanted = real(learner.encoder.encode(state, every, state.to_move), masks)[1]
    masks[: len(masks) // 2, : engine.layout.bid_offset] = False  # half of them: the wanted card alone
    masks[every[: len(masks) // 2], wanted[: len(masks) // 2]] = True
    got = learner.cards(state, every, masks)
    np.testing.assert_array_equal(got, wanted)
    assert asked == [len(masks) - len(masks) // 2 - lone[len(masks) // 2 :].sum()]


def test_a_card_rollout_network_run_trains_on_those_values_and_refuses_a_bad_setting(tmp_path):
    recipe = BidValuesConfig.from_yaml(ROOT / "configs" / "train" / "hearts_card_values_torso.yaml")
    cfg = dataclasses.replace(
        recipe,
        card_rollout="network",
        rounds=1,
        deals=8,
        eval_deals=4,
        eval_every=1,
        minibatch=64,
        run_dir=str(tmp_path),
    )
    ckpt = load_checkpoint(train(cfg, quiet=True))
    assert ckpt["config"]["card_rollout"] == "network"
    assert len(run_scalars(tmp_path)["time/label_cards_s"]) == 1
    with pytest.raises(ValueError, match=r"card_rollout='search'.*card_rollout: one of heuristic, network"):
        dataclasses.replace(recipe, card_rollout="search")
