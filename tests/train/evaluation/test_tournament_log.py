"""The tournament log on resume: foreign files left untouched, repeated and corrupt lines skipped and reported."""

import json

import pytest
from typer.testing import CliRunner

from train.cli.app import app
from train.evaluation.tournament import TournamentConfig, TournamentLogWarning, run_tournament, summarize

CONFIG = TournamentConfig(bots=("heuristic", "random"), boards=4, chunk=2)


@pytest.fixture(scope="module")
def full_log(tmp_path_factory):
    """The bytes of a finished log of CONFIG, and its report."""
    path = tmp_path_factory.mktemp("log") / "full.jsonl"
    report = run_tournament(CONFIG, path, progress=False)
    return path.read_bytes(), report


def _rewrite(path, edit):
    lines = path.read_bytes().split(b"\n")[:-1]
    path.write_bytes(b"".join(line + b"\n" for line in edit(lines)))


@pytest.mark.parametrize("fresh", [False, True])
def test_a_file_that_is_not_a_tournament_log_is_refused_and_left_untouched(tmp_path, fresh):
    path = tmp_path / "results.csv"
    content = b"a,b,games\nheuristic,random,8\nhalf a line"
    path.write_bytes(content)
    with pytest.raises(ValueError, match="not a tournament log.*left as it is"):
        run_tournament(CONFIG, path, fresh=fresh, progress=False)
    assert path.read_bytes() == content


def test_a_log_of_another_config_is_refused_and_left_untouched(tmp_path, full_log):
    path = tmp_path / "log.jsonl"
    path.write_bytes(full_log[0] + b'{"type": "game", "pair_')  # even its cut-short last line stays
    before = path.read_bytes()
    with pytest.raises(ValueError, match="different tournament config"):
        run_tournament(TournamentConfig(bots=("heuristic", "random"), boards=5, chunk=2), path, progress=False)
    assert path.read_bytes() == before


def test_a_repeated_game_line_counts_once_and_is_reported(tmp_path, full_log):
    path = tmp_path / "log.jsonl"
    path.write_bytes(full_log[0])
    _rewrite(
        path, lambda lines: [*lines[:3], lines[1], *lines[3:], lines[2]]
    )  # game 1 again at line 4, game 2 at the end
    with pytest.warns(TournamentLogWarning, match=r"ignored lines 4, 11: a game already in the log"):
        report = run_tournament(CONFIG, path, progress=False)
    assert report == full_log[1]
    assert report["pairs"][0]["games"] == 8


def test_a_corrupt_line_in_the_middle_keeps_every_later_game_and_says_so(tmp_path, full_log):
    path = tmp_path / "log.jsonl"
    path.write_bytes(full_log[0])
    _rewrite(path, lambda lines: [*lines[:3], b'{"type": "game", oops', *lines[4:]])  # the third game is lost
    later = path.read_bytes().split(b"\n")[4:]
    with pytest.warns(TournamentLogWarning, match=r"skipped line 4: not a valid game record.*replayed"):
        report = run_tournament(CONFIG, path, progress=False)
    assert report == full_log[1]
    lines = path.read_bytes().split(b"\n")
    assert lines[4 : 4 + len(later) - 1] == later[:-1]  # the games after the corrupt line are all still there
    assert json.loads(lines[-2]) == json.loads(full_log[0].split(b"\n")[3])  # the lost game replayed, appended


def test_summarize_counts_a_repeated_record_once(full_log):
    records = [json.loads(line) for line in full_log[0].split(b"\n")[1:-1]]
    with pytest.warns(TournamentLogWarning, match="2 repeated game records ignored"):
        again = summarize(CONFIG, records + records[:2])
    assert again == full_log[1]


def test_the_cli_prints_what_a_resumed_log_skipped(tmp_path, full_log):
    path = tmp_path / "log.jsonl"
    path.write_bytes(full_log[0])
    _rewrite(path, lambda lines: [*lines, lines[1]])
    args = ["tournament", "--bots", "heuristic,random", "--boards", "4", "--chunk", "2", "--no-progress"]
    run = CliRunner().invoke(app, [*args, "--log", str(path)])
    assert run.exit_code == 0, run.output
    assert "warning: --log" in run.stderr and "a game already in the log" in run.stderr
