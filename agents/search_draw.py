"""Two-player: how likely a drawer keeps each card of the pile it drew from, for the search's sampler.

In two-player Spades [RULES 4] each player sees 26 cards of the pile (two per turn), keeps 13 and
discards 13 unseen by the other. The other player's 26 cards are exactly the 26 this seat never
saw, but which 13 of them it kept is not a fair coin: the heuristic's draw (``draw_choice``) keeps
every shown trump, ace and king, so a sampler that splits the unseen cards evenly between the
opponent's hand and its discards gives the opponent about 3 spades where it holds 5 (measured on
seeded heuristic games). ``keep_propensity`` is, per card, the share of the times the heuristic's
draw ends up holding it among the times the card was in its 26 (from seeded simulated draws of the
whole pile); ``agents.search.sample_hidden_hands`` weighs the opponent's side of each unseen card by
it and the discard pile's by its complement.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.spades.heuristic import spades_config
from agents.spades.heuristic_config import C_KEEP
from agents.spades.heuristic_kernel import draw_choice
from spades_env.engine import SpadesEngine

#: Simulated piles per table: each card is seen about 13000 times per drawer kind.
SIMULATED_PILES = 1000
#: Seed of the simulated piles (the tables are the same in every process).
SIMULATION_SEED = 20260
#: Shares are kept within [FLOOR, 1 - FLOOR]: no unseen card is ruled in or out by the model alone.
FLOOR = 0.02


@njit(cache=True)
def _simulated_keeps(piles, blind_nil, config):
    """(kept, seen) counts per card over ``piles`` (P, 2 * hand cards) int64: two drawers alternate
    turns of two cards (shown, next); each keeps the shown card when ``draw_choice`` says so and the
    next one otherwise, as the engine's draw plays [RULES 4]."""
    kept = np.zeros(64)  # by card id (54 at most)
    seen = np.zeros(64)
    hands = np.zeros(2, np.uint64)
    for p in range(piles.shape[0]):
        hands[0] = np.uint64(0)
        hands[1] = np.uint64(0)
        for k in range(piles.shape[1] // 2):
            seat = k % 2
            shown, following = piles[p, 2 * k], piles[p, 2 * k + 1]
            take = shown if draw_choice(hands[seat], shown, blind_nil, config) == config[C_KEEP] else following
            hands[seat] |= np.uint64(1) << np.uint64(take)
            kept[take] += 1.0
            seen[shown] += 1.0
            seen[following] += 1.0
    return kept, seen


_TABLES: dict = {}


def keep_propensity(engine: SpadesEngine) -> np.ndarray:
    """(2, card ids) float64: the share of the times the heuristic's draw keeps each card it sees, for a
    drawer that looked (row 0) and a blind-nil drawer (row 1), clipped to [FLOOR, 1 - FLOOR]; cached per
    rule set. Only two-player rules draw."""
    rules = engine.rules
    if not rules.two_player:
        raise ValueError(f"keep_propensity needs two-player rules, got {rules.name!r}")
    if rules not in _TABLES:
        n_ids = engine.layout.n_card_ids
        deck = np.asarray(engine.deck, dtype=np.int64)
        rng = np.random.default_rng(SIMULATION_SEED)
        piles = np.ascontiguousarray(rng.permuted(np.tile(deck, (SIMULATED_PILES, 1)), axis=1))
        config = spades_config(engine, False)
        table = np.full((2, n_ids), 0.5)
        for row, blind_nil in enumerate((False, True)):
            kept, seen = _simulated_keeps(piles, blind_nil, config)
            share = kept[:n_ids] / np.maximum(seen[:n_ids], 1.0)
            table[row] = np.where(seen[:n_ids] > 0, np.clip(share, FLOOR, 1.0 - FLOOR), 0.5)
        _TABLES[rules] = table
    return _TABLES[rules]
