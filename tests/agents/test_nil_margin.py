"""``nil_margin``: a network whose bids are values bids nil only where nil beats its best other bid by the margin."""

import numpy as np
import pytest

from tests.paths import ROOT

torch = pytest.importorskip("torch")

from agents import make_agent  # noqa: E402
from agents.neural import NeuralAgent, nil_columns  # noqa: E402
from spades_env.engine import PLAY  # noqa: E402
from spades_env.envs import VectorSpades  # noqa: E402
from spades_env.rules import resolve_rules  # noqa: E402

CHECKPOINTS = ROOT / "checkpoints"


def bid_decisions(games: int = 256, seed: int = 5):
    """The observations and masks of the first bid of ``games`` partnership deals (past any blind-nil choice)."""
    envs = VectorSpades("partnership", num_envs=games)
    obs, info = envs.reset(seed=seed)
    heuristic = make_agent("heuristic", seed=0)
    c = envs.engine.layout.bid_offset
    for _ in range(4):
        masks = info["action_mask"]
        if masks[:, c : envs.engine.layout.bid_end].any(axis=1).all():
            return obs, masks
        obs, _, _, _, info = envs.step(heuristic.act(obs, masks, envs.context()))
    raise AssertionError("no bidding decision reached")


def bids_at(margin: float, obs, masks) -> np.ndarray:
    agent = NeuralAgent.from_checkpoint(CHECKPOINTS / "partnership_card_values_torso.pt", nil_margin=margin)
    return agent.act(obs, masks)


def test_a_margin_moves_only_the_nil_bids_and_more_with_a_larger_margin():
    obs, masks = bid_decisions()
    nil = nil_columns(resolve_rules("partnership"), 52)
    plain, small, large = (bids_at(m, obs, masks) for m in (0.0, 5.0, 1000.0))
    assert np.isin(plain, nil).sum() > 10  # the network bids nil in many of these hands
    assert not np.isin(large, nil).any()  # no nil is worth 1000 points more than every other bid
    for other in (small, large):
        kept = ~np.isin(plain, nil)
        assert np.array_equal(other[kept], plain[kept])  # a bid that was not nil stays as it was
    assert np.isin(plain, nil).sum() > np.isin(small, nil).sum() > 0


def test_no_margin_plays_the_network_bit_for_bit_through_a_whole_hand():
    envs = VectorSpades("partnership", num_envs=64)
    plain = make_agent(f"neural:path={CHECKPOINTS / 'partnership_card_values_torso.pt'}", seed=0)
    zero = make_agent(f"neural:path={CHECKPOINTS / 'partnership_card_values_torso.pt'},nil_margin=0", seed=0)
    obs, info = envs.reset(seed=9)
    for _ in range(60):
        if (envs.state.phase == PLAY).all() and (envs.state.n_tricks > 2).all():
            break
        a, b = plain.act(obs, info["action_mask"], envs.context()), zero.act(obs, info["action_mask"], envs.context())
        assert np.array_equal(a, b)
        obs, _, _, _, info = envs.step(a)


def test_the_margin_is_refused_where_the_bids_are_not_values_and_where_it_is_not_a_number():
    with pytest.raises(ValueError, match="nil_margin.*bid-values run's.*'ppo'") as error:
        NeuralAgent.from_checkpoint(CHECKPOINTS / "partnership_ppo.pt", nil_margin=10.0)
    assert "\n" not in str(error.value)
    with pytest.raises(ValueError, match="option 'nil_margin' must be a number of points >= 0"):
        make_agent("learned:nil_margin=-3")
    learned = make_agent("learned:nil_margin=12")
    assert learned.nil_margin == 12.0 and learned.agent_for("partnership").nil_margin == 12.0
    assert learned.agent_for("cutthroat-3").nil_margin == 0.0  # an expert-iteration network's bids are no values
