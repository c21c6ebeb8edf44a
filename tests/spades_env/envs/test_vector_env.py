"""The batched vector API: shapes, equivalence with single games, rewards, auto-reset."""

from __future__ import annotations

import numpy as np
import pytest

from spades_env import IllegalActionError, Rules, SpadesEngine, VectorSpades, list_presets
from spades_env.engine import OVER
from spades_env.engine.records import verify
from spades_env.envs import DecisionContext
from spades_env.envs.vector import sample_legal
from spades_env.observation import ObservationEncoder, encoder_for

RULE_SETS = list_presets() + [Rules(partnership=False, n_players=3), Rules(partnership=False, n_players=6)]


def _id(rules):
    return rules if isinstance(rules, str) else f"cutthroat{rules.n_players}-object"


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.argmax(rng.random(mask.shape) * mask, axis=1)


@pytest.mark.parametrize("rules", RULE_SETS, ids=_id)
def test_random_play_shapes_and_per_seat_rewards_add_up_to_scores(rules):
    env = VectorSpades(rules, num_envs=6, seed=1)
    obs, info = env.reset()
    b, n, a = 6, env.n_players, env.single_action_space.n
    assert obs.shape == (b, env.encoder.size) and obs.dtype == np.float32
    assert info["action_mask"].shape == (b, a) and info["action_mask"].dtype == bool
    totals = np.zeros((b, n))
    sign = -1 if env.rules.game == "hearts" else 1  # Hearts points are penalties: rewards are minus the points
    finished_matches = 0
    rng = np.random.default_rng(0)
    for _ in range(400):
        obs, rewards, terminated, truncated, info = env.step(random_actions(info["action_mask"], rng))
        assert rewards.shape == (b, n) and rewards.dtype == np.float32
        assert not truncated.any() and (terminated == info["match_done"]).all()
        assert info["action_mask"].any(axis=1).all() and (info["to_play"] >= 0).all()
        assert env.single_observation_space.contains(obs[0])
        totals += rewards
        for f in info["finished_hands"]:
            side = env.engine.side_of_seat
            np.testing.assert_array_equal(sign * f.delta[:, side], rewards[f.games])
        finished_matches += int(terminated.sum())
        live = ~info["match_done"]
        cur = env.state.scores[:, env.engine.side_of_seat]
        np.testing.assert_array_equal(totals[live], sign * cur[live])  # every point paid as a reward
        totals[info["match_done"]] = 0  # the match restarted in the same step


def test_game_i_is_the_single_game_of_seed_plus_i():
    env = VectorSpades("partnership", num_envs=3)
    env.reset(seed=40)
    for i in range(3):
        np.testing.assert_array_equal(env.state.deal[i], SpadesEngine("partnership").reset(40 + i).deal[0])
    obs, _ = env.reset(seed=[7, 8, 9])
    enc = ObservationEncoder(SpadesEngine("partnership"))
    single = SpadesEngine("partnership").reset(8)
    np.testing.assert_array_equal(obs[1], enc.encode(single, np.array([0]), single.to_move)[0])


def test_seeded_runs_with_auto_reset_are_reproducible():
    def run():
        env = VectorSpades("partnership-250", num_envs=4, seed=5, reward="win")
        _, info = env.reset()
        rng = np.random.default_rng(1)
        out, wins = [], 0
        for _ in range(900):
            obs, rewards, terminated, _, info = env.step(random_actions(info["action_mask"], rng))
            out.append(obs.sum())
            wins += int(terminated.sum())
            assert set(np.unique(rewards[terminated])) <= {-1.0, 1.0} and not rewards[~terminated].any()
        return out, wins, env.state.key.copy()

    a, b = run(), run()
    assert a[0] == b[0] and a[1] == b[1] and (a[2] == b[2]).all()
    assert a[1] >= 1  # matches did finish and restart


def test_hand_episodes_terminate_each_hand_and_the_match_goes_on():
    env = VectorSpades("partnership", num_envs=2, seed=3, episode="hand", reward="scaled")
    _, info = env.reset()
    rng = np.random.default_rng(0)
    ends = 0
    while ends < 3:
        _, rewards, terminated, _, info = env.step(random_actions(info["action_mask"], rng))
        np.testing.assert_array_equal(terminated, info["hand_done"])
        if terminated.any():
            g = np.flatnonzero(terminated)
            assert ((env.state.hand_number[g] >= 1) | info["match_done"][g]).all()
            records = env.hand_records()
            assert len(records) == len(g)
            for rec in records:
                verify(rec)
            for f in info["finished_hands"]:
                np.testing.assert_allclose(rewards[f.games], f.delta[:, env.engine.side_of_seat] / 100, rtol=1e-6)
        ends += int(terminated.sum())


def test_without_auto_reset_finished_games_wait():
    env = VectorSpades(Rules(max_hands=1), num_envs=3, seed=0, auto_reset=False)
    _, info = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(300):
        _, _, terminated, _, info = env.step(random_actions(info["action_mask"], rng))
        if terminated.any():
            break
    g = int(np.flatnonzero(terminated)[0])
    for _ in range(5):
        _, _, terminated, _, info = env.step(random_actions(info["action_mask"], rng))
        assert not terminated[g]  # reported once, when it ended
    assert env.state.phase[g] == OVER and info["to_play"][g] == -1 and not info["action_mask"][g].any()


def test_explicit_deals_and_dealers():
    deal = [list(range(s * 13, s * 13 + 13)) for s in range(4)]
    env = VectorSpades("partnership-no-blind-nil", num_envs=2)
    obs, info = env.reset(seed=0, deals=[deal, deal], dealers=[0, 1])
    assert info["to_play"].tolist() == [1, 2]
    hand = env.encoder.view(obs, "hand")
    assert set(np.flatnonzero(hand[0])) == set(range(13, 26)) and set(np.flatnonzero(hand[1])) == set(range(26, 39))


