"""Anyone's bot plays everywhere (issue 52): a bot outside the package, named by an import string or registered as
an entry point, plays a tournament, a bidding benchmark, a web game and the Gymnasium env; a wrong spec is one line.

The bot is the docs' example, ``examples/my_bot.py`` (docs/your-bot.md), imported by its string as a user would.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import spades_env  # noqa: F401 (registers the Gymnasium env)
from agents import RandomAgent, make_agent, parse_spec, resolve_spec
from agents.specs import ENTRY_POINT_GROUP
from tests.paths import ROOT
from tests.train.cli.test_cli import assert_usage_error, spades
from train.evaluation.bid_bench import BidBenchConfig, run_bid_bench
from train.evaluation.tournament import TournamentConfig, run_tournament

MY_BOT = "examples.my_bot:MyBot"


# ------------------------------------------------------------------ the resolver
def test_an_import_string_builds_the_users_bot_with_its_name_as_the_spec():
    bot = make_agent(MY_BOT, seed=3)
    assert type(bot).__name__ == "MyBot" and type(bot).__module__ == "examples.my_bot" and bot.uses_observations
    assert resolve_spec(MY_BOT).kind == "import string"
    assert parse_spec(f" {MY_BOT} ") == (MY_BOT, {})


def test_an_import_strings_options_follow_a_second_colon_typed_from_its_factory(monkeypatch, tmp_path):
    (tmp_path / "user_bot_options.py").write_text(
        "from agents import RandomAgent\n\n"
        "class Careful(RandomAgent):\n"
        "    def __init__(self, seed=None, depth: int = 1, bold: bool = False, style: str = 'calm'):\n"
        "        super().__init__(seed)\n"
        "        self.depth, self.bold, self.style = depth, bold, style\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    bot = make_agent("user_bot_options:Careful:depth=3,bold=yes", seed=0)
    assert (bot.depth, bot.bold, bot.style) == (3, True, "calm")
    with pytest.raises(ValueError, match="bot 'user_bot_options:Careful' has no option 'deep'; its options: depth"):
        make_agent("user_bot_options:Careful:deep=3")
    with pytest.raises(ValueError, match="option 'depth' must be an integer, got 'two'"):
        make_agent("user_bot_options:Careful:depth=two")


def test_a_module_in_the_current_folder_is_found_without_being_on_the_path(monkeypatch, tmp_path):
    (tmp_path / "user_bot_here.py").write_text("from agents import RandomAgent as Here\n")
    here = str(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".", here)])
    assert isinstance(make_agent("user_bot_here:Here", seed=0), RandomAgent)
    assert sys.path[-1] == here  # appended: an installed module of the same name would win


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("examples.no_such_bot:MyBot", r"bot examples.no_such_bot:MyBot: no module named 'examples.no_such_bot'"),
        ("no_such_package.bots:MyBot", r"no module named 'no_such_package' \(not installed, and not in the current"),
        ("examples.my_bot:YourBot", r"module 'examples.my_bot' has no attribute 'YourBot'"),
        ("examples.my_bot:RANK", r"bot examples.my_bot:RANK is a ndarray, not a bot; a bot is a subclass of agents"),
        ("examples.my_bot:np", r"is a module, not a bot"),
        ("json:JSONDecoder", r"is the class JSONDecoder, which is not an agents.Agent; a bot is a subclass"),
        ("examples.my_bot:MyBot:depth=2", r"bot 'examples.my_bot:MyBot' has no option 'depth'; it takes no options"),
        ("examples.my_bot:depth=2", r"an import string is module.path:Object\[:key=value,...\]"),
        ("hueristic", r"unknown bot 'hueristic'; built-in bots: random, heuristic, search, .*; installed bots"),
        ("serch:fast", r"unknown bot 'serch' \(and no module 'serch' to import 'fast' from\); built-in bots: random"),
    ],
)
def test_a_wrong_spec_is_refused_in_one_line_saying_what_is_wrong(spec, message):
    with pytest.raises(ValueError, match=message) as err:
        make_agent(spec, seed=0)
    assert "\n" not in str(err.value)


def test_a_factory_that_returns_something_else_and_a_bot_object_are_refused(monkeypatch, tmp_path):
    (tmp_path / "user_bot_wrong.py").write_text(
        "from agents import RandomAgent\n\ndef factory(seed=None):\n    return 42\n\nmade = RandomAgent(seed=0)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match="bot 'user_bot_wrong:factory' built a int, not a bot"):
        make_agent("user_bot_wrong:factory")
    with pytest.raises(ValueError, match="is a bot object, not its factory: name its class"):
        make_agent("user_bot_wrong:made")
    with pytest.raises(ValueError, match="a bot spec must be a string"):
        make_agent(None)


# ------------------------------------------------------------------ entry points
def _install(tmp_path: Path, monkeypatch, entries: dict[str, str]) -> None:
    """A distribution on ``sys.path`` whose entry points register ``entries`` (name -> ``module:Object``)."""
    info = tmp_path / "user_bots_dist-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: user-bots-dist\nVersion: 0.1\n")
    lines = "".join(f"{name} = {value}\n" for name, value in entries.items())
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\n{lines}")
    monkeypatch.syspath_prepend(str(tmp_path))


def test_a_bot_an_installed_package_registers_is_named_like_a_built_in(monkeypatch, tmp_path):
    _install(tmp_path, monkeypatch, {"mybot": MY_BOT, "broken": "examples.my_bot:Gone", "heuristic": MY_BOT})
    assert type(make_agent("mybot", seed=0)).__name__ == "MyBot"
    assert resolve_spec("mybot").kind == "entry point" and parse_spec("mybot") == ("mybot", {})
    assert type(make_agent("heuristic", seed=0)).__name__ == "HeuristicAgent"  # a built-in name wins
    with pytest.raises(ValueError, match=r"bot 'broken' \(entry point 'examples.my_bot:Gone' of 'spades_env.bots'\)"):
        make_agent("broken")
    with pytest.raises(ValueError, match=r"unknown bot 'mybott'; .*installed bots \(entry points 'spades_env.bots'\)"):
        make_agent("mybott")
    with pytest.raises(ValueError, match=r"installed bots .*: broken, heuristic, mybot;"):
        make_agent("mybott")


def test_a_registered_bot_plays_a_tournament(monkeypatch, tmp_path):
    _install(tmp_path, monkeypatch, {"mybot": MY_BOT})
    report = run_tournament(TournamentConfig(bots=("mybot", "random"), boards=4, chunk=4), progress=False)
    assert [row["bot"] for row in report["bots"]] == ["mybot", "random"]


# ------------------------------------------------------------------ everywhere
def test_the_example_bot_plays_a_tournament_from_the_command_line_and_beats_random(tmp_path):
    out = tmp_path / "report.json"
    run = spades("tournament", "--bots", f"{MY_BOT},random", "--boards", "8", "--chunk", "8", "--no-progress",
                 "--json", str(out), cwd=ROOT)  # fmt: skip
    assert run.returncode == 0, run.stderr
    report = json.loads(out.read_text())
    assert report["config"]["bots"] == [MY_BOT, "random"]
    (pair,) = report["pairs"]
    assert pair["games"] == 16 and pair["diff_ci95"] < pair["diff"]  # A - B clearly above 0: it plays sensibly


def test_the_example_bot_refuses_hearts_in_one_line():
    assert_usage_error(spades("tournament", "--bots", f"{MY_BOT},random", "--rules", "hearts", cwd=ROOT),
                       "my-bot bids: it needs a game with bidding, not 'hearts'")  # fmt: skip


def test_the_bidding_benchmark_takes_any_bots_bids_from_the_command_line(tmp_path):
    run = spades("bid-bench", "--bidders", f"count,{MY_BOT},search:samples=2,oracle", "--deals", "8", "--chunk",
                 "4", "--oracle-width", "0", "--no-progress", "--out", str(tmp_path), cwd=ROOT)  # fmt: skip
    assert run.returncode == 0, run.stderr
    rows = json.loads((tmp_path / "bid_bench.json").read_text())["strategies"]
    assert list(rows) == ["heuristic", "count", MY_BOT, "search:samples=2", "oracle"]
    assert rows[MY_BOT] == rows["count"]  # the example bids the counting rule: the same bids, the same row
    assert rows["search:samples=2"] == rows["heuristic"]  # the search bids as the heuristic (bid_samples=0)
    assert rows[MY_BOT]["hands"] == 16


def test_a_bots_bids_are_the_same_played_in_shards_as_in_one_run():
    """Each chunk re-seeds a bot's bidder, so Ray's shards (one chunk each) give the local run's statistics."""
    from spades_env.engine import SpadesEngine
    from train.evaluation.bid_bench_play import make_bidders, play_chunk
    from train.evaluation.bid_bench_ray import play_shard, shards_of

    config = BidBenchConfig(deals=8, chunk=4, seed=4, bidders=("random", MY_BOT))
    engine = SpadesEngine(config.rules)
    whole = make_bidders(config, engine)
    local = {lo: play_chunk(config, engine, whole, lo) for lo in (0, 4)}
    for shard in shards_of(config, engine.rules):
        for (name, lo), stats in play_shard(shard).items():
            assert all(np.array_equal(v, local[lo][name][k]) for k, v in stats.items()), (name, lo)
    assert not np.array_equal(local[0]["random"]["bid"], local[0]["heuristic"]["bid"])


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"bidders": ("count", "count")}, "bidders: 'count' is given twice"),
        ({"bidders": ("neural",)}, "'neural' is the --checkpoint's bidding head: give both or neither"),
        ({"bidders": ("count",), "checkpoint": "x.pt"}, "'neural' is the --checkpoint's bidding head"),
        ({"bidders": ("lookahead",), "lookahead_samples": 0}, "'lookahead' needs lookahead_samples >= 1"),
        ({"bidders": ("count", "")}, "bidders must be a list of bidder names and bot specs"),
    ],
)
def test_a_bad_list_of_bidders_is_refused_naming_it(settings, message):
    with pytest.raises(ValueError, match=message):
        BidBenchConfig(**settings)


