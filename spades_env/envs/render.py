"""Text rendering of one game of a batched state: hands with suit symbols, bids, tricks, scores."""

from __future__ import annotations

from spades_env import cards
from spades_env.engine import PHASE_NAMES, SpadesEngine
from spades_env.engine.state import DRAW, LOWEST_CLUB_LEAD, OVER, GameState

BEMO_NAMES = ("no Bemo", "little Bemo", "big Bemo")


def _trick_lines(state, g: int, n: int) -> list[str]:
    """The trick in progress, in play order, or nothing before the lead."""
    if not int(state.n_in_trick[g]):
        return []
    leader = int(state.leader[g])
    played = [(leader + k) % n for k in range(int(state.n_in_trick[g]))]
    trick = ", ".join(f"player_{s} {cards.card_name(int(state.trick[g, s]), symbols=True)}" for s in played)
    return [f"  trick: {trick}"]


def render_text(engine: SpadesEngine, state: GameState, game: int = 0) -> str:
    """A spectator's view of game ``game`` (every hand shown) as a few lines of text."""
    if engine.rules.hearts:
        return render_hearts(engine, state, game)
    g = int(game)
    rules = engine.rules
    n = engine.n_players
    phase = int(state.phase[g])
    head = f"Spades [{rules.name}] hand {int(state.hand_number[g]) + (phase != OVER)}"
    head += f", dealer player_{int(state.dealer[g])}, phase {PHASE_NAMES[phase]}"
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
        side = int(engine.side_of_seat[seat])
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
        left = engine.pile_size - int(state.pile_pos[g])
        shown = f", showing {cards.card_name(int(state.shown[g]), symbols=True)}" if phase == DRAW else ""
        lines.append(f"  pile: {left} cards left{shown}")
    if rules.bemo and (state.bemo[g] >= 0).any():
        declared = [f"side {s}: {BEMO_NAMES[b]}" for s, b in enumerate(state.bemo[g].tolist()) if b >= 0]
        lines.append("  Bemo: " + ", ".join(declared))
    if int(state.n_redeals[g]):
        lines.append(f"  redeals this hand (weak hands shown): {int(state.n_redeals[g])}")
    if phase != OVER and int(state.led_suit[g]) == LOWEST_CLUB_LEAD:
        lines.append(f"  first lead: the {cards.card_name(engine.lowest_club, symbols=True)}")
    lines.extend(_trick_lines(state, g, n))
    spades = "broken" if state.spades_broken[g] else "not broken"
    lines.append(f"  tricks played {int(state.n_tricks[g])}/{engine.hand_size}, spades {spades}")
    sides = ", ".join(
        f"side {s}: {int(state.scores[g, s])} ({int(state.bags[g, s])} bags)" for s in range(engine.n_sides)
    )
    lines.append(f"  scores (target {rules.target_score}): {sides}")
    if phase == OVER and int(state.winner[g]) >= 0:
        lines.append(f"  match over: side {int(state.winner[g])} wins")
    return "\n".join(lines)


def render_hearts(engine: SpadesEngine, state: GameState, game: int = 0) -> str:
    """Hearts: hands, the pass, points taken this hand and the scores (lower is better) [RULES 7]."""
    from spades_env.engine.core import PASS_NAMES

    g = int(game)
    rules, n = engine.rules, engine.n_players
    phase = int(state.phase[g])
    number = int(state.hand_number[g])
    direction = PASS_NAMES[number % 4] if phase != OVER else "-"
    head = f"Hearts [{rules.name}] hand {number + (phase != OVER)}, pass {direction}"
    head += f", dealer player_{int(state.dealer[g])}, phase {PHASE_NAMES[phase]}"
    if phase != OVER:
        head += f", to move player_{int(state.to_move[g])}"
    lines = [head]
    for seat in range(n):
        mark = ">" if phase != OVER and seat == int(state.to_move[g]) else " "
        side = int(engine.side_of_seat[seat])
        points, tricks = int(state.points_taken[g, seat]), int(state.tricks_won[g, seat])
        hand = cards.format_hand(int(state.hands[g, seat]))
        lines.append(f"{mark} player_{seat} (side {side}): points {points:3d} tricks {tricks:2d}  {hand}")
        if int(state.passed[g, seat]):
            lines.append(f"      passes: {cards.format_hand(int(state.passed[g, seat]))}")
    lines.extend(_trick_lines(state, g, n))
    broken = "broken" if state.spades_broken[g] else "not broken"
    lines.append(f"  tricks played {int(state.n_tricks[g])}/{engine.hand_size}, hearts {broken}")
    sides = ", ".join(f"side {s}: {int(state.scores[g, s])}" for s in range(engine.n_sides))
    lines.append(f"  scores (match ends at {rules.target_score}, lowest wins): {sides}")
    if phase == OVER and int(state.winner[g]) >= 0:
        lines.append(f"  match over: side {int(state.winner[g])} wins")
    return "\n".join(lines)
