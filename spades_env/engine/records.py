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
    game = engine.spec
    actions: list[dict[str, Any]] = []

    def add(seat: int, a: int) -> None:
        actions.append({"seat": int(seat), "action": int(a), "name": lay.describe(a)})

    # The game's decisions before the play (bids, the two-player draw; the Hearts pass).
    deal, extra = game.record_decisions(engine, f, i, add)
    leader = (dealer + 1) % n
    if engine.club_leads:
        leader = next(s for s in range(n) if (int(f.deal[i, s]) >> engine.lowest_club) & 1)
    game.record_declarations(engine, f, i, leader, add)
    tricks = []
    for t in range(engine.hand_size):
        order = [(leader + k) % n for k in range(n)]
        played = [int(f.history[i, t, seat]) for seat in order]
        winner = int(f.trick_winners[i, t])
        tricks.append({"leader": leader, "cards": [cards.card_name(c) for c in played], "winner": winner})
        for seat, c in zip(order, played, strict=True):
            actions.append({"seat": seat, "action": c, "name": lay.describe(c)})
        leader = winner
    extra.update(game.record_result(engine, f, i))
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


class RecordError(ValueError):
    """A record is not a valid hand record; the message names the field."""


def _field(record: dict[str, Any], name: str) -> Any:
    if name not in record:
        raise RecordError(f"record field {name!r} is missing")
    return record[name]


def _canonical(value: Any) -> str:
    """JSON text of a field, so that equal means equal in type too."""
    return json.dumps(value, sort_keys=True)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _decisions(record: dict[str, Any]) -> list[tuple[int, int]]:
    """The (seat, action id) of each recorded decision; both must be integers (never truncated)."""
    steps = _field(record, "actions")
    if not isinstance(steps, list):
        raise RecordError(f"record field 'actions' must be a list of decisions, got {type(steps).__name__}")
    out = []
    for k, step in enumerate(steps):
        if not isinstance(step, dict) or "seat" not in step or "action" not in step:
            raise RecordError(f"record field 'actions' [{k}] must be a mapping with 'seat' and 'action', got {step!r}")
        for key in ("seat", "action"):
            if not _is_int(step[key]):
                raise RecordError(f"record field 'actions' [{k}] {key!r} must be an integer, got {step[key]!r}")
        out.append((step["seat"], step["action"]))
    return out


def _card_list(label: str, names: Any) -> list[int]:
    """Card ids of a list of card names; ``label`` names the field (and item) in errors."""
    if not isinstance(names, list) or not all(isinstance(c, str) for c in names):
        raise RecordError(f"record field {label} must be a list of card names, got {names!r}")
    try:
        return [cards.parse_card(c) for c in names]
    except ValueError as err:
        raise RecordError(f"record field {label}: {err}") from None


def replay(record: dict[str, Any], engine: SpadesEngine | None = None) -> dict[str, Any]:
    """Play a record's decisions through the engine and return the record it produces.

    Raises ``IllegalActionError`` if a recorded decision is illegal and ``RecordError``
    (a ``ValueError``) naming the field if the record lacks what a replay needs, holds a
    non-integer seat or action id, or is not a whole hand. Compare the result with the
    input (see ``verify``) to re-score a record.
    """
    from spades_env.rules import Rules

    if not isinstance(record, dict):
        raise RecordError(f"a record is a mapping of fields, got {type(record).__name__}")
    if engine is None:
        rules = _field(record, "rules")
        if not isinstance(rules, dict):
            raise RecordError(f"record field 'rules' must be a mapping of rules fields, got {type(rules).__name__}")
        engine = SpadesEngine(Rules.from_dict(rules, source="record field 'rules'"))
    state = engine._empty(1)
    start = {
        "dealers": [_field(record, "dealer")],
        "scores": [_field(record, "start_scores")],
        "bags": [_field(record, "start_bags")],
    }
    if "hand_number" in record:  # with the key it seeds exchange draws; in Hearts it sets the pass
        start["hand_numbers"] = [record["hand_number"]]
    if engine.rules.two_player:
        start["piles"] = [_card_list("'pile'", _field(record, "pile"))]
    else:
        hands = _field(record, "hands")
        if not isinstance(hands, list):
            raise RecordError(f"record field 'hands' must be a list of hands, got {type(hands).__name__}")
        start["deals"] = [[_card_list(f"'hands' [{seat}]", hand) for seat, hand in enumerate(hands)]]
    key = record.get("key", 0)
    if not _is_int(key) or not 0 <= key < 2**64:
        raise RecordError(f"record field 'key' must be an integer in 0..2**64 - 1, got {key!r}")
    decisions = _decisions(record)
    # The game key seeds what the record does not list (the two-player exchange draws, face-up cards).
    engine.start_matches(state, np.array([0]), np.array([key], dtype=np.uint64), **start)
    for k, (seat, action) in enumerate(decisions):
        if state.phase[0] == OVER or int(state.to_move[0]) != seat:
            raise RecordError(f"record action {k} is by seat {seat}, but it is not that seat's turn")
        result = engine.step(state, np.array([action]))
        if result.hand_done[0]:
            if k != len(decisions) - 1:
                raise RecordError(f"the hand ended at action {k}, before the record's last action")
            return hand_records(engine, result.finished[0])[0]
    raise RecordError(f"record ends before the hand is over ({len(decisions)} actions)")


def verify(record: dict[str, Any]) -> None:
    """Replay a record and raise ``RecordError`` naming the first field that is missing, unknown or differs.

    A record is valid only if it holds every field a replay produces, no other, each equal
    to the replayed one.
    """
    again = replay(record)
    for key in again:
        if key not in record:
            raise RecordError(f"record field {key!r} is missing")
    unknown = sorted(set(record) - set(again))
    if unknown:
        raise RecordError(f"record field(s) {unknown} are not fields of a hand record; fields: {list(again)}")
    for key, value in again.items():
        if _canonical(record[key]) != _canonical(value):  # 1.0 is not 1, nor True 1
            raise RecordError(f"record field {key!r} differs on replay: recorded {record[key]}, replayed {value}")
