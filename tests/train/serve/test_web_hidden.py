"""The web API never sends a card the human's seat may not see, in any preset (issue 16)."""

from __future__ import annotations

import pytest

from tests.web_helpers import check_no_leak, client, game_of, play_hands

CASES = [
    # preset, seat, hands: every kind of hidden information
    ("partnership", 0, 2),  # other hands; the own hand before the blind-nil choice
    ("two-player", 1, 2),  # the pile, the other's draws and discards
    ("cutthroat-3", 2, 2),
    ("partnership-house", 3, 2),  # face-up deal: only the face-up cards of others
    ("hearts", 0, 3),  # passes between other seats (left, right, across)
    ("hearts-partnership", 1, 2),
]


def _walk_game(preset: str, seat: int, hands: int, bots, choose=None, seed: int = 0) -> dict:
    c = client()
    seen = {"cards": set(), "hidden": set(), "views": 0, "phases": set()}
    game_id = None

    def check(view):
        nonlocal game_id
        game_id = view["id"]
        sent, hidden = check_no_leak(c, game_id, view)
        seen["cards"] |= sent
        seen["hidden"] |= hidden
        seen["views"] += 1
        seen["phases"].add(view["phase"])
        if view["awaiting"] == "you" and seen["views"] % 5 == 1:  # reload and hint mid-hand
            again = c.get(f"/api/games/{game_id}")
            assert again.json() == view
            hint = c.get(f"/api/games/{game_id}/hint", params={"bot": "heuristic"}).json()
            check_no_leak(c, game_id, hint)
            assert hint["action"] in [e["id"] for e in view["legal"]]

    game_id, _ = play_hands(c, {"rules": preset, "seat": seat, "bots": bots, "seed": seed}, hands, seed, choose, check)
    seen["game"] = game_of(c, game_id)
    return seen


@pytest.mark.parametrize(("preset", "seat", "hands"), CASES)
def test_no_response_names_a_card_the_seat_may_not_see(preset, seat, hands):
    seen = _walk_game(preset, seat, hands, "random")
    assert seen["views"] > 10
    assert seen["cards"], "the views named no card at all (the walk would see nothing)"
    assert len(seen["hidden"]) >= 13, "other seats' cards were never hidden (nothing was tested)"
    assert "hand_over" in seen["phases"] or "match_over" in seen["phases"]


def test_two_player_blind_nil_exchange_keeps_the_discards_hidden():
    """The human bids blind nil: the draw, then the exchange with the discards; nothing of the other's leaks."""

    def blind_first(view, rng):
        kinds = {e["kind"]: e["id"] for e in view["legal"]}
        return kinds.get("blind_nil")

    seen = _walk_game("two-player", 0, 1, "heuristic", blind_first, seed=5)
    assert "exchange" in seen["phases"]
    assert {"blind", "draw", "play"} <= seen["phases"]


def test_hearts_events_hide_the_cards_other_seats_pass():
    c = client()
    events = []
    play_hands(
        c, {"rules": "hearts", "seat": 2, "bots": "random", "seed": 4}, 1, 4, None, lambda v: events.extend(v["events"])
    )
    passes = [e for e in events if e["label"].startswith("pass")]
    others = [e for e in passes if e["seat"] != 2]
    assert len(others) == 9 and all(e["action"] is None and e["label"] == "pass a card" for e in others)
    mine = [e for e in passes if e["seat"] == 2]
    assert len(mine) == 3 and all(isinstance(e["action"], int) for e in mine)


def test_the_own_hand_is_hidden_until_the_blind_nil_choice():
    c = client()
    view = c.post("/api/games", json={"rules": "partnership", "seat": 0, "bots": "heuristic", "seed": 2}).json()
    assert view["phase"] == "blind" and view["awaiting"] == "you"
    assert view["hand"] == [] and {e["kind"] for e in view["legal"]} == {"blind_nil", "look"}
    game = game_of(c, view["id"])
    assert len(game.table.state.hands[0]) == 4  # the cards are dealt, only not sent
    look = next(e["id"] for e in view["legal"] if e["kind"] == "look")
    after = c.post(f"/api/games/{view['id']}/action", json={"action": look}).json()
    assert after["phase"] == "bid" and len(after["hand"]) == 13


def test_the_face_up_deal_shows_the_other_seats_face_up_cards_only():
    c = client()
    view = c.post("/api/games", json={"rules": "partnership-house", "seat": 0, "bots": "heuristic", "seed": 1}).json()
    game = game_of(c, view["id"])
    s = game.table.state
    assert set(view["face_up"]) == {"0", "1", "2", "3"}
    for k in range(1, 4):
        assert len(view["face_up"][str(k)]) == bin(int(s.face_up[0, k] & s.hands[0, k])).count("1") == 4
    check_no_leak(c, view["id"], view)
