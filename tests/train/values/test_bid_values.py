"""The bid-values trainer (``train/values/bid_values.py``, ``train/values/bid_values_train.py``,
``configs/train/bid_values.yaml``): every candidate bid valued by a rollout on the real deal, the bidding head regressed
on the centred values."""

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from tests.paths import ROOT

torch = pytest.importorskip("torch")

from agents.base import DecisionContext  # noqa: E402
from agents.heuristic import HeuristicAgent  # noqa: E402
from agents.neural import NeuralAgent, SpadesPolicy  # noqa: E402
from spades_env.engine import PLAY, SpadesEngine  # noqa: E402
from spades_env.games.spades.params import BID, BLIND  # noqa: E402
from spades_env.games.spades.scoring import bag_adjusted_points  # noqa: E402
from spades_env.observation import encoder_for  # noqa: E402
from spades_env.rules import resolve_rules  # noqa: E402
from tests.checkpoint_compare import committed  # noqa: E402
from tests.run_logs import run_scalars  # noqa: E402
from train.recipes.trainers import trainer_for  # noqa: E402
from train.runs.checkpoint import load_checkpoint  # noqa: E402
from train.values.bid_values import (  # noqa: E402
    BidLearner,
    bid_regret,
    card_loss,
    centred_value_loss,
    collect_bid_positions,
    deal_and_bid,
    play_card_positions,
)
from train.values.bid_values_config import BidValuesConfig  # noqa: E402
from train.values.bid_values_train import train  # noqa: E402

RECIPE = ROOT / "configs" / "train" / "bid_values.yaml"
OWN_CARDS = ROOT / "configs" / "train" / "bid_values_own_cards.yaml"
#: The sizes a smoke run shrinks; every other setting is the recipe's own.
TINY = {"rounds": 2, "deals": 32, "eval_deals": 4, "eval_every": 1, "minibatch": 64}


def tiny_learner(rules: str, seed: int = 0) -> BidLearner:
    engine = SpadesEngine(resolve_rules(rules))
    encoder = encoder_for(engine)
    torch.manual_seed(seed)
    policy = SpadesPolicy.for_engine(engine, encoder.size, hidden=16, depth=1).eval()
    return BidLearner(policy, engine, encoder, torch.device("cpu"))


def test_the_loss_compares_values_centred_on_each_decisions_candidates():
    cand = torch.tensor([[True, True, False], [True, True, True]])
    q = torch.tensor([[1.0, 3.0, 50.0], [0.0, 0.0, 0.0]])
    values = torch.tensor([[7.0, 7.0, -9.0], [1.0, 2.0, 3.0]])
    # row 0: centred q (-1, 1) against (0, 0): 1; row 1: centred values (-1, 0, 1): 2/3
    assert centred_value_loss(q, cand, values).item() == pytest.approx((1 + 2 / 3) / 2)
    shifted = values + torch.tensor([[100.0], [-5.0]])  # a deal's luck: the same for every candidate
    assert centred_value_loss(shifted - 3.0, cand, values).item() == pytest.approx(0.0, abs=1e-6)
    assert centred_value_loss(q, cand, shifted).item() == pytest.approx(centred_value_loss(q, cand, values).item())


def test_regret_is_the_points_left_to_each_decisions_best_candidate():
    cand = np.array([[True, True, True], [True, False, True]])
    values = np.array([[1.0, 5.0, 3.0], [4.0, 99.0, 2.0]])
    assert bid_regret(np.array([2, 2]), cand, values) == pytest.approx((2.0 + 2.0) / 2)
    assert bid_regret(np.array([1, 0]), cand, values) == 0.0


