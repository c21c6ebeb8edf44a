"""The web table in a real browser (issue 16): headless Chromium driven by Playwright plays a whole hand of
partnership and of Hearts by clicking, and replays a record step by step.

The server is the package's app (``train.web.app.create_app``) under uvicorn on a free port, in a thread.
Chromium is Debian's ``chromium`` (``.ci/run`` installs it), Playwright comes with the ``web`` extra; if either is
missing the tests fail, saying what to install. ``SPADES_SCREENSHOT=1`` rewrites the README's ``docs/img/table.png``.
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
from train.tournament import TournamentConfig, run_tournament

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOT = ROOT / "docs" / "img" / "table.png"
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
            "chromium, as .ci/run does) or point SPADES_CHROMIUM at a Chromium binary"
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
    from train.web.app import create_app

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


# --- helpers ---------------------------------------------------------------------------------------------------


def _table(page):
    return page.locator("#table-view")


def _click_and_wait(page, locator) -> None:
    """Click, then wait until the page has drawn the server's answer (the render counter moves, not busy)."""
    before = _table(page).get_attribute("data-render") or "0"
    locator.click()
    page.wait_for_function(
        "before => { const t = document.getElementById('table-view');"
        " return t.dataset.render !== before && t.dataset.busy === '0'; }",
        arg=before,
    )


def _view(page) -> dict:
    """The server's view of the game in the page's URL (what the page was given)."""
    game = page.evaluate("new URLSearchParams(location.search).get('game')")
    assert game, "the game id is not in the URL"
    response = page.request.get(f"/api/games/{game}")
    assert response.ok, response.text()
    return response.json()


def _start(page, rules: str, bot: str, seed: int, target: int | None = None) -> None:
    page.goto("/")
    page.select_option("#rules", rules)
    page.select_option("#all-bots", bot)
    page.fill("#seed", str(seed))
    if target is not None:
        page.fill("#target", str(target))
    _click_and_wait(page, page.locator("#start-form button[type=submit]"))
    assert _table(page).is_visible()


def _check_hand_matches(page, view: dict) -> None:
    """The hand drawn is the view's hand; exactly the legal cards are enabled and highlighted."""
    shown = page.locator("#hand button.card").evaluate_all("els => els.map(e => e.dataset.card)")
    assert sorted(shown) == sorted(view["hand"])
    legal_cards = sorted(a["card"] for a in view["legal"] if a["card"] and a["card"] in view["hand"])
    highlighted = page.locator("#hand button.card.legal:enabled").evaluate_all("els => els.map(e => e.dataset.card)")
    assert sorted(highlighted) == legal_cards
    dimmed = page.locator("#hand button.card.dimmed")
    assert dimmed.count() == len(view["hand"]) - len(legal_cards)
    for i in range(dimmed.count()):
        assert dimmed.nth(i).is_disabled()


def _check_hint(page, view: dict) -> None:
    """The hint names what the search bot would play, with its value of every legal card (two or more)."""
    page.select_option("#hint-bot", "search")
    page.click("#hint")
    page.wait_for_selector("#hint-text b[data-action]")
    action = int(page.locator("#hint-text b").get_attribute("data-action"))
    assert action in [a["id"] for a in view["legal"]]
    assert page.locator("#hint-text b").inner_text() == next(a["label"] for a in view["legal"] if a["id"] == action)
    values = page.locator("#hint-text .hint-values li").all_inner_texts()
    assert sorted(v.split(":")[0] for v in values) == sorted(a["label"] for a in view["legal"])


