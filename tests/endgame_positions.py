"""Endgame positions from random games, and a brute-force solver in plain Python to check ``agents.spades.endgame`` by.

The brute force plays every legal card sequence to the hand's end with the reference engine's
pieces (``core.reference_tricks`` for legality and trick winners, ``games.spades.reference_scoring``
for the score) and shares no code with the compiled solver.
"""

from __future__ import annotations

import numpy as np

from spades_env import cards
from spades_env.core.reference_tricks import follow_suit, lead_options, trick_winner
from spades_env.engine import PLAY, SpadesEngine
from spades_env.engine.state import GameState
from spades_env.games.spades.reference_scoring import pay_bags, side_points
from spades_env.rules import Rules


def endgame_states(engine: SpadesEngine, tricks_left: int, count: int, seed: int) -> GameState:
    """``count`` card-play positions with at most ``tricks_left`` tricks left (some mid-trick), from
    random games; then, so that nil and the bag limit matter, some bids are made nil (a few blind)
    and each side's bags are 0 to 3 short of the limit."""
    rng = np.random.default_rng(seed)
    state = engine.reset(np.arange(count) + 1000 * seed)
    taken: list[GameState] = []
    seen = np.zeros(count, bool)
    while not seen.all():
        left = engine.hand_size - state.n_tricks
        ready = (state.phase == PLAY) & (left <= tricks_left) & ~seen & (rng.random(count) < 0.5)
        for g in np.flatnonzero(ready):
            taken.append(state.take(np.array([g])))
            seen[g] = True
        engine.step(state, engine.random_actions(state, rng), validate=False, auto_reset=True)
    out = taken[0]
    out = GameState.concat(taken)
    nil = rng.random(out.bids.shape) < 0.3
    out.bids = np.where(nil, 0, out.bids)
    out.blind = nil & (rng.random(out.bids.shape) < 0.3)
    out.bags = np.maximum(engine.rules.bag_limit - rng.integers(0, 4, size=out.bags.shape), 0)
    return out


def brute_values(
    rules: Rules, state: GameState, g: int, adjust_bags: bool = True, unbroken_lead: bool = False
) -> dict[int, float]:
    """Card -> value for the side of the seat to move in game ``g``: every seat plays the card that
    maximizes its side's score minus the others' mean (the lowest card among equals), searched by
    trying every card sequence to the hand's end. ``unbroken_lead``: the root's lead is made as if
    spades were unbroken (the later ones see the cards played)."""
    n, n_sides = rules.n_players, rules.n_sides
    hands = [set(cards.mask_to_cards(int(h))) for h in state.hands[g]]
    leader, n_in = int(state.leader[g]), int(state.n_in_trick[g])
    trick = [((leader + j) % n, int(state.trick[g, (leader + j) % n])) for j in range(n_in)]
    winners = [int(w) for w in state.trick_winners[g, : state.n_tricks[g]]]
    bids, blind = [int(b) for b in state.bids[g]], [bool(b) for b in state.blind[g]]
    bags, bemo = [int(b) for b in state.bags[g]], [int(b) for b in state.bemo[g]]
    cost = rules.bag_penalty / rules.bag_limit if rules.bags else 0.0

    def scores() -> list[float]:
        won = [winners.count(s) for s in range(n)]
        out = []
        for side in range(n_sides):
            members = [s for s in range(n) if s % n_sides == side]
            took = [w % n_sides == side for w in winners]
            declared = bemo[side] if bemo[side] > 0 else None
            points, new_bags, _ = side_points(rules, members, bids, blind, won, took, declared)
            if adjust_bags:
                out.append(points - new_bags * cost)
            else:
                out.append(float(points - pay_bags(rules, bags[side], new_bags)[1]))
        return out

    def value(adjusted: list[float], side: int) -> float:
        return adjusted[side] - (sum(adjusted) - adjusted[side]) / (n_sides - 1)

    def legal(seat: int) -> list[int]:
        if trick:
            return follow_suit(hands[seat], cards.card_suit(trick[0][1]))
        if unbroken_lead and len(winners) == int(state.n_tricks[g]):
            return lead_options(hands[seat], cards.SPADES, rules.spades_lead_anytime)
        broken = rules.spades_lead_anytime or any(
            cards.card_suit(c) == cards.SPADES for c in range(cards.N_CARD_IDS) if played(c)
        )
        return lead_options(hands[seat], cards.SPADES, broken)

    deal_mask = int(np.bitwise_or.reduce(state.deal[g]))

    def played(card: int) -> bool:
        return bool(deal_mask >> card & 1) and all(card not in h for h in hands)

    def after(seat: int, card: int) -> list[float]:
        hands[seat].discard(card)
        trick.append((seat, card))
        if len(trick) < n:
            result = solve((seat + 1) % n)
        else:
            done = list(trick)
            winner = trick_winner(done, cards.SPADES)
            winners.append(winner)
            trick.clear()
            result = solve(winner)
            winners.pop()
            trick.extend(done)
        trick.pop()
        hands[seat].add(card)
        return result

    def solve(seat: int) -> list[float]:
        if len(winners) == rules.hand_size:
            return scores()
        best, best_value = None, -np.inf
        for card in legal(seat):
            result = after(seat, card)
            if value(result, seat % n_sides) > best_value:
                best, best_value = result, value(result, seat % n_sides)
        return best

    mover = int(state.to_move[g])
    return {card: value(after(mover, card), mover % n_sides) for card in legal(mover)}
