"""``bid_samples`` (``agents.neural_lookahead``): a network whose bids are values bids the best mean of its values and
a lookahead's on sampled deals; refused in one line for other networks, Hearts and bad numbers."""

import numpy as np
import pytest

from tests.paths import ROOT

torch = pytest.importorskip("torch")

from agents import make_agent  # noqa: E402
from agents.heuristic import HeuristicAgent  # noqa: E402
from agents.neural import NeuralAgent, masked_logits  # noqa: E402
from agents.neural_lookahead import NETWORK_WEIGHT, network_bid_values, parse_bid_samples  # noqa: E402
from agents.search_bidding import lookahead_bids  # noqa: E402
from spades_env.envs.vector import VectorSpades  # noqa: E402
from spades_env.games.spades.params import BID  # noqa: E402
from train.evaluation.bid_bench import BidBenchConfig, run_bid_bench  # noqa: E402

CHECKPOINTS = ROOT / "checkpoints"
BIDS = CHECKPOINTS / "partnership_bid_values.pt"


def bidding_position(n: int = 48, seed: int = 5):
    """Tables of ``n`` games at the first bid of their hands (past the blind-nil choice), with that bid's context."""
    env = VectorSpades("partnership", num_envs=n, seed=seed)
    obs, info = env.reset()
    heuristic = HeuristicAgent()
    while not (env.context().state.phase[env.context().games] == BID).all():
        context = env.context()
        obs, _, _, _, info = env.step(heuristic.act(obs, info["action_mask"], context))
    return obs, info["action_mask"], env.context()


def test_each_bid_is_the_best_mean_of_the_network_and_lookahead_values():
    obs, masks, context = bidding_position()
    agent = NeuralAgent.from_checkpoint(BIDS, bid_samples=8, seed=3)
    alone = NeuralAgent.from_checkpoint(BIDS, seed=3).act(obs, masks, context)
    actions = agent.act(obs, masks, context)
    network = masked_logits(network_bid_values(agent.policy, obs, agent.device, agent.value_scale), masks)
    _, look = lookahead_bids(context, masks, 8, np.random.default_rng(3), heuristic=HeuristicAgent())
    assert np.isfinite(look).any(axis=1).all()  # every first bid has several candidates
    mean = np.where(np.isfinite(look), NETWORK_WEIGHT * network + (1 - NETWORK_WEIGHT) * look, -np.inf)
    np.testing.assert_array_equal(actions, np.argmax(mean, axis=1))
    np.testing.assert_array_equal(alone, np.argmax(network, axis=1))  # without it: the network's own bids
    assert (actions != alone).any() and (actions == alone).mean() > 0.5  # the lookahead moves some bids, not most
    assert masks[np.arange(len(actions)), actions].all()
    again = NeuralAgent.from_checkpoint(BIDS, bid_samples=8, seed=3)  # seeded: the same bids
    np.testing.assert_array_equal(again.act(obs, masks, context), actions)


def test_the_learned_bot_checks_its_bids_where_its_preset_bids_and_plays_whole_hands():
    agent = make_agent("learned:bid_samples=4", seed=0)
    assert agent.agent_for("partnership").bid_samples == 4 and agent.agent_for("hearts").bid_samples == 0
    assert agent.agent_for("two-player").bid_samples == 0  # its bids are no values: it bids as trained
    env = VectorSpades("partnership", num_envs=4, seed=2)
    agent.check_supports(env.engine)
    obs, info = env.reset()
    for _ in range(20):  # the bids and the first tricks
        actions = agent.act(obs, info["action_mask"], env.context())
        assert info["action_mask"][np.arange(4), actions].all()
        obs, _, _, _, info = env.step(actions)


def test_the_bidding_benchmark_rates_a_checkpoint_with_its_lookahead():
    config = dict(deals=4, chunk=4, oracle_width=0, lookahead_samples=0, checkpoint=str(BIDS))
    plain = run_bid_bench(BidBenchConfig(**config))["strategies"]["neural"]
    checked = run_bid_bench(BidBenchConfig(**config, checkpoint_bid_samples=4))["strategies"]["neural"]
    assert plain != checked  # other bids on the same deals


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            f"neural:path={CHECKPOINTS / 'partnership_ppo.pt'},bid_samples=8",
            "option 'bid_samples' needs a network whose bids",
        ),
        (
            f"neural:path={CHECKPOINTS / 'hearts_card_values_iterated3.pt'},bid_samples=8",
            "'bid_samples' is for games with",
        ),
        ("learned:bid_samples=-1", "option 'bid_samples' must be a whole number of sampled deals from 0 to 4096"),
        ("learned:bid_samples=5000", "option 'bid_samples' must be a whole number"),
        ("learned:bid_samples=many", "got 'many'"),
    ],
)
def test_bad_bid_samples_are_refused_in_one_line(spec, message):
    with pytest.raises(ValueError, match=message) as error:
        make_agent(spec)
    assert "\n" not in str(error.value)


def test_bid_samples_parse_and_need_the_decision_context():
    assert parse_bid_samples("", "b") == parse_bid_samples(None, "b") == 0 and parse_bid_samples(" 64 ", "b") == 64
    obs, masks, _ = bidding_position(4)
    with pytest.raises(ValueError, match="bid_samples=8 needs the decision context"):
        NeuralAgent.from_checkpoint(BIDS, bid_samples=8, play="network").act(obs, masks)
