"""Card values learned on the real deal (``train/values/card_values.py``, ``configs/train/card_values.yaml``): every
legal card rolled out by the heuristic, a card value head regressed on the centred values, the margin rule that plays
it."""

import dataclasses

import numba
import numpy as np
import pytest

from tests.paths import ROOT

torch = pytest.importorskip("torch")

from agents import make_agent  # noqa: E402
from agents.heuristic import HeuristicAgent  # noqa: E402
from agents.neural import NeuralAgent, SpadesPolicy, margin_cards  # noqa: E402
from agents.search_rollouts import play_out_values  # noqa: E402
from spades_env.engine import PLAY, SpadesEngine  # noqa: E402
from spades_env.observation import encoder_for  # noqa: E402
from spades_env.rules import resolve_rules  # noqa: E402
from tests.checkpoint_compare import assert_learned_plays, committed  # noqa: E402
from tests.run_logs import run_scalars  # noqa: E402
from train.runs.checkpoint import STATE_VALUE_PREFIX, load_checkpoint  # noqa: E402
from train.values.bid_values import BidLearner, CardPositions, deal_and_bid, play_card_positions  # noqa: E402
from train.values.bid_values_config import BidValuesConfig  # noqa: E402
from train.values.bid_values_network import positions_from_payload, positions_payload  # noqa: E402
from train.values.bid_values_train import train  # noqa: E402
from train.values.card_values import ValuedCardPositions, card_value_gain, card_values_on_deal  # noqa: E402

RECIPE = ROOT / "configs" / "train" / "card_values.yaml"
CUTTHROAT4 = ROOT / "configs" / "train" / "cutthroat4_card_values.yaml"
HEARTS = ROOT / "configs" / "train" / "hearts_card_values.yaml"
RECIPE_TORSO = ROOT / "configs" / "train" / "card_values_torso.yaml"
CUTTHROAT4_TORSO = ROOT / "configs" / "train" / "cutthroat4_card_values_torso.yaml"
HEARTS_TORSO = ROOT / "configs" / "train" / "hearts_card_values_torso.yaml"
VS_SEARCH = ROOT / "configs" / "train" / "card_values_vs_search.yaml"
HEARTS_ITERATED = ROOT / "configs" / "train" / "hearts_card_values_iterated.yaml"
HEARTS_ITERATED2 = ROOT / "configs" / "train" / "hearts_card_values_iterated2.yaml"
HEARTS_ITERATED3 = ROOT / "configs" / "train" / "hearts_card_values_iterated3.yaml"
TINY = {"rounds": 2, "deals": 32, "eval_deals": 4, "eval_every": 1, "minibatch": 64}


def test_the_margin_rule_replaces_the_card_only_where_a_legal_card_is_better_by_more_than_the_margin():
    base = np.array([0, 0, 0, 1])
    values = np.array([[0.0, 5.0, 9.0], [0.0, 3.0, 99.0], [0.0, 0.0, 0.0], [2.0, 0.0, 4.5]])
    legal = np.array([[True, True, True], [True, True, False], [True, True, True], [True, True, True]])
    np.testing.assert_array_equal(margin_cards(base, values, legal, 4.0), [2, 0, 0, 2])  # 99 is illegal; 3 < 4
    np.testing.assert_array_equal(margin_cards(base, values, legal, 0.0), [2, 1, 0, 2])  # ties keep the base card
    np.testing.assert_array_equal(margin_cards(base, values, legal, 100.0), base)
    assert card_value_gain(np.array([2, 0]), np.array([0, 1]), values[:2]) == pytest.approx((9.0 - 3.0) / 2)


def small_policy(engine, encoder, card_value_hidden: int = 0, seed: int = 0) -> SpadesPolicy:
    torch.manual_seed(seed)
    lay = engine.layout
    return SpadesPolicy(
        encoder.size, lay.n_actions, lay.bid_offset, hidden=16, depth=1, card_value_hidden=card_value_hidden
    ).eval()


