"""Bidding by lookahead: try every legal bid on sampled deals, play each out, bid the best.

For each bidding decision (BID phase: every legal bid, nil included; BLIND phase: blind
nil or look, where blind nil is open [RULES 2]) the bidder

1. samples layouts of the cards the seat has not seen, consistent with what it saw: its
   own hand, face-up cards, the two-player draw (``agents.search_sampling.sample_layouts``: the opponent's
   draw discards are sampled too); at BLIND, where the seat has not looked, its own hand is sampled too;
2. weights each sample by how likely the bids already made are under the heuristic's
   bid function for the sampled hands (``HeuristicAgent.bid`` in the position where each
   earlier seat bid: weight ``exp(-BID_SHARPNESS * |heuristic bid - actual bid|)`` per
   seat, blind-nil bidders saw nothing and weigh 1), drawing ``oversample`` times more
   layouts than it keeps and resampling ``samples`` of them by weight;
3. for every (decision, candidate, kept sample) copies the game with the sampled layout, none of the
   real state's hidden fields (``agents.search_sampling.layout_states``),
   takes the candidate action, and lets ``HeuristicAgent`` finish the bidding and play
   the hand out: every rollout of a group of decisions is one engine batch;
4. keeps the candidate with the best mean of the side's bag-adjusted hand points minus
   the opponents' (their mean in cutthroat; ``opponents_weight`` times it), as ``SearchAgent`` scores outcomes
   (``spades_env.games.spades.scoring.bag_adjusted_points``). Ties keep the heuristic's choice,
   and decisions with one legal bid (forced bids) are the heuristic's.

The rollouts model every seat, partner and opponents, as the heuristic (bids and card play):
the estimate is exact against heuristic players and biased against others (against the
``search`` bot's card play it overbids: more sets, measured in issue 14). ``rollout_policy`` plays them by another
bot instead (the guided search's ``bid_samples``: the learned network's bids and cards, ``agents.guided``).

A game without bidding (Hearts) is refused; the two-player BLIND decision (taken before the
draw, with no hand to sample) is left to the heuristic.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from agents.base import Agent, DecisionContext
from agents.game_parts import bot_part, has_bot_part
from agents.heuristic import HeuristicAgent
from agents.options import check_integers
from agents.search_rollouts import hand_values, play_out_values, side_margin
from agents.search_sampling import layout_states, sample_layouts
from agents.spades.play_model import play_log_likelihood
from spades_env import cards
from spades_env.engine import PLAY, GameState, SpadesEngine, bits, cards_held

#: Log-likelihood lost per trick between a seat's actual bid and the heuristic's bid for a sampled hand.
BID_SHARPNESS = 1.0
#: Steps a rollout may take past the hand's remaining plays (bids, Bemo, redeals) before it is refused.
EXTRA_STEPS = 64
#: Most sampled deals a decision's lookahead is asked for by an option (the bidding benchmark's ``lookahead`` row,
#: the network bots' ``bid_samples``): the rollouts grow with it.
MAX_LOOKAHEAD_SAMPLES = 4096


def lookahead_bids(
    ctx: DecisionContext,
    masks: np.ndarray,
    samples: int,
    rng: np.random.Generator,
    *,
    heuristic: HeuristicAgent | None = None,
    oversample: int = 4,
    opponents_weight: float = 1.0,
    max_rollouts: int = 65536,
    threads: int | None = None,
    rollout_policy: Agent | None = None,
    nil: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """(D,) chosen actions and (D, A) mean rollout value of each candidate (-inf elsewhere).

    ``ctx``: the D decisions (each in BID or BLIND phase); ``masks`` (D, A) their legal
    actions; ``samples`` kept layouts per decision, drawn from ``oversample * samples``;
    ``opponents_weight``: 1 scores the side's margin over the others (``SearchAgent``'s objective,
    what a duplicate tournament measures), 0 the side's own points (the bidding benchmark's measure);
    ``threads``: of the compiled card play (``agents.search_rollouts``; None: the engine's);
    ``rollout_policy``: plays every seat's bids and cards after the candidate (None: ``heuristic``, whose card play
    runs compiled; another bot, e.g. the guided search's network, in the batched engine). The layouts are weighed
    by the heuristic's bids either way. ``nil`` False: nil and blind nil are not candidates (``candidate_mask``).
    Decisions in other phases, with one candidate, or at the two-player BLIND
    are answered by the heuristic (their values stay -inf).
    """
    engine = ctx.engine
    if not engine.rules.has_bidding:
        raise ValueError(f"lookahead bidding needs a game with bidding, got table {engine.rules.name!r}")
    check_integers("lookahead bidding", 1, "a positive integer", samples=samples, oversample=oversample,
                   max_rollouts=max_rollouts)  # fmt: skip
    heuristic = heuristic or HeuristicAgent()
    masks = np.asarray(masks, dtype=bool)
    default = heuristic.act(None, masks, ctx)
    candidates = candidate_mask(engine, ctx.state.phase[ctx.games], masks, nil)
    values = np.full(masks.shape, -np.inf)
    todo = np.flatnonzero(candidates.sum(axis=1) > 1)
    per = candidates.sum(axis=1) * samples
    start = 0
    while start < len(todo):  # groups of decisions whose rollouts fit in max_rollouts
        stop, total = start + 1, per[todo[start]]
        while stop < len(todo) and total + per[todo[stop]] <= max_rollouts:
            total += per[todo[stop]]
            stop += 1
        sel = todo[start:stop]
        sub = ctx.take(sel)
        values[sel] = _candidate_values(
            sub, candidates[sel], samples, oversample, rng, heuristic, opponents_weight, threads, rollout_policy
        )
        start = stop
    out = default.copy()
    if len(todo):
        scored = values[todo].copy()
        scored[np.arange(len(todo)), default[todo]] += 1e-6  # ties keep the heuristic's choice
        out[todo] = np.argmax(scored, axis=1)
    return out, values


def candidate_mask(engine: SpadesEngine, phase: np.ndarray, masks: np.ndarray, nil: bool = True) -> np.ndarray:
    """(D, A) bool: the actions the lookahead compares, the game's own (``BotParts.bid_candidates``; Spades:
    ``agents.spades.bid_candidates.candidate_mask``, legal bids and blind nil or look; ``nil`` False: no nil); none in a
    game without them (no bidding: Hearts)."""
    if not has_bot_part(engine.rules.game, "bid_candidates"):  # a game without bidding (Hearts): none
        return np.zeros_like(masks)
    return bot_part(engine.rules.game, "bid_candidates", "lookahead bidding")(engine, phase, masks, nil)


# ---------------------------------------------------------------------- sampling
def sample_bidding_hands(
    ctx: DecisionContext, samples: int, oversample: int, rng: np.random.Generator, heuristic: HeuristicAgent
) -> np.ndarray:
    """(D, samples, N) uint64 full hands per decision, drawn from what the seat saw and resampled by
    the likelihood of the bids already made (see the module docstring): ``sample_bidding_layouts``' hands."""
    return sample_bidding_layouts(ctx, samples, oversample, rng, heuristic)[0]