def test_a_bidder_that_is_not_a_bot_or_bids_illegally_is_refused_in_one_line(monkeypatch, tmp_path):
    (tmp_path / "user_bot_illegal.py").write_text(
        "import numpy as np\nfrom agents import Agent\n\n"
        "class Cheeky(Agent):\n    def act(self, observations, masks, context=None):\n"
        "        return np.zeros(len(masks), np.int64)  # a card in the bidding\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError, match="bidder 'user_bot_illegal:Cheeky' chose the illegal action 0; legal: "):
        run_bid_bench(BidBenchConfig(deals=2, chunk=2, bidders=("user_bot_illegal:Cheeky",)))
    assert_usage_error(spades("bid-bench", "--bidders", "examples.my_bot:Gone", "--deals", "2", cwd=ROOT),
                       "module 'examples.my_bot' has no attribute 'Gone'")  # fmt: skip


def test_the_example_bot_is_a_gymnasium_opponent():
    env = gymnasium.make("spades_env/Spades-v0", opponents=make_agent(MY_BOT, seed=0))
    obs, _ = env.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(60):
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        if terminated or truncated:
            break
    assert terminated and "illegal_action" not in info


# ------------------------------------------------------------------ the web table
def test_a_server_offers_the_example_bot_and_a_client_plays_it_by_its_text_only():
    pytest.importorskip("fastapi", reason="the web extra (pip install -e '.[web]')")
    from tests.web_helpers import client, json_detail, play_hands
    from train.serve.bots import BotMenu
    from train.serve.store import GameStore

    c = client(store=GameStore(bots=BotMenu(["heuristic", MY_BOT])))
    options = c.get("/api/options").json()
    assert options["bots"] == ["heuristic", MY_BOT] and options["default_bot"] == "heuristic"
    game_id, view = play_hands(c, {"bots": MY_BOT, "seat": 2, "seed": 11}, hands=1, seed=11)
    assert [s["name"] for s in view["seats"]] == [MY_BOT, MY_BOT, "You", MY_BOT]
    assert view["phase"] in ("hand_over", "match_over")
    assert c.app.state.store.is_heavy(game_id)  # a user's bot runs in the heavy pool: its cost is unknown
    fresh = c.post("/api/games", json={"bots": MY_BOT, "seed": 3}).json()
    hint = c.get(f"/api/games/{fresh['id']}/hint", params={"bot": MY_BOT}).json()
    assert hint["action"] in [a["id"] for a in fresh["legal"]]
    refused = {
        "search": "is not a bot of this server; bots: heuristic, examples.my_bot:MyBot",
        f"{MY_BOT}:depth=2": "is not a bot of this server",
        "user_bot_never_imported:Bot": "is not a bot of this server",
    }
    for spec, message in refused.items():
        assert message in json_detail(c.post("/api/games", json={"bots": spec}))
    assert "user_bot_never_imported" not in sys.modules  # a client's text never reaches the importer


def test_serve_refuses_a_bot_it_cannot_resolve_before_it_listens():
    pytest.importorskip("fastapi", reason="the web extra (pip install -e '.[web]')")
    run = spades("serve", "--bots", "heuristic,examples.my_bot:Gone", cwd=ROOT)
    assert_usage_error(run, "--bots: bot examples.my_bot:Gone: module 'examples.my_bot' has no attribute 'Gone'")
    assert_usage_error(spades("serve", "--bots", "heuristic,heuristic"), "--bots: 'heuristic' is given twice")
