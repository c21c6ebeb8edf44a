"""The web table's API with FastAPI's TestClient: create, play, reload, next, hint, record; bad input (issue 16)."""

from __future__ import annotations

import pytest

from spades_env.engine import records
from tests.web_helpers import client, game_of, play_hands

PRESETS = ["partnership", "two-player", "cutthroat-3", "partnership-house", "hearts", "hearts-partnership"]


@pytest.fixture(scope="module")
def c():
    return client()


def _new(c, **body):
    r = c.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def test_options_list_every_preset_and_the_bots(c):
    from spades_env.rules import list_presets

    opts = c.get("/api/options").json()
    assert [p["name"] for p in opts["presets"]] == list_presets()
    two = next(p for p in opts["presets"] if p["name"] == "two-player")
    assert two["n_players"] == 2 and two["partnership"] is False and "two players" in two["description"]
    assert opts["bots"] == ["random", "heuristic", "search", "learned"] and opts["default_bot"] == "heuristic"


@pytest.mark.parametrize("preset", PRESETS)
def test_a_hand_plays_to_its_end_then_next_deals_and_the_record_verifies(c, preset):
    game_id, view = play_hands(c, {"rules": preset, "bots": "heuristic", "seat": 1, "seed": 7}, hands=1, seed=7)
    n = view["rules"]["n_players"]
    assert view["phase"] in ("hand_over", "match_over") and view["to_play"] is None
    result = view["hand_result"]
    assert len(result["tricks_won"]) == n and sum(result["tricks_won"]) == {2: 13, 3: 17}.get(n, 13)
    assert result["scores"] == view["scores"]
    assert [a + b for a, b in zip(result["start_scores"], result["points"], strict=True)] == result["scores"]
    assert view["last_trick"] is not None and len(view["last_trick"]["cards"]) == n
    assert c.get(f"/api/games/{game_id}").json() == view  # a reload resumes the same view
    hands = c.get(f"/api/games/{game_id}/record").json()["hands"]
    assert len(hands) == 1
    full = game_of(c, game_id).records[0]
    records.verify(full)
    assert hands[0] == full and "key" not in full  # named by its hand key: no match key, which deals every hand
    assert hands[0]["points"] == result["points"] and hands[0]["tricks_won"] == result["tricks_won"]
    if view["awaiting"] == "next_hand":
        after = c.post(f"/api/games/{game_id}/next")
        assert after.status_code == 200, after.text
        nxt = after.json()
        assert nxt["hand_number"] == view["hand_number"] + 1 and nxt["hand_result"] is None
        assert nxt["awaiting"] == "you" and nxt["trick"] == [] or nxt["events"]
        assert c.post(f"/api/games/{game_id}/next").status_code == 400  # only after a hand's end


def test_a_short_match_goes_on_to_its_end(c):
    game_id, view = play_hands(
        c, {"rules": "partnership", "bots": "heuristic", "seed": 3, "target_score": 60}, hands=50, seed=3
    )
    assert view["phase"] == "match_over" and view["awaiting"] == "nothing" and view["winner"] in (0, 1)
    hands = c.get(f"/api/games/{game_id}/record").json()["hands"]
    assert len(hands) == view["hand_number"] >= 1
    for rec in hands:
        records.verify(rec)
    assert hands[-1]["scores"] == view["scores"]
    assert max(view["scores"]) >= 60 or min(view["scores"]) <= -200
    for path in ("action", "next"):
        r = c.post(f"/api/games/{game_id}/{path}", json={"action": 0})
        assert r.status_code == 400 and "match is over" in r.json()["detail"]


def test_the_view_names_the_seats_bots_and_sides(c):
    view = _new(c, rules="cutthroat-3", bots=["random", "search:samples=2"], seat=1, seed=1)
    assert view["seats"] == [
        {"seat": 0, "name": "random", "side": 0},
        {"seat": 1, "name": "You", "side": 1},
        {"seat": 2, "name": "search:samples=2", "side": 2},
    ]
    assert "seed" not in view  # the seed would tell every hidden card
    assert view["awaiting"] == "you" and view["to_play"] == 1
    assert len(view["bids"]) == 3 and len(view["scores"]) == 3


