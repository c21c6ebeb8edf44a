"""Who plays a neural bot's cards (``play``; PPO's ``card_play``): the network, or HeuristicAgent while the network
bids (``neural:path=...,play=heuristic``, ``learned:play=heuristic``, ``configs/train/bidding.yaml``)."""

import dataclasses

import numpy as np
import pytest

from tests.paths import ROOT

torch = pytest.importorskip("torch")

import train.evaluation.network_eval as network_eval  # noqa: E402
import train.ppo.rollout as ppo_rollout  # noqa: E402
from agents import LEARNED_CHECKPOINT, make_agent  # noqa: E402
from agents.base import DecisionContext  # noqa: E402
from agents.neural import NeuralAgent  # noqa: E402
from spades_env.engine import PLAY  # noqa: E402
from spades_env.envs.vector import VectorSpades  # noqa: E402
from tests.checkpoint_compare import committed_checkpoint  # noqa: E402
from train.ppo.core import TurnBuffer  # noqa: E402
from train.ppo.trainer import PPOConfig, train  # noqa: E402


@pytest.mark.parametrize("play, games, steps", [("heuristic", 32, 120), ("search", 4, 64)])
def test_the_network_bids_and_the_named_bot_plays_the_cards(play, games, steps):
    mixed = NeuralAgent.from_checkpoint(LEARNED_CHECKPOINT, seed=3, play=play)
    network = NeuralAgent.from_checkpoint(LEARNED_CHECKPOINT, seed=3)
    card_player = make_agent(play, seed=3)
    envs = VectorSpades("partnership", num_envs=games, seed=5)
    obs, info = envs.reset(seed=5)
    phases = set()
    for _ in range(steps):  # bids and cards (two hands of every game with the heuristic)
        mask, seats = info["action_mask"].astype(bool), info["to_play"]
        ctx = DecisionContext(envs.engine, envs.state, np.arange(games), seats)
        cards = envs.state.phase == PLAY
        phases |= set(np.unique(envs.state.phase).tolist())
        actions = mixed.act(obs, mask, ctx)
        rows = np.flatnonzero(cards)
        if len(rows):
            sub = DecisionContext(envs.engine, envs.state, rows, seats[rows])
            np.testing.assert_array_equal(actions[cards], card_player.act(None, mask[rows], sub))
        np.testing.assert_array_equal(actions[~cards], network.act(obs[~cards], mask[~cards]))
        obs, _, _, _, info = envs.step(actions)
    assert PLAY in phases and len(phases) > 1  # both kinds of decision were taken


def test_play_is_checked_and_heuristic_play_needs_the_context():
    allowed = r"must be one of \['network', 'heuristic', 'search'\]"
    with pytest.raises(ValueError, match=rf"neural bot option 'play' {allowed}"):
        make_agent(f"neural:path={LEARNED_CHECKPOINT},play=x", seed=0)
    with pytest.raises(ValueError, match=rf"learned bot option 'play' {allowed}"):
        make_agent("learned:play=x", seed=0)
    agent = make_agent(f"neural:path={LEARNED_CHECKPOINT},play=heuristic", seed=0)
    envs = VectorSpades("partnership", num_envs=2, seed=0)
    obs, info = envs.reset(seed=0)
    with pytest.raises(ValueError, match="with play=heuristic needs the decision context"):
        agent.act(obs, info["action_mask"])


def test_the_learned_bot_passes_play_to_its_networks():
    agent = make_agent("learned:play=heuristic", seed=0)
    assert {a.play for a in agent._agents.values()} == {"heuristic"}
    assert {a.play for a in make_agent("learned", seed=0)._agents.values()} == {"network"}


def test_the_config_checks_card_play():
    with pytest.raises(ValueError, match=r"card_play='cards' \(one of \['network', 'heuristic'\]\)"):
        PPOConfig(card_play="cards")


