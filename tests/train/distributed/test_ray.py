"""Tournaments and the bidding benchmark on a local Ray: the local run's report, resume, a killed worker, bad addresses.

One Ray (2 CPUs) serves the whole module; the runs find it initialized and leave it running.
"""

import json
import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents import make_agent
from tests.paths import ROOT
from train.cli.options import ray_options, with_optional_values
from train.distributed.ray_shards import RayAddressError, RayOptions, parse_address, run_shards
from train.evaluation.bid_bench import BidBenchConfig, run_bid_bench
from train.evaluation.tournament import (
    StopTournament,
    TournamentConfig,
    TournamentLogWarning,
    run_tournament,
    summarize,
    write_json,
)

#: One pytest-xdist worker runs this whole module (`make test` uses --dist loadgroup), so one local Ray starts.
pytestmark = pytest.mark.xdist_group("ray")
#: Three bots (three pairs), three chunks per pair: nine shards.
CONFIG = TournamentConfig(bots=("heuristic", "random", "random"), boards=6, chunk=2, seed=7)
BENCH = BidBenchConfig(deals=12, seed=2, chunk=4, oracle_width=1, lookahead_samples=2)


@pytest.fixture(scope="module")
def local_ray():
    import ray

    ray.init(address="local", num_cpus=2, include_dashboard=False)  # a new Ray, whatever else runs here
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """The tournament played in this process: its report and its log."""
    log = tmp_path_factory.mktemp("local") / "log.jsonl"
    return run_tournament(CONFIG, log, progress=False), log


def _games(log: Path) -> list[str]:
    lines = log.read_text().splitlines()
    assert json.loads(lines[0])["type"] == "header"
    return lines[1:]


def _keys(log: Path) -> list[tuple]:
    return [(g["pair_index"], g["board"], g["seating"]) for g in map(json.loads, _games(log))]


def _assert_same_as_local(report: dict, log: Path, local_run, tmp_path: Path) -> None:
    """The same report JSON, byte for byte, and the same game lines (in any order), each game once."""
    expected, local_log = local_run
    write_json(expected, tmp_path / "local.json")
    write_json(report, tmp_path / "ray.json")
    assert (tmp_path / "ray.json").read_bytes() == (tmp_path / "local.json").read_bytes()
    assert sorted(_games(log)) == sorted(_games(local_log))
    assert len(set(_keys(log))) == len(_keys(log)) == 3 * 6 * 2


def test_the_report_does_not_depend_on_the_order_the_games_were_logged(local_run):
    """Ray logs chunks as they finish: the report of the games in any order is the local one, byte for byte."""
    expected, log = local_run
    games = [json.loads(line) for line in _games(log)]
    for seed in range(3):
        shuffled = [games[k] for k in np.random.default_rng(seed).permutation(len(games))]
        assert json.dumps(summarize(CONFIG, shuffled)) == json.dumps(expected)


def test_a_tournament_on_ray_gives_the_local_report_and_log_lines(local_ray, local_run, tmp_path):
    report = run_tournament(CONFIG, tmp_path / "ray.jsonl", progress=False, ray=RayOptions())
    _assert_same_as_local(report, tmp_path / "ray.jsonl", local_run, tmp_path)


def test_hand_records_and_match_mode_on_ray_log_the_local_lines(local_ray, tmp_path):
    config = TournamentConfig(bots=("heuristic", "random"), rules="partnership-250", boards=3, chunk=1, mode="match")
    local = run_tournament(config, tmp_path / "local.jsonl", progress=False, hand_records=True)
    on_ray = run_tournament(config, tmp_path / "ray.jsonl", progress=False, hand_records=True, ray=RayOptions())
    assert json.dumps(on_ray) == json.dumps(local)
    assert sorted(_games(tmp_path / "ray.jsonl")) == sorted(_games(tmp_path / "local.jsonl"))
    assert all(json.loads(line)["records"] for line in _games(tmp_path / "ray.jsonl"))


def test_a_partial_log_resumes_on_ray_without_a_game_twice(local_ray, local_run, tmp_path):
    log = tmp_path / "cut.jsonl"
    with pytest.raises(StopTournament):
        run_tournament(CONFIG, log, progress=False, stop_after=5)  # a local run killed inside its third chunk
    with log.open("a") as fh:
        fh.write('{"type": "game", "pair_ind')  # a line cut short by the kill
    with pytest.raises(StopTournament), pytest.warns(TournamentLogWarning, match="unfinished last line"):
        run_tournament(CONFIG, log, progress=False, ray=RayOptions(), stop_after=9)  # a Ray run stopped too
    assert len(_keys(log)) == 5 + 9
    report = run_tournament(CONFIG, log, progress=False, ray=RayOptions())
    _assert_same_as_local(report, log, local_run, tmp_path)