def test_the_same_seed_deals_the_same_game_and_games_are_independent(c):
    a = _new(c, rules="partnership-house", seed=11, bots="random")
    b = _new(c, rules="partnership-house", seed=11, bots="random")
    other = _new(c, rules="partnership-house", seed=12, bots="random")
    assert a["id"] != b["id"]
    strip = lambda v: {k: x for k, x in v.items() if k != "id"}  # noqa: E731
    assert strip(a) == strip(b) and strip(a) != strip(other)
    first = a["legal"][0]["id"]
    c.post(f"/api/games/{a['id']}/action", json={"action": first})
    assert c.get(f"/api/games/{b['id']}").json() == b  # playing one game leaves the other alone


def test_events_list_the_bots_decisions_since_the_humans_last(c):
    view = _new(c, rules="partnership", seat=2, seed=5, bots="heuristic")
    # The seats after the dealer up to seat 2 chose blind nil or looked, then bid, before the human's first decision.
    seats = [e["seat"] for e in view["events"]]
    order = list(dict.fromkeys(seats))
    assert 2 not in seats and order == [(view["dealer"] + 1 + k) % 4 for k in range(len(order))]
    for seat in order:
        labels = [e["label"] for e in view["events"] if e["seat"] == seat]
        assert labels[0] in ("look at cards", "blind nil") and all(x.startswith("bid") for x in labels[1:])
    action = view["legal"][-1]["id"]
    after = c.post(f"/api/games/{view['id']}/action", json={"action": action}).json()
    assert after["events"][0] == {"seat": 2, "action": action, "label": view["legal"][-1]["label"]}
    assert all(e["seat"] != 2 for e in after["events"][1:])


def test_legal_entries_name_cards_bids_and_choices(c):
    view = _new(c, rules="partnership-no-blind-nil", seed=2, bots="heuristic")
    assert view["phase"] == "bid"
    bids = view["legal"]
    assert [e["bid"] for e in bids] == list(range(14)) and {e["kind"] for e in bids} == {"bid"}
    assert bids[0]["label"] == "bid nil" and bids[3]["label"] == "bid 3"
    after = c.post(f"/api/games/{view['id']}/action", json={"action": bids[3]["id"]}).json()
    while after["phase"] != "play":
        after = c.post(f"/api/games/{after['id']}/action", json={"action": after["legal"][0]["id"]}).json()
    assert after["bids"][0] == 3
    cards_ = after["legal"]
    assert {e["kind"] for e in cards_} == {"card"} and all(e["card"] in after["hand"] for e in cards_)
    assert all(e["label"] == f"play {e['card']}" for e in cards_)


def test_two_player_shows_the_drawn_card_and_offers_keep_or_discard(c):
    view = _new(c, rules="two-player", seat=0, seed=1, bots="heuristic")
    while view["phase"] != "draw":
        look = next(e["id"] for e in view["legal"] if e["kind"] == "look")
        view = c.post(f"/api/games/{view['id']}/action", json={"action": look}).json()
    assert view["draw_card"] is not None and {e["kind"] for e in view["legal"]} == {"keep", "discard"}
    keep = next(e["id"] for e in view["legal"] if e["kind"] == "keep")
    held = len(view["hand"])
    after = c.post(f"/api/games/{view['id']}/action", json={"action": keep}).json()
    assert view["draw_card"] in after["hand"] and len(after["hand"]) == held + 1 and len(after["discards"]) == held + 1


def test_hearts_pass_then_receive(c):
    view = _new(c, rules="hearts", seat=0, seed=1, bots="heuristic")
    assert view["phase"] == "pass" and {e["kind"] for e in view["legal"]} == {"pass"}
    chosen = []
    while view["phase"] == "pass" and view["awaiting"] == "you":
        entry = view["legal"][0]
        assert entry["label"] == f"pass {entry['card']}"
        chosen.append(entry["card"])
        view = c.post(f"/api/games/{view['id']}/action", json={"action": entry["id"]}).json()
        assert view["passed"] == sorted(chosen, key=chosen.index) or set(view["passed"]) == set(chosen)
    assert len(chosen) == 3 and view["phase"] == "play"
    assert set(view["passed"]) == set(chosen) and len(view["received"]) == 3
    assert set(view["received"]) <= set(view["hand"]) and not set(chosen) & set(view["hand"])


