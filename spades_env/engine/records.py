"""Game records: every finished hand as JSON, and replaying a record through the engine.

A record holds the rules, dealer, dealt hands, starting scores and bags, the
decisions in order (blind-nil choices, bids, plays with seats; in Hearts the cards
passed, then the plays), the tricks with their winners, and the result (tricks taken,
points, scores and bags; in Hearts also the cards passed and the points taken).

It holds what the hand drew besides the deal too (the two-player pile and blind-nil
exchange draws, the face-up cards), so that it replays on its own; and it is named by its
``hand_key`` (``core.hashing.hand_key`` of the match key and the hand number), never by
the match key, which deals every hand of the match: nothing in a record gives away a later
deal. Whoever holds the match key checks that a record is of that match (``verify``).

Version 1 records (named by the match key, ``"key"``; they replay their draws from it)
still replay and verify.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from spades_env import cards
from spades_env.core import hashing
from spades_env.engine.core import FinishedHands, SpadesEngine
from spades_env.engine.results import StepResult
from spades_env.engine.state import OVER

RECORD_VERSION = 2
#: The record versions ``replay`` reads (1: named by the match key, which seeds its draws).
READ_VERSIONS = (1, 2)
#: The fields of a version 2 record that version 1 records lack (they hold ``"key"`` instead).
_VERSION_2_FIELDS = ("hand_key", "exchange_draws", "face_up")


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
    deal, extra = game.record_decisions(engine.facts, f, i, add)
    leader = (dealer + 1) % n
    if engine.club_leads:
        leader = next(s for s in range(n) if (int(f.deal[i, s]) >> engine.lowest_club) & 1)
    game.record_declarations(engine.facts, f, i, leader, add)
    tricks = []
    for t in range(engine.hand_size):
        order = [(leader + k) % n for k in range(n)]
        played = [int(f.history[i, t, seat]) for seat in order]
        winner = int(f.trick_winners[i, t])
        tricks.append({"leader": leader, "cards": [cards.card_name(c) for c in played], "winner": winner})
        for seat, c in zip(order, played, strict=True):
            actions.append({"seat": seat, "action": c, "name": lay.describe(c)})
        leader = winner
    extra.update(game.record_result(engine.facts, f, i))
    contract = game.record_contract(engine.facts, f, i)
    return {
        "version": RECORD_VERSION,
        "rules": engine.rules.to_dict(),
        "hand_key": int(f.hand_key[i]),
        "hand_number": int(f.hand_number[i]),
        "dealer": dealer,
        **extra,
        "hands": [[cards.card_name(c) for c in cards.mask_to_cards(int(h))] for h in deal],
        "start_scores": f.start_scores[i].tolist(),
        "start_bags": contract["start_bags"],
        "bids": contract["bids"],
        "blind_nil": contract["blind_nil"],
        "actions": actions,
        "tricks": tricks,
        "tricks_won": f.tricks_won[i].tolist(),
        "points": f.delta[i].tolist(),
        "scores": f.scores[i].tolist(),
        "bags": contract["bags"],
    }


def hand_key(match_key: int, hand_number: int) -> int:
    """The ``hand_key`` of the records of hand ``hand_number`` of the match of ``match_key`` (a game's key:
    ``dealing.game_keys`` of its seed)."""
    return int(hashing.hand_key(np.uint64(match_key), np.int64(hand_number)))


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


def _uint64_field(record: dict[str, Any], name: str) -> int:
    value = _field(record, name)
    if not _is_int(value) or not 0 <= value < 2**64:
        raise RecordError(f"record field {name!r} must be an integer in 0..2**64 - 1, got {value!r}")
    return value


def _seat_masks(record: dict[str, Any], name: str, n_players: int) -> list[int]:
    """The card masks of a field that lists cards per seat (``[["AS", ...], ...]``)."""
    per_seat = _field(record, name)
    if not isinstance(per_seat, list) or len(per_seat) != n_players:
        raise RecordError(
            f"record field {name!r} must list the cards of each of the {n_players} seats, got {per_seat!r}"
        )
    return [cards.cards_to_mask(_card_list(f"{name!r} [{seat}]", c)) for seat, c in enumerate(per_seat)]


class HandReplay:
    """A hand record's hand, set up in a one-game state to be played again decision by decision.

    ``step(action)`` applies the next decision. The engine would draw from the match key where the
    hand draws besides the deal (the two-player blind-nil exchange); a version 2 record, which has no
    match key, lists those draws, and ``step`` sets the game key under which the engine draws them
    (``GameSpec.replay_key``; a seat's draws in card order: the order changes none of the hand). A
    version 1 record replays them from its ``"key"``.
    Raises ``RecordError`` naming the field if the record lacks what a replay needs.
    """

    def __init__(self, record: dict[str, Any], engine: SpadesEngine | None = None) -> None:
        from spades_env.rules import Rules

        if not isinstance(record, dict):
            raise RecordError(f"a record is a mapping of fields, got {type(record).__name__}")
        self.version = _field(record, "version")
        if not _is_int(self.version) or self.version not in READ_VERSIONS:
            raise RecordError(f"record field 'version' must be one of {list(READ_VERSIONS)}, got {self.version!r}")
        if engine is None:
            rules = _field(record, "rules")
            if not isinstance(rules, dict):
                raise RecordError(f"record field 'rules' must be a mapping of rules fields, got {type(rules).__name__}")
            engine = SpadesEngine(Rules.from_dict(rules, source="record field 'rules'"))
        self.engine = engine
        self.record = record
        self.state = engine._empty(1)
        self.draws: list[int] | None = None
        """Version 2, two-player: the cards each seat drew in the blind-nil exchange (masks)."""
        if self.version == 1:  # the match key, or 0 where the web table left it out (it seeds the draws)
            self.key = _uint64_field(record, "key") if "key" in record else 0
        else:
            self.key = 0
            self.hand_key = _uint64_field(record, "hand_key")
        start = self._starts()
        self.decisions = _decisions(record)
        engine.start_matches(self.state, np.array([0]), np.array([self.key], dtype=np.uint64), **start)

    def _starts(self) -> dict[str, Any]:
        """The ``start_matches`` overrides of the recorded hand."""
        record, engine = self.record, self.engine
        start = {"dealers": [_field(record, "dealer")], "scores": [_field(record, "start_scores")]}
        bags = _field(record, "start_bags")  # every record has them (layout version 2); 0 in a game without bags
        if "bags" in engine.spec.start_options:
            start["bags"] = [bags]
        elif not isinstance(bags, list) or any(b != 0 for b in bags):
            raise RecordError(f"record field 'start_bags' must be 0 for each side in {engine.rules.game}, got {bags!r}")
        if "hand_number" in record:  # it sets the Hearts pass (and seeds version 1's draws with the key)
            start["hand_numbers"] = [record["hand_number"]]
        if engine.rules.two_player:
            start["piles"] = [_card_list("'pile'", _field(record, "pile"))]
            if self.version == 2:
                self.draws = _seat_masks(record, "exchange_draws", engine.n_players)
            return start
        hands = _field(record, "hands")
        if not isinstance(hands, list):
            raise RecordError(f"record field 'hands' must be a list of hands, got {type(hands).__name__}")
        start["deals"] = [[_card_list(f"'hands' [{seat}]", hand) for seat, hand in enumerate(hands)]]
        if self.version == 2 and engine.spec.face_up_cards(engine.rules):
            start["face_ups"] = np.array([_seat_masks(record, "face_up", engine.n_players)], dtype=np.uint64)
        return start

    def step(self, action: int) -> StepResult:
        """Apply ``action`` for the seat to move, with the recorded draws (version 2)."""
        engine, state = self.engine, self.state
        if self.draws is not None:
            try:
                key = engine.spec.replay_key(engine.facts, state, action, self.draws)
            except ValueError as err:
                raise RecordError(f"record field 'exchange_draws': {err}") from None
            if key is not None:
                state.key[0] = key
        return engine.step(state, np.array([action]))

    def record_of(self, finished: FinishedHands) -> dict[str, Any]:
        """The record of the replayed hand (``finished``: its ``StepResult.finished[0]``), in the version
        of the record replayed, named as that record names it (only the match key's holder checks that)."""
        again = hand_records(self.engine, finished)[0]
        if self.version == 2:
            again["hand_key"] = self.hand_key
            return again
        again = {k: v for k, v in again.items() if k not in _VERSION_2_FIELDS}
        return {**again, "version": 1, "key": self.key}


def replay(record: dict[str, Any], engine: SpadesEngine | None = None) -> dict[str, Any]:
    """Play a record's decisions through the engine and return the record it produces.

    Raises ``IllegalActionError`` if a recorded decision is illegal and ``RecordError``
    (a ``ValueError``) naming the field if the record lacks what a replay needs, holds a
    non-integer seat or action id, or is not a whole hand. Compare the result with the
    input (see ``verify``) to re-score a record.
    """
    hand = HandReplay(record, engine)
    state, decisions = hand.state, hand.decisions
    for k, (seat, action) in enumerate(decisions):
        if state.phase[0] == OVER or int(state.to_move[0]) != seat:
            raise RecordError(f"record action {k} is by seat {seat}, but it is not that seat's turn")
        result = hand.step(action)
        if result.hand_done[0]:
            if k != len(decisions) - 1:
                raise RecordError(f"the hand ended at action {k}, before the record's last action")
            return hand.record_of(result.finished[0])
    raise RecordError(f"record ends before the hand is over ({len(decisions)} actions)")


def verify(record: dict[str, Any], match_key: int | None = None) -> None:
    """Replay a record and raise ``RecordError`` naming the first field that is missing, unknown or differs.

    A record is valid only if it holds every field a replay produces, no other, each equal
    to the replayed one. With ``match_key`` (the game's key) a version 2 record must also carry the
    ``hand_key`` of that match's hand (a version 1 record, its ``key``): it is of that match.
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
    if match_key is not None:
        version_1 = record["version"] == 1
        name = "key" if version_1 else "hand_key"
        if record[name] != (match_key if version_1 else hand_key(match_key, record["hand_number"])):
            raise RecordError(f"record field {name!r} is not that of hand {record['hand_number']} of this match key")
