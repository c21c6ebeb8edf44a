"""Replays through the web API: hand records as full-information frames, tournament logs as results (issue 16)."""

from __future__ import annotations

import json

import pytest

from spades_env.engine import records
from tests.web_helpers import client, game_of, play_hands
from train.evaluation.tournament import TournamentConfig, run_tournament
from train.evaluation.tournament_report import summarize


@pytest.fixture(scope="module")
def c():
    return client()


def _hands(c, preset: str, hands: int = 1, seed: int = 1) -> list[dict]:
    """The records of the first hands of a game, as the API gives them."""
    game_id, _ = play_hands(c, {"rules": preset, "bots": "random", "seed": seed}, hands=hands, seed=seed)
    out = game_of(c, game_id).records
    assert out
    return out


@pytest.mark.parametrize("preset", ["partnership", "two-player", "partnership-house", "hearts"])
def test_a_record_replays_as_one_frame_per_decision_with_every_hand_face_up(c, preset):
    rec = _hands(c, preset)[0]
    r = c.post("/api/replay", json={"record": rec})
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["kind"] == "record" and out["report"] is None and len(out["games"]) == 1
    game = out["games"][0]
    assert game["rules"]["name"] == preset and game["rules"]["n_players"] == len(rec["hands"])
    frames = game["frames"]
    assert len(frames) == len(rec["actions"]) + 1 and frames[0]["event"] is None
    for frame, decision in zip(frames[1:], rec["actions"], strict=True):
        assert frame["event"]["seat"] == decision["seat"] and frame["event"]["action"] == decision["action"]
    if preset == "two-player":  # the hands are drawn: empty at the deal, the record's hands once bidding starts
        first_bid = next(f for f in frames if f["phase"] == "bid")
        assert [sorted(h) for h in first_bid["hands"]] == [sorted(h) for h in rec["hands"]]
        assert frames[1]["pile_left"] is not None
    elif preset == "hearts":  # the record's hands are as dealt, before the pass
        assert [sorted(h) for h in frames[0]["hands"]] == [sorted(h) for h in rec["hands"]]
        assert [sorted(p) for p in frames[-1]["passed"]] == [sorted(p) for p in rec["passed"]]
    else:
        assert frames[0]["hands"] == rec["hands"]
    assert frames[-1]["phase"] in ("hand_over", "match_over")
    assert frames[-1]["tricks_won"] == rec["tricks_won"] and frames[-1]["scores"] == rec["scores"]
    result = game["result"]
    assert result == frames[-1]["hand_result"]
    assert result["points"] == rec["points"] and result["scores"] == rec["scores"]
    # Each trick appears in full as the last trick after its last card.
    completed = [f["last_trick"] for f in frames if f["last_trick"] and f["trick"] == []]
    tricks = [t["cards"] for t in rec["tricks"]]
    assert [[e["card"] for e in t["cards"]] for t in dict((json.dumps(x), x) for x in completed).values()] == tricks


def test_a_list_of_hands_and_a_jsonl_of_records_replay_as_one_game_each(c):
    hands = _hands(c, "cutthroat-3", hands=2, seed=2)
    assert len(hands) == 2
    by_list = c.post("/api/replay", json={"hands": hands}).json()
    by_lines = c.post("/api/replay", json={"jsonl": "\n".join(records.dumps(h) for h in hands)}).json()
    assert by_list == by_lines and [g["title"] for g in by_list["games"]] == [
        "hand 1 (cutthroat-3)",
        "hand 2 (cutthroat-3)",
    ]
    assert by_list["games"][1]["frames"][0]["scores"] == hands[1]["start_scores"]


def test_the_breakdown_counts_bags_penalties_and_nils(c):
    """A replay's breakdown agrees with the bags recounted by hand from the record's bids and tricks."""
    seen_nil = False
    for hand in _hands(c, "partnership", hands=4, seed=5):
        result = c.post("/api/replay", json={"record": hand}).json()["games"][0]["result"]
        bids, tricks = hand["bids"], hand["tricks_won"]
        for side in range(2):
            seats = (side, side + 2)
            contract = sum(bids[s] for s in seats if bids[s] > 0)
            made = sum(tricks[s] for s in seats if bids[s] > 0)
            added = max(made - contract, 0) * (made >= contract) + sum(tricks[s] for s in seats if bids[s] == 0)
            total = hand["start_bags"][side] + added
            assert result["bags_added"][side] == added
            assert result["bag_penalties"][side] == total // 10
            assert result["bags"][side] == total % 10 == hand["bags"][side]
        for s in range(4):
            if bids[s] == 0:
                seen_nil = True
                assert result["nil"][s] == {"blind": hand["blind_nil"][s], "made": tricks[s] == 0}
            else:
                assert result["nil"][s] is None
        assert result["bids"] == bids and result["points"] == hand["points"]
    assert seen_nil  # the seeded random hands hold a nil, so the nil branch is checked