# ------------------------------------------------------------------ hints
@pytest.mark.parametrize("bot", ["random", "heuristic"])
def test_a_hint_is_a_legal_action_without_values(c, bot):
    view = _new(c, rules="hearts-partnership", seed=3, bots="random")
    hint = c.get(f"/api/games/{view['id']}/hint", params={"bot": bot}).json()
    entry = next(e for e in view["legal"] if e["id"] == hint["action"])
    assert hint == {"action": entry["id"], "label": entry["label"], "values": None}
    assert c.get(f"/api/games/{view['id']}").json() == view  # a hint changes nothing


def test_the_search_hint_gives_a_value_for_every_legal_card(c):
    view = _new(c, rules="partnership-no-blind-nil", seed=4, bots="heuristic")
    while not (view["phase"] == "play" and len(view["legal"]) > 1):
        view = c.post(f"/api/games/{view['id']}/action", json={"action": view["legal"][-1]["id"]}).json()
    hint = c.get(f"/api/games/{view['id']}/hint", params={"bot": "search:samples=4"}).json()
    legal = {str(e["id"]) for e in view["legal"]}
    assert set(hint["values"]) == legal and all(isinstance(v, float) for v in hint["values"].values())
    assert hint["values"][str(hint["action"])] == max(hint["values"].values())
    assert c.get(f"/api/games/{view['id']}").json() == view


def test_hints_need_the_humans_turn_and_a_known_bot(c):
    game_id, view = play_hands(c, {"rules": "cutthroat-3", "seed": 1, "bots": "random"}, hands=1, seed=1)
    r = c.get(f"/api/games/{game_id}/hint")
    assert r.status_code == 400 and "no decision of yours" in r.json()["detail"]
    fresh = _new(c, rules="cutthroat-3", seed=1, bots="random")
    r = c.get(f"/api/games/{fresh['id']}/hint", params={"bot": "oracle"})
    assert r.status_code == 400 and "heuristic" in r.json()["detail"]


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("body", "words"),
    [
        ({"rules": "nosuchpreset"}, ["nosuchpreset", "partnership", "two-player"]),
        ({"rules": "partnership.yaml"}, ["partnership.yaml", "presets"]),
        ({"rules": "partnership", "bots": "genius"}, ["genius", "heuristic", "random"]),
        ({"rules": "partnership", "bots": "neural"}, ["neural", "bots"]),
        ({"rules": "partnership", "bots": ["random", "random"]}, ["3", "other seat"]),
        ({"rules": "partnership", "bots": "search:samples=x"}, ["samples", "integer"]),
        ({"rules": "partnership", "seat": 4}, ["seat", "0..3"]),
        ({"rules": "two-player", "seat": -1}, ["seat", "0..1"]),
        ({"rules": "partnership", "seat": True}, ["seat"]),
        ({"rules": "partnership", "seed": "abc"}, ["seed"]),
        ({"rules": "partnership", "seed": -3}, ["seed"]),
        ({"rules": "partnership", "target_score": 0}, ["target_score"]),
        ({"rules": "partnership", "colour": "red"}, ["colour", "fields"]),
    ],
)
def test_bad_game_requests_are_400_with_one_line(c, body, words):
    before = len(c.app.state.store.games)
    r = c.post("/api/games", json=body)
    assert r.status_code == 400, r.text
    detail = r.json()["detail"]
    assert "\n" not in detail
    for word in words:
        assert word in detail, detail
    assert len(c.app.state.store.games) == before


@pytest.mark.slow  # loads torch and the committed checkpoint (seconds)
def test_the_learned_bot_plays_the_presets_of_its_checkpoints_and_is_refused_elsewhere(c):
    for preset in ("partnership-no-blind-nil", "partnership-250"):
        r = c.post("/api/games", json={"rules": preset, "bots": "learned"})
        assert r.status_code == 400
        detail = r.json()["detail"]
        assert "'learned' has no checkpoint for the rules" in detail and f"'{preset}'" in detail and "nearest" in detail
    for preset in ("hearts", "partnership-house"):
        assert c.post("/api/games", json={"rules": preset, "bots": "learned"}).status_code == 200
    game_id, view = play_hands(c, {"rules": "partnership", "bots": "learned", "seed": 2}, hands=1, seed=2)
    assert view["phase"] in ("hand_over", "match_over")
    assert view["seats"][1]["name"] == "learned"
    hint = c.get(f"/api/games/{_new(c, rules='partnership', seed=2)['id']}/hint", params={"bot": "learned"})
    assert hint.status_code == 200 and hint.json()["values"] is None