def test_a_new_card_value_head_values_every_card_alike_so_the_network_plays_as_before():
    engine = SpadesEngine(resolve_rules("partnership"))
    encoder = encoder_for(engine)
    plain = small_policy(engine, encoder)
    valued = small_policy(engine, encoder, card_value_hidden=8)
    missing, unexpected = valued.load_state_dict(plain.state_dict(), strict=False)
    assert not unexpected and missing and all(k.startswith("card_value_head.") for k in missing)
    assert valued.hyperparameters() == plain.hyperparameters() | {"card_value_hidden": 8}
    assert "card_value_hidden" not in plain.hyperparameters()  # the networks before it keep their hyperparameters
    learner = BidLearner(plain, engine, encoder, torch.device("cpu"))
    _, state = deal_and_bid(engine, np.arange(6), learner, HeuristicAgent(), 0.0, np.random.default_rng(0))
    obs = torch.as_tensor(encoder.encode(state, np.arange(6), state.to_move))
    assert torch.equal(valued.action_logits(obs), plain.action_logits(obs))
    assert torch.equal(valued.card_values(obs), torch.zeros(6, engine.layout.bid_offset))
    with pytest.raises(ValueError, match="no card value head"):
        plain.card_values(obs)
    masks = engine.legal_action_mask(state)
    np.testing.assert_array_equal(
        NeuralAgent(valued, card_margin=0.0).act(obs.numpy(), masks), NeuralAgent(plain).act(obs.numpy(), masks)
    )


def test_every_legal_card_is_valued_by_playing_it_and_the_hand_out_on_the_real_deal():
    engine = SpadesEngine(resolve_rules("partnership"))
    encoder = encoder_for(engine)
    heuristic = HeuristicAgent()
    learner = BidLearner(small_policy(engine, encoder), engine, encoder, torch.device("cpu"))
    _, state = deal_and_bid(engine, np.arange(4), learner, heuristic, 0.0, np.random.default_rng(0))
    positions = play_card_positions(engine, state, learner, heuristic, 1.0, np.random.default_rng(0))
    early = np.flatnonzero(positions.state.n_tricks < 10)[::7][:6]  # no card of these ends the hand
    values = card_values_on_deal(engine, positions, heuristic)
    assert values.dtype == np.float32 and (values[~positions.mask] == 0).all()
    checked = 0
    for i in early:
        for card in np.flatnonzero(positions.mask[i]):
            roll = positions.state.take(np.array([i]))
            engine.step(roll, np.array([card]))
            assert roll.phase[0] == PLAY
            expected = play_out_values(engine, roll, positions.seat[i : i + 1], heuristic)[0]
            assert values[i, card] == pytest.approx(expected, abs=1e-4), (i, card)
            checked += 1
    assert checked >= 12
    spread = [np.ptp(values[i, positions.mask[i]]) for i in early]
    assert max(spread) > 0  # the cards' values differ