def test_illegal_actions_raise_and_leave_the_state_unchanged():
    env = VectorSpades("partnership-no-blind-nil", num_envs=3, seed=0)
    _, info = env.reset()
    before = env.state.copy()
    actions = np.argmax(info["action_mask"], axis=1)
    actions[2] = 0  # a card during bidding
    with pytest.raises(IllegalActionError, match="game 2"):
        env.step(actions)
    np.testing.assert_array_equal(env.state.bids, before.bids)
    with pytest.raises(ValueError, match=r"actions must have shape \(3,\)"):
        env.step(actions[:2])


def test_context_and_spaces_for_agents():
    env = VectorSpades("cutthroat-5", num_envs=4, seed=2, perfect_information=True)
    obs, info = env.reset()
    ctx = env.context()
    assert isinstance(ctx, DecisionContext) and ctx.engine is env.engine
    # The seats' view, not the state: each seat to move sees its own hand and no other.
    assert ctx.state is not env.state and (ctx.state.key == 0).all()
    rows = np.arange(4)
    np.testing.assert_array_equal(ctx.state.hands[rows, ctx.seats], env.state.hands[rows, ctx.seats])
    others = np.arange(env.engine.n_players)[None, :] != ctx.seats[:, None]
    assert not (ctx.state.hands & ~env.state.face_up)[others].any()
    np.testing.assert_array_equal(ctx.games, np.arange(4))
    np.testing.assert_array_equal(ctx.seats, info["to_play"])
    assert env.action_space.shape == (4,) and env.observation_space.shape == obs.shape
    assert "all_hands" in env.encoder.slices
    np.testing.assert_array_equal(env.action_masks(), info["action_mask"])


def test_copy_false_reuses_buffers():
    env = VectorSpades("partnership", num_envs=2, seed=0, copy=False)
    obs, info = env.reset()
    obs2, *_, info2 = env.step(np.argmax(info["action_mask"], axis=1))
    assert obs2 is obs and info2["action_mask"] is info["action_mask"]
    env = VectorSpades("partnership", num_envs=2, seed=0)
    obs, info = env.reset()
    obs2, *_ = env.step(np.argmax(info["action_mask"], axis=1))
    assert obs2 is not obs


@pytest.mark.parametrize("rules", list_presets())
def test_observations_are_the_encoders_rows_of_the_players_to_move(rules):
    """Every step's (B, D) observations, written by one batched call into the reused buffer, are
    byte for byte the game's encoder on each game alone, for its player to move (seat 0's view
    of a finished match, which waits without auto_reset)."""
    env = VectorSpades(rules, num_envs=5, seed=2, copy=False, auto_reset=False)
    enc = encoder_for(env.engine)
    assert type(env.encoder) is type(enc)
    obs, info = env.reset()
    first, rng = obs, np.random.default_rng(4)
    for _ in range(150):
        for g in range(5):
            seat = max(int(info["to_play"][g]), 0)
            assert obs[g].tobytes() == enc.encode(env.state.take([g]), [0], [seat])[0].tobytes()
        obs, *_, info = env.step(sample_legal(info["action_mask"], rng))
    assert obs is first  # copy=False: the same buffer, rewritten


def test_bad_options():
    with pytest.raises(ValueError, match="episode"):
        VectorSpades(num_envs=2, episode="trick")
    with pytest.raises(ValueError, match="reward"):
        VectorSpades(num_envs=2, reward="money")
    with pytest.raises(ValueError, match="num_envs"):
        VectorSpades(num_envs=0)
    with pytest.raises(RuntimeError, match="reset"):
        VectorSpades(num_envs=1).step([0])


def test_sample_legal_draws_uniformly_among_legal_actions():
    rng = np.random.default_rng(0)
    mask = np.zeros((60_000, 130), bool)
    legal = [0, 5, 63, 64, 100, 129]
    mask[:, legal] = True
    mask[7] = False  # a finished game: no legal action, action 0
    actions = sample_legal(mask, rng)
    assert actions.dtype == np.int64 and actions[7] == 0
    values, counts = np.unique(np.delete(actions, 7), return_counts=True)
    assert values.tolist() == legal
    assert np.abs(counts / counts.sum() - 1 / len(legal)).max() < 0.01
    small = np.array([[False, True, False], [True, True, True]])
    for _ in range(20):
        a = sample_legal(small, rng)
        assert a[0] == 1 and 0 <= a[1] < 3


@pytest.mark.parametrize("rules", ["partnership", "two-player", "partnership-house", "hearts", "jokers"])
def test_masks_and_sampled_play_match_the_engine(rules):
    env = VectorSpades(rules, num_envs=16, seed=3, copy=False)
    _, info = env.reset()
    rng = np.random.default_rng(1)
    for _ in range(300):
        np.testing.assert_array_equal(info["action_mask"], env.engine.legal_action_mask(env.state))
        actions = sample_legal(info["action_mask"], rng)
        assert info["action_mask"][np.arange(16), actions].all()
        _, _, _, _, info = env.step(actions)


def test_out_of_range_and_negative_actions_raise():
    env = VectorSpades("partnership", num_envs=3, seed=0)
    _, info = env.reset()
    for bad in (-1, info["action_mask"].shape[1], 10**12):
        actions = sample_legal(info["action_mask"], np.random.default_rng(0))
        actions[1] = bad
        with pytest.raises(IllegalActionError, match="game 1"):
            env.step(actions)
