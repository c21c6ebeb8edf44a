"""Spades as text: a spectator's view of a game in progress (``render_state``, the AEC env's ``render()``) and a
finished hand for the golden playthroughs (``render_finished_hand``, ``spades_env.playthrough``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from spades_env import cards
from spades_env.core.phases import LOWEST_CLUB_LEAD, OVER, SHARED_PHASE_NAMES
from spades_env.core.text import finished_trick_lines, side_name, trick_lines
from spades_env.games.spades.params import DRAW, PHASE_NAMES

if TYPE_CHECKING:
    from spades_env.core.table_facts import TableFacts
    from spades_env.engine.results import FinishedHands
    from spades_env.engine.state import GameState

BEMO_NAMES = ("no Bemo", "little Bemo", "big Bemo")
_PHASE_NAMES = {**SHARED_PHASE_NAMES, **PHASE_NAMES}


def phase_name(phase: int) -> str:
    """The name of a Spades phase code (``bid``, ``play``...)."""
    return _PHASE_NAMES[phase]


def render_state(facts: TableFacts, state: GameState, game: int = 0) -> str:
    """A spectator's view of Spades game ``game`` (every hand shown) as a few lines of text."""
    g = int(game)
    rules = facts.rules
    n = facts.n_players
    phase = int(state.phase[g])
    head = f"Spades [{rules.name}] hand {int(state.hand_number[g]) + (phase != OVER)}"
    head += f", dealer player_{int(state.dealer[g])}, phase {phase_name(phase)}"
    if phase != OVER:
        head += f", to move player_{int(state.to_move[g])}"
    lines = [head]
    for seat in range(n):
        bid = int(state.bids[g, seat])
        if state.blind[g, seat]:
            bid_text = "blind nil"
        elif bid == 0:
            bid_text = "nil"
        elif bid > 0:
            bid_text = f"bid {bid}"
        else:
            bid_text = "no bid"
        mark = ">" if phase != OVER and seat == int(state.to_move[g]) else " "
        hidden = "" if state.looked[g, seat] else "  (not looked)"
        side = int(facts.side_of_seat[seat])
        tricks = int(state.tricks_won[g, seat])
        hand = cards.format_hand(int(state.hands[g, seat]))
        lines.append(f"{mark} player_{seat} (side {side}): {bid_text:9s} tricks {tricks:2d}  {hand}{hidden}")
        face_up = int(state.face_up[g, seat]) & int(state.hands[g, seat])
        if face_up:
            lines.append(f"      face up: {cards.format_hand(face_up)}")
        if rules.two_player and (int(state.discards[g, seat]) or int(state.exchanged_out[g, seat])):
            lines.append(
                f"      discards: {cards.format_hand(int(state.discards[g, seat]))}"
                + (
                    f"; exchanged away: {cards.format_hand(int(state.exchanged_out[g, seat]))}"
                    if int(state.exchanged_out[g, seat])
                    else ""
                )
            )
    if rules.two_player and phase != OVER:
        left = facts.pile_size - int(state.pile_pos[g])
        shown = f", showing {cards.card_name(int(state.shown[g]), symbols=True)}" if phase == DRAW else ""
        lines.append(f"  pile: {left} cards left{shown}")
    if rules.bemo and (state.bemo[g] >= 0).any():
        declared = [f"side {s}: {BEMO_NAMES[b]}" for s, b in enumerate(state.bemo[g].tolist()) if b >= 0]
        lines.append("  Bemo: " + ", ".join(declared))
    if int(state.n_redeals[g]):
        lines.append(f"  redeals this hand (weak hands shown): {int(state.n_redeals[g])}")
    if phase != OVER and int(state.led_suit[g]) == LOWEST_CLUB_LEAD:
        lines.append(f"  first lead: the {cards.card_name(facts.lowest_club, symbols=True)}")
    lines.extend(trick_lines(state, g, n))
    spades = "broken" if state.spades_broken[g] else "not broken"
    lines.append(f"  tricks played {int(state.n_tricks[g])}/{facts.hand_size}, spades {spades}")
    sides = ", ".join(
        f"side {s}: {int(state.scores[g, s])} ({int(state.bags[g, s])} bags)" for s in range(facts.n_sides)
    )
    lines.append(f"  scores (target {rules.target_score}): {sides}")
    if phase == OVER and int(state.winner[g]) >= 0:
        lines.append(f"  match over: side {int(state.winner[g])} wins")
    return "\n".join(lines)


def _bid_text(bid: int, blind: bool) -> str:
    if blind:
        return "blind nil"
    return "nil" if bid == 0 else str(bid)


def render_finished_hand(facts: TableFacts, number: int, f: FinishedHands, i: int) -> list[str]:
    """A finished Spades hand for a playthrough: the deal, the bids, each trick, the points, scores and bags."""
    rules = facts.rules
    n = rules.n_players
    dealer = int(f.dealer[i])
    lines = [f"--- hand {number}: dealer seat {dealer}, seat {(dealer + 1) % n} bids and leads first ---"]
    for seat in range(n):
        lines.append(f"  seat {seat}: {cards.format_hand(int(f.deal[i, seat]))}")
    order = [(dealer + k) % n for k in range(1, n + 1)]
    lines.append("  bids: " + ", ".join(f"seat {s} {_bid_text(int(f.bids[i, s]), bool(f.blind[i, s]))}" for s in order))
    lines += finished_trick_lines(f, i, n, (dealer + 1) % n)
    lines.append("  tricks taken: " + ", ".join(f"seat {s} {int(f.tricks_won[i, s])}" for s in range(n)))
    for side in range(rules.n_sides):
        lines.append(
            f"  {side_name(rules, side)}: {int(f.delta[i, side]):+d} -> score {int(f.scores[i, side])}, "
            f"bags {int(f.bags[i, side])}"
        )
    return lines
