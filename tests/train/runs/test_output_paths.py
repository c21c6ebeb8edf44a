"""Output paths are checked before a tournament or a bidding benchmark plays, not after."""

import pytest
from typer.testing import CliRunner

import train.evaluation.bid_bench
import train.evaluation.tournament
from train.cli.app import app
from train.runs.output_paths import check_output_file, check_output_folder


def test_check_output_file_names_the_option_and_the_problem(tmp_path):
    assert check_output_file(tmp_path / "r.json", "--json") == tmp_path / "r.json"
    with pytest.raises(ValueError, match=r"^--json .*missing/r.json: the folder .*missing does not exist"):
        check_output_file(tmp_path / "missing" / "r.json", "--json")
    with pytest.raises(ValueError, match=r"^--csv .*: is a folder"):
        check_output_file(tmp_path, "--csv")
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match=r"is not a folder"):
        check_output_file(tmp_path / "file" / "r.json", "--json")


def test_check_output_folder_accepts_a_folder_to_create_but_not_one_under_a_file(tmp_path):
    assert check_output_folder(tmp_path / "new" / "deeper", "--out") == tmp_path / "new" / "deeper"
    (tmp_path / "file").write_text("x")
    with pytest.raises(ValueError, match=r"^--out .*file: exists and is not a folder"):
        check_output_folder(tmp_path / "file", "--out")
    with pytest.raises(ValueError, match=r"^--out .*: .*file is not a folder"):
        check_output_folder(tmp_path / "file" / "out", "--out")


def _never(*args, **kwargs):
    raise AssertionError("played before the output paths were checked")


@pytest.mark.parametrize("option", ["--json", "--csv"])
def test_the_tournament_refuses_a_missing_output_folder_before_playing(tmp_path, monkeypatch, option):
    monkeypatch.setattr(train.evaluation.tournament, "run_tournament", _never)
    args = ["tournament", "--boards", "2", "--no-progress", option, str(tmp_path / "missing" / "r.out")]
    run = CliRunner().invoke(app, args)
    assert run.exit_code != 0
    message = run.output + str(run.exception)
    assert f"{option} " in message and "does not exist" in message


def test_bid_bench_refuses_an_out_folder_under_a_file_before_playing(tmp_path, monkeypatch):
    monkeypatch.setattr(train.evaluation.bid_bench, "run_bid_bench", _never)
    (tmp_path / "file").write_text("x")
    run = CliRunner().invoke(app, ["bid-bench", "--deals", "2", "--out", str(tmp_path / "file" / "out")])
    assert run.exit_code != 0
    message = run.output + str(run.exception)
    assert "--out " in message and "is not a folder" in message
