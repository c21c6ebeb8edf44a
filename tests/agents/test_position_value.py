"""The position value network (``agents.position_value``, ``train.values.position_value``) and the guided bot's leaf."""

from __future__ import annotations

import numpy as np
import pytest

from agents import make_agent
from agents.checkpoint_io import CheckpointError
from agents.guided import position_value_path
from agents.learned import available_checkpoints
from agents.position_value import feature_size, input_scales, load_position_value, position_features
from spades_env.engine import PLAY, SpadesEngine
from spades_env.envs.context import DecisionContext
from spades_env.observation import encoder_for
from tests.agents.test_guided import _card_decisions, _observations, real_deal

pytestmark = pytest.mark.skipif("partnership" not in available_checkpoints(), reason="no learned checkpoint")


def test_features_are_the_layout_seen_from_the_seat():
    engine, ctx, _ = _card_decisions(n=4)
    state, games, seats = ctx.state, ctx.games, ctx.seats
    n, c = engine.n_players, engine.layout.n_card_ids
    x = position_features(engine, state, games, seats)
    assert x.shape == (len(games), feature_size(engine)) and x.dtype == np.uint8
    for k, (g, seat) in enumerate(zip(games, seats, strict=True)):
        for rel in range(n):
            table_seat = (seat + rel) % n
            held = [card for card in range(c) if (int(state.hands[g, table_seat]) >> card) & 1]
            assert np.flatnonzero(x[k, rel * c : (rel + 1) * c]).tolist() == held
            in_trick = np.flatnonzero(x[k, n * c + rel * c : n * c + (rel + 1) * c]).tolist()
            assert in_trick == ([state.trick[g, table_seat]] if state.trick[g, table_seat] >= 0 else [])
        assert x[k, 2 * n * c + (state.to_move[g] - seat) % n] == 1 and x[k, 2 * n * c : 2 * n * c + n].sum() == 1
        tricks = x[k, 2 * n * c + 5 * n : 2 * n * c + 6 * n]
        assert tricks.tolist() == [state.tricks_won[g, (seat + r) % n] for r in range(n)]
    # the partner's view is the same layout turned by two seats
    partner = position_features(engine, state, games, (seats + 2) % n)
    turned = np.roll(x[:, : n * c].reshape(len(games), n, c), -2, axis=1).reshape(len(games), -1)
    assert np.array_equal(partner[:, : n * c], turned)
    assert input_scales(engine).shape == (feature_size(engine),)


def test_hearts_positions_are_refused_in_one_line():
    engine = SpadesEngine("hearts")
    state = engine.reset(np.arange(2))
    with pytest.raises(ValueError, match="position_features need a game with bidding .*got table 'hearts'"):
        position_features(engine, state, np.arange(2), np.zeros(2, np.int64))


@pytest.fixture(scope="module")
def tiny_checkpoint(tmp_path_factory):
    from train.values.position_value import PositionValueConfig, train_position_value

    path = tmp_path_factory.mktemp("pv") / "pv.pt"
    config = PositionValueConfig(hands=64, batch_hands=32, epochs=1, batch_size=64, hidden=16)
    summary = train_position_value(config, path, log=lambda *_: None)
    return path, summary


def test_training_writes_a_checkpoint_that_values_positions(tiny_checkpoint):
    path, summary = tiny_checkpoint
    assert summary["positions"] > 64 and summary["steps"] >= 1 and np.isfinite(summary["held_out_mse"])
    engine, ctx, _ = _card_decisions(n=4)
    net = load_position_value(path, engine)
    points = net.points(engine, ctx.state, ctx.games, ctx.seats)
    assert points.shape == (4,) and np.isfinite(points).all()
    again = load_position_value(path, engine).points(engine, ctx.state, ctx.games, ctx.seats)
    assert np.array_equal(points, again)