@pytest.mark.parametrize(
    "recipe_path",
    [
        *(RECIPE, CUTTHROAT4, HEARTS, RECIPE_TORSO, CUTTHROAT4_TORSO, HEARTS_TORSO),
        *(HEARTS_ITERATED, HEARTS_ITERATED2, HEARTS_ITERATED3),
    ],
    ids=[
        "partnership",
        "cutthroat-4",
        "hearts",
        "partnership-torso",
        "cutthroat-4-torso",
        "hearts-torso",
        "hearts-iterated",
        "hearts-iterated2",
        "hearts-iterated3",
    ],  # fmt: skip
)
def test_the_recipe_trains_only_the_card_value_layers_logs_and_resumes_bit_identically(tmp_path, recipe_path):
    recipe = BidValuesConfig.from_yaml(recipe_path)
    assert recipe.train_layers == "card_values" and recipe.card_value_hidden > 0 and recipe.card_play == "network"
    assert not recipe.fresh_head and recipe.card_weight == 0  # the loaded bids and card head are kept
    cfg = dataclasses.replace(recipe, **TINY)
    whole = train(dataclasses.replace(cfg, run_dir=str(tmp_path / "whole")), quiet=True)
    ckpt = load_checkpoint(whole)
    before = load_checkpoint(ROOT / recipe.init_from)["model"]
    # a new value head learns alone; a value torso (on a loaded value head) learns with that head
    trained = "card_value_torso." if recipe.card_value_torso else "card_value_head."
    for key, value in before.items():
        if not key.startswith(("card_value_head.", trained)):
            assert torch.equal(ckpt["model"][key], value), key  # bids, shared torso and card head bit for bit
    new = {k for k in ckpt["model"] if k not in before}
    assert all(k.startswith(trained) for k in new)
    assert new or "card_value_torso.0.weight" in before  # new layers, or a loaded value torso learning further
    if recipe.card_value_torso:
        assert ckpt["model_hparams"]["card_value_torso"] is True
        start = before.get("card_value_torso.0.weight", before["torso.0.weight"])
        assert not torch.equal(ckpt["model"]["card_value_torso.0.weight"], start.float())  # it learned
    else:
        assert ckpt["model"]["card_value_head.2.weight"].abs().sum() > 0  # it learned
    scalars = run_scalars(tmp_path / "whole")
    for tag in ("losses/card_value_loss", "cards/value_gain", "cards/gain_over_heuristic", "cards/switched"):
        assert len(scalars[tag]) == 2, tag
    seconds = {tag: [v for _, v in scalars[f"time/{tag}_s"]] for tag in ("bid", "play_cards", "label_cards")}
    total = [v for _, v in scalars["time/collect_value_s"]]  # the collection, split
    np.testing.assert_allclose(np.sum(list(seconds.values()), axis=0), total, rtol=1e-3)
    assert all(min(v) > 0 for v in seconds.values())
    assert "losses/value_loss" not in scalars and "regret/learner" not in scalars  # no bid trains, none is valued

    threads = min(2, numba.config.NUMBA_NUM_THREADS)  # the same run on any number of rollout threads
    half = train(
        dataclasses.replace(cfg, run_dir=str(tmp_path / "half"), rollout_threads=threads), stop_at=1, quiet=True
    )
    assert "values" in load_checkpoint(half)["card_replay"][0]
    resumed = load_checkpoint(train(resume=half, quiet=True))
    assert resumed["update"] == 2 and len(resumed["card_replay"]) == min(2, recipe.replay_rounds)
    for key, value in ckpt["model"].items():
        assert torch.equal(resumed["model"][key], value), key

    agent = NeuralAgent.from_checkpoint(whole)
    assert agent.card_margin == recipe.card_margin and agent.value_scale == recipe.value_scale  # Hearts: 10 points
    assert (agent.policy.card_value_torso is not None) == recipe.card_value_torso
    assert NeuralAgent.from_checkpoint(whole, card_margin=1.5).card_margin == 1.5
    assert make_agent(f"neural:path={whole},margin=2").card_margin == 2.0
    with pytest.raises(ValueError, match=r"option 'margin' must be a number of points >= 0, got '-1'"):
        make_agent(f"neural:path={whole},margin=-1")