def sample_bidding_layouts(
    ctx: DecisionContext, samples: int, oversample: int, rng: np.random.Generator, heuristic: HeuristicAgent
) -> tuple[np.ndarray, np.ndarray]:
    """(hands, discards), each (D, samples, N) uint64: ``sample_bidding_hands``' layouts with each seat's two-player
    draw discards (``agents.search_sampling.sample_layouts``; 0 where the seat has not looked, and in other games)."""
    engine, state, games, seats = ctx.engine, ctx.state, ctx.games, ctx.seats
    m = samples * oversample
    blind = state.phase[games] == engine.spec.blind_phase
    hands = np.zeros((len(games), m, engine.n_players), dtype=np.uint64)
    discards = np.zeros_like(hands)
    looked = np.flatnonzero(~blind)
    if len(looked):
        hands[looked], discards[looked] = sample_layouts(engine, state, games[looked], seats[looked], m, rng)
    unlooked = np.flatnonzero(blind)
    if len(unlooked):
        hands[unlooked] = _sample_unlooked(engine, state, games[unlooked], seats[unlooked], m, rng)
    return _resample((hands, discards), _bid_log_likelihood(ctx, hands, heuristic), samples, rng)


def sample_play_hands(
    ctx: DecisionContext,
    samples: int,
    oversample: int,
    rng: np.random.Generator,
    heuristic: HeuristicAgent,
    play_sharpness: float = 0.0,
) -> np.ndarray:
    """(D, samples, N) uint64 full hands for card-play decisions: ``sample_play_layouts``' hands."""
    return sample_play_layouts(ctx, samples, oversample, rng, heuristic, play_sharpness)[0]