def play_out_plainly(learner: BidLearner, state, candidate: int, side: int) -> float:
    """The value of ``candidate`` in the one game of ``state``, played in the engine step by step (no compiled
    rollout): the learner's greedy bids for side ``side``, HeuristicAgent for every other decision."""
    engine, heuristic = learner.engine, HeuristicAgent()
    action = candidate
    while True:
        result = engine.step(state, np.array([action]))
        if result.finished:
            (f,) = result.finished
            adjusted = bag_adjusted_points(engine.rules, f.delta, f.bags_added, f.bag_penalties)[0]
            return float(adjusted[side] - (adjusted.sum() - adjusted[side]) / (engine.n_sides - 1))
        mask = engine.legal_action_mask(state)
        seat = state.to_move
        if engine.side_of_seat[seat[0]] == side and state.phase[0] in (BID, BLIND):
            action = int(learner.bids(state, np.arange(1), mask)[0])
        else:
            action = int(heuristic.act(None, mask, DecisionContext(engine, state, np.arange(1), seat))[0])


@pytest.mark.parametrize("rules", ["partnership", "cutthroat-4"])
def test_every_candidate_is_valued_by_playing_the_real_deal_out(rules):
    learner = tiny_learner(rules)
    engine = learner.engine
    seeds = np.arange(40, 46)
    pos = collect_bid_positions(engine, seeds, learner, HeuristicAgent(), 0.5, np.random.default_rng(0))
    off = engine.layout.bid_offset
    assert len(pos) >= len(seeds)  # at least one decision with a choice per deal
    np.testing.assert_array_equal(pos.state.to_move, pos.seat)
    masks = engine.legal_action_mask(pos.state)
    assert (pos.cand.sum(axis=1) > 1).all() and not (pos.cand & ~masks[:, off:]).any()
    assert ((pos.state.phase == BID) | (pos.state.phase == BLIND)).all()
    np.testing.assert_array_equal(pos.obs, learner.encoder.encode(pos.state, np.arange(len(pos)), pos.seat))
    assert (pos.values[~pos.cand] == 0).all()
    for i in range(0, len(pos), max(1, len(pos) // 6)):
        side = int(engine.side_of_seat[pos.seat[i]])
        for k in np.flatnonzero(pos.cand[i]):
            plain = play_out_plainly(learner, pos.state.take([i]), off + int(k), side)
            assert pos.values[i, k] == pytest.approx(plain), (i, k)


def test_the_learner_holds_one_side_of_each_deal_and_the_heuristic_the_others():
    learner = tiny_learner("cutthroat-4")
    engine = learner.engine
    for side in range(engine.n_sides):  # deal g's learner holds side g % n_sides
        seeds = np.full(side + 1, 7)  # the same deal in every game: only the last one's positions differ
        pos = collect_bid_positions(engine, seeds, learner, HeuristicAgent(), 0.0, np.random.default_rng(0))
        sides = set(engine.side_of_seat[pos.seat].tolist())
        assert sides == set(range(side + 1))


#: The joint variant tried first (``bid_values_own_cards.yaml``'s header): every layer, the cards kept by card_weight.
JOINT = {"bid_depth": 0, "train_layers": "all", "card_weight": 1.0}


@pytest.mark.parametrize(
    ("recipe_path", "overrides", "init_from", "card_play", "tags"),
    [
        (RECIPE, {}, "checkpoints/partnership_bids.pt", "heuristic", ()),
        (OWN_CARDS, {}, "checkpoints/partnership_dagger.pt", "network", ()),
        (
            OWN_CARDS,
            JOINT,
            "checkpoints/partnership_dagger.pt",
            "network",
            ("losses/card_loss", "agreement/heuristic_cards"),
        ),
    ],
)
def test_the_recipes_train_log_and_resume_bit_identically(tmp_path, recipe_path, overrides, init_from, card_play, tags):
    recipe = dataclasses.replace(BidValuesConfig.from_yaml(recipe_path), **overrides)
    assert trainer_for(config=recipe_path)[0] is BidValuesConfig
    assert recipe.init_from == init_from and recipe.card_play == card_play
    assert (recipe.card_weight > 0) == bool(tags)
    cfg = dataclasses.replace(recipe, **TINY)
    whole = train(dataclasses.replace(cfg, run_dir=str(tmp_path / "whole")), quiet=True)
    ckpt = load_checkpoint(whole)
    assert ckpt["update"] == 2 and ckpt["config"] == recipe.to_dict() | TINY | {"run_dir": str(tmp_path / "whole")}
    assert (whole.parent / "best.pt").exists()
    scalars = run_scalars(tmp_path / "whole")
    for tag in ("losses/value_loss", "regret/learner", "regret/heuristic", "bidding/nil_rate", "eval/diff", *tags):
        assert len(scalars[tag]) == 2, tag
    assert NeuralAgent.from_checkpoint(whole).play == card_play  # plays as it trained

    half = train(dataclasses.replace(cfg, run_dir=str(tmp_path / "half")), stop_at=1, quiet=True)
    resumed = load_checkpoint(train(resume=half, quiet=True))
    assert resumed["update"] == 2 and len(resumed["replay"]) == 2
    assert len(resumed["card_replay"]) == (2 if tags else 0)
    for key, value in ckpt["model"].items():
        assert torch.equal(resumed["model"][key], value), key


def test_the_realized_hands_give_the_learners_card_decisions_labelled_with_the_heuristics_card():
    learner = tiny_learner("partnership")
    engine, heuristic = learner.engine, HeuristicAgent()
    _, state = deal_and_bid(engine, np.arange(8), learner, heuristic, 0.0, np.random.default_rng(0))
    bid = state.copy()
    cards = play_card_positions(engine, state, learner, heuristic, 1.0, np.random.default_rng(0))
    assert (cards.state.phase == PLAY).all() and len(cards) > 8 * 2 * 6  # 2 seats of 13 cards, a choice in most
    masks = engine.legal_action_mask(cards.state)[:, : engine.layout.bid_offset]
    np.testing.assert_array_equal(cards.mask, masks)
    assert (cards.mask.sum(axis=1) > 1).all()
    ctx = DecisionContext(engine, cards.state, np.arange(len(cards)), cards.seat)
    np.testing.assert_array_equal(cards.target, heuristic.act(None, engine.legal_action_mask(cards.state), ctx))
    np.testing.assert_array_equal(cards.obs, learner.encoder.encode(cards.state, np.arange(len(cards)), cards.seat))
    # game g's learner holds side g % 2: the kept decisions' games are told apart by their deals
    side_of_deal = {int(d): g % 2 for g, d in enumerate(bid.deal[:, 0])}
    for deal, seat in zip(cards.state.deal[:, 0], cards.seat, strict=True):
        assert engine.side_of_seat[seat] == side_of_deal[int(deal)]
    assert (state.phase != PLAY).all() and (state.hand_number > bid.hand_number).all()  # every hand played out
    again = deal_and_bid(engine, np.arange(8), learner, heuristic, 0.0, np.random.default_rng(0))[1]
    half = play_card_positions(engine, again, learner, heuristic, 0.5, np.random.default_rng(1))
    assert 0.3 * len(cards) < len(half) < 0.7 * len(cards)


def test_keep_nil_keeps_that_share_of_the_decisions_in_hands_where_a_seat_bid_nil():
    learner = tiny_learner("partnership")
    engine, heuristic = learner.engine, HeuristicAgent()

    def positions(keep, keep_nil):
        state = deal_and_bid(engine, np.arange(48), learner, heuristic, 0.0, np.random.default_rng(0))[1]
        return play_card_positions(engine, state, learner, heuristic, keep, np.random.default_rng(1), keep_nil)

    every = positions(1.0, None)
    nil_hands = every.state.nil_bid
    assert 0 < nil_hands.sum() < len(every)  # the deals have hands of both kinds
    kept = positions(0.01, 1.0)  # the same hands are played whatever is kept: only the sampling differs
    assert kept.state.nil_bid.sum() == nil_hands.sum()
    assert (~kept.state.nil_bid).sum() < 0.1 * (~nil_hands).sum()


def test_the_card_loss_is_the_cross_entropy_over_the_legal_cards():
    logits = torch.tensor([[0.0, 0.0, 9.0], [1.0, 2.0, 3.0]])
    mask = torch.tensor([[True, True, False], [True, True, True]])
    target = torch.tensor([0, 2])
    expected = (np.log(2.0) + -np.log(np.exp(3.0) / np.exp([1.0, 2.0, 3.0]).sum())) / 2
    assert card_loss(logits, mask, target).item() == pytest.approx(expected)


def test_bid_head_training_keeps_the_torso_and_the_card_play_bit_for_bit(tmp_path):
    cfg = dataclasses.replace(
        BidValuesConfig.from_yaml(RECIPE), **TINY | {"eval_every": 0}, train_layers="bid_head", card_play="network",
        init_from="checkpoints/partnership_dagger.pt", run_dir=str(tmp_path), eval_final=False,
    )  # fmt: skip
    before = load_checkpoint(ROOT / cfg.init_from)["model"]
    after = load_checkpoint(train(cfg, quiet=True))["model"]
    changed = {k for k in before if not torch.equal(before[k], after[k])}
    assert changed and all(k.startswith("bid_head.") for k in changed)


def test_a_bidding_torso_of_its_own_shares_no_weight_with_the_card_play():
    engine = SpadesEngine(resolve_rules("partnership"))
    size = encoder_for(engine).size
    plain = SpadesPolicy.for_engine(engine, size, hidden=16, depth=1)
    assert set(plain.hyperparameters()) == {"obs_dim", "n_actions", "n_card_actions", "hidden", "depth"}
    torch.manual_seed(0)
    net = SpadesPolicy(**plain.hyperparameters(), bid_hidden=8, bid_depth=2)
    again = SpadesPolicy(**net.hyperparameters())
    assert again.hyperparameters() == net.hyperparameters() | {"bid_hidden": 8, "bid_depth": 2}
    obs = torch.rand(5, size)
    bids = net.action_logits(obs)[:, engine.layout.bid_offset :]
    cards = net.action_logits(obs, bids=False)[:, : engine.layout.bid_offset]
    torch.testing.assert_close(net(obs)[0][:, : engine.layout.bid_offset], cards, rtol=0, atol=0)
    with torch.no_grad():
        for p in net.torso.parameters():
            p.add_(1.0)
    torch.testing.assert_close(net.action_logits(obs)[:, engine.layout.bid_offset :], bids, rtol=0, atol=0)
    assert not torch.equal(net.action_logits(obs, bids=False)[:, : engine.layout.bid_offset], cards)


def test_a_new_bidding_torso_learns_while_every_loaded_weight_stays_and_the_checkpoint_plays(tmp_path):
    recipe = BidValuesConfig.from_yaml(OWN_CARDS)
    assert recipe.bid_depth > 0 and recipe.train_layers == "bid_head" and recipe.card_play == "network"
    cfg = dataclasses.replace(recipe, **TINY | {"eval_every": 0}, run_dir=str(tmp_path), eval_final=False)
    before = load_checkpoint(ROOT / cfg.init_from)["model"]
    latest = train(cfg, quiet=True)
    ckpt = load_checkpoint(latest)
    after = ckpt["model"]
    assert ckpt["model_hparams"]["bid_depth"] == recipe.bid_depth
    for key, value in before.items():
        if not key.startswith("bid_head."):
            assert torch.equal(after[key], value), key
    assert any(k.startswith("bid_torso.") for k in after)
    agent = NeuralAgent.from_checkpoint(latest)
    assert agent.play == "network" and agent.policy.bid_depth == recipe.bid_depth
    dagger = NeuralAgent.from_checkpoint(ROOT / cfg.init_from)
    learner = tiny_learner("partnership")
    pos = collect_bid_positions(learner.engine, np.arange(4), learner, HeuristicAgent(), 0.0, np.random.default_rng(0))
    masks = learner.engine.legal_action_mask(pos.state)
    masks[:, : learner.engine.layout.bid_offset] = True  # card decisions are played as before, bit for bit
    masks[:, learner.engine.layout.bid_offset :] = False
    np.testing.assert_array_equal(agent.act(pos.obs, masks), dagger.act(pos.obs, masks))


DISTILLED = ROOT / "configs" / "train" / "bid_values_distilled.yaml"


def test_a_value_teacher_labels_the_candidates_with_its_values_instead_of_rollouts(tmp_path):
    from train.values.bid_values_network import load_value_teacher

    recipe = BidValuesConfig.from_yaml(DISTILLED)
    assert recipe.value_teacher == "checkpoints/partnership_bid_values.pt" and recipe.bid_depth > 0
    learner = tiny_learner("partnership")
    engine = learner.engine
    net, scale = load_value_teacher(ROOT / recipe.value_teacher, engine, learner.encoder)
    teacher = BidLearner(net, engine, learner.encoder, torch.device("cpu"))
    pos, _ = deal_and_bid(
        engine, np.arange(6), learner, HeuristicAgent(), 0.0, np.random.default_rng(0), teacher, scale
    )
    expected = np.where(pos.cand, (teacher.values(pos.obs) * scale).astype(np.float32), 0)
    np.testing.assert_allclose(pos.values, expected, rtol=1e-5, atol=1e-4)  # another batch: float rounding only
    cfg = dataclasses.replace(recipe, **TINY | {"eval_every": 0}, run_dir=str(tmp_path), eval_final=False)
    assert load_checkpoint(train(cfg, quiet=True))["update"] == TINY["rounds"]
    with pytest.raises(ValueError, match="is not a bid-values network"):
        train(dataclasses.replace(cfg, value_teacher="checkpoints/partnership_dagger.pt"), quiet=True)


def test_the_values_are_learned(tmp_path):
    cfg = dataclasses.replace(BidValuesConfig.from_yaml(RECIPE), rounds=1, deals=64, run_dir=str(tmp_path))
    learner = tiny_learner("partnership", seed=1)
    pos = collect_bid_positions(learner.engine, np.arange(64), learner, HeuristicAgent(), 0.2, np.random.default_rng(0))
    from train.values.bid_values_train import train_on_replay

    def regret() -> float:
        return bid_regret(np.argmax(np.where(pos.cand, learner.values(pos.obs), -np.inf), axis=1), pos.cand, pos.values)

    before = regret()
    optimizer = torch.optim.Adam(learner.policy.parameters(), lr=3e-3)
    cfg = dataclasses.replace(cfg, epochs=60)
    train_on_replay(learner.policy, optimizer, [pos], np.random.default_rng(0), cfg, torch.device("cpu"))
    assert regret() < 0.5 * before


def test_bad_settings_are_refused_naming_them(tmp_path):
    with pytest.raises(ValueError, match=r"train_layers='torso' \(train_layers: one of all, bid_head, card_values\)"):
        BidValuesConfig(train_layers="torso")
    with pytest.raises(ValueError, match=r"card_margin=-1"):
        BidValuesConfig(card_margin=-1)
    with pytest.raises(ValueError, match=r"train_layers 'card_values' needs card_value_hidden > 0"):
        BidValuesConfig(train_layers="card_values")
    with pytest.raises(ValueError, match=r"card_keep_nil=0.0"):
        BidValuesConfig(card_keep_nil=0.0)
    with pytest.raises(ValueError, match="unknown bid-values config key"):
        BidValuesConfig.from_dict({"decks": 3})
    with pytest.raises(ValueError, match=r"'hearts' \(Hearts, no bids\) trains only card values: train_layers must be"):
        train(BidValuesConfig(rules="hearts", run_dir=str(tmp_path)), quiet=True)
    with pytest.raises(ValueError, match="was trained on 'partnership', not 'cutthroat-4'"):
        train(BidValuesConfig(rules="cutthroat-4", run_dir=str(tmp_path)), quiet=True)


def test_the_committed_bid_values_checkpoint_is_the_recipes_network_and_plays_with_heuristic_cards():
    committed(ROOT / "checkpoints" / "partnership_bid_values.pt", RECIPE)
    agent = NeuralAgent.from_checkpoint(ROOT / "checkpoints" / "partnership_bid_values.pt")
    assert agent.play == "heuristic"


def test_the_cli_trains_and_resumes_a_bid_values_config(tmp_path):
    import yaml
    from typer.testing import CliRunner

    from train.cli.app import app

    small = tmp_path / "small.yaml"
    small.write_text(yaml.safe_dump(BidValuesConfig.from_yaml(RECIPE).to_dict() | TINY | {"eval_every": 0}))
    runner = CliRunner()
    args = ["train", "--config", str(small), "--run-dir", str(tmp_path / "runs"), "--stop-at", "1", "--set", "seed=5"]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    latest = Path(first.output.split("checkpoint:")[-1].strip())
    assert load_checkpoint(latest)["update"] == 1 and latest.is_relative_to(tmp_path / "runs")
    assert load_checkpoint(latest)["config"]["seed"] == 5 != BidValuesConfig.from_yaml(small).seed  # --set applied
    second = runner.invoke(app, ["train", "--resume", str(latest)])
    assert second.exit_code == 0, second.output
    assert load_checkpoint(latest)["update"] == 2
    refused = runner.invoke(app, ["train", "--resume", str(latest), "--actors", "1"])
    assert "--actors 1 is for expert iteration" in str(refused.exception)


def test_the_distilled_checkpoint_is_its_recipes_network_with_the_dagger_card_play():
    data = committed(ROOT / "checkpoints" / "partnership_bid_values_distilled.pt", DISTILLED)
    recipe = BidValuesConfig.from_yaml(DISTILLED)
    assert data["model_hparams"]["bid_depth"] == recipe.bid_depth and recipe.train_layers == "bid_head"
    dagger = load_checkpoint(ROOT / recipe.init_from)["model"]
    for key, value in dagger.items():  # the card play (and everything but the bidding head) is partnership_dagger.pt's
        if not key.startswith("bid_head."):
            assert torch.equal(data["model"][key], value), key


NIL_CARDS = ROOT / "configs" / "train" / "bid_values_nil_cards.yaml"


def test_the_nil_cards_checkpoint_is_its_recipes_network_with_its_card_play_relearned():
    path = ROOT / "checkpoints" / "partnership_bid_values_nil_cards.pt"
    data = committed(path, NIL_CARDS)
    recipe = BidValuesConfig.from_yaml(NIL_CARDS)
    assert recipe.init_from == "checkpoints/partnership_bid_values_distilled.pt" and recipe.card_keep_nil == 1.0
    start = load_checkpoint(ROOT / recipe.init_from)["model"]
    assert not torch.equal(data["model"]["card_head.weight"], start["card_head.weight"])  # its card play relearned
    assert NeuralAgent.from_checkpoint(path).play == "network"


CUTTHROAT4_OWN_CARDS = ROOT / "configs" / "train" / "cutthroat4_bid_values_own_cards.yaml"


@pytest.mark.parametrize(
    ("name", "recipe", "rules"),
    [
        ("cutthroat4_bid_values.pt", ROOT / "configs" / "train" / "cutthroat4_bid_values.yaml", "cutthroat-4"),
        ("cutthroat4_bid_values_own_cards.pt", CUTTHROAT4_OWN_CARDS, "cutthroat-4"),
    ],
)
def test_the_committed_cutthroat4_checkpoints_are_their_recipes_networks(name, recipe, rules):
    data = committed(ROOT / "checkpoints" / name, recipe)
    assert data["rules"]["name"] == rules
    agent = NeuralAgent.from_checkpoint(ROOT / "checkpoints" / name)
    assert agent.play == BidValuesConfig.from_yaml(recipe).card_play


def test_without_valuing_the_bids_the_same_games_are_bid_and_kept_with_no_candidate_rolled_out(monkeypatch):
    import train.values.bid_values as bid_values

    learner = tiny_learner("partnership")
    engine, heuristic = learner.engine, HeuristicAgent()
    valued, state = deal_and_bid(engine, np.arange(12), learner, heuristic, 0.1, np.random.default_rng(0))
    assert np.abs(valued.values).sum() > 0

    def no_rollout(*args, **kwargs):
        raise AssertionError("a candidate bid was rolled out")

    monkeypatch.setattr(bid_values, "finish_values", no_rollout)
    unvalued, again = deal_and_bid(
        engine, np.arange(12), learner, heuristic, 0.1, np.random.default_rng(0), value_bids=False
    )
    for field in ("seat", "obs", "cand", "heuristic"):  # the same decisions, explored alike
        np.testing.assert_array_equal(getattr(unvalued, field), getattr(valued, field))
    assert not unvalued.values.any()
    np.testing.assert_array_equal(again.bids, state.bids)
