"""Bids learned in hindsight in PPO self-play (``bid_learning: hindsight``, ``train/ppo/hindsight_bids.py``): every
candidate bid scored with the hand's tricks as they fell, the bidding head regressing those values."""

import dataclasses

import numpy as np
import pytest

from tests.paths import ROOT

torch = pytest.importorskip("torch")

import train.ppo.rollout as ppo_rollout  # noqa: E402
from agents.base import DecisionContext  # noqa: E402
from agents.heuristic import HeuristicAgent  # noqa: E402
from spades_env.engine import SpadesEngine  # noqa: E402
from spades_env.games.spades.scoring import bag_adjusted_points  # noqa: E402
from spades_env.rules import Rules  # noqa: E402
from tests.run_logs import run_scalars  # noqa: E402
from tests.train.ppo.test_training import SMOKE, full_and_resumed  # noqa: E402
from train.ppo.hindsight_bids import HindsightBids, hindsight_scalars, hindsight_values  # noqa: E402
from train.ppo.trainer import PPOConfig, train  # noqa: E402
from train.runs.checkpoint import load_checkpoint  # noqa: E402
from train.values.bid_values import best_or_explore  # noqa: E402


def finished_hands(preset: str, games: int = 128):
    """(engine, [FinishedHands]) of heuristic games of ``preset`` until ``games`` hands have finished."""
    engine = SpadesEngine(Rules.preset(preset))
    state = engine.reset(np.arange(games))
    bot, out = HeuristicAgent(), []
    while sum(len(f.games) for f in out) < games:
        masks = engine.legal_action_mask(state)
        actions = bot.act(None, masks, DecisionContext(engine, state, np.arange(games), state.to_move))
        out += engine.step(state, actions, auto_reset=True).finished
    return engine, out


@pytest.mark.parametrize("preset", ["partnership", "cutthroat-4", "partnership-house", "two-player"])
def test_the_bid_made_is_valued_at_the_points_the_hand_scored(preset):
    engine, hands = finished_hands(preset)
    checked = 0
    for f in hands:
        n = len(f.games)
        seats = np.arange(n) % engine.n_players
        cand = np.ones((n, engine.layout.bid_end - engine.layout.bid_offset), bool)
        values = hindsight_values(engine, f, np.arange(n), seats, cand)
        adjusted = bag_adjusted_points(engine.rules, f.delta, f.bags_added, f.bag_penalties)
        mine = adjusted[np.arange(n), engine.side_of_seat[seats]]
        real = mine - (adjusted.sum(axis=1) - mine) / (engine.n_sides - 1)
        taken = f.bids[np.arange(n), seats]
        np.testing.assert_allclose(values[np.arange(n), taken], real)
        checked += n
    assert checked >= 100


def test_another_bid_is_scored_with_the_tricks_as_they_fell():
    # partnership, 10 bags cost 100 points: a side contract made scores 10 a trick bid and 1 a bag (-10 when
    # adjusted), a side contract set scores -10 a trick bid [RULES 3]
    engine, hands = finished_hands("partnership")
    checked = 0
    for f in hands:
        for i in range(len(f.games)):
            partner_bid, bids = f.bids[i, 2], f.bids[i]
            if (bids == 0).any() or f.blind[i].any():
                continue  # no nil at the table: the plain contract rule
            tricks = f.tricks_won[i, 0] + f.tricks_won[i, 2]
            them = bag_adjusted_points(engine.rules, f.delta, f.bags_added, f.bag_penalties)[i, 1]
            cand = np.zeros((1, 14), bool)
            cand[0, 1:] = True
            values = hindsight_values(engine, f, np.array([i]), np.array([0]), cand)[0]
            for k in range(1, 14):
                contract = k + partner_bid
                mine = 10 * contract + (tricks - contract) * (1 - 10) if tricks >= contract else -10 * contract
                assert values[k] == pytest.approx(mine - them)
            assert values[0] == 0.0  # not a candidate
            checked += 1
    assert checked >= 20