def sample_play_layouts(
    ctx: DecisionContext,
    samples: int,
    oversample: int,
    rng: np.random.Generator,
    heuristic: HeuristicAgent,
    play_sharpness: float = 0.0,
) -> tuple[np.ndarray, np.ndarray]:
    """(hands, discards), each (D, samples, N) uint64, for card-play decisions: ``oversample * samples`` layouts
    drawn from what the seat saw (``agents.search_sampling.sample_layouts``: hands and two-player draw discards),
    resampled by the likelihood of every seat's bid under the heuristic's bid function for the hand it held when
    it bid (its sampled hand and the cards it has played since), as ``sample_bidding_hands`` weighs the bids made
    before a bid; with ``play_sharpness`` > 0 also by the card-play model (``agents.spades.play_model``:
    ``play_sharpness`` per past play of another seat that the heuristic would have played otherwise, each seat
    holding the layout's hand and draw discards)."""
    engine, state, games, seats = ctx.engine, ctx.state, ctx.games, ctx.seats
    hands, discards = sample_layouts(engine, state, games, seats, samples * oversample, rng)
    logw = _bid_log_likelihood(ctx, hands, heuristic)
    if play_sharpness > 0:
        logw += play_log_likelihood(engine, state, games, seats, hands, heuristic, play_sharpness, discards=discards)
    return _resample((hands, discards), logw, samples, rng)


def _resample(
    layouts: tuple[np.ndarray, ...], logw: np.ndarray, samples: int, rng: np.random.Generator
) -> tuple[np.ndarray, ...]:
    """``samples`` of the M layouts per decision, drawn by the weights ``exp(logw)`` (D, M): the same picks of each
    array of ``layouts`` (each (D, M, N))."""
    d, m = logw.shape
    weights = np.exp(logw - logw.max(axis=1, keepdims=True))
    cum = np.cumsum(weights, axis=1)
    # Systematic resampling: one uniform offset per decision, samples evenly spaced points.
    points = (rng.random((d, 1)) + np.arange(samples)[None, :]) / samples * cum[:, -1:]
    pick = np.minimum((cum[:, None, :] < points[:, :, None]).sum(axis=2), m - 1)  # (D, samples)
    return tuple(a[np.arange(d)[:, None], pick] for a in layouts)


def _sample_unlooked(
    engine: SpadesEngine, state: GameState, games: np.ndarray, seats: np.ndarray, m: int, rng: np.random.Generator
) -> np.ndarray:
    """(D, m, N) uint64: every hand dealt at random for a seat that has not looked, keeping the face-up
    cards other seats hold with them (the seat's own face-up cards are known to it too)."""
    d, n = len(games), engine.n_players
    deck = np.uint64(cards.cards_to_mask(engine.deck))
    known = state.face_up[games] & state.hands[games]  # (D, N)
    pool = deck & ~np.bitwise_or.reduce(known, axis=1)
    room = cards_held(engine, state)[games] - bits.popcount(known)  # (D, N): public hand sizes
    n_ids = engine.layout.n_card_ids
    flags = np.repeat(bits.to_bool(pool, n_ids), m, axis=0)  # (D*m, ids)
    order = np.argsort(np.where(flags, rng.random(flags.shape), np.inf), axis=1)
    bounds = np.cumsum(np.repeat(room, m, axis=0), axis=1)  # (D*m, N)
    out = np.repeat(known, m, axis=0)
    for k in range(int(flags.sum(axis=1).max(initial=0))):
        seat = (k >= bounds).sum(axis=1)
        live = seat < n
        out[live, seat[live]] |= bits.BIT[order[live, k]]
    return out.reshape(d, m, n)


def _bid_log_likelihood(ctx: DecisionContext, hands: np.ndarray, heuristic: HeuristicAgent) -> np.ndarray:
    """(D, M) sum over the seats that have bid (having looked) of -BID_SHARPNESS * |heuristic bid of
    the sampled hand it bid with (the hand and the cards it played since), in the position that seat bid
    in, - its actual bid|."""
    engine, state, games = ctx.engine, ctx.state, ctx.games
    d, m, n = hands.shape
    logw = np.zeros(d * m)
    trial = layout_states(engine, state, np.repeat(games, m), np.repeat(ctx.seats, m), hands.reshape(d * m, n))
    actual, blind, n_bids = trial.bids.copy(), trial.blind.copy(), trial.n_bids.copy()
    position = (np.arange(n)[None, :] - trial.dealer[:, None] - 1) % n  # (R, N) bidding order
    # ``trial`` becomes each bidding position in turn (only the fields a bid reads change).
    trial.hands = trial.deal  # the hands as bid: the cards held and those played since
    trial.phase[:] = engine.spec.bid_phase
    r = np.arange(d * m)
    for p in range(n):
        seat = (trial.dealer + 1 + p) % n
        judged = np.flatnonzero((p < n_bids) & (actual[r, seat] >= 0) & ~blind[r, seat])
        if not len(judged):
            continue
        later = position >= p
        trial.bids = np.where(later, -1, actual)
        trial.blind = blind & ~later
        trial.n_bids[:] = p
        trial.to_move = seat
        legal = engine.legal_action_mask(trial, judged)
        want = heuristic.bid(DecisionContext(engine, trial, judged, seat[judged]), legal)
        guess = want - engine.layout.bid_offset
        logw[judged] -= BID_SHARPNESS * np.abs(guess - actual[judged, seat[judged]])
    return logw.reshape(d, m)