BIDDING = ROOT / "configs" / "train" / "bidding.yaml"
#: The recipes that train bids under heuristic card play, and the committed network each starts from.
BIDDING_RECIPES = {
    "bidding.yaml": "checkpoints/partnership_ppo.pt",
    "cutthroat4_bidding.yaml": "checkpoints/cutthroat4_ppo.pt",
}
BIDS_CHECKPOINT = ROOT / "checkpoints" / "partnership_bids.pt"
#: The sizes the smoke run of the recipe shrinks (every other setting is the recipe's own).
TINY = dict(num_envs=4, num_steps=80, total_updates=1, eval_every=1, eval_deals=4, checkpoint_every=1, eval_final=False)


@pytest.mark.parametrize("name", sorted(BIDDING_RECIPES))
def test_the_bidding_recipes_train_no_card_and_their_checkpoints_play_so(tmp_path, monkeypatch, name):
    steps = []
    real_cards, real_add = ppo_rollout.heuristic_cards, TurnBuffer.add

    def cards_spy(state, config, live):
        out = real_cards(state, config, live)
        steps.append({"phase": state.phase.copy(), "cards": out.copy()})
        return out

    def add_spy(self, obs, mask, action, logprob, value, seat, learn, live=None, teacher=None):
        steps[-1]["learn"], steps[-1]["stored"] = np.asarray(learn).copy(), np.asarray(live).copy()
        assert teacher is None  # no card anchor
        real_add(self, obs, mask, action, logprob, value, seat, learn, live, teacher)
        steps[-1]["reward_rows"] = self.last.copy()  # (B, N): where each seat's next reward goes

    evaluated = []
    real_eval = network_eval.evaluate_against_heuristic

    def eval_spy(agent, *args):
        evaluated.append(agent.play)
        return real_eval(agent, *args)

    monkeypatch.setattr(network_eval, "evaluate_against_heuristic", eval_spy)
    monkeypatch.setattr(ppo_rollout, "heuristic_cards", cards_spy)
    monkeypatch.setattr(TurnBuffer, "add", add_spy)
    recipe = PPOConfig.from_yaml(ROOT / "configs" / "train" / name)
    assert recipe.card_play == "heuristic" and recipe.paired and recipe.init_from == BIDDING_RECIPES[name]
    train(dataclasses.replace(recipe, run_dir=str(tmp_path), **TINY), quiet=True)
    assert len(steps) == TINY["num_steps"]
    for step in steps:
        np.testing.assert_array_equal(step["cards"], step["phase"] == PLAY)  # every card, whoever holds the seat
        assert not (step["learn"] & step["cards"]).any() and not (step["stored"] & step["cards"]).any()
    assert sum(step["learn"].sum() for step in steps) > 0  # the learner's bids are trained
    # a hand's reward goes to each seat's bid: the rows rewards go to are bid rows (or none yet)
    n = steps[0]["reward_rows"].shape[1]  # the buffer's first rows carry decisions over from the last rollout
    bid_rows = {(row, g) for row, step in enumerate(steps, start=n) for g in np.flatnonzero(step["stored"])}
    for step in steps:
        games, seats = np.nonzero(step["reward_rows"] >= n)
        assert all((step["reward_rows"][g, s], g) in bid_rows for g, s in zip(games, seats, strict=True))
    (latest,) = tmp_path.glob("*/checkpoints/latest.pt")
    assert NeuralAgent.from_checkpoint(latest).play == "heuristic"  # as it trained
    assert evaluated == ["heuristic"] and (latest.parent / "best.pt").exists()  # evaluated as it trains
    assert NeuralAgent.from_checkpoint(latest, play="network").play == "network"
    assert NeuralAgent.from_checkpoint(LEARNED_CHECKPOINT).play == "network"
    dagger = LEARNED_CHECKPOINT.parent / "partnership_dagger.pt"
    assert "card_play" not in torch.load(dagger, weights_only=True)["config"]
    assert NeuralAgent.from_checkpoint(dagger).play == "network"  # checkpoints before the option


def test_the_committed_bids_checkpoint_is_the_bidding_recipes_network_and_plays_with_heuristic_cards():
    keys = ("card_play", "paired", "opponent_reward_weight", "learning_rate", "num_envs", "num_steps", "init_from")
    committed_checkpoint(BIDS_CHECKPOINT, PPOConfig.from_yaml(BIDDING), "partnership", keys)
    assert NeuralAgent.from_checkpoint(BIDS_CHECKPOINT).play == "heuristic"
