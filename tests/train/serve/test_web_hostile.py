"""The web table against a hostile client (issue 51): each probe of the issue's table, refused or harmless."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from spades_env import cards
from spades_env.engine import SpadesEngine, dealing, records
from spades_env.rules import Rules
from tests.paths import GOLDEN
from tests.web_helpers import client, game_of, json_detail, play_hands
from train.serve import replay

SECRET = "my_secret_key_5f3a"


@pytest.fixture(scope="module")
def c():
    return client()


def _record(c) -> dict:
    game_id, _ = play_hands(c, {"rules": "partnership", "bots": "random", "seed": 5}, hands=1, seed=5)
    return dict(game_of(c, game_id).records[0])


# ------------------------------------------------------------------ no file on a client's word
def test_a_log_header_naming_a_rules_file_is_refused_without_reading_it(c, tmp_path):
    secret = tmp_path / "secret.yaml"
    secret.write_text(f"{SECRET}: 1\n")
    header = {"type": "header", "config": {"bots": ["random", "heuristic"], "rules": str(secret)}}
    detail = json_detail(c.post("/api/replay", json={"jsonl": json.dumps(header) + "\n"}))
    assert "config.rules must be a preset name" in detail and SECRET not in detail


def test_a_record_whose_rules_name_a_file_is_refused(c, tmp_path):
    secret = tmp_path / "secret.yaml"
    secret.write_text(f"{SECRET}: 1\n")
    rec = {**_record(c), "rules": str(secret)}
    detail = json_detail(c.post("/api/replay", json={"record": rec}))
    assert "'rules' must be the rules inline" in detail and SECRET not in detail


def test_a_log_header_with_bots_as_one_string_is_refused(c):
    header = {"type": "header", "config": {"bots": "hr", "rules": "partnership"}}
    assert "config.bots must be a list" in json_detail(c.post("/api/replay", json={"jsonl": json.dumps(header)}))


def test_path_replays_are_off_without_a_replay_folder(c, tmp_path):
    (tmp_path / "a.json").write_text("[]")
    for path in (str(tmp_path / "a.json"), str(tmp_path / "nope.json"), "/etc/passwd"):
        assert "--replay-dir" in json_detail(c.post("/api/replay", json={"path": path}))


def test_path_replays_stay_inside_the_replay_folder(tmp_path):
    inside, outside = tmp_path / "replays", tmp_path / "private"
    inside.mkdir()
    outside.mkdir()
    (outside / "x.json").write_text(json.dumps({SECRET: 1}))
    os.symlink(outside / "x.json", inside / "link.json")
    os.symlink(outside, inside / "dir")
    c = client(replay_dir=inside)
    answers = {}
    for path in ("../private/x.json", "../private/none.json", str(outside / "x.json"), "link.json", "dir/x.json"):
        answers[path] = detail = json_detail(c.post("/api/replay", json={"path": path}))
        assert SECRET not in detail
    # the same answer whether a file outside exists or not
    assert answers["../private/x.json"] == answers["../private/none.json"].replace("none", "x")
    assert "leads out" in answers["link.json"] and "leads out" in answers["dir/x.json"]
    assert "no such file in the replay folder" in json_detail(c.post("/api/replay", json={"path": "none.json"}))
    for odd in ("a" * 5000 + ".json", "x/" * 120 + "a.json", "a\x00b.json", "é.json", "a.JSON"):
        json_detail(c.post("/api/replay", json={"path": odd}))  # 400, not 500
    (inside / "unreadable.json").write_text("[]")
    (inside / "unreadable.json").chmod(0)
    if os.geteuid() != 0:  # root reads it anyway
        assert "cannot be read" in json_detail(c.post("/api/replay", json={"path": "unreadable.json"}))


def test_replay_files_are_capped(tmp_path, monkeypatch):
    monkeypatch.setattr(replay, "MAX_FILE_BYTES", 100)
    (tmp_path / "big.json").write_text(" " * 101 + "[]")
    c = client(replay_dir=tmp_path)
    assert "larger than" in json_detail(c.post("/api/replay", json={"path": "big.json"}))


def test_errors_show_only_a_short_prefix_of_a_value(c):
    long = "x" * 100_000
    for r in (
        c.post("/api/games", json={"rules": long}),
        c.post("/api/games", json={"bots": long}),
        c.post("/api/games", json={"seed": long}),
        c.post("/api/replay", json={"record": {**_record(c), "rules": {"name": "r", long: 1}}}),
        c.get("/api/games/" + "y" * 1000),
    ):
        detail = r.json()["detail"]
        assert "x" * 41 not in detail and "y" * 41 not in detail and len(detail) <= 1000, detail[:100]


# ------------------------------------------------------------------ no hidden card
def _deal_of(rules: Rules, key: int, hand_number: int, dealer: int) -> np.ndarray:
    engine = SpadesEngine(rules)
    state = engine._empty(1)
    keys = np.array([key % 2**64], dtype=np.uint64)
    engine.start_matches(state, np.array([0]), keys, dealers=[dealer], hand_numbers=[hand_number])
    return state.hands[0].copy()


def _integers(data) -> set[int]:
    if isinstance(data, dict):
        return set().union(*(_integers(v) for v in data.values()), set())
    if isinstance(data, list):
        return set().union(*(_integers(v) for v in data), set())
    return {data} if isinstance(data, int) and not isinstance(data, bool) else set()


def test_no_response_of_a_live_match_predicts_the_next_deal(c):
    """Everything the API returned before hand 2 (views, records, hints): no number in it, as a key or as a
    seed, deals hand 2. (A client that picks the seed knows every deal: these games are the server's.)"""
    seen: list = []
    body = {"rules": "partnership-no-blind-nil", "bots": "heuristic"}
    game_id, view = play_hands(c, body, hands=1, seed=11, on_view=seen.append)
    record = c.get(f"/api/games/{game_id}/record").json()
    nxt = c.post(f"/api/games/{game_id}/next").json()
    seen += [record, nxt, c.get(f"/api/games/{game_id}").json()]
    seen.append(c.get(f"/api/games/{game_id}/hint", params={"bot": "search:samples=2"}).json())
    rules, seat = Rules.preset("partnership-no-blind-nil"), nxt["seat"]
    mine = cards.cards_to_mask(cards.parse_card(x) for x in nxt["hand"])
    game = game_of(c, game_id)
    true_key = int(game.table.state.key[0])  # the match's: no record carries it
    assert int(_deal_of(rules, true_key, 1, nxt["dealer"])[seat]) == mine  # the predictor works with the key
    candidates = _integers(seen)
    assert true_key not in candidates and game.seed not in candidates
    for number in candidates:
        for key in (number, int(dealing.game_keys(number % 2**64)[0])):
            assert int(_deal_of(rules, key, 1, nxt["dealer"])[seat]) != mine, number
    assert record["hands"] and all("key" not in hand for hand in record["hands"])


def test_the_records_of_a_finished_match_are_its_hands_by_the_match_key(c):
    game_id, view = play_hands(c, {"rules": "partnership", "seed": 3, "target_score": 60}, hands=50, seed=3)
    assert view["phase"] == "match_over"
    hands = c.get(f"/api/games/{game_id}/record").json()["hands"]
    assert hands == game_of(c, game_id).records and all("key" not in h for h in hands)
    match_key = int(game_of(c, game_id).table.state.key[0])
    for hand in hands:
        records.verify(hand, match_key=match_key)  # whoever holds the match key checks the hands are of it


def test_a_record_replays_without_any_key(c):
    rec = _record(c)
    assert "key" not in rec
    r = c.post("/api/replay", json={"record": rec})
    assert r.status_code == 200, r.text
    rec["scores"] = [s + 10 for s in rec["scores"]]
    assert "'scores'" in json_detail(c.post("/api/replay", json={"record": rec}))


def test_a_version_1_record_without_its_key_replays_where_the_key_decides_nothing(c):
    with open(GOLDEN / "records_v1.jsonl") as file:
        old = {r["rules"]["name"]: r for r in map(json.loads, file)}
    keyless = {k: v for k, v in old["partnership"].items() if k != "key"}
    r = c.post("/api/replay", json={"record": keyless})
    assert r.status_code == 200, r.text
    exchanged = {k: v for k, v in old["two-player"].items() if k != "key"}  # its exchange draws came from the key
    assert "replay the record with its key" in json_detail(c.post("/api/replay", json={"record": exchanged}))