def test_greedy_bids_take_the_best_candidate_and_explore_only_legal_ones():
    values = np.array([[0.1, 0.9, 0.5, 2.0], [3.0, 0.2, 0.1, 0.0]])
    cand = np.array([[True, True, True, False], [False, True, True, True]])
    rng = np.random.default_rng(0)
    assert best_or_explore(values, cand, 0.0, rng).tolist() == [1, 1]
    many = np.concatenate([best_or_explore(values, cand, 1.0, rng) for _ in range(300)]).reshape(-1, 2)
    assert set(many[:, 0]) == {0, 1, 2} and set(many[:, 1]) == {1, 2, 3}


def test_an_open_bid_becomes_an_example_when_its_hand_ends_and_survives_a_checkpoint():
    engine, hands = finished_hands("partnership", games=8)
    f = hands[0]
    bids = HindsightBids(8, 4, 3, 14)
    cand = np.ones((2, 14), bool)
    game = f.games[:2]
    bids.record(game, np.array([1, 3]), np.ones((2, 3), np.float32) * [[1], [2]], cand)
    assert bids.open.sum() == 2 and bids.take() is None
    copy = HindsightBids(8, 4, 3, 14)
    copy.load_state_dict({k: v.copy() for k, v in bids.state_dict().items()})
    for holder in (bids, copy):
        holder.finish(engine, f)
        rows, c, values, taken = holder.take()
        assert rows[:, 0].tolist() == [1, 2] and c.all() and not holder.open.any()
        assert taken.tolist() == [f.bids[0, 1], f.bids[1, 3]]
        np.testing.assert_allclose(values, hindsight_values(engine, f, np.array([0, 1]), np.array([1, 3]), cand))
        scalars = hindsight_scalars((rows, c, values, taken))
        assert scalars["bidding/hindsight_bids"] == 2 and scalars["bidding/hindsight_regret"] >= 0


def tiny(path, **changes):
    cfg = PPOConfig.from_yaml(SMOKE)
    changes = dict(critic="perfect", paired=True, pool_prob=0.0, bid_learning="hindsight", num_steps=64) | changes
    return dataclasses.replace(cfg, run_dir=str(path), **changes)


@pytest.mark.parametrize("nil", ["scored", "played"])
def test_a_run_bids_greedily_on_its_values_keeps_those_bids_out_of_ppo_and_learns_them(tmp_path, monkeypatch, nil):
    seen, real = [], ppo_rollout.hindsight_bids

    def spy(hindsight, engine, state, logits, action, learn, seats, mask, rows, explore, rng):
        games = real(hindsight, engine, state, logits, action, learn, seats, mask, rows, explore, rng)
        lo = engine.layout.bid_offset
        assert ((action[games] >= lo) & mask[games, action[games]]).all()  # a legal bid
        assert hindsight.open[games, seats[games]].all()
        seen.append(len(games))
        return games

    monkeypatch.setattr(ppo_rollout, "hindsight_bids", spy)
    train(tiny(tmp_path, bid_explore=0.0, hindsight_nil=nil), quiet=True)
    assert sum(seen) > 0
    scalars = run_scalars(tmp_path)
    assert all(v > 0 for _, v in scalars["losses/bid_value"]) and scalars["bidding/hindsight_bids"][0][1] > 0


def test_a_hindsight_run_resumes_exactly(tmp_path):
    a, _ = full_and_resumed(tiny, tmp_path)
    assert a["hindsight"]["open"].any()  # bids open across the checkpoint


def test_hindsight_settings_are_checked():
    with pytest.raises(ValueError, match=r"bid_learning='guess' \(one of \['ppo', 'hindsight'\]\)"):
        PPOConfig(bid_learning="guess")
    with pytest.raises(ValueError, match=r"hindsight_nil=.some. \(one of \[.scored., .played.\]\)"):
        PPOConfig(hindsight_nil="some")
    with pytest.raises(ValueError, match=r"bid_explore=1.5 \(0 <= p <= 1\)"):
        PPOConfig(bid_explore=1.5)
    with pytest.raises(ValueError, match="bid_learning: hindsight needs bids, and the rules 'hearts' have none"):
        train(PPOConfig(rules="hearts", bid_learning="hindsight", total_updates=1), quiet=True)


