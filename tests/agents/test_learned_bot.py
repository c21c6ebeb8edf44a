"""The committed learned bot loads and plays out of the box (``learned`` in tournaments and the demo)."""

import numpy as np
import pytest

from agents import LEARNED_CHECKPOINT, make_agent
from agents.neural import NeuralAgent
from spades_env.engine import SpadesEngine
from spades_env.rules import list_presets
from tests.checkpoint_compare import tiny_checkpoint
from train.evaluation.tournament import TournamentConfig, demo_config, run_tournament


def test_committed_checkpoint_is_slim():
    assert LEARNED_CHECKPOINT.stat().st_size <= 5 * 2**20


def test_learned_bot_plays_a_duplicate_tournament_and_is_in_the_demo():
    assert make_agent("learned", seed=0).uses_observations
    report = run_tournament(TournamentConfig(bots=("learned", "random"), boards=8, chunk=8), None, progress=False)
    pair = report["pairs"][0]
    assert pair["diff"] > 0  # far stronger than random even on a few boards
    assert "learned" in demo_config().bots


def test_the_neural_bot_parses_greedy_from_its_spec():
    assert make_agent(f"neural:path={LEARNED_CHECKPOINT},greedy=false", seed=0).greedy is False
    assert make_agent(f"neural:path={LEARNED_CHECKPOINT},greedy=yes", seed=0).greedy is True
    with pytest.raises(ValueError, match="option 'greedy' must be a boolean"):
        make_agent(f"neural:path={LEARNED_CHECKPOINT},greedy=sometimes", seed=0)


#: The presets a committed checkpoint plays (its own, and those whose observations mean the same).
LEARNED_PRESETS = (
    "partnership", "partnership-tournament", "cutthroat-3", "cutthroat-4", "cutthroat-5", "cutthroat-6", "hearts",
    "hearts-partnership", "two-player", "partnership-house",
)  # fmt: skip


@pytest.mark.parametrize("preset", list_presets())
def test_the_learned_bot_plays_exactly_the_presets_of_its_checkpoints(preset):
    agent = make_agent("learned", seed=0)
    engine = SpadesEngine(preset)
    assert agent.supports(engine) == (preset in LEARNED_PRESETS)
    if preset in LEARNED_PRESETS:
        agent.check_supports(engine)
        assert agent.bound.rules.game == engine.rules.game and agent.bound.rules.n_players == engine.rules.n_players
        assert agent.bound.rules.partnership == engine.rules.partnership
    else:
        with pytest.raises(ValueError, match=f"bot 'learned' has no checkpoint for the rules '{preset}'"):
            agent.check_supports(engine)


@pytest.mark.parametrize(
    "preset, differs",
    [
        ("partnership-250", "target_score 500 vs 250"),
        ("partnership-house", "face_up_deal False vs True; bemo False vs True"),
        ("partnership-no-blind-nil", r"actions \(bids 0-13, \['blind_nil', 'look'\] vs 0-13, \[\]\)"),
        ("cutthroat-4", "partnership True vs False"),
        ("two-player", "n_players 4 vs 2"),
        ("hearts", "game 'spades' vs 'hearts'"),
    ],
)
def test_a_neural_bot_refuses_other_rules_naming_both_and_what_differs(preset, differs):
    agent = make_agent(f"neural:path={LEARNED_CHECKPOINT}", seed=0)
    engine = SpadesEngine(preset)
    assert not agent.supports(engine)
    message = f"trained on the rules 'partnership' and the table plays '{preset}'.*: {differs}"
    with pytest.raises(ValueError, match=message):
        agent.check_supports(engine)
    with pytest.raises(ValueError, match=message):
        config = TournamentConfig(bots=(f"neural:path={LEARNED_CHECKPOINT}", "random"), rules=preset, boards=2)
        run_tournament(config, None, progress=False)


@pytest.mark.parametrize(
    "preset, nearest",
    [
        ("partnership-250", "trained on the rules 'partnership' .*: target_score 500 vs 250"),
        ("hearts-50", "trained on the rules 'hearts' .*: target_score 100 vs 50"),
    ],
)
def test_the_learned_bot_refuses_a_table_naming_the_nearest_checkpoints_differences(preset, nearest):
    message = rf"no checkpoint for the rules '{preset}' \(it plays \[.*'partnership'.*\].*nearest: .*{nearest}"
    with pytest.raises(ValueError, match=message):
        config = TournamentConfig(bots=("learned", "random"), rules=preset, boards=2, chunk=2)
        run_tournament(config, None, progress=False)


