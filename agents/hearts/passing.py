"""The Hearts pass by lookahead: try the likely three-card passes on sampled deals, keep the best.

At each pass decision (PASS phase: one card at a time, three per seat [RULES 7]) the search

1. ranks the cards the seat may still pass by the Hearts heuristic's own danger order
   (``heuristic_hearts_kernel.pass_choice`` asked again with the cards it named taken out of the
   mask) and forms the candidate passes: every completion of the cards already set aside with
   cards from the ``top`` most dangerous, and the heuristic's own pass (its greedy three);
2. samples ``samples`` deals of the cards the seat has not seen (``agents.search.sample_hidden_hands``:
   before the pass a seat has seen only its own hand);
3. for every (decision, candidate, sample) replays the whole pass on the sampled deal (every other
   seat passes as the heuristic would with its sampled hand: the passes the seats before it chose
   are not seen, so they are chosen again), exchanges the cards and plays the hand out with the
   heuristic, compiled (``agents.search_rollouts.play_out_values``); a candidate's value is the mean
   of the others' mean hand points minus the seat's side's (points are penalties), what the search
   maximizes in card play too;
4. values each passable card by its best candidate (``pass_values``): the search then sets aside
   a card of the best pass, and the next decision (the same seat's next card) searches again with
   the cards already set aside fixed.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from agents.base import DecisionContext
from agents.heuristic import HeuristicAgent
from agents.search_rollouts import play_out_values
from agents.search_sampling import layout_states, sample_hidden_hands
from spades_env.engine import PLAY, bits
from spades_env.games.hearts.phases import PASS_CARDS


def pass_candidates(ctx: DecisionContext, masks: np.ndarray, top: int, heuristic: HeuristicAgent) -> np.ndarray:
    """(D, C) uint64 candidate passes (three-card masks holding the cards already set aside; 0 pads a row).

    ``masks`` (D, A): the passable cards of the D decisions (PASS phase). The candidates are the
    heuristic's own pass first, then every completion from the ``top`` cards it ranks most dangerous."""
    engine, state, games = ctx.engine, ctx.state, ctx.games
    d = len(games)
    n_ids = engine.layout.n_card_ids
    legal = np.asarray(masks[:, :n_ids], dtype=bool)
    chosen = state.passed[games, ctx.seats]
    need = PASS_CARDS - bits.popcount(chosen)
    ranking = np.full((d, top), -1, np.int64)  # the most dangerous passable cards, in the heuristic's order
    left = legal.copy()
    full = np.zeros((d, masks.shape[1]), bool)
    for k in range(min(top, int(legal.sum(axis=1).min()))):
        full[:, :n_ids] = left
        pick = heuristic.act(None, full, ctx)
        ranking[:, k] = pick
        left[np.arange(d), pick] = False
    greedy = _heuristic_pass(ctx, legal, heuristic)
    per_row = []
    for i in range(d):
        ranked = [int(c) for c in ranking[i] if c >= 0]
        sets = [int(greedy[i])]
        for combo in combinations(ranked, int(need[i])):
            mask = int(chosen[i]) | sum(1 << c for c in combo)
            if mask not in sets:
                sets.append(mask)
        per_row.append(sets)
    out = np.zeros((d, max(len(r) for r in per_row)), np.uint64)
    for i, sets in enumerate(per_row):
        out[i, : len(sets)] = sets
    return out


def _heuristic_pass(ctx: DecisionContext, legal: np.ndarray, heuristic: HeuristicAgent) -> np.ndarray:
    """(D,) uint64: the three cards the heuristic passes from each decision on (its greedy choices)."""
    engine, games, seats = ctx.engine, ctx.games, ctx.seats
    d = len(games)
    trial = ctx.state.take(games)
    rows = np.arange(d)
    masks = np.zeros((d, engine.layout.n_actions), bool)
    n_ids = engine.layout.n_card_ids
    sub = DecisionContext(engine, trial, rows, seats)
    while (bits.popcount(trial.passed[rows, seats]) < PASS_CARDS).any():
        open_ = bits.popcount(trial.passed[rows, seats]) < PASS_CARDS
        masks[:, :n_ids] = bits.to_bool(trial.hands[rows, seats] & ~trial.passed[rows, seats], n_ids)
        masks[~open_] = False
        masks[~open_, 0] = True  # a placeholder for the rows already done (not used)
        pick = heuristic.act(None, masks, sub)
        done = np.where(open_, bits.BIT[pick], np.uint64(0))
        trial.passed[rows, seats] |= done
    return trial.passed[rows, seats].copy()