def test_a_checkpoint_of_another_kind_or_table_is_refused(tiny_checkpoint):
    with pytest.raises(CheckpointError, match="is not a position value network"):
        load_position_value(available_checkpoints()["partnership"], SpadesEngine("partnership"))
    with pytest.raises(ValueError, match="values 'partnership' positions, not the table's 'cutthroat-4'"):
        load_position_value(tiny_checkpoint[0], SpadesEngine("cutthroat-4"))


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("guided:leaf=rollouts,depth=2", "option 'leaf' must be one of"),
        ("guided:leaf=value", "'leaf=value' needs a 'depth' from 0 up"),
        ("guided:rollout_values=maybe", "option 'rollout_values' must be a boolean"),
    ],
)
def test_bad_leaf_options_are_refused_in_one_line(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec, seed=0)


committed = pytest.mark.skipif(position_value_path(SpadesEngine("partnership")) is None, reason="no value network")


@committed
def test_a_table_without_a_value_network_is_refused_with_leaf_value():
    reason = make_agent("guided:depth=2,leaf=value", seed=0).unsupported_reason(SpadesEngine("cutthroat-4"))
    assert reason.startswith("bot 'guided' with leaf=value needs a position value network") and "\n" not in reason


@committed
def test_a_depth_past_the_hands_end_never_asks_the_value():
    """Every rollout ends within the plies: the values are the whole-hand rollouts' bit for bit."""
    engine, ctx, masks = _card_decisions()
    deep = make_agent("guided:samples=2,top=2,depth=60,leaf=value", seed=5)
    whole = make_agent("guided:samples=2,top=2,depth=-1", seed=5)
    got = deep.action_values(_observations(ctx), masks, ctx)
    assert np.array_equal(got, whole.action_values(_observations(ctx), masks, ctx), equal_nan=True)


@committed
def test_at_depth_zero_a_card_is_worth_the_value_of_the_position_it_leaves(monkeypatch):
    """One layout equal to the real deal: the network's card is worth the value network's estimate of the
    position after it, from the deciding seat."""
    engine, ctx, masks = _card_decisions(n=3)
    bot = make_agent("guided:samples=1,top=1,depth=0,leaf=value,oversample=1", seed=0)

    monkeypatch.setattr("agents.search.sample_layouts", real_deal)
    values = bot.action_values(_observations(ctx), masks, ctx)
    own = bot.network.act(_observations(ctx), masks, ctx)
    net = bot.position_value(engine)
    for k, g in enumerate(ctx.games):
        game = ctx.state.take(np.array([g]))
        engine.step(game, own[k : k + 1], validate=False)
        assert game.phase[0] == PLAY
        want = net.points(engine, game, np.array([0]), ctx.seats[k : k + 1])[0]
        assert values[k, own[k]] == pytest.approx(want, abs=1e-4)


def test_card_head_rollouts_play_the_card_heads_card():
    """``rollout_values=false``: the rollouts play the card head's greedy card (the learned bot without its value
    head's margin rule, as with an unreachable margin)."""
    from agents.guided import card_head_actions

    engine, ctx, masks = _card_decisions(n=4)
    bot = make_agent("guided:samples=1,top=1,depth=2,rollout_values=false", seed=0)
    bot.check_supports(engine)
    obs = encoder_for(engine).encode(ctx.state, ctx.games, ctx.seats)
    no_values = make_agent("learned:margin=100000", seed=0)
    want = no_values.act(obs, masks, DecisionContext(engine, ctx.state, ctx.games, ctx.seats))
    assert np.array_equal(card_head_actions(bot.network, obs, masks), want)


def test_torch_threads_are_set_inside_and_put_back():
    import torch

    from agents.guided import torch_threads

    before = torch.get_num_threads()
    with torch_threads(1):
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == before


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--hands", "0"], ["'hands' must be a positive integer"]),
        (["--keep", "1.5"], ["'keep' must be in (0.0, 1.0]"]),
        (["--rules", "hearts", "--hands", "4"], ["needs a game with bidding", "'hearts'"]),
    ],
)
def test_the_command_refuses_bad_options_in_one_line(tmp_path, args, words):
    from tests.train.cli.test_cli import assert_usage_error, spades

    assert_usage_error(spades("position-value", "--out", str(tmp_path / "pv.pt"), *args), *words)
