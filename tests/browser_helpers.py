"""Driving the web table in the browser tests: click, wait for the server's answer, compare with the API's view."""

from __future__ import annotations

import os
from pathlib import Path

#: The README's screenshot of the table, rewritten when ``SPADES_SCREENSHOT=1``.
SCREENSHOT = Path(__file__).resolve().parents[1] / "docs" / "img" / "table.png"


def table(page):
    return page.locator("#table-view")


def click_and_wait(page, locator) -> None:
    """Click, then wait until the page has drawn the server's answer (the render counter moves, not busy)."""
    before = table(page).get_attribute("data-render") or "0"
    locator.click()
    page.wait_for_function(
        "before => { const t = document.getElementById('table-view');"
        " return t.dataset.render !== before && t.dataset.busy === '0'; }",
        arg=before,
    )


def server_view(page) -> dict:
    """The server's view of the game in the page's URL (what the page was given)."""
    game = page.evaluate("new URLSearchParams(location.search).get('game')")
    assert game, "the game id is not in the URL"
    response = page.request.get(f"/api/games/{game}")
    assert response.ok, response.text()
    return response.json()


def start(page, rules: str, bot: str, seed: int, target: int | None = None) -> None:
    page.goto("/")
    page.select_option("#rules", rules)
    page.select_option("#all-bots", bot)
    page.fill("#seed", str(seed))
    if target is not None:
        page.fill("#target", str(target))
    click_and_wait(page, page.locator("#start-form button[type=submit]"))
    assert table(page).is_visible()


def check_hand_matches(page, view: dict) -> None:
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


def check_hint(page, view: dict) -> None:
    """The hint names what the search bot would play, with its value of every legal card (two or more)."""
    page.select_option("#hint-bot", "search")
    page.click("#hint")
    page.wait_for_selector("#hint-text b[data-action]")
    action = int(page.locator("#hint-text b").get_attribute("data-action"))
    assert action in [a["id"] for a in view["legal"]]
    assert page.locator("#hint-text b").inner_text() == next(a["label"] for a in view["legal"] if a["id"] == action)
    values = page.locator("#hint-text .hint-values li").all_inner_texts()
    assert sorted(v.split(":")[0] for v in values) == sorted(a["label"] for a in view["legal"])


def play_to_hand_end(page, screenshot_at_trick: int | None = None, hint_at_trick: int | None = None) -> dict:
    """Click through one hand: look (no blind nil), bid the third bid offered, pass and play the first legal cards."""
    for _ in range(200):
        view = server_view(page)
        assert table(page).get_attribute("data-phase") == view["phase"]
        if view["awaiting"] != "you":
            assert view["phase"] in ("hand_over", "match_over"), view
            assert hint_at_trick is None, "the hint was never asked (no play with two legal cards)"
            return view
        if view["phase"] == "play":
            check_hand_matches(page, view)
            done = sum(view["tricks_won"])
            if screenshot_at_trick is not None and done == screenshot_at_trick and len(view["trick"]) >= 2:
                if os.environ.get("SPADES_SCREENSHOT") == "1":
                    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(SCREENSHOT))
                screenshot_at_trick = None
            if hint_at_trick is not None and done >= hint_at_trick and len(view["legal"]) > 1:
                check_hint(page, view)
                hint_at_trick = None
            # The trick in the middle is the view's trick.
            drawn = page.locator("#play-table .trick .card").evaluate_all("els => els.map(e => e.dataset.card)")
            assert drawn == [t["card"] for t in view["trick"]]
            click_and_wait(page, page.locator("#hand button.card.legal").first)
        elif page.locator("#controls button[data-kind=look]").count():
            click_and_wait(page, page.locator("#controls button[data-kind=look]"))
        elif page.locator("#controls button[data-kind=bid]").count():
            # While bidding the hand is shown, with no card to click.
            shown = page.locator("#hand .card").evaluate_all("els => els.map(e => e.dataset.card)")
            assert sorted(shown) == sorted(view["hand"]) and page.locator("#hand button").count() == 0
            bids = page.locator("#controls button[data-kind=bid]")
            offered = sorted(int(b) for b in bids.evaluate_all("els => els.map(e => e.dataset.bid)"))
            assert offered == sorted(a["bid"] for a in view["legal"] if a["kind"] == "bid")
            click_and_wait(page, bids.nth(min(2, bids.count() - 1)))
        else:
            decide_once(page, view)
    raise AssertionError("the hand did not end within 200 clicks")


def decide_once(page, view: dict) -> None:
    """One decision by clicking: the pass (three cards, then confirm), a legal card, or the first button."""
    if view["phase"] == "pass":
        for _ in range(3 - len(view["passed"])):
            click_and_wait(page, page.locator("#hand button.card.legal:not(.selected)").first)
        click_and_wait(page, page.locator("#confirm-pass"))
    elif page.locator("#hand button.card.legal").count():
        check_hand_matches(page, view)
        click_and_wait(page, page.locator("#hand button.card.legal").first)
    else:
        buttons = page.locator("#controls button")
        assert buttons.count(), f"{view['rules']['name']}: nothing to click in phase {view['phase']}"
        click_and_wait(page, buttons.first)


def check_hand_over(page, view: dict) -> None:
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
