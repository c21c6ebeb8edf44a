"""The web table's limits (issue 51): bounded bot options, shared networks, body caps, JSON errors, the Host
check, the docs under /api/, heavy requests apart from light ones."""

from __future__ import annotations

import logging
import threading
import time

import pytest

from agents.learned import LEARNED_CHECKPOINTS
from tests.web_helpers import client, game_of, json_detail
from train.serve import bots, replay
from train.serve.guard import Pools


@pytest.fixture(scope="module")
def c():
    return client()


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("search:samples=32000", ["'samples'", "at most 128"]),
        (f"search:samples={10**12}", ["'samples'", "at most 128"]),
        ("search:threads=8", ["'threads'", "at most 1"]),
        ("search:endgame=13", ["'endgame'", "at most 4"]),
        ("learned:device=cuda", ["'device'", "cpu"]),
        ("learned:bid_samples=100000", ["'bid_samples'", "at most 64"]),
        ("heuristic" + " " * 300, ["at most 200 characters"]),
    ],
)
def test_bot_options_are_bounded_in_games_and_hints(c, spec, words):
    for r in (
        c.post("/api/games", json={"bots": spec}),
        c.get(f"/api/games/{c.post('/api/games', json={'seed': 1}).json()['id']}/hint", params={"bot": spec}),
    ):
        detail = json_detail(r)
        assert all(w in detail for w in words), detail


@pytest.mark.parametrize(
    ("spec", "bound"),
    [("guided:samples=32000", "'samples' is at most 128"), ("guided:strong,top=99", "'top' is at most 13")],
)
def test_a_served_guided_bot_is_bounded_as_the_search_is(spec, bound):
    """A server that offers ``guided`` (``spades serve --bots heuristic,guided``) bounds what a client may ask of it."""
    with pytest.raises(ValueError, match=bound):
        bots.BotMenu(["heuristic", "guided"]).check(spec)


def test_a_client_never_names_a_file_on_the_server_but_the_server_may_offer_one():
    """``path`` of ``guided`` and ``neural`` names a file on the server: refused in a client's spec, whatever else
    it sets; the server's own ``--bots`` entry with a path is picked by its text."""
    served = "guided:fast,path=runs/best.pt"
    menu = bots.BotMenu(["heuristic", "guided", "neural", served])
    for spec in ("guided:path=/etc/passwd", "guided:fast,samples=4,path=runs/best.pt", "neural:path=x.pt"):
        with pytest.raises(ValueError, match=r"^bot: \w+ option 'path' names a file on the server"):
            menu.check(spec)
    assert menu.check(served) == served and menu.canonical(served) == (
        "guided",
        (("depth", 0), ("path", "runs/best.pt"), ("samples", 16), ("top", 3)),
    )
    assert menu.canonical("guided:fast,samples=4")[0] == "guided"


def test_integers_beyond_the_rules_bounds_are_400(c):
    assert "target_score" in json_detail(c.post("/api/games", json={"target_score": 2**64}))
    game_id = c.post("/api/games", json={"bots": "random", "seed": 2}).json()["id"]
    game = game_of(c, game_id)
    from tests.web_helpers import play_hands

    gid, _ = play_hands(c, {"rules": "partnership", "bots": "random", "seed": 4}, hands=1, seed=4)
    rec = dict(game_of(c, gid).records[0])
    for field, value in (("target_score", 2**63), ("bag_limit", 2**64), ("nil_bonus", -(2**70))):
        bad = {**rec, "rules": {**rec["rules"], field: value}}
        assert field in json_detail(c.post("/api/replay", json={"record": bad}))
    assert game.over is False


@pytest.mark.slow  # loads the committed checkpoints (seconds)
def test_learned_games_share_one_network_per_checkpoint(c):
    for spec in ("learned", "learned:margin=0.0", "learned:margin=0.00"):
        for seed in range(3):
            assert c.post("/api/games", json={"bots": spec, "seed": seed}).status_code == 200
    held = bots.TEMPLATE_BOTS.network_count()
    assert held <= len(LEARNED_CHECKPOINTS), held  # one per committed checkpoint, whatever the spec strings
    games = [g for g in c.app.state.store.games.values() if g.bot_specs[1] and g.bot_specs[1].startswith("learned")]
    modules = {id(m) for g in games for b in g.bots if b is not None for m in bots._modules(b)}
    assert len(modules) == held


