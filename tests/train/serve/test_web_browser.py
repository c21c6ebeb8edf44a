"""The web table in a real browser (issue 16): headless Chromium driven by Playwright plays a whole hand of
partnership and of Hearts by clicking, and replays a record step by step.

The server is the package's app (``train.serve.app.create_app``) under uvicorn on a free port, in a thread.
Chromium is Debian's ``chromium`` (``make setup`` installs it: ``scripts/install_chromium.sh``), Playwright comes
with the ``web`` extra; if either is missing the tests fail, saying what to install. ``SPADES_SCREENSHOT=1``
rewrites the README's ``docs/img/table.png``.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from spades_env import Rules, SpadesEngine
from spades_env.engine import records
from tests.browser_helpers import (
    check_hand_over,
    click_and_wait,
    decide_once,
    play_to_hand_end,
    server_view,
    start,
    table,
)
from train.evaluation.tournament import TournamentConfig, run_tournament
from train.serve.replay import verify_record

CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TIMEOUT_MS = 15_000


def _chromium_path() -> str:
    path = os.environ.get("SPADES_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).exists():
        pytest.fail(
            f"Chromium not found at {path}: install Debian's chromium (apt-get install -y --no-install-recommends "
            "chromium, as make setup does) or point SPADES_CHROMIUM at a Chromium binary"
        )
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server_url():
    try:
        import uvicorn
    except ImportError as err:
        pytest.fail(f"the web extra is not installed ({err}): run make setup (pip install -e '.[web]')")
    from train.serve.app import create_app

    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail("the web server did not start within 15 s")
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("Playwright for Python is not installed: run make setup (the web extra has playwright)")
    executable = _chromium_path()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, server_url):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, base_url=server_url)
    pg = context.new_page()
    pg.set_default_timeout(TIMEOUT_MS)
    errors: list[str] = []
    elsewhere: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.on("request", lambda r: None if r.url.startswith((server_url, "data:")) else elsewhere.append(r.url))
    yield pg
    context.close()
    assert not errors, f"JavaScript errors in the page: {errors}"
    assert not elsewhere, f"the page asked for something that is not on its server (it must work offline): {elsewhere}"


# --- the tests -------------------------------------------------------------------------------------------------


def test_play_a_partnership_hand_by_clicking(page):
    start(page, "partnership", "heuristic", seed=11)
    assert "game=" in page.url
    assert page.locator("#play-table .seat").count() == 4
    play_to_hand_end(page, screenshot_at_trick=4, hint_at_trick=6)
    # A reload resumes the game from the URL.
    page.reload()
    page.wait_for_selector("#table-view:not([hidden])")
    view = server_view(page)
    check_hand_over(page, view)
    assert sum(view["tricks_won"]) == 13
    # The record of the finished hand downloads from the page's link, and the engine accepts it.
    response = page.request.get(page.locator("#download").get_attribute("href"))
    hands = response.json()["hands"]
    assert len(hands) == 1 and hands[0]["scores"] == view["scores"]
    assert "key" not in hands[0]  # not while the match goes on: it would deal the hands to come
    verify_record(hands[0])  # it replays without it: it lists its draws
    click_and_wait(page, page.locator("#next-hand"))
    after = server_view(page)
    assert after["hand_number"] == view["hand_number"] + 1
    assert page.locator("#result").is_hidden()
    assert page.locator("#status").inner_text().startswith(f"Hand {after['hand_number']}")


def test_play_a_hearts_hand_with_its_pass_to_the_match_end(page):
    start(page, "hearts", "heuristic", seed=13, target=1)  # the first hand that has one lowest score ends it
    view = server_view(page)
    assert view["phase"] == "pass" and view["awaiting"] == "you"
    confirm = page.locator("#confirm-pass")
    legal = page.locator("#hand button.card.legal")
    chosen = []
    for i in range(3):
        assert confirm.is_disabled()
        card = legal.nth(i)
        chosen.append(card.get_attribute("data-card"))
        click_and_wait(page, card)
    assert confirm.is_enabled()
    click_and_wait(page, confirm)
    view = server_view(page)
    assert view["phase"] == "play"
    assert sorted(view["passed"]) == sorted(chosen)
    assert not set(chosen) & set(view["hand"])
    assert len(view["received"]) == 3 and set(view["received"]) <= set(view["hand"])
    shown = page.locator("#hand-extra .card").evaluate_all("els => els.map(e => e.dataset.card)")
    assert sorted(shown) == sorted(chosen + view["received"])
    view = play_to_hand_end(page)
    check_hand_over(page, view)
    assert sum(view["hand_result"]["points_taken"]) == 26  # 13 hearts and the queen of spades
    for _ in range(4):  # a tie for the lowest score plays on
        if view["phase"] == "match_over":
            break
        click_and_wait(page, page.locator("#next-hand"))
        view = play_to_hand_end(page)
    assert view["phase"] == "match_over" and view["winner"] is not None
    title = page.locator("#result-title").inner_text()
    winner = view["seats"][view["winner"]]["name"]
    assert title.startswith("The match is over") and winner in title
    page.click("#new-game")
    assert page.locator("#start").is_visible() and "game=" not in page.url


def test_every_preset_deals_and_plays_up_to_your_first_card(page):
    """Each preset offered, against random bots: every decision up to your first card is made by clicking."""
    page.goto("/")
    # the preset list is filled from the server after the page loads: wait for it (a race under load otherwise)
    page.wait_for_function("document.querySelectorAll('#rules option').length >= 10")
    presets = page.locator("#rules option").evaluate_all("els => els.map(e => e.value)")
    assert len(presets) >= 10
    for name in presets:
        start(page, name, "random", seed=1)
        phases = []
        for _ in range(60):
            view = server_view(page)
            assert view["rules"]["name"] == name and view["awaiting"] == "you", view
            phases.append(view["phase"])
            decide_once(page, view)
            if view["phase"] == "play":
                assert len(server_view(page)["hand"]) == len(view["hand"]) - 1
                break
        assert phases[-1] == "play", f"{name}: your first card was not reached ({phases})"


def test_a_refused_action_shows_the_servers_message_and_changes_nothing(page):
    start(page, "partnership", "heuristic", seed=11)
    if server_view(page)["phase"] == "blind":
        click_and_wait(page, page.locator("#controls button[data-kind=look]"))
    view = server_view(page)
    assert view["phase"] == "bid" and view["awaiting"] == "you"
    # Another tab bids first: the page's bid buttons are now out of date.
    bid = next(a for a in view["legal"] if a["kind"] == "bid")
    assert page.request.post(f"/api/games/{view['id']}/action", data={"action": bid["id"]}).ok
    after = server_view(page)
    click_and_wait(page, page.locator("#controls button[data-kind=bid]").first)
    alert = page.locator("#error")
    assert alert.is_visible()
    assert "illegal action" in alert.inner_text() and "legal actions" in alert.inner_text()
    assert server_view(page) == after  # the refused action changed nothing
    # ... and the page now shows the game as the server has it.
    assert table(page).get_attribute("data-phase") == after["phase"] == "play"
    assert page.locator("#controls button[data-kind=bid]").count() == 0
    page.click("#error-close")
    assert alert.is_hidden()


def test_an_unknown_game_in_the_url_shows_the_servers_message(page):
    page.goto("/?game=no-such-game")
    alert = page.locator("#error")
    alert.wait_for(state="visible")
    assert "no-such-game" in alert.inner_text()
    assert page.locator("#start").is_visible()


def _one_hand_record(seed: int) -> dict:
    """A partnership hand played by random legal moves, as the engine records it."""
    engine = SpadesEngine(Rules.preset("partnership"))
    state = engine.reset([seed])
    rng = np.random.default_rng(seed)
    while True:
        mask = engine.legal_action_mask(state)
        result = engine.step(state, np.argmax(rng.random(mask.shape) * mask, axis=1))
        if result.finished:
            return records.hand_records(engine, result.finished[0])[0]


def _replay_frame(page) -> int:
    return int(page.locator("#replay-view").get_attribute("data-frame"))


def _face_up_hand(page, seat: int) -> list[str]:
    ranks = page.locator(f"#replay-table .seat[data-seat='{seat}'] .hand-lines .rank")
    return ranks.evaluate_all("els => els.map(e => e.dataset.card)")


def _face_up_cards(page) -> int:
    return page.locator("#replay-table .hand-lines .rank").count()


def test_replay_a_tournament_log(page, tmp_path):
    log = tmp_path / "tournament.jsonl"
    config = TournamentConfig(bots=("heuristic", "random"), rules="partnership", boards=2, seed=3)
    report = run_tournament(config, log, progress=False)
    page.goto("/")
    page.click("#tab-replay")
    page.set_input_files("#replay-file", str(log))
    page.wait_for_selector("#report:not([hidden])")
    rows = page.locator("#report-table tbody tr")
    assert rows.count() == len(report["bots"]) == 2
    headers = page.locator("#report-table thead th").all_inner_texts()
    column = headers.index("points per hand")
    for k, bot in enumerate(report["bots"]):
        cells = rows.nth(k).locator("td").all_inner_texts()
        assert cells[0] == bot["bot"]
        assert float(cells[column]) == pytest.approx(bot["points_per_hand"], abs=0.006)
    assert page.locator("#report-plots svg.bars").count() >= 2
    assert page.locator("#report-plots svg.bars rect").count() >= 4
    games = page.locator("#replay-game option")
    assert games.count() == report["games"] == 4
    page.select_option("#replay-game", "1")
    second = [json.loads(line) for line in log.read_text().splitlines()[1:]][1]
    shown = page.locator("#replay-game-result").inner_text()
    assert f"board\t{second['board']}" in shown and f"seating\t{second['seating']}" in shown


def test_replay_a_record_forward_and_back(page):
    record = _one_hand_record(seed=2)
    page.goto("/")
    page.click("#tab-replay")
    page.set_input_files(
        "#replay-file",
        files=[{"name": "hand.json", "mimeType": "application/json", "buffer": json.dumps(record).encode()}],
    )
    page.wait_for_selector("#replay-view:not([hidden])")
    assert _replay_frame(page) == 0
    assert _face_up_cards(page) == 52  # all hands face up
    for seat, hand in enumerate(record["hands"]):
        assert sorted(_face_up_hand(page, seat)) == sorted(hand)
    first = record["actions"][0]
    page.keyboard.press("ArrowRight")  # the arrow keys step at once after opening the file
    assert _replay_frame(page) == 1
    assert first["name"] in page.locator("#frame-event").inner_text()
    page.click("#next")
    assert _replay_frame(page) == 2
    page.click("#prev")
    page.keyboard.press("ArrowLeft")
    assert _replay_frame(page) == 0
    # Trick by trick: the first trick ends with its four cards in the middle, won by the record's winner.
    page.click("#next-trick")
    page.click("#next-trick")
    trick = record["tricks"][0]
    shown = page.locator("#replay-table .trick .card").evaluate_all("els => els.map(e => e.dataset.card)")
    assert sorted(shown) == sorted(trick["cards"])
    assert f"Seat {trick['winner']}" in page.locator("#replay-table .trick-note").inner_text()
    assert _face_up_cards(page) == 52 - 4
    at_trick = _replay_frame(page)
    page.keyboard.press("ArrowUp")
    assert _replay_frame(page) < at_trick
    page.click("#last")
    assert page.locator("#replay-result").is_visible()
    points = page.locator("#replay-breakdown tr[data-field=points] td").all_inner_texts()
    assert [int(p) for p in points] == record["points"]
    scores = page.locator("#replay-scores td.score").all_inner_texts()
    assert [int(s) for s in scores] == record["scores"]
    # A downloaded game record ({"hands": [...]}): one game per hand, chosen in the list.
    other = _one_hand_record(seed=3)
    download = json.dumps({"hands": [record, other]}).encode()
    page.set_input_files(
        "#replay-file", files=[{"name": "game.json", "mimeType": "application/json", "buffer": download}]
    )
    page.wait_for_selector("#replay-game-row:not([hidden])")
    assert page.locator("#replay-game option").count() == 2
    page.select_option("#replay-game", "1")
    assert _replay_frame(page) == 0
    assert sorted(_face_up_hand(page, 0)) == sorted(other["hands"][0])