def test_a_worker_killed_in_the_middle_of_a_chunk_loses_nothing_and_counts_nothing_twice(
    local_ray, local_run, tmp_path
):
    marker, driver = tmp_path / "killed", os.getpid()

    def factory(spec, seed):
        agent = make_agent(spec, seed=seed)
        play = agent.act

        def act(observations, masks, context=None):
            if os.getpid() != driver and not marker.exists():
                marker.write_text(str(os.getpid()))
                os._exit(1)  # the worker dies with its chunk half played
            return play(observations, masks, context)

        agent.act = act
        return agent

    log = tmp_path / "ray.jsonl"
    report = run_tournament(CONFIG, log, progress=False, agent_factory=factory, ray=RayOptions())
    assert int(marker.read_text()) != driver
    _assert_same_as_local(report, log, local_run, tmp_path)


def test_the_bidding_benchmark_on_ray_gives_the_local_report_even_when_a_worker_dies(local_ray, tmp_path):
    expected = json.dumps(run_bid_bench(BENCH))
    assert json.dumps(run_bid_bench(BENCH, ray=RayOptions())) == expected
    marker = tmp_path / "killed"

    def kill_once(shard):
        if shard.chunks == (4,) and not marker.exists():  # the second chunk's shard
            marker.touch()
            os._exit(1)

    assert json.dumps(run_bid_bench(BENCH, ray=RayOptions(before_shard=kill_once))) == expected
    assert marker.exists()


def test_shards_come_back_once_each_and_an_error_in_a_shard_is_raised_not_retried(local_ray, tmp_path):
    got = []
    run_shards(lambda x: x * x, list(range(5)), RayOptions(), lambda shard, result: got.append((shard, result)))
    assert sorted(got) == [(x, x * x) for x in range(5)]
    tries = tmp_path / "tries"

    def fail(x):
        with tries.open("a") as fh:
            fh.write("x")
        raise ValueError(f"shard {x} is bad")

    with pytest.raises(ValueError, match="shard 3 is bad"):
        run_shards(fail, [3], RayOptions(), lambda shard, result: None)
    assert tries.read_text() == "x"


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_unreachable_address_fails_in_one_line_naming_it_before_the_log_is_written(local_ray, tmp_path):
    address = f"127.0.0.1:{_closed_port()}"
    with pytest.raises(RayAddressError, match=re.escape(f"--ray {address}: no Ray cluster reachable")):
        run_tournament(CONFIG, tmp_path / "log.jsonl", progress=False, ray=RayOptions(address=address))
    with pytest.raises(RayAddressError, match=re.escape(f"--ray ray://{address}")):
        run_bid_bench(BENCH, ray=RayOptions(address=f"ray://{address}"))
    assert not (tmp_path / "log.jsonl").exists()
    run = subprocess.run(
        [sys.executable, "-m", "train.cli.app", "tournament", "--boards", "2", "--ray", address],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    lines = [line for line in run.stderr.splitlines() if line.strip()]
    assert run.returncode == 2 and lines[0].startswith(f"error: --ray {address}: no Ray cluster"), run.stderr
    assert len(lines) == 2 and "Traceback" not in run.stderr


@pytest.mark.parametrize("address", ["nohost", "host:port", "ray://:10001", "10.0.0.1:99999"])
def test_a_malformed_address_is_refused_naming_the_forms_allowed(address):
    with pytest.raises(RayAddressError, match=f"--ray {re.escape(address)}: expected host:port"):
        parse_address(address)


def test_ray_without_an_address_is_a_local_ray_and_workers_need_ray():
    assert with_optional_values(["tournament", "--ray"]) == ["tournament", "--ray", "local"]
    assert with_optional_values(["tournament", "--ray", "--boards", "2"]) == [
        "tournament",
        "--ray",
        "local",
        "--boards",
        "2",
    ]
    assert with_optional_values(["tournament", "--ray", "h:1"]) == ["tournament", "--ray", "h:1"]
    assert ray_options("local", 3) == RayOptions(address="local", workers=3)
    assert ray_options(None, None) is None
    with pytest.raises(ValueError, match="--ray-workers .* give --ray"):
        ray_options(None, 2)
    with pytest.raises(ValueError, match="--ray-workers must be an integer from 1"):
        RayOptions(workers=0)


def test_spades_env_and_agents_never_import_ray_and_train_only_when_a_run_uses_it():
    code = (
        "import sys, spades_env, spades_env.envs, agents, agents.search, agents.search_bidding\n"
        "import train.cli.app, train.evaluation.tournament, train.evaluation.tournament_ray\n"
        "import train.evaluation.bid_bench, train.evaluation.bid_bench_ray\n"
        "from train.evaluation.tournament import TournamentConfig, run_tournament\n"
        "run_tournament(TournamentConfig(boards=1), None, progress=False)\n"
        "print('ray' in sys.modules)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert run.stdout.strip() == "False"
    imports_ray = re.compile(r"^\s*(import ray\b|from ray\b)", re.M)
    sources = [*(ROOT / "spades_env").rglob("*.py"), *(ROOT / "agents").rglob("*.py")]
    assert sources and not [str(p) for p in sources if imports_ray.search(p.read_text())]


def test_ray_is_an_extra_that_make_setup_installs_at_the_version_installed():
    import ray

    extra = re.search(r"^ray = \[(.*)\]$", (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    assert extra == f'"ray=={ray.__version__}"'
    setup = re.search(r"install -e '\.\[([a-z,]+)\]'", (ROOT / "Makefile").read_text()).group(1).split(",")
    assert "ray" in setup