def _play_to_hand_end(page, screenshot_at_trick: int | None = None, hint_at_trick: int | None = None) -> dict:
    """Click through one hand: look (no blind nil), bid the third bid offered, pass and play the first legal cards."""
    for _ in range(200):
        view = _view(page)
        assert _table(page).get_attribute("data-phase") == view["phase"]
        if view["awaiting"] != "you":
            assert view["phase"] in ("hand_over", "match_over"), view
            assert hint_at_trick is None, "the hint was never asked (no play with two legal cards)"
            return view
        if view["phase"] == "play":
            _check_hand_matches(page, view)
            done = sum(view["tricks_won"])
            if screenshot_at_trick is not None and done == screenshot_at_trick and len(view["trick"]) >= 2:
                if os.environ.get("SPADES_SCREENSHOT") == "1":
                    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(SCREENSHOT))
                screenshot_at_trick = None
            if hint_at_trick is not None and done >= hint_at_trick and len(view["legal"]) > 1:
                _check_hint(page, view)
                hint_at_trick = None
            # The trick in the middle is the view's trick.
            drawn = page.locator("#play-table .trick .card").evaluate_all("els => els.map(e => e.dataset.card)")
            assert drawn == [t["card"] for t in view["trick"]]
            _click_and_wait(page, page.locator("#hand button.card.legal").first)
        elif page.locator("#controls button[data-kind=look]").count():
            _click_and_wait(page, page.locator("#controls button[data-kind=look]"))
        elif page.locator("#controls button[data-kind=bid]").count():
            bids = page.locator("#controls button[data-kind=bid]")
            offered = sorted(int(b) for b in bids.evaluate_all("els => els.map(e => e.dataset.bid)"))
            assert offered == sorted(a["bid"] for a in view["legal"] if a["kind"] == "bid")
            _click_and_wait(page, bids.nth(min(2, bids.count() - 1)))
        else:
            _decide_once(page, view)
    raise AssertionError("the hand did not end within 200 clicks")


def _decide_once(page, view: dict) -> None:
    """One decision by clicking: the pass (three cards, then confirm), a legal card, or the first button."""
    if view["phase"] == "pass":
        for _ in range(3 - len(view["passed"])):
            _click_and_wait(page, page.locator("#hand button.card.legal:not(.selected)").first)
        _click_and_wait(page, page.locator("#confirm-pass"))
    elif page.locator("#hand button.card.legal").count():
        _check_hand_matches(page, view)
        _click_and_wait(page, page.locator("#hand button.card.legal").first)
    else:
        buttons = page.locator("#controls button")
        assert buttons.count(), f"{view['rules']['name']}: nothing to click in phase {view['phase']}"
        _click_and_wait(page, buttons.first)


def _check_hand_over(page, view: dict) -> None:
    """The score breakdown of the hand is shown, and the scores of the view."""
    assert view["phase"] in ("hand_over", "match_over") and view["hand_result"] is not None
    assert page.locator("#result").is_visible()
    assert page.locator("#next-hand").is_visible() == (view["phase"] == "hand_over")
    # The hand's last trick stays in the middle, with its winner.
    drawn = page.locator("#play-table .trick .card").evaluate_all("els => els.map(e => e.dataset.card)")
    assert drawn == [t["card"] for t in view["last_trick"]["cards"]]
    winner = view["seats"][view["last_trick"]["winner"]]["name"]
    assert winner in page.locator("#play-table .trick-note").inner_text()
    scores = page.locator("#play-scores td.score").all_inner_texts()
    assert [int(s) for s in scores] == view["scores"]
    rows = page.locator("#breakdown tr[data-field=points] td").all_inner_texts()
    assert [int(p) for p in rows] == view["hand_result"]["points"]


# --- the tests -------------------------------------------------------------------------------------------------


def test_play_a_partnership_hand_by_clicking(page):
    _start(page, "partnership", "heuristic", seed=11)
    assert "game=" in page.url
    assert page.locator("#play-table .seat").count() == 4
    _play_to_hand_end(page, screenshot_at_trick=4, hint_at_trick=6)
    # A reload resumes the game from the URL.
    page.reload()
    page.wait_for_selector("#table-view:not([hidden])")
    view = _view(page)
    _check_hand_over(page, view)
    assert sum(view["tricks_won"]) == 13
    # The record of the finished hand downloads from the page's link, and the engine accepts it.
    response = page.request.get(page.locator("#download").get_attribute("href"))
    hands = response.json()["hands"]
    assert len(hands) == 1 and hands[0]["scores"] == view["scores"]
    records.verify(hands[0])
    _click_and_wait(page, page.locator("#next-hand"))
    after = _view(page)
    assert after["hand_number"] == view["hand_number"] + 1
    assert page.locator("#result").is_hidden()
    assert page.locator("#status").inner_text().startswith(f"Hand {after['hand_number']}")


