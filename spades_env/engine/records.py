"""Game records: every finished hand as JSON, and replaying a record through the engine.

A record holds the rules, dealer, dealt hands, starting scores and bags, the
decisions in order (blind-nil choices, bids, plays with seats; in Hearts the cards
passed, then the plays), the tricks with their winners, and the result (tricks taken,
points, scores and bags; in Hearts also the cards passed and the points taken).
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from spades_env import cards
from spades_env.engine.core import FinishedHands, SpadesEngine
from spades_env.engine.state import OVER

RECORD_VERSION = 1


def hand_records(engine: SpadesEngine, finished: FinishedHands) -> list[dict[str, Any]]:
    """One JSON-ready record per game in ``finished`` (from ``StepResult.finished``)."""
    return [_record(engine, finished, i) for i in range(len(finished.games))]


def _record(engine: SpadesEngine, f: FinishedHands, i: int) -> dict[str, Any]:
    n = engine.n_players
    dealer = int(f.dealer[i])
    lay = engine.layout
    rules = engine.rules
    blind_open = engine._blind_nil_allowed(f.start_scores[i : i + 1])[0][engine.side_of_seat]
    actions: list[dict[str, Any]] = []

    def add(seat: int, a: int) -> None:
        actions.append({"seat": int(seat), "action": int(a), "name": lay.describe(a)})

    order = [(dealer + k) % n for k in range(1, n + 1)]
    deal = f.deal[i]
    extra: dict[str, Any] = {}
    if rules.hearts:
        # The deal is the hands after the pass: give back what each seat received [RULES 7].
        passed = [int(p) for p in f.passed[i]]
        offset = int(engine.pass_offset(f.hand_number[i : i + 1])[0])
        received = [passed[(seat - offset) % n] if offset else 0 for seat in range(n)]
        deal = np.array([(int(deal[s]) & ~received[s]) | passed[s] for s in range(n)], dtype=np.uint64)
        for seat in order:
            for c in cards.mask_to_cards(passed[seat]):
                add(seat, c)
        extra["pass_offset"] = offset
        extra["passed"] = [[cards.card_name(c) for c in cards.mask_to_cards(p)] for p in passed]
        extra["points_taken"] = f.points_taken[i].tolist()
    elif rules.two_player:
        # Blind-nil choices, the 26 draws, the exchanges, then the bids [RULES 4].
        for seat in order:
            if blind_open[seat]:
                add(seat, lay.blind_nil if f.blind[i, seat] else lay.look)
        for k in range(len(f.pile[i]) // 2):
            seat = order[1] if k % 2 == 0 else order[0]
            second = int(f.pile[i, 2 * k + 1])
            add(seat, lay.keep if (int(f.discards[i, seat]) >> second) & 1 else lay.discard)
        for seat in order:
            if f.blind[i, seat]:
                given = cards.mask_to_cards(int(f.exchanged_out[i, seat]))
                for c in given:
                    add(seat, c)
                if len(given) < 3:
                    add(seat, lay.exchange_done)
        for seat in order:
            if not f.blind[i, seat]:
                add(seat, lay.bid_action(int(f.bids[i, seat])))
    else:
        for seat in order:
            if blind_open[seat]:
                add(seat, lay.blind_nil if f.blind[i, seat] else lay.look)
            if not f.blind[i, seat]:
                add(seat, lay.bid_action(int(f.bids[i, seat])))
    leader = (dealer + 1) % n
    if engine.club_leads:
        leader = next(s for s in range(n) if (int(f.deal[i, s]) >> engine.lowest_club) & 1)
    if rules.bemo:
        for k in range(engine.n_sides):
            seat = (leader + k) % n
            add(seat, lay.no_bemo + int(f.bemo[i, engine.side_of_seat[seat]]))
    tricks = []
    for t in range(engine.hand_size):
        order = [(leader + k) % n for k in range(n)]
        played = [int(f.history[i, t, seat]) for seat in order]
        winner = int(f.trick_winners[i, t])
        tricks.append({"leader": leader, "cards": [cards.card_name(c) for c in played], "winner": winner})
        for seat, c in zip(order, played, strict=True):
            actions.append({"seat": seat, "action": c, "name": lay.describe(c)})
        leader = winner
    if rules.two_player:
        extra["pile"] = [cards.card_name(int(c)) for c in f.pile[i]]
    if rules.bemo:
        extra["bemo"] = f.bemo[i].tolist()
    return {
        "version": RECORD_VERSION,
        "rules": engine.rules.to_dict(),
        "key": int(f.key[i]),
        "hand_number": int(f.hand_number[i]),
        "dealer": dealer,
        **extra,
        "hands": [[cards.card_name(c) for c in cards.mask_to_cards(int(h))] for h in deal],
        "start_scores": f.start_scores[i].tolist(),
        "start_bags": f.start_bags[i].tolist(),
        "bids": f.bids[i].tolist(),
        "blind_nil": f.blind[i].tolist(),
        "actions": actions,
        "tricks": tricks,
        "tricks_won": f.tricks_won[i].tolist(),
        "points": f.delta[i].tolist(),
        "scores": f.scores[i].tolist(),
        "bags": f.bags[i].tolist(),
    }


def dumps(record: dict[str, Any]) -> str:
    """A record as one line of JSON."""
    return json.dumps(record, separators=(",", ":"))


def replay(record: dict[str, Any], engine: SpadesEngine | None = None) -> dict[str, Any]:
    """Play a record's decisions through the engine and return the record it produces.

    Raises ``IllegalActionError`` if a recorded decision is illegal and ``ValueError``
    if the record is not a whole hand. Compare the result with the input (see
    ``verify``) to re-score a record.
    """
    from spades_env.rules import Rules

    engine = engine or SpadesEngine(Rules.from_dict(record["rules"]))
    state = engine._empty(1)
    start = {"dealers": [record["dealer"]], "scores": [record["start_scores"]], "bags": [record["start_bags"]]}
    if "hand_number" in record:  # with the key it seeds exchange draws; in Hearts it sets the pass
        start["hand_numbers"] = [record["hand_number"]]
    if "pile" in record:
        start["piles"] = [[cards.parse_card(c) for c in record["pile"]]]
    else:
        start["deals"] = [[[cards.parse_card(c) for c in hand] for hand in record["hands"]]]
    # The game key seeds what the record does not list (the two-player exchange draws, face-up cards).
    engine.start_matches(state, np.array([0]), np.array([record.get("key", 0)], dtype=np.uint64), **start)
    for k, step in enumerate(record["actions"]):
        if state.phase[0] == OVER or int(state.to_move[0]) != step["seat"]:
            raise ValueError(f"record action {k} is by seat {step['seat']}, but it is not that seat's turn")
        result = engine.step(state, np.array([step["action"]]))
        if result.hand_done[0]:
            if k != len(record["actions"]) - 1:
                raise ValueError(f"the hand ended at action {k}, before the record's last action")
            return hand_records(engine, result.finished[0])[0]
    raise ValueError(f"record ends before the hand is over ({len(record['actions'])} actions)")


def verify(record: dict[str, Any]) -> None:
    """Replay a record and raise ``ValueError`` naming the first field that differs."""
    again = replay(record)
    keys = ("bids", "blind_nil", "tricks", "tricks_won", "points", "scores", "bags", "bemo", "hands")
    for key in keys + ("passed", "points_taken"):
        if key not in record:
            continue
        if again[key] != record[key]:
            raise ValueError(f"record field {key!r} differs on replay: recorded {record[key]}, replayed {again[key]}")