@pytest.mark.slow  # loads the committed checkpoints (seconds)
def test_served_guided_bots_share_the_learned_networks():
    """``guided`` is built once per spec, as ``learned`` is: its copies (and a ``learned`` bot's) hold the same
    network objects, not one copy each."""
    menu = bots.BotMenu(["heuristic", "learned", "guided"])
    guided = [menu.make("guided:fast", seed) for seed in range(3)]
    learned = menu.make("learned", 0)
    networks = {id(m) for m in bots._modules(learned)}
    assert networks
    for bot in guided:
        assert {id(m) for m in bots._modules(bot)} == networks


# ------------------------------------------------------------------ every error is JSON
def test_a_fault_of_the_server_is_a_json_500_with_an_id_and_the_traceback_is_logged(c, monkeypatch, caplog):
    game_id = c.post("/api/games", json={"seed": 1}).json()["id"]
    game = game_of(c, game_id)
    monkeypatch.setattr(type(game), "view", lambda self: 1 / 0)
    with caplog.at_level(logging.ERROR, logger="train.serve"):
        detail = json_detail(c.get(f"/api/games/{game_id}"), 500)
    assert detail.startswith("internal error ")
    error_id = detail.split()[-1]
    assert any(error_id in r.getMessage() and r.exc_info for r in caplog.records)


def test_malformed_json_is_400(c):
    detail = json_detail(c.post("/api/games", content=b"{not json", headers={"content-type": "application/json"}))
    assert "JSON" in detail
    assert "JSON object" in json_detail(
        c.post("/api/replay", content=b"[1]", headers={"content-type": "application/json"})
    )


HEADER = '{"type": "header", "config": {"bots": ["random", "heuristic"]}}'


def test_json_nested_too_deeply_or_not_finite_is_400(c):
    headers = {"content-type": "application/json"}
    for body in ({"jsonl": "[" * 100_000}, {"jsonl": HEADER + "\n" + "[" * 100_000}):
        assert "too deeply" in json_detail(c.post("/api/replay", json=body))
    assert json_detail(c.post("/api/games", content=b'{"bots": ' + b"[" * 5000 + b"]" * 5000 + b"}", headers=headers))
    assert "seed" in json_detail(c.post("/api/games", content=b'{"seed": NaN}', headers=headers))
    assert "target_score" in json_detail(c.post("/api/games", content=b'{"target_score": Infinity}', headers=headers))


def test_bodies_over_the_cap_are_413(c):
    big = {"rules": "partnership", "bots": "x" * 70_000}
    assert "larger than" in json_detail(c.post("/api/games", json=big), 413)

    def chunks():  # no content-length: counted as it streams
        for _ in range(20):
            yield b" " * 4096

    assert "larger than" in json_detail(c.post("/api/games", content=chunks()), 413)
    assert json_detail(c.post("/api/replay", json={"jsonl": "x" * (9 * 2**20)}), 413)


def test_unknown_paths_and_methods_are_json(c):
    assert json_detail(c.get("/api/nothing"), 404)
    assert json_detail(c.delete("/api/options"), 405)


# ------------------------------------------------------------------ hosts and docs
def test_a_loopback_server_answers_only_its_own_host_names():
    c = client(allowed_hosts=("127.0.0.1", "localhost"))
    assert c.get("/api/options", headers={"host": "127.0.0.1:8000"}).status_code == 200
    assert c.get("/api/options", headers={"host": "localhost"}).status_code == 200
    assert "Host" in json_detail(c.get("/api/options", headers={"host": "evil.example:8000"}))


def test_the_api_docs_are_under_api(c):
    for path in ("/api/docs", "/api/redoc", "/api/openapi.json"):
        assert c.get(path).status_code == 200, path
    for path in ("/docs", "/redoc", "/openapi.json"):
        assert c.get(path).status_code == 404, path


# ------------------------------------------------------------------ heavy apart from light
def test_heavy_requests_queue_apart_and_light_ones_stay_fast(monkeypatch):
    started, release = threading.Event(), threading.Event()

    def slow(body, folder):
        started.set()
        release.wait(10)
        return {"kind": "record", "games": [], "report": None, "note": None}

    monkeypatch.setattr(replay, "replay_request", slow)
    c = client(pools=Pools(workers=1, queue=1))
    codes: list[int] = []
    threads = [
        threading.Thread(target=lambda: codes.append(c.post("/api/replay", json={"hands": []}).status_code))
        for _ in range(2)
    ]
    for t in threads:
        t.start()
    assert started.wait(10)
    time.sleep(0.2)
    busy = c.post("/api/replay", json={"hands": []})
    assert "busy" in json_detail(busy, 503)
    t0 = time.perf_counter()
    assert c.get("/api/options").status_code == 200
    assert time.perf_counter() - t0 < 1.0
    release.set()
    for t in threads:
        t.join()
    assert codes == [200, 200]
