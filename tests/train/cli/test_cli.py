"""The command line reports usage errors in one line with exit code 2; ``--debug`` shows the traceback."""

import subprocess
import sys

import pytest


def spades(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "train.cli.app", *args], capture_output=True, text=True, cwd=cwd)


def assert_usage_error(run: subprocess.CompletedProcess, *words: str) -> None:
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr and "Traceback" not in run.stdout
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert lines[0].startswith("error: "), run.stderr
    assert len(lines) <= 2, run.stderr  # the message, and the --debug hint
    for word in words:
        assert word in lines[0], lines[0]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["tournament", "--bots", "heuristic,nosuchbot", "--boards", "2"], ["nosuchbot", "heuristic"]),
        (["tournament", "--rules", "nosuchrules", "--boards", "2"], ["nosuchrules", "partnership"]),
        (["tournament", "--rules", "missing/rules.yaml", "--boards", "2"], ["missing/rules.yaml"]),
        (["tournament", "--bots", "heuristic,search:samples", "--boards", "2"], ["key=value"]),
    ],
    ids=["unknown-bot", "unknown-rules", "missing-rules-file", "bad-bot-option"],
)
def test_usage_errors_are_one_line_and_exit_2(args, words):
    assert_usage_error(spades(*args), *words)


def test_a_broken_yaml_rules_file_is_a_usage_error(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("target_score: [500\n")
    assert_usage_error(spades("tournament", "--rules", str(bad), "--boards", "2"), "bad.yaml", "line")


def test_debug_shows_the_traceback():
    run = spades("--debug", "tournament", "--bots", "heuristic,nosuchbot", "--boards", "2")
    assert run.returncode != 0
    assert "Traceback" in run.stderr or "nosuchbot" in run.stderr
    assert "unknown bot" in run.stderr


def test_a_bot_option_after_a_comma_is_named_with_the_separator_to_use():
    run = spades("tournament", "--bots", "search:samples=2,oversample=1,heuristic", "--boards", "2")
    assert run.returncode != 0 and "Traceback" not in run.stderr
    assert "--bots: 'oversample=1' is an option, not a bot: on the command line ';' separates" in run.stderr


def test_click_usage_errors_keep_exit_code_2():
    run = spades("tournament", "--boards", "many")
    assert run.returncode == 2
    assert "Traceback" not in run.stderr


def test_presets_name_the_game_and_the_seating():
    lines = dict(line.split(None, 1) for line in spades("presets").stdout.splitlines())
    assert lines["hearts"].startswith("hearts, cutthroat, 4 players, to 100 (lowest score wins)")
    assert lines["two-player"].startswith("spades, two players")
    assert lines["partnership"].startswith("spades, partnership (2 teams of 2), to 500")
