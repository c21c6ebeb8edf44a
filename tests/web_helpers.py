"""Helpers of the web API tests: a client, random play through the API, and the cards a seat may see."""

from __future__ import annotations

import random
import re
from typing import Any

import numpy as np
import pytest

pytest.importorskip("fastapi", reason="the web extra (pip install -e '.[web]')")

from fastapi.testclient import TestClient  # noqa: E402

from spades_env import cards  # noqa: E402
from spades_env.engine import OVER, PLAY  # noqa: E402
from spades_env.games.hearts.phases import PASS  # noqa: E402
from spades_env.games.spades.params import DRAW  # noqa: E402
from train.serve.app import create_app  # noqa: E402

CARD_NAMES = {cards.card_name(c) for c in range(cards.N_CARD_IDS)}
TOKEN = re.compile(r"[A-Za-z0-9]+")


def client(**options) -> TestClient:
    """A test client of a new app (``create_app`` options); a fault of the server is a 500, not an exception."""
    return TestClient(create_app(**options), raise_server_exceptions=False)


def json_detail(r, status: int = 400) -> str:
    """The one-line ``detail`` of a JSON error response of ``status``."""
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    detail = r.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail
    return detail


def game_of(c: TestClient, game_id: str):
    """The server's own Game object behind an id (to check views against the engine state)."""
    return c.app.state.store.get(game_id)


def mask_names(mask: int) -> set[str]:
    return {cards.card_name(x) for x in cards.mask_to_cards(int(mask))}


def allowed_cards(game) -> set[str]:
    """The cards the human's seat may see now, from the engine state (not from the view code)."""
    engine, seat = game.engine, game.seat
    n = engine.n_players
    f = game.finished
    if f is not None:  # a finished hand: every card played in it, and the seat's own pass and receipt
        out = {cards.card_name(int(x)) for x in f.history[0].reshape(-1) if x >= 0}
        if engine.rules.game == "hearts":
            offset = int(engine.pass_offset(f.hand_number)[0])
            out |= mask_names(f.passed[0, seat])
            if offset:
                out |= mask_names(f.passed[0, (seat - offset) % n])
        return out
    s = game.table.state
    phase = int(s.phase[0])
    assert phase != OVER
    out = {cards.card_name(int(x)) for x in s.history[0].reshape(-1) if x >= 0}
    out |= {cards.card_name(int(x)) for x in s.trick[0] if x >= 0}
    if game.table.last_trick:
        out |= {e["card"] for e in game.table.last_trick["cards"]}
    hearts = engine.rules.game == "hearts"  # (a Hearts state has no blind nil and no face-up cards)
    if hearts or s.looked[0, seat]:
        out |= mask_names(s.hands[0, seat])
    for k in range(n if not hearts else 0):
        out |= mask_names(s.face_up[0, k] & s.hands[0, k])
    if engine.rules.two_player:
        mine = s.seen[0, seat] | s.discards[0, seat] | s.exchanged_out[0, seat] | s.exchanged_in[0, seat]
        out |= mask_names(mine)
        if phase == DRAW and int(s.to_move[0]) == seat:
            out.add(cards.card_name(int(s.shown[0])))
    if engine.rules.game == "hearts":
        out |= mask_names(s.passed[0, seat])
        offset = int(engine.pass_offset(s.hand_number[:1])[0])
        if phase != PASS and offset:
            out |= mask_names(s.passed[0, (seat - offset) % n])
    return out


def hidden_cards(game) -> set[str]:
    """Cards other seats hold now that the human has no way to know (none of them may be sent)."""
    if game.finished is not None or int(game.table.state.phase[0]) == OVER:
        return set()
    s = game.table.state
    out: set[str] = set()
    spades = game.engine.rules.game == "spades"  # (a Hearts state has no blind nil and no face-up cards)
    face_up = s.face_up[0] if spades else np.zeros_like(s.hands[0])
    for k in range(game.engine.n_players):
        if k != game.seat:
            out |= mask_names(s.hands[0, k] & ~face_up[k])
    if spades and not s.looked[0, game.seat]:
        out |= mask_names(s.hands[0, game.seat] & ~face_up[game.seat])
    return out - allowed_cards(game)


def sent_cards(data: Any, n_card_ids: int, key: str | None = None) -> set[str]:
    """Every card a JSON response names: card-name tokens of its strings, action ids and hint value keys."""
    out: set[str] = set()
    if isinstance(data, dict):
        for k, v in data.items():
            if k in cards_by_id_keys and isinstance(v, int) and not isinstance(v, bool) and 0 <= v < n_card_ids:
                out.add(cards.card_name(v))
            elif k == "values" and isinstance(v, dict):
                out |= {cards.card_name(int(a)) for a in v if int(a) < n_card_ids}
            if not (k == "id" and isinstance(v, str)):  # the game id is random text
                out |= sent_cards(v, n_card_ids, k)
    elif isinstance(data, list):
        for v in data:
            out |= sent_cards(v, n_card_ids, key)
    elif isinstance(data, str):
        out |= {t for t in TOKEN.findall(data) if t in CARD_NAMES}
    return out


cards_by_id_keys = ("action", "id")


def check_no_leak(c: TestClient, game_id: str, response: Any) -> tuple[set[str], set[str]]:
    """Assert that a response names no card the human may not see; return the cards it names and those hidden."""
    game = game_of(c, game_id)
    sent = sent_cards(response, game.engine.layout.n_card_ids)
    allowed = allowed_cards(game)
    assert sent <= allowed, f"sent cards the seat may not see: {sorted(sent - allowed)}"
    return sent, hidden_cards(game)


def play_hands(
    c: TestClient,
    body: dict[str, Any],
    hands: int = 1,
    seed: int = 0,
    choose=None,
    on_view=None,
) -> tuple[str, dict[str, Any]]:
    """Create a game and play ``hands`` hands (or to the match's end) with random legal actions.

    ``choose(view, rng)`` may pick the action (default: uniform over ``view["legal"]``);
    ``on_view(view)`` sees every view the API returns (create, actions, next).
    """
    rng = random.Random(seed)
    r = c.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    view = r.json()
    game_id = view["id"]
    done = 0
    for _ in range(2000):
        if on_view is not None:
            on_view(view)
        if view["awaiting"] == "nothing":
            assert view["phase"] == "match_over"
            break
        if view["awaiting"] == "next_hand":
            done += 1
            if done >= hands:
                break
            view = c.post(f"/api/games/{game_id}/next").json()
            continue
        assert view["to_play"] == view["seat"] and view["legal"]
        action = (choose(view, rng) if choose else None) or rng.choice(view["legal"])["id"]
        r = c.post(f"/api/games/{game_id}/action", json={"action": action})
        assert r.status_code == 200, r.text
        view = r.json()
    return game_id, view


__all__ = ["OVER", "TestClient", "PLAY", "allowed_cards", "check_no_leak", "client", "game_of", "np", "play_hands"]
