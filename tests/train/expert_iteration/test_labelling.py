"""Expert-iteration positions and their teacher labels: the target, determinism, shards equal to one run."""

import dataclasses

import numpy as np
import pytest

from agents.heuristic import HeuristicAgent
from spades_env.engine import PLAY
from spades_env.rules import resolve_rules
from train.expert_iteration.labelling import (
    HEURISTIC_TEACHER,
    Labels,
    LabelShard,
    LabelSpec,
    PositionStream,
    card_choice_values,
    distillation_target,
    heuristic_behaviour,
    label_positions,
    label_shard,
    shards,
)
from train.ppo.imitation import HeuristicStream

TINY_TEACHER = "search:samples=2,oversample=1"


def test_distillation_target_is_a_softmax_over_the_valued_legal_actions_only():
    inf, nan = np.inf, np.nan
    values = np.array(
        [
            [-inf, 10.0, nan, 0.0],  # NaN: legal, not valued -> 0 weight; -inf illegal -> 0
            [nan, -inf, nan, -inf],  # nothing valued -> the fallback row
            [-inf, 4.0, 4.0, -inf],  # a tie splits evenly
        ]
    )
    fallback = np.array([[0, 0, 1, 0], [1, 0, 0, 0], [0, 1, 0, 0]], np.float32)
    target, valued = distillation_target(values, fallback, temperature=5.0)
    e = np.exp(2.0)
    np.testing.assert_allclose(target[0], [0, e / (e + 1), 0, 1 / (e + 1)], rtol=1e-6)
    np.testing.assert_array_equal(target[1], [1, 0, 0, 0])
    np.testing.assert_allclose(target[2], [0, 0.5, 0.5, 0])
    assert valued.tolist() == [True, False, True] and target.dtype == np.float32
    # Ties with the preferred action (the heuristic's) give it their mass; other ties stay split.
    preferred, _ = distillation_target(values, fallback, temperature=5.0, prefer=np.array([3, 0, 2]))
    np.testing.assert_allclose(preferred[0], target[0], rtol=1e-6)  # nothing ties with card 3
    np.testing.assert_array_equal(preferred[1], [1, 0, 0, 0])  # unvalued: the fallback, untouched
    np.testing.assert_allclose(preferred[2], [0, 0, 1, 0])
    four = np.array([[1.0, 1.0, 1.0, 0.0]])
    split, _ = distillation_target(four, fallback[:1], temperature=1.0, prefer=np.array([3]))
    np.testing.assert_allclose(split[0, :3], split[0, 0])
    np.testing.assert_allclose(split.sum(), 1, rtol=1e-6)
    # A low temperature gives the argmax; huge values stay finite.
    sharp, _ = distillation_target(values * 1e6, fallback, temperature=0.01)
    np.testing.assert_array_equal(sharp[0], [0, 1, 0, 0])


@pytest.mark.parametrize("temperature", [0.0, -1.0, float("nan")])
def test_a_temperature_that_is_not_positive_is_refused(temperature):
    with pytest.raises(ValueError, match="temperature"):
        distillation_target(np.zeros((1, 2)), np.ones((1, 2)) / 2, temperature)
    with pytest.raises(ValueError, match="temperature"):
        LabelSpec(rules=resolve_rules("partnership"), temperature=temperature)


@pytest.fixture(scope="module")
def positions():
    stream = PositionStream("partnership", num_envs=4, seed=3)
    return stream.collect(64, heuristic_behaviour(HeuristicAgent()), reward_scale=0.01)  # a hand is 60 here


def spec(**changes):
    base = LabelSpec(rules=resolve_rules("partnership"), teacher=TINY_TEACHER, seed=(5, 0), chunk=16)
    return dataclasses.replace(base, **changes)


def assert_same_labels(a: Labels, b: Labels):
    for f in dataclasses.fields(Labels):
        np.testing.assert_array_equal(getattr(a, f.name), getattr(b, f.name), err_msg=f.name)