def test_play_a_hearts_hand_with_its_pass_to_the_match_end(page):
    _start(page, "hearts", "heuristic", seed=13, target=1)  # the first hand that has one lowest score ends it
    view = _view(page)
    assert view["phase"] == "pass" and view["awaiting"] == "you"
    confirm = page.locator("#confirm-pass")
    legal = page.locator("#hand button.card.legal")
    chosen = []
    for i in range(3):
        assert confirm.is_disabled()
        card = legal.nth(i)
        chosen.append(card.get_attribute("data-card"))
        _click_and_wait(page, card)
    assert confirm.is_enabled()
    _click_and_wait(page, confirm)
    view = _view(page)
    assert view["phase"] == "play"
    assert sorted(view["passed"]) == sorted(chosen)
    assert not set(chosen) & set(view["hand"])
    assert len(view["received"]) == 3 and set(view["received"]) <= set(view["hand"])
    shown = page.locator("#hand-extra .card").evaluate_all("els => els.map(e => e.dataset.card)")
    assert sorted(shown) == sorted(chosen + view["received"])
    view = _play_to_hand_end(page)
    _check_hand_over(page, view)
    assert sum(view["hand_result"]["points_taken"]) == 26  # 13 hearts and the queen of spades
    for _ in range(4):  # a tie for the lowest score plays on
        if view["phase"] == "match_over":
            break
        _click_and_wait(page, page.locator("#next-hand"))
        view = _play_to_hand_end(page)
    assert view["phase"] == "match_over" and view["winner"] is not None
    title = page.locator("#result-title").inner_text()
    winner = view["seats"][view["winner"]]["name"]
    assert title.startswith("The match is over") and winner in title
    page.click("#new-game")
    assert page.locator("#start").is_visible() and "game=" not in page.url


def test_every_preset_deals_and_plays_up_to_your_first_card(page):
    """Each preset offered, against random bots: every decision up to your first card is made by clicking."""
    page.goto("/")
    presets = page.locator("#rules option").evaluate_all("els => els.map(e => e.value)")
    assert len(presets) >= 10
    for name in presets:
        _start(page, name, "random", seed=1)
        phases = []
        for _ in range(60):
            view = _view(page)
            assert view["rules"]["name"] == name and view["awaiting"] == "you", view
            phases.append(view["phase"])
            _decide_once(page, view)
            if view["phase"] == "play":
                assert len(_view(page)["hand"]) == len(view["hand"]) - 1
                break
        assert phases[-1] == "play", f"{name}: your first card was not reached ({phases})"


def test_a_refused_action_shows_the_servers_message_and_changes_nothing(page):
    _start(page, "partnership", "heuristic", seed=11)
    if _view(page)["phase"] == "blind":
        _click_and_wait(page, page.locator("#controls button[data-kind=look]"))
    view = _view(page)
    assert view["phase"] == "bid" and view["awaiting"] == "you"
    # Another tab bids first: the page's bid buttons are now out of date.
    bid = next(a for a in view["legal"] if a["kind"] == "bid")
    assert page.request.post(f"/api/games/{view['id']}/action", data={"action": bid["id"]}).ok
    after = _view(page)
    _click_and_wait(page, page.locator("#controls button[data-kind=bid]").first)
    alert = page.locator("#error")
    assert alert.is_visible()
    assert "illegal action" in alert.inner_text() and "legal actions" in alert.inner_text()
    assert _view(page) == after  # the refused action changed nothing
    # ... and the page now shows the game as the server has it.
    assert _table(page).get_attribute("data-phase") == after["phase"] == "play"
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
        lines = page.locator(f"#replay-table .seat[data-seat='{seat}'] .hand-lines .rank").count()
        assert lines == len(hand)
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
