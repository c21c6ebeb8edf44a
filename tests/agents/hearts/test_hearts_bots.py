"""The bots at Hearts: the heuristic's pass and play, legal play of every bot, the heuristic against random."""

from __future__ import annotations

import numpy as np
import pytest

from spades_env import SpadesEngine
from tests.spades_env.games.hearts.test_hearts import HEARTS, HEARTS_PRESETS, QS, _no_pass_state, cards


def _bot_ctx(engine, state, seat):
    from agents.base import DecisionContext

    return DecisionContext(engine, state, np.array([0]), np.array([seat]))


def _deal_with(seat0: str) -> list[list[int]]:
    """Seat 0 holds ``seat0``; the other cards go to seats 1, 2, 3 in id order (clubs first)."""
    mine = cards(seat0)
    rest = [c for c in range(52) if c not in mine]
    return [mine, rest[:13], rest[13:26], rest[26:]]


def _bot_move(bot, engine, state) -> int:
    return int(bot.act(None, engine.legal_action_mask(state), _bot_ctx(engine, state, int(state.to_move[0])))[0])


def test_heuristic_passes_the_queen_of_spades_first_and_high_hearts():
    from agents import HeuristicAgent

    engine = SpadesEngine(HEARTS)
    state = engine.reset(0, deals=[_deal_with("QS 2S 3S AH KH 3C 4C 5C 6C 2D 3D 4D 5D")], dealers=3)
    bot = HeuristicAgent()
    chosen = []
    for _ in range(3):
        chosen.append(_bot_move(bot, engine, state))
        engine.step(state, chosen[-1:])
    assert chosen == cards("QS AH KH")


def test_heuristic_keeps_points_off_the_first_trick_then_dumps_the_queen_when_void():
    from agents import HeuristicAgent

    engine = SpadesEngine(HEARTS)
    # Seat 1 holds every club; seat 0 none, with the queen of spades and two high hearts.
    state = _no_pass_state(engine, _deal_with("QS 2S AH KH 2D 3D 4D 5D 6D 7D 8D 9D TD"), dealers=0)
    bot = HeuristicAgent()
    for _ in range(3):  # seats 1, 2, 3
        engine.step(state, [_bot_move(bot, engine, state)])
    first = _bot_move(bot, engine, state)
    assert first not in cards("QS AH KH")
    engine.step(state, [first])
    assert state.to_move[0] == 1  # seat 1 won with a club and leads clubs again
    for _ in range(3):
        engine.step(state, [_bot_move(bot, engine, state)])
    assert state.to_move[0] == 0 and state.led_suit[0] == 0
    assert _bot_move(bot, engine, state) == QS


@pytest.mark.parametrize("preset", HEARTS_PRESETS)
def test_every_bot_plays_only_legal_hearts_actions(preset):
    from agents import HeuristicAgent, RandomAgent, SearchAgent
    from train.evaluation.tournament import play_games

    engine = SpadesEngine(preset)
    seeds = np.arange(12)
    seat_agents = np.tile(np.arange(4) % 3, (len(seeds), 1))
    seat_agents[::2] = (seat_agents[::2] + 1) % 3
    agents = [HeuristicAgent(), RandomAgent(seed=1), SearchAgent(seed=0, samples=2)]
    tally, winners = play_games(engine, seeds, seat_agents, agents, "hand")
    assert (tally.hands == 1).all() and agents[2].decisions > 0
    assert (tally.points.sum(axis=1) >= 26).all()  # 26 points a hand, 78 or 52 more after a moon


def test_heuristic_beats_random_at_hearts_lower_is_better(tmp_path):
    from train.evaluation.tournament import TournamentConfig, print_report, run_tournament

    config = TournamentConfig(bots=("heuristic", "random"), rules="hearts", boards=40, chunk=40)
    report = run_tournament(config, tmp_path / "log.jsonl", progress=False)
    assert report["lower_is_better"]
    pair = report["pairs"][0]
    assert pair["points_per_hand"]["heuristic"] < pair["points_per_hand"]["random"]
    assert pair["diff"] + pair["diff_ci95"] < 0  # A - B < 0: heuristic takes fewer points
    assert pair["board_wins"]["heuristic"] > pair["board_wins"]["random"]
    from io import StringIO

    from rich.console import Console

    out = StringIO()
    print_report(report, Console(file=out, width=200))
    assert "lower is better" in out.getvalue()
