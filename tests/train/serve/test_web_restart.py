"""Games that survive a restart (issue 51): the store keeps each game's settings and decisions in SQLite and
rebuilds a game on demand; memory holds the games in use, by last use; idle games expire; the cap is clear."""

from __future__ import annotations

import random

import pytest

from tests.web_helpers import TestClient, game_of
from train.serve.app import create_app
from train.serve.storage import StorageError
from train.serve.store import GameStore


def _client(store: GameStore) -> TestClient:
    return TestClient(create_app(store), raise_server_exceptions=False)


def _play(c: TestClient, game_id: str, view: dict, steps: int, rng: random.Random) -> dict:
    """``steps`` random legal decisions of the human (and ``next`` between hands)."""
    for _ in range(steps):
        if view["awaiting"] == "next_hand":
            view = c.post(f"/api/games/{game_id}/next").json()
        elif view["awaiting"] == "you":
            action = rng.choice(view["legal"])["id"]
            r = c.post(f"/api/games/{game_id}/action", json={"action": action})
            assert r.status_code == 200, r.text
            view = r.json()
        else:
            break
    return view


@pytest.mark.parametrize(
    "body",
    [
        {"rules": "partnership", "bots": ["heuristic", "random", "search:samples=2"]},
        {"rules": "hearts", "bots": "random", "seat": 2},
        {"rules": "two-player", "bots": "heuristic"},
    ],
)
def test_a_restarted_server_resumes_a_game_where_it_was_and_it_goes_on_as_it_would_have(tmp_path, body):
    db = tmp_path / "games.sqlite"
    first = _client(GameStore(db))
    view = first.post("/api/games", json=body).json()
    game_id = view["id"]
    view = _play(first, game_id, view, 20, random.Random(1))
    record = first.get(f"/api/games/{game_id}/record").json()
    first.app.state.store.close()
    del first  # the server stops: nothing of it is left but the file

    again = _client(GameStore(db))
    assert again.get(f"/api/games/{game_id}").json() == view
    assert again.get(f"/api/games/{game_id}/record").json() == record
    resumed = _play(again, game_id, view, 25, random.Random(2))

    never_stopped = _client(GameStore())  # the same game, played in one go
    game = never_stopped.app.state.store.create(**{"seat": 0, **body, "seed": game_of(again, game_id).seed})
    straight = _play(never_stopped, game.id, game.view(), 20, random.Random(1))
    straight = _play(never_stopped, game.id, straight, 25, random.Random(2))
    assert {**straight, "id": game_id} == resumed


def test_memory_holds_the_games_in_use_by_last_use_and_rebuilds_the_others(tmp_path):
    store = GameStore(tmp_path / "g.sqlite", max_hot=2)
    c = _client(store)
    ids = [c.post("/api/games", json={"seed": k, "bots": "random"}).json()["id"] for k in range(3)]
    assert list(store.games) == ids[1:]
    c.get(f"/api/games/{ids[1]}")  # used last: the other leaves memory next
    view = c.get(f"/api/games/{ids[0]}").json()  # rebuilt from the database
    assert view["id"] == ids[0] and list(store.games) == [ids[1], ids[0]]
    with store.use(ids[1]) as in_use:  # a game in use stays in memory
        for k in (0, 2):
            c.get(f"/api/games/{ids[k]}")
        assert in_use.id in store.games


def test_idle_games_expire_and_the_cap_is_a_clear_503(tmp_path):
    store = GameStore(tmp_path / "g.sqlite", max_games=2, idle_seconds=3600)
    c = _client(store)
    ids = [c.post("/api/games", json={"seed": k, "bots": "random"}).json()["id"] for k in range(2)]
    r = c.post("/api/games", json={"bots": "random"})
    assert r.status_code == 503 and "maximum of 2 games" in r.json()["detail"]
    store.idle_seconds = 0
    assert c.post("/api/games", json={"bots": "random"}).status_code == 200  # the idle ones expired first
    for game_id in ids:
        r = c.get(f"/api/games/{game_id}")
        assert r.status_code == 404 and "unused" in r.json()["detail"]


def test_a_file_that_is_not_its_database_is_refused_and_left_as_it_is(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    with pytest.raises(StorageError, match="not an SQLite database"):
        GameStore(notes)
    assert notes.read_text() == "my notes\n"
    import sqlite3

    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE mine (x)")
    with pytest.raises(StorageError, match="database of something else"):
        GameStore(other)
    with pytest.raises(StorageError, match="does not exist"):
        GameStore(tmp_path / "no" / "g.sqlite")