def test_the_network_plays_the_margin_rule_of_its_value_head(tmp_path):
    engine = SpadesEngine(resolve_rules("partnership"))
    encoder = encoder_for(engine)
    policy = small_policy(engine, encoder, card_value_hidden=8, seed=3)
    torch.nn.init.normal_(policy.card_value_head[2].weight, std=0.5)  # values that differ by some points
    learner = BidLearner(policy, engine, encoder, torch.device("cpu"), card_margin=3.0, value_scale=100.0)
    heuristic = HeuristicAgent()
    _, state = deal_and_bid(engine, np.arange(8), learner, heuristic, 0.0, np.random.default_rng(0))
    positions = play_card_positions(engine, state, learner, heuristic, 1.0, np.random.default_rng(0))
    base, played = learner.card_choices(positions.obs, positions.mask)
    with torch.no_grad():
        logits = policy.action_logits(torch.as_tensor(positions.obs))[:, : engine.layout.bid_offset].numpy()
        points = policy.card_values(torch.as_tensor(positions.obs)).double().numpy() * 100.0
    np.testing.assert_array_equal(base, np.argmax(np.where(positions.mask, logits, -np.inf), axis=1))
    np.testing.assert_array_equal(played, margin_cards(base, points, positions.mask, 3.0))
    assert 0 < (played != base).mean() < 1
    np.testing.assert_array_equal(positions.base, base)  # recorded as it played (the round's scalars read them)
    np.testing.assert_array_equal(positions.played, played)
    masks = engine.legal_action_mask(positions.state)
    agent = NeuralAgent(policy, card_margin=3.0)
    np.testing.assert_array_equal(agent.act(positions.obs, masks), played)
    valued = ValuedCardPositions(**vars(positions), values=np.zeros(positions.mask.shape, np.float32))
    assert len(valued) == len(positions)
    back = positions_from_payload(positions_payload(valued), encoder, CardPositions)  # a replay in a checkpoint
    assert isinstance(back, ValuedCardPositions)
    for field in dataclasses.fields(ValuedCardPositions):
        if field.name != "state":
            np.testing.assert_array_equal(getattr(back, field.name), getattr(valued, field.name), err_msg=field.name)
    older = {k: v for k, v in positions_payload(valued).items() if k not in ("base", "played")}
    assert (positions_from_payload(older, encoder, CardPositions).played == -1).all()  # not recorded before


@pytest.mark.parametrize(
    ("name", "recipe_path"),
    [
        ("partnership_card_values.pt", RECIPE),
        ("cutthroat4_card_values.pt", CUTTHROAT4),
        ("hearts_card_values.pt", HEARTS),
        ("partnership_card_values_torso.pt", RECIPE_TORSO),
        ("cutthroat4_card_values_torso.pt", CUTTHROAT4_TORSO),
        ("hearts_card_values_torso.pt", HEARTS_TORSO),
        ("partnership_card_values_vs_search.pt", VS_SEARCH),
        ("hearts_card_values_iterated.pt", HEARTS_ITERATED),
        ("hearts_card_values_iterated2.pt", HEARTS_ITERATED2),
        ("hearts_card_values_iterated3.pt", HEARTS_ITERATED3),
    ],
)
def test_a_committed_card_values_checkpoint_is_its_recipes_network_on_its_start(name, recipe_path):
    path = ROOT / "checkpoints" / name
    data = committed(path, recipe_path)
    recipe = BidValuesConfig.from_yaml(recipe_path)
    start = load_checkpoint(ROOT / recipe.init_from)["model"]
    assert data["model_hparams"]["state_value"] is False  # exported play-only: PPO's state value head dropped
    trained = ("card_value_head", "card_value_torso")
    for key, value in start.items():  # its bids and card head are its init_from's, bit for bit (as stored)
        if not key.startswith(STATE_VALUE_PREFIX) and not key.startswith(trained):
            stored = data["model"][key]
            assert torch.equal(stored, value.to(stored.dtype)), key
    new = {k.split(".")[0] for k in data["model"] if k not in start}
    if "card_value_torso.0.weight" in start:  # a value torso learning further: it moved, its layers are the same
        moved = data["model"]["card_value_torso.0.weight"]
        assert not new and not torch.equal(moved, start["card_value_torso.0.weight"].to(moved.dtype))
    else:
        assert new == ({"card_value_torso"} if recipe.card_value_torso else {"card_value_head"})


