"""Text rendering of one game of a batched state: hands with suit symbols, bids, tricks, scores."""

from __future__ import annotations

from spades_env import cards
from spades_env.engine import PHASE_NAMES, SpadesEngine
from spades_env.engine.state import OVER, GameState


def render_text(engine: SpadesEngine, state: GameState, game: int = 0) -> str:
    """A spectator's view of game ``game`` (every hand shown) as a few lines of text."""
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
    if int(state.n_in_trick[g]):
        leader = int(state.leader[g])
        played = [(leader + k) % n for k in range(int(state.n_in_trick[g]))]
        trick = ", ".join(f"player_{s} {cards.card_name(int(state.trick[g, s]), symbols=True)}" for s in played)
        lines.append(f"  trick: {trick}")
    spades = "broken" if state.spades_broken[g] else "not broken"
    lines.append(f"  tricks played {int(state.n_tricks[g])}/{engine.hand_size}, spades {spades}")
    sides = ", ".join(
        f"side {s}: {int(state.scores[g, s])} ({int(state.bags[g, s])} bags)" for s in range(engine.n_sides)
    )
    lines.append(f"  scores (target {rules.target_score}): {sides}")
    if phase == OVER and int(state.winner[g]) >= 0:
        lines.append(f"  match over: side {int(state.winner[g])} wins")
    return "\n".join(lines)