def test_heuristic_positions_are_the_behaviour_cloning_examples(positions):
    """The same games, decisions and hand returns as HeuristicStream (one rule for ``ret``)."""
    batch = HeuristicStream("partnership", num_envs=4, seed=3).collect(64, reward_scale=0.01)
    for key in ("obs", "mask", "seat", "ret", "has_ret"):
        np.testing.assert_array_equal(getattr(positions, key), batch[key], err_msg=key)
    np.testing.assert_array_equal(positions.behaviour_probs.argmax(axis=1), batch["action"])
    assert positions.state.batch_size == len(positions) == 256
    assert positions.has_ret.any() and not positions.has_ret.all() and (positions.ret[positions.has_ret] != 0).any()
    # Each position's game is the one its seat decided in: the seat to move, its legal actions.
    from spades_env.engine import SpadesEngine

    engine = SpadesEngine("partnership")
    np.testing.assert_array_equal(engine.current_player(positions.state), positions.seat)
    np.testing.assert_array_equal(engine.legal_action_mask(positions.state), positions.mask)


def test_labels_are_legal_distributions_and_the_teacher_values_card_play(positions):
    labels = label_positions(positions, spec())
    np.testing.assert_allclose(labels.target.sum(axis=1), 1.0, rtol=1e-5)
    assert (labels.target[~positions.mask] == 0).all()
    assert positions.mask[np.arange(len(positions)), labels.action].all()
    several = positions.mask.sum(axis=1) > 1
    is_bid = positions.mask[:, 52:].any(axis=1)
    # search values every card decision with a choice; bids and forced cards go to the heuristic.
    np.testing.assert_array_equal(labels.valued, several & ~is_bid)
    heuristic = positions.behaviour_probs.argmax(axis=1)
    np.testing.assert_array_equal(labels.target[~labels.valued].argmax(axis=1), heuristic[~labels.valued])
    # The teacher's choice is one of its best-valued actions; only valued decisions have any.
    assert labels.best[labels.valued, labels.action[labels.valued]].all() and not labels.best[~labels.valued].any()
    assert (labels.best <= positions.mask).all()
    # Where the teacher keeps the heuristic's card (its ties go there), the target's largest mass is on it.
    kept = labels.valued & (labels.action == heuristic)
    rows = np.flatnonzero(kept)
    assert (labels.target[rows, heuristic[rows]] >= labels.target[rows].max(axis=1) - 1e-6).all()


def test_labelling_is_deterministic_and_depends_on_the_seed(positions):
    a, b = label_positions(positions, spec()), label_positions(positions, spec())
    assert_same_labels(a, b)
    other = label_positions(positions, spec(seed=(6, 0)))
    assert not np.array_equal(a.target, other.target)


@pytest.mark.parametrize("n_shards", [2, 3])
def test_shards_labelled_apart_and_concatenated_equal_one_run(positions, n_shards):
    parts = shards(positions, spec(), n_shards)
    assert len(parts) == n_shards and all(p.first % 16 == 0 for p in parts)
    assert sum(len(p.positions) for p in parts) == len(positions)
    apart = [label_shard(p) for p in reversed(parts)][::-1]  # labelled in another order
    assert_same_labels(Labels.concat(apart), label_positions(positions, spec()))


def test_the_unvalued_target_can_be_the_behaviour_policy(positions):
    behaviour = dataclasses.replace(positions, behaviour_probs=np.where(positions.mask, 1.0, 0.0).astype(np.float32))
    behaviour.behaviour_probs /= behaviour.behaviour_probs.sum(axis=1, keepdims=True)
    labels = label_positions(behaviour, spec(unvalued="behaviour"))
    np.testing.assert_array_equal(labels.target[~labels.valued], behaviour.behaviour_probs[~labels.valued])
    plain = label_positions(positions, spec())
    np.testing.assert_array_equal(labels.target[labels.valued], plain.target[labels.valued])
    np.testing.assert_array_equal(labels.best, plain.best)


