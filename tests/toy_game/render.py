"""Tricks as text: a game in progress (``render_state``) and a finished hand (``render_finished_hand``)."""

from __future__ import annotations

from spades_env import cards
from spades_env.core.phases import OVER, SHARED_PHASE_NAMES
from spades_env.core.text import finished_trick_lines, side_name, trick_lines


def render_state(facts, state, game: int = 0) -> str:
    """The hands, the tricks taken this hand, the trick in progress and the scores."""
    g, n = int(game), facts.n_players
    phase = int(state.phase[g])
    head = f"Tricks [{facts.rules.name}] hand {int(state.hand_number[g]) + (phase != OVER)}"
    lines = [f"{head}, dealer player_{int(state.dealer[g])}, phase {SHARED_PHASE_NAMES[phase]}"]
    for seat in range(n):
        mark = ">" if phase != OVER and seat == int(state.to_move[g]) else " "
        hand = cards.format_hand(int(state.hands[g, seat]))
        lines.append(f"{mark} player_{seat}: tricks {int(state.tricks_won[g, seat]):2d}  {hand}")
    lines.extend(trick_lines(state, g, n))
    sides = ", ".join(f"side {s}: {int(state.scores[g, s])}" for s in range(facts.n_sides))
    lines.append(f"  scores (match ends at {facts.rules.target_score}): {sides}")
    if phase == OVER and int(state.winner[g]) >= 0:
        lines.append(f"  match over: side {int(state.winner[g])} wins")
    return "\n".join(lines)


def render_finished_hand(facts, number: int, f, i: int) -> list[str]:
    """The hands as dealt, the tricks and each side's points and score."""
    n, dealer = facts.n_players, int(f.dealer[i])
    lines = [f"--- hand {number}: dealer seat {dealer} ---"]
    lines += [f"  seat {seat}: {cards.format_hand(int(f.deal[i, seat]))}" for seat in range(n)]
    lines += finished_trick_lines(f, i, n, (dealer + 1) % n)
    for side in range(facts.n_sides):
        lines.append(f"  {side_name(facts.rules, side)}: {int(f.delta[i, side]):+d} -> score {int(f.scores[i, side])}")
    return lines
