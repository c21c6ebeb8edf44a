"""Duplicate tournaments: seat structure, determinism, resume after a kill, outputs and the CLI."""

import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents import make_agent
from spades_env.rules import Rules
from train.evaluation.tournament import (
    StopTournament,
    TournamentConfig,
    TournamentLogWarning,
    benchmark_heuristic,
    run_tournament,
    seatings,
    write_csv,
    write_json,
)

SPADES = Path(sys.executable).parent / "spades"


def _games(path: Path) -> list[dict]:
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["type"] == "header"
    return [json.loads(line) for line in lines[1:]]


def test_partnerships_swap_sides_and_cutthroat_rotates_every_seat():
    assert seatings(Rules.preset("partnership")).tolist() == [[0, 1, 0, 1], [1, 0, 1, 0]]
    for k in (3, 4, 5, 6):
        lineup = seatings(Rules(partnership=False, n_players=k))
        assert (lineup.sum(axis=0) == len(lineup) // 2).all()  # each bot sits in each seat equally often
        assert len({tuple(r) for r in lineup}) == len(lineup)


def test_every_board_is_played_in_every_seating_with_the_same_deal():
    config = TournamentConfig(bots=("heuristic", "random"), boards=5, chunk=2, seed=3)
    report = run_tournament(config, None, progress=False)
    assert report["games"] == 10
    pair = report["pairs"][0]
    assert pair["boards"] == 5 and pair["games"] == 10
    assert pair["diff"] > 0  # the heuristic beats random


def test_a_bot_against_itself_scores_exactly_zero_on_every_board(tmp_path):
    config = TournamentConfig(bots=("heuristic", "heuristic"), boards=40, chunk=16)
    report = run_tournament(config, tmp_path / "log.jsonl", progress=False)
    games = _games(tmp_path / "log.jsonl")
    by_board: dict[int, dict[int, dict]] = {}
    for g in games:
        by_board.setdefault(g["board"], {})[g["seating"]] = g
    for board in by_board.values():
        first, swapped = board[0], board[1]
        assert first["seed"] == swapped["seed"]
        assert first["sides"] == ["heuristic", "heuristic#2"] and swapped["sides"] == ["heuristic#2", "heuristic"]
        assert first["points"] == swapped["points"]  # same deal, same deterministic play: luck cancels exactly
    assert report["pairs"][0]["diff"] == 0


def test_same_seed_gives_the_same_results_and_another_seed_other_deals():
    config = TournamentConfig(bots=("random", "heuristic"), boards=6, chunk=4, seed=11)
    a = run_tournament(config, None, progress=False)
    b = run_tournament(config, None, progress=False)
    c = run_tournament(TournamentConfig(bots=("random", "heuristic"), boards=6, chunk=4, seed=12), None, progress=False)
    assert a == b
    assert a["pairs"] != c["pairs"]


@pytest.mark.parametrize("mode", ["hand", "match"])
def test_a_killed_tournament_resumes_to_exactly_the_uninterrupted_log(tmp_path, mode):
    config = TournamentConfig(
        bots=("random", "heuristic", "random"), rules="partnership-250", boards=6, chunk=4, mode=mode
    )
    full = tmp_path / "full.jsonl"
    cut = tmp_path / "cut.jsonl"
    expected = run_tournament(config, full, progress=False)
    with pytest.raises(StopTournament):
        run_tournament(config, cut, progress=False, stop_after=5)  # dies in the middle of a chunk
    assert len(_games(cut)) == 5
    with cut.open("a") as fh:
        fh.write('{"type": "game", "pair_ind')  # a line cut short by the kill
    with pytest.raises(StopTournament), pytest.warns(TournamentLogWarning, match="unfinished last line"):
        run_tournament(config, cut, progress=False, stop_after=9)
    resumed = run_tournament(config, cut, progress=False)
    assert cut.read_text() == full.read_text()
    assert resumed == expected
    keys = [(g["pair_index"], g["board"], g["seating"]) for g in _games(cut)]
    assert len(keys) == len(set(keys)) == 3 * 6 * 2


def test_resuming_with_another_config_is_refused(tmp_path):
    log = tmp_path / "log.jsonl"
    run_tournament(TournamentConfig(bots=("random", "heuristic"), boards=2), log, progress=False)
    with pytest.raises(ValueError, match="different tournament config"):
        run_tournament(TournamentConfig(bots=("random", "heuristic"), boards=3), log, progress=False)
    report = run_tournament(TournamentConfig(bots=("random", "heuristic"), boards=3), log, fresh=True, progress=False)
    assert report["games"] == 6


def test_match_mode_reports_winners_and_cutthroat_plays_every_rotation(tmp_path):
    config = TournamentConfig(bots=("heuristic", "random"), rules="partnership-250", boards=4, mode="match")
    report = run_tournament(config, tmp_path / "m.jsonl", progress=False)
    games = _games(tmp_path / "m.jsonl")
    assert all(g["winner"] in (0, 1) and g["hands"] >= 1 for g in games)
    assert report["pairs"][0]["win_rate_a"] > 0.5
    rules = tmp_path / "cutthroat-3.yaml"
    rules.write_text("partnership: false\nn_players: 3\n")
    config = TournamentConfig(bots=("heuristic", "random"), rules=str(rules), boards=3)
    report = run_tournament(config, tmp_path / "c.jsonl", progress=False)
    games = _games(tmp_path / "c.jsonl")
    assert len(games) == 3 * 6 and all(len(g["sides"]) == 3 for g in games)
    assert report["pairs"][0]["diff"] > 0


def test_report_has_rates_ratings_and_writes_json_and_csv(tmp_path):
    config = TournamentConfig(bots=("heuristic", "random"), boards=30)
    report = run_tournament(config, None, progress=False)
    bots = {b["bot"]: b for b in report["bots"]}
    assert bots["heuristic"]["rating"] > bots["random"]["rating"]
    assert 0 <= bots["random"]["set_rate"] <= 1 and bots["heuristic"]["bags_per_hand"] >= 0
    pair = report["pairs"][0]
    assert pair["diff_ci95"] > 0 and np.isfinite(pair["diff"])
    write_json(report, tmp_path / "r.json")
    assert json.loads((tmp_path / "r.json").read_text())["pairs"][0]["a"] == "heuristic"
    paths = write_csv(report, tmp_path / "r.csv")
    rows = list(csv.DictReader(paths[0].open()))
    assert rows[0]["a"] == "heuristic" and float(rows[0]["diff"]) == pytest.approx(pair["diff"])
    assert {r["bot"] for r in csv.DictReader(paths[1].open())} == {"heuristic", "random"}


def test_benchmark_heuristic_returns_hands_per_second():
    assert benchmark_heuristic(400) > 0


@pytest.mark.slow
def test_cli_tournament_help_and_a_tiny_run(tmp_path):
    help_text = subprocess.run([str(SPADES), "tournament", "--help"], capture_output=True, text=True, check=True)
    assert "--boards" in help_text.stdout and "--log" in help_text.stdout
    cmd = [
        str(SPADES), "tournament", "--bots", "heuristic,random", "--boards", "3", "--no-progress",
        "--log", str(tmp_path / "t.jsonl"), "--json", str(tmp_path / "t.json"), "--csv", str(tmp_path / "t.csv"),
    ]  # fmt: skip
    run = subprocess.run(cmd, capture_output=True, text=True, check=True)
    assert "heuristic" in run.stdout and "A - B" in run.stdout
    assert json.loads((tmp_path / "t.json").read_text())["games"] == 6
    assert (tmp_path / "t_bots.csv").exists()
    assert len(_games(tmp_path / "t.jsonl")) == 6


def test_agents_that_ask_for_observations_get_them():
    pytest.importorskip("spades_env.observation")
    from agents import RandomAgent

    seen = []

    class Watching(RandomAgent):
        uses_observations = True

        def act(self, observations, masks, context=None):
            seen.append((None if observations is None else observations.shape, len(masks)))
            return super().act(observations, masks, context)

    config = TournamentConfig(bots=("watching", "heuristic"), boards=2)
    factory = lambda spec, seed: Watching(seed=seed) if spec == "watching" else make_agent(spec, seed=seed)  # noqa: E731
    run_tournament(config, None, progress=False, agent_factory=factory)
    assert seen and all(shape is not None and shape[0] == n for shape, n in seen)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"boards": 0}, "boards must be an integer from 1 to 1000000, got 0"),
        ({"boards": -5}, "boards must be an integer from 1 to 1000000, got -5"),
        ({"boards": 2.5}, "boards must be an integer from 1 to 1000000, got 2.5"),
        ({"chunk": 0}, "chunk must be an integer from 1 up, got 0"),
        ({"seed": -1}, "seed must be an integer from 0 to 2147483647, got -1"),
        ({"mode": "set"}, "mode must be one of"),
    ],
)
def test_a_config_refuses_bad_numbers_naming_the_setting(settings, message):
    with pytest.raises(ValueError, match=f"^{message}"):
        TournamentConfig(bots=("heuristic", "random"), **settings)


def test_demo_with_no_boards_names_the_boards_not_a_chunk():
    from typer.testing import CliRunner

    from train.cli.app import app
    from train.evaluation.tournament import demo_config

    with pytest.raises(ValueError, match="^boards must be an integer from 1"):
        demo_config(boards=0)
    for args in (["demo", "--boards", "0"], ["tournament", "--boards", "-3"]):
        run = CliRunner().invoke(app, args)
        assert run.exit_code != 0
        assert "boards must be an integer from 1" in run.output + str(run.exception)
        assert "chunk" not in run.output + str(run.exception)