@pytest.mark.parametrize("action", [999, -1, "13", 13.0, None, True])
def test_an_illegal_action_is_400_names_the_legal_ones_and_changes_nothing(c, action):
    view = _new(c, rules="partnership", seed=9, bots="heuristic")
    game = game_of(c, view["id"])
    state = game.table.state.copy()
    r = c.post(f"/api/games/{view['id']}/action", json={"action": action})
    assert r.status_code == 400, r.text
    detail = r.json()["detail"]
    assert detail.startswith("illegal action") and "legal actions: " in detail and "\n" not in detail
    for entry in view["legal"]:
        assert f"{entry['id']} ({entry['label']})" in detail
    assert c.get(f"/api/games/{view['id']}").json() == view
    for f in state.__dataclass_fields__:
        assert (getattr(state, f) == getattr(game.table.state, f)).all(), f


def test_a_legal_id_of_another_phase_is_illegal_too(c):
    view = _new(c, rules="partnership-no-blind-nil", seed=9, bots="heuristic")
    assert view["phase"] == "bid"
    r = c.post(f"/api/games/{view['id']}/action", json={"action": 0})  # a card id while bidding
    assert r.status_code == 400 and "bid nil" in r.json()["detail"]


def test_unknown_game_ids_are_404(c):
    for method, path in [
        ("get", ""),
        ("post", "/action"),
        ("post", "/next"),
        ("get", "/hint"),
        ("get", "/record"),
    ]:
        kwargs = {"json": {"action": 0}} if method == "post" else {}
        r = getattr(c, method)(f"/api/games/nosuchgame{path}", **kwargs)
        assert r.status_code == 404, (path, r.text)
        assert "nosuchgame" in r.json()["detail"]


def test_bodies_that_are_not_json_objects_are_refused_in_one_line(c):
    view = _new(c, rules="partnership", seed=1)
    r = c.post(f"/api/games/{view['id']}/action", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 400 and "\n" not in r.json()["detail"]
    r = c.post(f"/api/games/{view['id']}/action", json=[1, 2])
    assert r.status_code == 400 and "JSON object" in r.json()["detail"]
    r = c.post(f"/api/games/{view['id']}/action", json={"move": 3})
    assert r.status_code == 400 and "action" in r.json()["detail"]


def test_mixed_bots_including_search_play_a_hand(c):
    bots = ["search:samples=2", "random", "heuristic"]
    game_id, view = play_hands(c, {"rules": "partnership", "bots": bots, "seat": 0, "seed": 6}, hands=1, seed=6)
    assert [s["name"] for s in view["seats"]] == ["You", *bots]
    assert view["phase"] in ("hand_over", "match_over")
    records.verify(game_of(c, game_id).records[0])


def test_concurrent_requests_to_one_game_apply_one_action(c):
    import threading

    view = _new(c, rules="partnership-no-blind-nil", seed=8, bots="random")
    bid = next(e["id"] for e in view["legal"] if e["bid"] == 2)
    codes = []

    def post():
        codes.append(c.post(f"/api/games/{view['id']}/action", json={"action": bid}).status_code)

    threads = [threading.Thread(target=post) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(codes) == [200, 400, 400, 400]
    assert game_of(c, view["id"]).records == [] and c.get(f"/api/games/{view['id']}").json()["bids"][0] == 2


@pytest.mark.parametrize("preset", ["partnership-house", "two-player", "hearts"])
def test_every_action_id_has_the_kind_of_its_place_in_the_layout(preset):
    from spades_env.engine import PLAY, SpadesEngine
    from train.serve.views import action_entry

    engine = SpadesEngine(preset)
    lay = engine.layout
    kinds = [action_entry(engine, PLAY, a)["kind"] for a in range(lay.n_actions)]
    assert set(kinds[: lay.n_card_ids]) <= {"card", "pass"}
    assert set(kinds[lay.bid_offset : lay.bid_end]) <= {"bid"}
    assert kinds[lay.bid_end :] == list(lay.specials)  # each special action's kind is its declared name