def test_a_tournament_log_replays_its_results_and_report(c, tmp_path):
    config = TournamentConfig(bots=("random", "heuristic"), boards=2, chunk=2, seed=1)
    log = tmp_path / "t.jsonl"
    report = run_tournament(config, log, progress=False)
    text = log.read_text()
    out = c.post("/api/replay", json={"jsonl": text}).json()
    assert out["kind"] == "tournament" and "not its cards" in out["note"]
    games = [json.loads(line) for line in text.splitlines()[1:]]
    assert len(out["games"]) == len(games) == 4 and all(g["frames"] == [] for g in out["games"])
    assert [g["result"] for g in out["games"]] == games
    assert out["report"] == json.loads(json.dumps(summarize(config, games))) == json.loads(json.dumps(report))
    assert out["games"][0]["title"].startswith("random vs heuristic, board ")
    by_path = client(replay_dir=tmp_path).post("/api/replay", json={"path": "t.jsonl"}).json()
    assert by_path == out


def test_a_record_file_on_the_server_replays(c, tmp_path):
    hands = _hands(c, "hearts-partnership")
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"hands": hands}))
    out = client(replay_dir=tmp_path).post("/api/replay", json={"path": "game.json"}).json()
    assert out["kind"] == "record" and len(out["games"]) == 1


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({}, ["exactly one of"]),
        ({"record": {}, "hands": []}, ["exactly one of", "record", "hands"]),
        ({"record": 3}, ["record", "JSON object"]),
        ({"hands": []}, ["non-empty list"]),
        ({"jsonl": ""}, ["empty"]),
        ({"jsonl": "not json"}, ["line 1"]),
        ({"path": "/no/such/file.json"}, ["path", "--replay-dir"]),
        ({"path": "/etc/passwd"}, ["path", "--replay-dir"]),
    ],
)
def test_bad_replays_are_400_with_one_line(c, body, words):
    r = c.post("/api/replay", json=body)
    assert r.status_code == 400, r.text
    for word in words:
        assert word in r.json()["detail"]


def test_a_tampered_record_is_refused_naming_the_field(c):
    rec = dict(_hands(c, "partnership")[0])
    rec["scores"] = [s + 10 for s in rec["scores"]]
    r = c.post("/api/replay", json={"record": rec})
    assert r.status_code == 400 and "'scores'" in r.json()["detail"] and "differs" in r.json()["detail"]


def test_a_tournament_log_with_records_replays_every_game_frame_by_frame(c, tmp_path):
    config = TournamentConfig(bots=("random", "heuristic"), boards=2, chunk=2, seed=3)
    log = tmp_path / "t.jsonl"
    run_tournament(config, log, progress=False, hand_records=True)
    lines = [json.loads(line) for line in log.read_text().splitlines()[1:]]
    for line in lines:
        for rec in line["records"]:
            records.verify(rec)
    out = client(replay_dir=tmp_path).post("/api/replay", json={"path": "t.jsonl"}).json()
    assert out["kind"] == "tournament" and out["note"] is None and len(out["games"]) == len(lines) == 4
    for game, line in zip(out["games"], lines, strict=True):
        hand = line["records"][0]
        assert len(game["frames"]) == len(hand["actions"]) + 1
        assert [s["name"] for s in game["seats"]] == line["seats"]
        assert game["summary"] == line and game["result"]["points"] == hand["points"]


def test_hand_records_do_not_change_a_tournaments_results(tmp_path):
    config = TournamentConfig(bots=("random", "heuristic"), boards=3, chunk=2, seed=4)
    plain = run_tournament(config, tmp_path / "a.jsonl", progress=False)
    with_records = run_tournament(config, tmp_path / "b.jsonl", progress=False, hand_records=True)
    assert plain == with_records
    a = [json.loads(x) for x in (tmp_path / "a.jsonl").read_text().splitlines()[1:]]
    b = [json.loads(x) for x in (tmp_path / "b.jsonl").read_text().splitlines()[1:]]
    assert [{k: v for k, v in x.items() if k != "records"} for x in b] == a
