"""What the API sends: action entries, the view of one seat (never a card it may not see), full frames.

``player_view`` builds the JSON of one seat of a game in progress from the engine
state: its own hand (once it has looked), the cards played, face-up cards, the
two-player card it was shown and its own discards, in a game with passing (Hearts) the cards it
passed and received. Other seats' cards, the pile, others' discards and passes never enter it.
``frame`` is the spectator's view of a replay: every hand face up.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spades_env import cards
from spades_env.engine import OVER, PHASE_NAMES, FinishedHands, SpadesEngine
from train.serve.table import Step, Table


def names(mask: int) -> list[str]:
    """Card names of a card bitmask, in id order."""
    return [cards.card_name(c) for c in cards.mask_to_cards(int(mask))]


def action_entry(engine: SpadesEngine, phase: int, action: int) -> dict[str, Any]:
    """``{"id", "label", "kind", "card", "bid"}`` of one action id in ``phase``: ``kind`` is ``card``, ``pass``,
    ``bid``, or a special action's name as its game declares it (``GameSpec.special_actions``: ``look``...)."""
    lay = engine.layout
    a = int(action)
    entry: dict[str, Any] = {"id": a, "label": lay.describe(a), "kind": "other", "card": None, "bid": None}
    if 0 <= a < lay.n_card_ids:
        card = cards.card_name(a)
        entry["card"] = card
        verb = engine.spec.hidden_card_verb(phase)  # a pass, a card given up: else a card played
        entry["kind"] = "pass" if phase == engine.spec.pass_phase else "card"
        if verb is not None:
            entry["label"] = f"{verb} {card}"
    elif lay.bid_offset <= a < lay.bid_end:
        entry.update(kind="bid", bid=a - lay.bid_offset)
    elif a < lay.n_actions:
        entry["kind"] = lay.specials[a - lay.bid_end]
    return entry


def event_entry(engine: SpadesEngine, step: Step, viewer: int | None) -> dict[str, Any]:
    """``{"seat", "action", "label"}`` of a decision; a card another seat passed or gave up is hidden."""
    verb = engine.spec.hidden_card_verb(step.phase)
    if viewer is not None and step.seat != viewer and verb is not None:
        if step.action < engine.layout.n_card_ids:
            return {"seat": step.seat, "action": None, "label": f"{verb} a card"}
    return {"seat": step.seat, "action": step.action, "label": action_entry(engine, step.phase, step.action)["label"]}


def contract_fields(engine: SpadesEngine, src: Any) -> dict[str, Any]:
    """The bids, blind nils and bags of the one game of ``src`` (a B = 1 state, or the FinishedHands of a B = 1
    step); in a game without bidding (``rules.has_bidding`` False: Hearts) no bids, no blind nil and no bags."""
    n, s = engine.n_players, engine.n_sides
    if not engine.rules.has_bidding:
        return {"bids": [None] * n, "blind": [False] * n, "bags": [0] * s}
    bids = [None if b < 0 else int(b) for b in src.bids[0]]
    return {"bids": bids, "blind": src.blind[0].tolist(), "bags": src.bags[0].tolist()}


def finished_breakdown(engine: SpadesEngine, f: FinishedHands) -> dict[str, Any]:
    """The score breakdown of the one hand in ``f`` (a FinishedHands of a B = 1 step): per seat
    bids, tricks and nils; per side points, bags added, bag penalties, scores and bags (no bids, nils or bags in a
    game without bidding)."""
    contract = contract_fields(engine, f)
    bidding, n, s = engine.rules.has_bidding, engine.n_players, engine.n_sides
    out: dict[str, Any] = {
        "bids": contract["bids"],
        "tricks_won": f.tricks_won[0].tolist(),
        "start_scores": f.start_scores[0].tolist(),
        "points": f.delta[0].tolist(),
        "scores": f.scores[0].tolist(),
        "bags": contract["bags"],
        "bags_added": f.bags_added[0].tolist() if bidding else [0] * s,
        "bag_penalties": f.bag_penalties[0].tolist() if bidding else [0] * s,
        "nil": [
            {"blind": contract["blind"][k], "made": bool(f.nil_made[0, k])} if contract["bids"][k] == 0 else None
            for k in range(n)
        ],
    }
    if engine.spec.card_points(engine.rules) is not None:  # the cards taken carry points (Hearts)
        out["points_taken"] = f.points_taken[0].tolist()
    return out


