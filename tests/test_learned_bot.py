"""The committed learned bot loads and plays out of the box (``learned`` in tournaments and the demo)."""

from agents import LEARNED_CHECKPOINT, make_agent
from train.tournament import TournamentConfig, demo_config, run_tournament


def test_committed_checkpoint_is_slim():
    assert LEARNED_CHECKPOINT.stat().st_size <= 5 * 2**20


def test_learned_bot_plays_a_duplicate_tournament_and_is_in_the_demo():
    assert make_agent("learned", seed=0).uses_observations
    report = run_tournament(TournamentConfig(bots=("learned", "random"), boards=8, chunk=8), None, progress=False)
    pair = report["pairs"][0]
    assert pair["diff"] > 0  # far stronger than random even on a few boards
    assert "learned" in demo_config().bots
