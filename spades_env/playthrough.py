"""A seeded random-policy match written out as text (a golden playthrough).

``render_match(rules, seed, policy_seed)`` plays one match in the batched engine with
a uniformly random legal policy and writes every hand: the deal (suit symbols), the
blind-nil choices and bids (Hearts: the cards passed), each trick with its leader and
winner, the points, scores and bags (Hearts: points taken), and the match winner. Tests
diff it with a stored file, so any silent change
of the rules, the dealing or the action layout shows up as a readable diff.
"""

from __future__ import annotations

import numpy as np

from spades_env import cards
from spades_env.engine.core import PASS_NAMES, FinishedHands, SpadesEngine
from spades_env.engine.state import OVER
from spades_env.games.hearts.scoring import cards_taken, score_hearts_hand
from spades_env.rules import Rules, resolve_rules


def _changed_fields(rules: Rules) -> list[str]:
    """``field=value`` for each rule that differs from the game's defaults (new defaulted fields stay out)."""
    default = type(rules)().to_dict()
    changed = [f"{k}={v}" for k, v in rules.to_dict().items() if k != "name" and v != default.get(k)]
    return ["game=hearts"] + changed if rules.hearts else changed


def _side_name(rules: Rules, side: int) -> str:
    if rules.partnership:
        return f"team {side} (seats {side}+{side + 2})"
    return f"seat {side}"


def _bid_text(bid: int, blind: bool) -> str:
    if blind:
        return "blind nil"
    return "nil" if bid == 0 else str(bid)


def _render_hand(rules: Rules, number: int, f: FinishedHands, i: int) -> list[str]:
    n = rules.n_players
    dealer = int(f.dealer[i])
    lines = [f"--- hand {number}: dealer seat {dealer}, seat {(dealer + 1) % n} bids and leads first ---"]
    for seat in range(n):
        lines.append(f"  seat {seat}: {cards.format_hand(int(f.deal[i, seat]))}")
    order = [(dealer + k) % n for k in range(1, n + 1)]
    lines.append("  bids: " + ", ".join(f"seat {s} {_bid_text(int(f.bids[i, s]), bool(f.blind[i, s]))}" for s in order))
    leader = (dealer + 1) % n
    for t in range(f.history.shape[1]):
        seats = [(leader + k) % n for k in range(n)]
        played = "  ".join(f"{cards.card_name(int(f.history[i, t, s]), symbols=True):>3}" for s in seats)
        winner = int(f.trick_winners[i, t])
        lines.append(f"  trick {t + 1:2d}: seat {leader} leads  {played}  -> seat {winner}")
        leader = winner
    lines.append("  tricks taken: " + ", ".join(f"seat {s} {int(f.tricks_won[i, s])}" for s in range(n)))
    for side in range(rules.n_sides):
        lines.append(
            f"  {_side_name(rules, side)}: {int(f.delta[i, side]):+d} -> score {int(f.scores[i, side])}, "
            f"bags {int(f.bags[i, side])}"
        )
    return lines


def _render_hearts_hand(engine: SpadesEngine, number: int, f: FinishedHands, i: int) -> list[str]:
    """Hearts: the hands after the pass, the cards passed, the tricks, points and scores [RULES 7]."""
    rules, n = engine.rules, engine.n_players
    dealer = int(f.dealer[i])
    offset = int(engine.pass_offset(f.hand_number[i : i + 1])[0])
    direction = PASS_NAMES[int(f.hand_number[i]) % 4]
    lines = [f"--- hand {number}: dealer seat {dealer}, pass {direction}; hands after the pass ---"]
    for seat in range(n):
        passed = " ".join(cards.card_name(c, symbols=True) for c in cards.mask_to_cards(int(f.passed[i, seat])))
        note = f"  (passed {passed} to seat {(seat + offset) % n})" if passed else ""
        lines.append(f"  seat {seat}: {cards.format_hand(int(f.deal[i, seat]))}{note}")
    leader = next(s for s in range(n) if (int(f.deal[i, s]) >> engine.lowest_club) & 1)
    for t in range(f.history.shape[1]):
        seats = [(leader + k) % n for k in range(n)]
        played = "  ".join(f"{cards.card_name(int(f.history[i, t, s]), symbols=True):>3}" for s in seats)
        winner = int(f.trick_winners[i, t])
        lines.append(f"  trick {t + 1:2d}: seat {leader} leads  {played}  -> seat {winner}")
        leader = winner
    score = score_hearts_hand(rules, cards_taken(f.history[i : i + 1], f.trick_winners[i : i + 1], n))
    moon = [s for s in range(n) if score.moon[0, s]]
    lines.append(
        "  points taken: "
        + ", ".join(f"seat {s} {int(f.points_taken[i, s])}" for s in range(n))
        + (f"; seat {moon[0]} shot the moon" if moon else "")
    )
    for side in range(rules.n_sides):
        lines.append(f"  {_side_name(rules, side)}: {int(f.delta[i, side]):+d} -> score {int(f.scores[i, side])}")
    return lines


def render_match(rules: Rules | str, seed: int, policy_seed: int, max_hands: int = 100) -> str:
    """Play one seeded match with a seeded uniform random policy and render it as text."""
    rules = resolve_rules(rules)
    engine = SpadesEngine(rules)
    lay = engine.layout
    state = engine.reset(seed)
    rng = np.random.default_rng(policy_seed)
    lines = [
        f"# spades_env playthrough: rules {rules.name!r}, seed {seed}, policy seed {policy_seed}",
        "# rules changed from the defaults: " + (", ".join(_changed_fields(rules)) or "none"),
        f"# actions: {lay.n_actions} (cards 0-{lay.n_card_ids - 1}"
        + (f", bids {lay.bid_offset}-{lay.bid_end - 1}" if lay.max_bid >= 0 else "")
        + "".join(f", {lay.describe(lay.special(name))} {lay.special(name)}" for name in lay.specials)
        + ")",
        "",
    ]
    hands = 0
    while state.phase[0] != OVER and hands < max_hands:
        legal = np.flatnonzero(engine.legal_action_mask(state)[0])
        result = engine.step(state, [int(rng.choice(legal))])
        for f in result.finished:
            hands += 1
            lines += _render_hearts_hand(engine, hands, f, 0) if rules.hearts else _render_hand(rules, hands, f, 0)
            lines.append("")
    if state.phase[0] == OVER:
        winner = int(state.winner[0])
        final = ", ".join(str(int(s)) for s in state.scores[0])
        lowest = " (lowest score)" if rules.points_are_penalties else ""
        lines.append(f"winner: {_side_name(rules, winner)}{lowest} after {hands} hands (scores {final})")
    else:
        lines.append(f"stopped after {hands} hands without a winner")
    return "\n".join(lines) + "\n"
