"""Hearts as text: a spectator's view of a game in progress (``render_state``) and a finished hand for the golden
playthroughs (``render_finished_hand``): hands, the pass, points taken and the scores (lower is better) [RULES 7]."""

from __future__ import annotations

from typing import TYPE_CHECKING

from spades_env import cards
from spades_env.core.phases import OVER, SHARED_PHASE_NAMES
from spades_env.core.text import finished_trick_lines, side_name, trick_lines
from spades_env.games.hearts.phases import PHASE_NAMES
from spades_env.games.hearts.scoring import cards_taken, score_hearts_hand
from spades_env.games.hearts.spec import PASS_NAMES

if TYPE_CHECKING:
    from spades_env.core.table_facts import TableFacts
    from spades_env.engine.results import FinishedHands
    from spades_env.engine.state import GameState

_PHASE_NAMES = {**SHARED_PHASE_NAMES, **PHASE_NAMES}


def phase_name(phase: int) -> str:
    """The name of a Hearts phase code (``pass``, ``play``, ``over``)."""
    return _PHASE_NAMES[phase]


def render_state(facts: TableFacts, state: GameState, game: int = 0) -> str:
    """Hearts: hands, the pass, points taken this hand and the scores (lower is better) [RULES 7]."""
    g = int(game)
    rules, n = facts.rules, facts.n_players
    phase = int(state.phase[g])
    number = int(state.hand_number[g])
    direction = PASS_NAMES[number % 4] if phase != OVER else "-"
    head = f"Hearts [{rules.name}] hand {number + (phase != OVER)}, pass {direction}"
    head += f", dealer player_{int(state.dealer[g])}, phase {phase_name(phase)}"
    if phase != OVER:
        head += f", to move player_{int(state.to_move[g])}"
    lines = [head]
    for seat in range(n):
        mark = ">" if phase != OVER and seat == int(state.to_move[g]) else " "
        side = int(facts.side_of_seat[seat])
        points, tricks = int(state.points_taken[g, seat]), int(state.tricks_won[g, seat])
        hand = cards.format_hand(int(state.hands[g, seat]))
        lines.append(f"{mark} player_{seat} (side {side}): points {points:3d} tricks {tricks:2d}  {hand}")
        if int(state.passed[g, seat]):
            lines.append(f"      passes: {cards.format_hand(int(state.passed[g, seat]))}")
    lines.extend(trick_lines(state, g, n))
    broken = "broken" if state.spades_broken[g] else "not broken"
    lines.append(f"  tricks played {int(state.n_tricks[g])}/{facts.hand_size}, hearts {broken}")
    sides = ", ".join(f"side {s}: {int(state.scores[g, s])}" for s in range(facts.n_sides))
    lines.append(f"  scores (match ends at {rules.target_score}, lowest wins): {sides}")
    if phase == OVER and int(state.winner[g]) >= 0:
        lines.append(f"  match over: side {int(state.winner[g])} wins")
    return "\n".join(lines)


def render_finished_hand(facts: TableFacts, number: int, f: FinishedHands, i: int) -> list[str]:
    """Hearts: the hands after the pass, the cards passed, the tricks, points and scores [RULES 7]."""
    rules, n = facts.rules, facts.n_players
    dealer = int(f.dealer[i])
    offset = int(facts.pass_offset(f.hand_number[i : i + 1])[0])
    direction = PASS_NAMES[int(f.hand_number[i]) % 4]
    lines = [f"--- hand {number}: dealer seat {dealer}, pass {direction}; hands after the pass ---"]
    for seat in range(n):
        passed = " ".join(cards.card_name(c, symbols=True) for c in cards.mask_to_cards(int(f.passed[i, seat])))
        note = f"  (passed {passed} to seat {(seat + offset) % n})" if passed else ""
        lines.append(f"  seat {seat}: {cards.format_hand(int(f.deal[i, seat]))}{note}")
    leader = next(s for s in range(n) if (int(f.deal[i, s]) >> facts.lowest_club) & 1)
    lines += finished_trick_lines(f, i, n, leader)
    score = score_hearts_hand(rules, cards_taken(f.history[i : i + 1], f.trick_winners[i : i + 1], n))
    moon = [s for s in range(n) if score.moon[0, s]]
    lines.append(
        "  points taken: "
        + ", ".join(f"seat {s} {int(f.points_taken[i, s])}" for s in range(n))
        + (f"; seat {moon[0]} shot the moon" if moon else "")
    )
    for side in range(rules.n_sides):
        lines.append(f"  {side_name(rules, side)}: {int(f.delta[i, side]):+d} -> score {int(f.scores[i, side])}")
    return lines
