"""Text helpers every game's rendering shares (``games/*/render.py``): the trick in progress, a side's name and
the rows of a finished hand's tricks."""

from __future__ import annotations

from spades_env import cards


def trick_lines(state, g: int, n: int) -> list[str]:
    """The trick in progress of game ``g``, in play order, or nothing before the lead."""
    if not int(state.n_in_trick[g]):
        return []
    leader = int(state.leader[g])
    played = [(leader + k) % n for k in range(int(state.n_in_trick[g]))]
    trick = ", ".join(f"player_{s} {cards.card_name(int(state.trick[g, s]), symbols=True)}" for s in played)
    return [f"  trick: {trick}"]


def side_name(rules, side: int) -> str:
    """``team 0 (seats 0+2)`` in partnership, else ``seat 3``."""
    if rules.partnership:
        return f"team {side} (seats {side}+{side + 2})"
    return f"seat {side}"


def finished_trick_lines(f, i: int, n: int, leader: int) -> list[str]:
    """One line per trick of finished hand ``i`` of ``f`` (a ``FinishedHands``): who led, the cards, the winner."""
    lines = []
    for t in range(f.history.shape[1]):
        seats = [(leader + k) % n for k in range(n)]
        played = "  ".join(f"{cards.card_name(int(f.history[i, t, s]), symbols=True):>3}" for s in seats)
        winner = int(f.trick_winners[i, t])
        lines.append(f"  trick {t + 1:2d}: seat {leader} leads  {played}  -> seat {winner}")
        leader = winner
    return lines