def test_cuda_without_a_gpu_is_one_clear_error(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    for make in (
        lambda: make_agent("learned:device=cuda", seed=0),
        lambda: NeuralAgent.from_checkpoint(LEARNED_CHECKPOINT, device="cuda:0"),
    ):
        with pytest.raises(ValueError, match="device 'cuda(:0)?': no CUDA device is available"):
            make()
    with pytest.raises(ValueError, match="device must be 'cpu', 'cuda' or 'cuda:N', got 'gpu'"):
        make_agent("learned:device=gpu", seed=0)


@pytest.fixture
def two_checkpoints(tmp_path, monkeypatch):
    """``learned`` with the committed partnership network and a tiny Hearts one."""
    import agents.learned

    paths = {"partnership": LEARNED_CHECKPOINT, "hearts": tiny_checkpoint(tmp_path / "hearts.pt", "hearts")}
    monkeypatch.setattr(agents.learned, "LEARNED_CHECKPOINTS", paths | {"two-player": tmp_path / "absent.pt"})
    return paths


def test_the_learned_bot_plays_each_table_with_the_checkpoint_trained_for_its_rules(two_checkpoints):
    agent = make_agent("learned", seed=0)
    assert sorted(agent.paths) == ["hearts", "partnership"]  # an absent file is not offered
    agent.check_supports(SpadesEngine("hearts"))
    assert agent.bound.rules.game == "hearts"
    agent.check_supports(SpadesEngine("partnership-tournament"))
    assert agent.bound.rules.name == "partnership"
    report = run_tournament(TournamentConfig(bots=("learned", "random"), rules="hearts", boards=2, chunk=2), None)
    assert report["pairs"][0]["boards"] == 2


def test_the_learned_bot_rebinds_when_the_context_shows_another_table(two_checkpoints):
    from spades_env.envs import VectorSpades

    agent = make_agent("learned", seed=0)
    agent.check_supports(SpadesEngine("partnership"))
    envs = VectorSpades("hearts", num_envs=3)
    obs, info = envs.reset(seed=1)
    actions = agent.act(obs, info["action_mask"], envs.context())
    assert agent.bound.rules.game == "hearts"
    assert info["action_mask"][np.arange(3), actions].all()


def test_without_a_table_the_learned_bot_picks_the_one_network_of_the_observation_size(two_checkpoints):
    from spades_env.observation import encoder_for

    engine = SpadesEngine("hearts")
    agent = make_agent("learned", seed=0)
    masks = np.zeros((2, engine.layout.n_actions), bool)
    masks[:, :3] = True
    actions = agent.act(np.zeros((2, encoder_for(engine).size), np.float32), masks)
    assert agent.bound.rules.game == "hearts" and (actions < 3).all()
    with pytest.raises(ValueError, match="cannot tell which checkpoint plays observations of size 7 with 9 actions"):
        make_agent("learned", seed=0).act(np.zeros((1, 7), np.float32), np.ones((1, 9), bool))


def test_a_table_no_checkpoint_plays_is_refused_naming_what_the_bot_plays(two_checkpoints):
    message = (
        r"bot 'learned' has no checkpoint for the rules 'two-player' \(it plays \['hearts', 'partnership'\].*"
        r"nearest: .*trained on the rules 'partnership' and the table plays 'two-player'.*n_players 4 vs 2"
    )
    with pytest.raises(ValueError, match=message):
        make_agent("learned", seed=0).check_supports(SpadesEngine("two-player"))


def test_without_any_checkpoint_the_learned_bot_says_where_it_looks(monkeypatch, tmp_path):
    import agents.learned

    monkeypatch.setattr(agents.learned, "LEARNED_CHECKPOINTS", {"partnership": tmp_path / "none.pt"})
    with pytest.raises(ValueError, match="the learned bot needs a checkpoint in .*checkpoints; none of"):
        make_agent("learned", seed=0)


def test_playing_logits_are_the_forward_logits_without_the_value_head():
    import torch

    from spades_env.envs import VectorSpades

    # a network with PPO's state value head (the learned bot's is exported play-only, without one)
    policy = NeuralAgent.from_checkpoint(LEARNED_CHECKPOINT.parent / "partnership_bid_values_nil_cards.pt").policy
    envs = VectorSpades("partnership", num_envs=6)
    obs, info = envs.reset(seed=3)
    for step in range(8):  # bids, then card play
        with torch.no_grad():
            logits, _ = policy(torch.as_tensor(obs))
            mine = policy.action_logits(torch.as_tensor(obs), bids=True)
            cards = policy.action_logits(torch.as_tensor(obs), bids=False)
        assert torch.equal(mine, logits)
        n = policy.n_card_actions
        assert torch.equal(cards[:, :n], logits[:, :n]) and torch.isneginf(cards[:, n:]).all()
        obs, _, _, _, info = envs.step(make_agent("heuristic", seed=step).act(obs, info["action_mask"], envs.context()))


@pytest.mark.parametrize("precision", ["float32", "int8"])
def test_a_greedy_bot_takes_a_lone_legal_action_without_the_network_and_asks_it_for_the_rest(precision):
    from spades_env.envs import VectorSpades

    agent = NeuralAgent.from_checkpoint(LEARNED_CHECKPOINT, precision=precision)
    asked, real = [], agent.policy.play_outputs
    agent.policy.play_outputs = lambda obs, bids=True: asked.append(len(obs)) or real(obs, bids)
    envs = VectorSpades("partnership", num_envs=16)
    obs, info = envs.reset(seed=4)
    lone = free = 0
    for _ in range(60):  # bids, then the card play to the last trick
        masks = info["action_mask"].astype(bool)
        single = masks.sum(axis=1) == 1
        asked.clear()
        context = envs.context()
        actions = agent.act(obs, masks, context)
        assert sum(asked) == (~single).sum()
        np.testing.assert_array_equal(actions[single], masks[single].argmax(axis=1))  # the one legal action
        rows = np.flatnonzero(~single)  # decided as they would be without the lone rows beside them
        if len(rows):
            np.testing.assert_array_equal(actions[rows], agent.act(obs[rows], masks[rows], context.take(rows)))
        lone, free = lone + single.sum(), free + (~single).sum()
        obs, _, _, _, info = envs.step(actions)
    assert lone > 0.15 * (lone + free)  # the last tricks, lone cards of the suit led