def test_a_shard_off_a_chunk_boundary_and_a_teacher_without_values_are_refused(positions):
    with pytest.raises(ValueError, match="chunk boundary"):
        label_shard(LabelShard(positions.rows(0, 8), 8, spec()))
    with pytest.raises(ValueError, match=r"teacher 'random' gives no action values; .* or 'heuristic'"):
        label_positions(positions.rows(0, 4), spec(teacher="random"))
    with pytest.raises(ValueError, match="unvalued"):
        spec(unvalued="nobody")
    with pytest.raises(ValueError, match="anchor"):
        spec(anchor=1.0)


def test_the_heuristic_teacher_labels_each_card_with_a_choice_by_the_heuristics_card(positions):
    uniform = np.where(positions.mask, 1.0, 0.0).astype(np.float32)
    behaviour = dataclasses.replace(positions, behaviour_probs=uniform / uniform.sum(axis=1, keepdims=True))
    labels = label_positions(behaviour, spec(teacher=HEURISTIC_TEACHER, unvalued="behaviour"))
    several = positions.mask.sum(axis=1) > 1
    cards = positions.state.phase == PLAY
    np.testing.assert_array_equal(labels.valued, several & cards)
    assert labels.valued.any() and (~labels.valued & ~cards).any()  # bids among the unvalued
    heuristic = positions.behaviour_probs.argmax(axis=1)  # the positions' own behaviour was the heuristic
    v = labels.valued
    np.testing.assert_array_equal(labels.target[v], np.eye(positions.mask.shape[1], dtype=np.float32)[heuristic[v]])
    np.testing.assert_array_equal(labels.target[~v], behaviour.behaviour_probs[~v])  # bids keep the behaviour's
    np.testing.assert_array_equal(labels.action, heuristic)
    np.testing.assert_array_equal(labels.best, labels.target.astype(bool) & v[:, None])
    values = card_choice_values(positions.state, positions.mask, heuristic)
    assert np.isnan(values[~v]).all() and (values[v, heuristic[v]] == 0).all()
    assert np.isneginf(values[v]).sum() == v.sum() * (positions.mask.shape[1] - 1)


def test_the_anchor_mixes_the_behaviour_policy_into_the_valued_targets(positions):
    plain, anchored = label_positions(positions, spec()), label_positions(positions, spec(anchor=0.25))
    v = plain.valued
    np.testing.assert_allclose(anchored.target[v], 0.75 * plain.target[v] + 0.25 * positions.behaviour_probs[v])
    np.testing.assert_array_equal(anchored.target[~v], plain.target[~v])
    np.testing.assert_array_equal(anchored.action, plain.action)


@pytest.mark.slow
@pytest.mark.xdist_group("ray")  # with tests/train/distributed/test_ray.py: one pytest-xdist worker, one Ray at a time
def test_labels_from_ray_tasks_equal_the_labels_of_one_process(positions):
    import ray

    from train.distributed.ray_shards import RayOptions

    started = not ray.is_initialized()
    if started:
        ray.init(address="local", num_cpus=2, include_dashboard=False)
    try:
        on_ray = label_positions(positions, spec(), RayOptions(workers=2))
    finally:
        if started:
            ray.shutdown()
    assert_same_labels(on_ray, label_positions(positions, spec()))


