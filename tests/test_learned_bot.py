"""The committed learned bot loads and plays out of the box (``learned`` in tournaments and the demo)."""

import pytest

from agents import LEARNED_CHECKPOINT, make_agent
from agents.neural import NeuralAgent
from spades_env.engine import SpadesEngine
from train.tournament import TournamentConfig, demo_config, run_tournament


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


@pytest.mark.parametrize("preset", ["partnership", "partnership-tournament"])
def test_the_learned_bot_plays_rules_whose_observations_mean_the_same(preset):
    agent = make_agent("learned", seed=0)
    agent.check_supports(SpadesEngine(preset))
    assert agent.supports(SpadesEngine(preset))


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
def test_the_learned_bot_refuses_other_rules_naming_both_and_what_differs(preset, differs):
    agent = make_agent("learned", seed=0)
    engine = SpadesEngine(preset)
    assert not agent.supports(engine)
    message = f"trained on the rules 'partnership' and the table plays '{preset}'.*: {differs}"
    with pytest.raises(ValueError, match=message):
        agent.check_supports(engine)
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