# ---------------------------------------------------------------------- rollouts
def _candidate_values(
    ctx: DecisionContext,
    candidates: np.ndarray,
    samples: int,
    oversample: int,
    rng: np.random.Generator,
    heuristic: HeuristicAgent,
    opponents_weight: float,
    threads: int | None = None,
    rollout_policy: Agent | None = None,
) -> np.ndarray:
    """(D, A) mean rollout value of each candidate over the decision's kept samples (-inf elsewhere), the
    rollouts played by ``rollout_policy`` (None: ``heuristic``)."""
    engine, state, games, seats = ctx.engine, ctx.state, ctx.games, ctx.seats
    hands, discards = sample_bidding_layouts(ctx, samples, oversample, rng, heuristic)  # (D, K, N) each
    dec, action = np.nonzero(candidates)
    r_dec = np.repeat(dec, samples)
    r_action = np.repeat(action, samples)
    r_sample = np.tile(np.arange(samples), len(dec))
    roll = layout_states(engine, state, games[r_dec], seats[r_dec], hands[r_dec, r_sample], discards[r_dec, r_sample])
    policy = heuristic if rollout_policy is None else rollout_policy
    values = rollout_values(engine, roll, r_action, seats[r_dec], policy, opponents_weight, threads=threads)
    total = np.zeros(candidates.shape)
    np.add.at(total, (r_dec, r_action), values)
    return np.where(candidates, total / samples, -np.inf)


def rollout_values(
    engine: SpadesEngine,
    roll: GameState,
    first: np.ndarray,
    seats: np.ndarray,
    policy: Agent,
    opponents_weight: float = 1.0,
    compiled: bool = True,
    decide: Callable[[GameState, np.ndarray], np.ndarray] | None = None,
    threads: int | None = None,
) -> np.ndarray:
    """Take ``first`` (M,) in each game of ``roll`` (changed in place), then let ``policy`` play every seat
    to the end of the hand; (M,) the side of ``seats``: own bag-adjusted points minus ``opponents_weight``
    times the others' mean.

    The bidding (and Bemo, redeals) runs in the batched engine, its decisions taken by ``decide(state,
    index)`` (the games' actions; ``index``: each game's rollout) where given, else by ``policy``; the card
    play of each game that reaches it, with ``policy`` the heuristic (and ``compiled``), runs compiled
    (``agents.search_rollouts``, on ``threads`` threads: the same values; False plays it in the engine too, the
    reference).
    Finished games leave the batch (it is compacted once a step ends some hands)."""
    m = len(first)
    values = np.zeros(m)
    index = np.arange(m)  # rollout of each game still in ``roll``
    side = engine.side_of_seat[seats]
    actions = np.asarray(first, dtype=np.int64)
    limit = engine.hand_size * engine.n_players + EXTRA_STEPS
    compiled = compiled and isinstance(policy, HeuristicAgent)
    for _ in range(limit):
        play = roll.phase == PLAY
        if compiled and play.any():  # the card play, compiled: the same values
            p = np.flatnonzero(play)
            values[index[p]] = play_out_values(engine, roll.take(p), seats[index[p]], policy, opponents_weight, threads)
            if play.all():
                return values
            keep = np.flatnonzero(~play)
            roll, index, actions = roll.take(keep), index[keep], actions[keep]
        result = engine.step(roll, actions, validate=False)
        done = np.zeros(len(index), dtype=bool)
        for f in result.finished:
            new = ~done[f.games]
            g = f.games[new]
            values[index[g]] = side_margin(hand_values(engine, f, new), side[index[g]], opponents_weight)
            done[g] = True
        if done.all():
            return values
        if done.any():
            keep = np.flatnonzero(~done)
            roll, index = roll.take(keep), index[keep]
        if decide is not None:
            actions = decide(roll, index)
        else:
            masks = engine.legal_action_mask(roll)
            actions = policy.act(None, masks, DecisionContext(engine, roll, np.arange(len(index)), roll.to_move))
    raise RuntimeError(f"a bidding rollout did not finish its hand within {limit} steps")