@pytest.mark.parametrize(
    ("rules", "recipe_path"),
    [("partnership", VS_SEARCH), ("cutthroat-4", CUTTHROAT4_TORSO), ("hearts", HEARTS_ITERATED3)],
)
def test_the_learned_bot_plays_the_margin_rule_of_its_recipes_network(rules, recipe_path):
    from agents.learned import LEARNED_CHECKPOINTS
    from spades_env.envs.vector import VectorSpades

    path = LEARNED_CHECKPOINTS[rules]
    committed(path, recipe_path)
    assert_learned_plays(path, rules)
    recipe = BidValuesConfig.from_yaml(recipe_path)
    learned = make_agent("learned", seed=0)
    network = learned.agent_for(rules)
    assert network.card_margin == recipe.card_margin
    head_only = NeuralAgent.from_checkpoint(path, card_margin=1e9)  # never trusts its value head
    envs = VectorSpades(rules, num_envs=64, seed=2)
    obs, info = envs.reset(seed=2)
    switched = cards = 0
    for _ in range(60):  # the bids, then most of the hand
        mask = info["action_mask"]
        played, base = learned.act(obs, mask, envs.context()), head_only.act(obs, mask, envs.context())
        with torch.no_grad():
            values = network.policy.card_values(torch.as_tensor(obs)).double().numpy() * network.value_scale
        card = envs.state.phase == PLAY
        legal = mask[:, : values.shape[1]]
        rule = margin_cards(base[card], values[card], legal[card], recipe.card_margin)
        np.testing.assert_array_equal(played[card], rule)
        np.testing.assert_array_equal(played[~card], base[~card])  # the bids (Hearts: passes) are its network's
        switched, cards = switched + np.count_nonzero(played != base), cards + np.count_nonzero(card)
        obs, _, _, _, info = envs.step(played)
    # the value head moves some of its cards (at margin 0, in Hearts, about half), never nearly all
    assert cards > 1000 and 0 < switched < 0.6 * cards


def test_in_hearts_the_margin_rule_plays_the_tricks_and_the_card_head_passes():
    from agents.base import DecisionContext
    from train.values.bid_values import behaviour_actions

    engine = SpadesEngine(resolve_rules("hearts"))
    encoder = encoder_for(engine)
    policy = small_policy(engine, encoder, card_value_hidden=8, seed=3)
    torch.nn.init.normal_(policy.card_value_head[2].weight, std=0.5)  # values that differ by some points
    agent = NeuralAgent(policy, rules=engine.rules, card_margin=0.0)
    head_only = NeuralAgent(policy, rules=engine.rules, card_margin=1e9)
    learner = BidLearner(policy, engine, encoder, torch.device("cpu"), card_margin=0.0)
    heuristic = HeuristicAgent()
    state = engine.reset(np.arange(16))
    switched = 0
    for _ in range(engine.n_players * 3 + 8):  # the passes, then the first tricks
        games = np.arange(state.batch_size)
        masks = engine.legal_action_mask(state)
        ctx = DecisionContext(engine, state, games, state.to_move)
        obs = encoder.encode(state, games, state.to_move)
        played, base = agent.act(obs, masks, ctx), head_only.act(obs, masks, ctx)
        passing = state.phase != PLAY
        np.testing.assert_array_equal(agent.act(obs, masks), played)  # without the context: the observed phase
        np.testing.assert_array_equal(played[passing], base[passing])  # the value head knows nothing of passes
        if passing.any():
            np.testing.assert_array_equal(learner.passes(state, games[passing], masks[passing]), base[passing])
            side = np.zeros(16, np.int64)  # the learner holds seat 0
            mine = passing & (state.to_move == 0)
            behaviour = behaviour_actions(engine, state, side, learner, heuristic)
            np.testing.assert_array_equal(behaviour[mine], base[mine])  # the learner passes by its card head
            np.testing.assert_array_equal(behaviour[~mine], heuristic.act(None, masks, ctx)[~mine])
        switched += np.count_nonzero(played[~passing] != base[~passing])
        engine.step(state, played)
    assert switched > 0  # in the tricks the values move cards
    assert deal_and_bid(engine, np.arange(4), learner, heuristic, 0.0, np.random.default_rng(0))[0] is None