def test_the_choice_target_is_the_card_the_teachers_act_plays_one_hot(positions):
    """``target: choice``: each card decision with a choice is labelled with the teacher's ``act`` (here a search
    with ``play_margin``), chunk by chunk with the chunk's seed, as the values would be."""
    from agents import make_agent
    from agents.base import DecisionContext
    from spades_env.engine import SpadesEngine

    teacher = TINY_TEACHER + ",play_margin=2"
    labels = label_positions(positions, spec(teacher=teacher, target="choice"))
    engine, acted = SpadesEngine("partnership"), []
    for k, lo in enumerate(range(0, len(positions), 16)):
        rows = positions.rows(lo, lo + 16)
        bot = make_agent(teacher)
        bot.reset([5, 0, k])
        acted.append(bot.act(rows.obs, rows.mask, DecisionContext(engine, rows.state, np.arange(len(rows)), rows.seat)))
    acted = np.concatenate(acted)
    v = labels.valued
    np.testing.assert_array_equal(v, (positions.mask.sum(axis=1) > 1) & (positions.state.phase == PLAY))
    np.testing.assert_array_equal(labels.target[v], np.eye(positions.mask.shape[1], dtype=np.float32)[acted[v]])
    np.testing.assert_array_equal(labels.action[v], acted[v])
    heuristic = positions.behaviour_probs.argmax(axis=1)
    assert (acted[v] == heuristic[v]).mean() > 0.5 and (acted[v] != heuristic[v]).any()
    assert not labels.card_valued.any() and not labels.card_values.any()  # a one-hot choice values no card
    with pytest.raises(ValueError, match="label target must be one of 'values', 'choice', got 'soft'"):
        spec(target="soft")


def test_deal_card_labels_value_each_card_on_the_real_deal_and_leave_the_rest_to_the_teacher(positions):
    """``cards: deal``: every card decision with a choice is valued by its engine rollout on the real deal (the
    heuristic playing every seat out), with no sampling (the teacher's seed changes none of them); the teacher
    still values the bids (here with ``bid_samples``)."""
    from agents.search_bidding import rollout_values
    from spades_env.engine import SpadesEngine
    from train.values.card_values import deal_card_values

    teacher = TINY_TEACHER + ",bid_samples=2"
    deal, other = (
        label_positions(positions, spec(cards="deal", teacher=teacher)),
        label_positions(positions, spec(cards="deal", teacher=teacher, seed=(6, 0))),
    )
    several = positions.mask.sum(axis=1) > 1
    is_card = several & (positions.state.phase == PLAY)
    is_bid = positions.mask[:, 52:].any(axis=1)
    assert is_card.sum() >= 100 and (several & is_bid).any()
    np.testing.assert_array_equal(deal.valued, several)  # cards by the deal, bids by the teacher
    np.testing.assert_array_equal(deal.target[is_card], other.target[is_card])  # no sampling in the card labels
    assert not np.array_equal(deal.target[is_bid], other.target[is_bid])  # the teacher's sampled bid values

    engine, heuristic = SpadesEngine("partnership"), HeuristicAgent()
    rows = np.flatnonzero(is_card)[::7]
    picked = positions.take(rows)
    values = deal_card_values(engine, picked.state, picked.seat, picked.mask, heuristic)
    dec, card = np.nonzero(picked.mask)
    reference = rollout_values(engine, picked.state.take(dec), card, picked.seat[dec], heuristic, compiled=False)
    np.testing.assert_allclose(values[dec, card], reference)
    assert np.isneginf(values[~picked.mask]).all()
    # The labels' best cards are those of the largest real-deal value; its softmax is the target.
    best = values == values.max(axis=1, keepdims=True)
    np.testing.assert_array_equal(deal.best[rows], best)
    assert (deal.target[rows].argmax(axis=1) == deal.action[rows]).all()
    # The card value head's labels: those values on the legal cards of the card decisions, nothing elsewhere.
    np.testing.assert_array_equal(deal.card_valued, is_card)
    np.testing.assert_allclose(deal.card_values[rows][picked.mask], values[picked.mask], rtol=1e-6)
    assert not deal.card_values[~is_card].any() and not deal.card_values[rows][~picked.mask].any()


def test_deal_card_labels_need_the_values_target():
    with pytest.raises(ValueError, match="card labels 'deal' need target 'values'"):
        spec(cards="deal", target="choice")
    with pytest.raises(ValueError, match="card labels must be one of 'teacher', 'deal'"):
        spec(cards="dael")