def test_with_nil_played_a_nil_bid_is_valued_alone_and_nil_nowhere_else():
    engine, hands = finished_hands("partnership", games=256)
    f = next(f for f in hands if (f.bids[:, 0] == 0).any() and (f.bids[:, 0] > 0).any() and not f.blind[:, 0].any())
    n = len(f.games)
    cand = np.ones((n, 14), bool)
    for nil in ("scored", "played"):
        bids = HindsightBids(f.games.max() + 1, 4, 2, 14)
        bids.record(f.games, np.zeros(n, np.int64), np.zeros((n, 2), np.float32), cand)
        bids.finish(engine, f, nil)
        _, valued, values, taken = bids.take()
        np.testing.assert_allclose(values, hindsight_values(engine, f, np.arange(n), np.zeros(n, np.int64), cand))
        if nil == "scored":
            assert valued.all()
            continue
        made_nil = taken == 0
        assert (valued[made_nil, 0] & ~valued[made_nil, 1:].any(axis=1)).all()
        assert (~valued[~made_nil, 0] & valued[~made_nil, 1:].all(axis=1)).all()


def test_the_absolute_loss_regresses_each_valued_candidate_on_its_own():
    from train.ppo.hindsight_bids import absolute_value_loss

    q = torch.tensor([[1.0, 2.0, 3.0], [0.0, 0.0, 5.0]])
    values = torch.tensor([[2.0, 2.0, 0.0], [9.0, 1.0, 1.0]])
    cand = torch.tensor([[True, True, False], [False, False, True]])
    assert absolute_value_loss(q, cand, values).item() == pytest.approx(((1 + 0) / 2 + 16) / 2)


def test_the_selfplay_hindsight_recipe_learns_from_scratch_and_runs_in_small(tmp_path):
    recipe = PPOConfig.from_yaml(ROOT / "configs/train/selfplay_hindsight.yaml")
    assert (recipe.critic, recipe.paired, recipe.bag_adjusted_reward, recipe.bid_learning) == (
        "perfect", True, True, "hindsight"
    )  # fmt: skip
    assert recipe.imitation_updates == 0 and recipe.init_from is None and recipe.card_anchor == 0  # from scratch
    small = dict(num_envs=8, num_steps=64, total_updates=2, hidden=32, depth=1, eval_every=0, eval_deals=8)
    latest = load_checkpoint(train(dataclasses.replace(recipe, run_dir=str(tmp_path), **small), quiet=True))
    assert latest["update"] == 2 and "hindsight" in latest and "pairing" in latest


@pytest.mark.parametrize("name", ["partnership_selfplay.pt", "partnership_selfplay_features.pt"])
def test_the_committed_selfplay_bots_bid_with_their_hand_not_one_number(name):
    from agents import make_agent
    from spades_env import cards
    from spades_env.engine import PLAY
    from spades_env.envs import VectorSpades

    path = ROOT / "checkpoints" / name
    assert path.stat().st_size <= 5 * 2**20
    agent = make_agent(f"neural:path={path}", seed=0)
    envs = VectorSpades("partnership", num_envs=256)
    obs, info = envs.reset(seed=5)
    dealt = envs.state.hands.copy()
    for _ in range(12):  # the blind-nil choices and the four bids, to the first card
        if (envs.state.phase == PLAY).all():
            break
        obs, _, _, _, info = envs.step(agent.act(obs, info["action_mask"], envs.context()))
    bids = envs.state.bids
    assert (envs.state.phase == PLAY).all() and (bids >= 0).all()
    values, counts = np.unique(bids, return_counts=True)
    assert len(values) >= 5 and counts.max() < 0.5 * counts.sum()  # not the collapsed "2 with every hand"
    spades = np.array([[bin(int(h & cards.SUIT_MASK[cards.SPADES])).count("1") for h in row] for row in dealt])
    assert np.corrcoef(spades.ravel(), bids.ravel())[0, 1] > 0.2  # more spades, higher bids