def table_fields(table: Table, finished: FinishedHands | None) -> dict[str, Any]:
    """What every seat sees: phase, turn, trick, bids, tricks, scores (of the finished hand if given)."""
    engine, s = table.engine, table.state
    over = int(s.phase[0]) == OVER
    contract = contract_fields(engine, s if finished is None else finished)
    if finished is not None:
        return {
            "hand_number": int(finished.hand_number[0]) + 1,
            "dealer": int(finished.dealer[0]),
            "phase": "match_over" if over else "hand_over",
            "to_play": None,
            "trick": [],
            "last_trick": table.last_trick,
            "bids": contract["bids"],
            "blind": contract["blind"],
            "tricks_won": finished.tricks_won[0].tolist(),
            "hand_sizes": [0] * engine.n_players,
            "scores": finished.scores[0].tolist(),
            "bags": contract["bags"],
            "spades_broken": _broken(engine, finished),
            "winner": int(s.winner[0]) if over else None,
        }
    held = [len(cards.mask_to_cards(int(h))) for h in s.hands[0]]
    return {
        "hand_number": int(s.hand_number[0]) + 1,
        "dealer": int(s.dealer[0]),
        "phase": "match_over" if over else PHASE_NAMES[int(s.phase[0])],
        "to_play": None if over else int(s.to_move[0]),
        "trick": table.trick(),
        "last_trick": table.last_trick,
        "bids": contract["bids"],
        "blind": contract["blind"],
        "tricks_won": s.tricks_won[0].tolist(),
        "hand_sizes": held,
        "scores": s.scores[0].tolist(),
        "bags": contract["bags"],
        "spades_broken": bool(s.spades_broken[0]),
        "winner": int(s.winner[0]) if over and int(s.winner[0]) >= 0 else None,
    }


def _broken(engine: SpadesEngine, f: FinishedHands) -> bool:
    """Whether a card of the suit that must be broken (spades; Hearts: hearts) was played in the hand."""
    played = cards.cards_to_mask(int(c) for c in f.history[0].reshape(-1) if c >= 0)
    return bool(np.uint64(played) & engine.broken_mask)


def received_mask(engine: SpadesEngine, state, seat: int) -> int:
    """A game with passing (Hearts): the cards passed to ``seat`` this hand, once every seat has passed (0 before)."""
    if not engine.rules.has_passing or int(state.phase[0]) == engine.spec.pass_phase:
        return 0
    offset = int(engine.pass_offset(state.hand_number[:1])[0])
    if not offset:
        return 0
    return int(state.passed[0, (seat - offset) % engine.n_players])


def player_view(table: Table, seat: int, finished: FinishedHands | None) -> dict[str, Any]:
    """The fields of the view that depend on the seat: its hand, its legal actions, its private cards.

    ``finished``: the hand just ended (the view of ``hand_over``/``match_over``): no cards are held.
    """
    engine, s = table.engine, table.state
    rules = engine.rules
    out = table_fields(table, finished)
    out.update(hand=[], face_up={}, draw_card=None, legal=[], passed=[], received=[], discards=[])
    if finished is not None:
        out["hand_result"] = finished_breakdown(engine, finished)
        if rules.has_passing:
            passed = [int(p) for p in finished.passed[0]]
            offset = int(engine.pass_offset(finished.hand_number)[0])
            out["passed"] = names(passed[seat])
            out["received"] = names(passed[(seat - offset) % engine.n_players]) if offset else []
        return out
    out["hand_result"] = None
    phase = int(s.phase[0])
    if phase == OVER:
        return out
    if not engine.rules.has_bidding or s.looked[0, seat]:  # (only a bidding game has a blind nil still open)
        out["hand"] = names(s.hands[0, seat])
    if engine.spec.face_up_deal(rules):
        out["face_up"] = {str(k): names(s.face_up[0, k] & s.hands[0, k]) for k in range(engine.n_players)}
    if rules.two_player:
        if int(s.shown[0]) >= 0 and int(s.to_move[0]) == seat:  # the drawer sees the card shown
            out["draw_card"] = cards.card_name(int(s.shown[0]))
        out["discards"] = names(int(s.discards[0, seat]) | int(s.exchanged_out[0, seat]))
    if rules.has_passing:
        out["passed"] = names(s.passed[0, seat])
        out["received"] = names(received_mask(engine, s, seat))
    if int(s.to_move[0]) == seat:
        out["legal"] = [action_entry(engine, phase, a) for a in table.legal()]
    return out


def frame(table: Table, step: Step | None, finished: FinishedHands | None) -> dict[str, Any]:
    """A spectator's frame of a replay: every hand face up, after ``step`` (None: the deal)."""
    engine, s = table.engine, table.state
    out = table_fields(table, finished)
    out["event"] = None if step is None else event_entry(engine, step, None)
    n = engine.n_players
    if finished is not None:
        out["hands"] = [[] for _ in range(n)]
        out["hand_result"] = finished_breakdown(engine, finished)
        if engine.rules.has_passing:
            out["passed"] = [names(p) for p in finished.passed[0]]
        return out
    out["hands"] = [names(h) for h in s.hands[0]]
    out["hand_result"] = None
    if engine.spec.face_up_deal(engine.rules):
        out["face_up"] = {str(k): names(s.face_up[0, k] & s.hands[0, k]) for k in range(n)}
    if engine.rules.has_passing:
        out["passed"] = [names(p) for p in s.passed[0]]
    if engine.rules.two_player:
        out["shown"] = cards.card_name(int(s.shown[0])) if int(s.shown[0]) >= 0 else None
        out["discards"] = [names(int(d) | int(x)) for d, x in zip(s.discards[0], s.exchanged_out[0], strict=True)]
        out["pile_left"] = engine.pile_size - int(s.pile_pos[0])
    return out