def pass_values(
    ctx: DecisionContext,
    masks: np.ndarray,
    samples: int,
    top: int,
    rng: np.random.Generator,
    heuristic: HeuristicAgent,
    threads: int | None = None,
) -> np.ndarray:
    """(D, A) each passable card's value, the best mean rollout value of a candidate pass holding it
    (NaN: a passable card in no candidate; -inf: not passable). See the module docstring. ``threads``: of the
    compiled card play (None: the engine's)."""
    engine, state, games, seats = ctx.engine, ctx.state, ctx.games, ctx.seats
    d = len(games)
    candidates = pass_candidates(ctx, masks, top, heuristic)  # (D, C)
    dec, cand = np.nonzero(candidates)
    hands = sample_hidden_hands(engine, state, games, seats, samples, rng)  # (D, S, N)
    r_dec, r_cand = np.repeat(dec, samples), np.repeat(cand, samples)
    r_sample = np.tile(np.arange(samples), len(dec))
    plan = candidates[r_dec, r_cand]
    values = _passed_and_played(ctx, hands[r_dec, r_sample], r_dec, plan, heuristic, threads)
    total = np.zeros(candidates.shape)
    np.add.at(total, (r_dec, r_cand), values)
    mean = np.where(candidates != 0, total / samples, -np.inf)  # (D, C)
    out = np.where(masks, np.nan, -np.inf)
    n_ids = engine.layout.n_card_ids
    flags = bits.to_bool(candidates.reshape(-1), n_ids).reshape(d, -1, n_ids)  # (D, C, ids)
    best = np.where(flags, mean[:, :, None], -np.inf).max(axis=1)  # (D, ids)
    legal = masks[:, :n_ids]
    out[:, :n_ids] = np.where(legal & np.isfinite(best), best, out[:, :n_ids])
    return out


def _passed_and_played(
    ctx: DecisionContext,
    hands: np.ndarray,
    r_dec: np.ndarray,
    plan: np.ndarray,
    heuristic: HeuristicAgent,
    threads: int | None = None,
) -> np.ndarray:
    """(R,) the value of each rollout: its decision's game with the sampled ``hands`` (R, N), the pass replayed
    from the first seat (the deciding seat passes ``plan``, the others as the heuristic), then played out."""
    engine, state = ctx.engine, ctx.state
    n = engine.n_players
    games, seats = ctx.games[r_dec], ctx.seats[r_dec]
    roll = layout_states(engine, state, games, seats, hands)
    roll.deal = roll.hands.copy()  # before the pass: no card played yet
    roll.passed[:] = 0
    roll.to_move = (roll.dealer + 1) % n
    rows = np.arange(len(games))
    for _ in range(PASS_CARDS * n):
        masks = engine.legal_action_mask(roll)
        sub = DecisionContext(engine, roll, rows, roll.to_move)
        actions = heuristic.act(None, masks, sub)
        mine = roll.to_move == seats
        own = plan & ~roll.passed[rows, seats]
        actions = np.where(mine, _lowest_card(own), actions)
        engine.step(roll, actions, validate=False)
    if not (roll.phase == PLAY).all():
        raise RuntimeError("a pass rollout did not reach the card play after every seat's pass")
    return play_out_values(engine, roll, seats, heuristic, threads=threads)


def _lowest_card(mask: np.ndarray) -> np.ndarray:
    """(R,) int64 the lowest card id in each mask (0 for an empty mask)."""
    return np.where(mask != 0, bits.select_kth(np.where(mask != 0, mask, np.uint64(1)), np.zeros(len(mask))), 0)
