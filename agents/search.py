"""Determinized Monte Carlo search: sample the hidden hands, roll every card out, keep the best.

For every card-play decision with more than one legal card the agent

1. samples ``samples`` layouts of the cards it has not seen, consistent with what
   the seat observed: its own hand, every card played, every revealed void and
   every other seat's number of cards left
   (with ``oversample`` = K > 1, K times as many are drawn and kept by how likely every
   seat's bid is for the hand it bid with: ``agents.search_bidding.sample_play_hands``;
   with ``play_sharpness`` > 0 also by how well they explain the opponents' plays,
   ``agents.spades.play_model``; in two-player the opponent's hand leans to the cards
   its draw keeps, ``agents.search_draw``);
2. for every (decision, legal card, sample) triple copies the game with the
   sampled hands (in two-player with the opponent's sampled draw discards: nothing the seat cannot see
   comes from the real state, ``agents.search_sampling.layout_states``), plays the card, and
   finishes the hand with the rollout policy
   (the heuristic by default: all triples of a batch in one compiled call,
   ``agents.search_rollouts``; another policy: all triples as one engine batch,
   ``agents.search_engine_rollouts``);
   (with ``endgame=K``, when at most K tricks are left, the game's exact endgame solver, its bot part
   ``endgame`` (``agents.game_parts``; Spades': ``agents.spades.endgame``), values each card on each sample
   instead: a game without one keeps its rollouts);
3. plays the card with the best mean outcome: the own side's bag-adjusted hand
   score minus the opponents' (the mean over the others in cutthroat). Ties keep
   the heuristic's own choice. ``action_values`` returns these estimates for every
   action (what ``act`` maximizes, ``choose``), e.g. as targets for a learner.

``search:fast`` and ``search:strong`` name option sets (``SearchAgent.presets``).

Bidding and blind nil go to the lookahead bidder when ``bid_samples`` > 0
(``agents.search_bidding``: every legal bid tried on sampled deals), else to the
heuristic, as do the variant decisions (two-player draw and exchange, Bemo,
weak-hand redeal). The Hearts pass goes to the lookahead pass when ``pass_samples`` > 0
(the game's bot part ``passing``, ``agents.hearts.passing``: the likely passes tried on sampled deals). In Hearts the
objective is the others' mean points minus the seat's own side's (points are
penalties), the cards the seat passed stay with their receiver, and the rollouts
play the Hearts heuristic. Every preset is supported:
jokers are trumps, face-up cards stay with their holders, and in two-player the
seat's own discards are out of play (see ``sample_layouts``).
"""

from __future__ import annotations

import time

import numpy as np

from agents.base import Agent, DecisionContext
from agents.game_parts import bot_part, has_bot_part
from agents.heuristic import HeuristicAgent
from agents.options import check_integers, check_numbers
from agents.search_engine_rollouts import EngineRollouts
from agents.search_rollouts import rollout_totals
from agents.search_sampling import (  # noqa: F401 (SUIT, sample_hidden_hands: part of this module's names)
    SUIT,
    sample_hidden_hands,
    sample_layouts,
)
from spades_env.engine import PLAY
from spades_env.engine.core import check_threads

#: ``play_sharpness`` of the default search in two-player and partnership games (cutthroat: 0, no gain measured).
AUTO_PLAY_SHARPNESS = 0.5


def _sharpness(value) -> float:
    """``play_sharpness`` as a number for the checks (``"auto"``: 0); a text that is no number is refused."""
    if value == "auto":
        return 0.0
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            raise ValueError(
                f"search bot option 'play_sharpness' must be a number from 0 up or 'auto', got {value!r}"
            ) from None
    return value


#: Added to the heuristic's action before the argmax: a tie keeps its choice.
TIE_BONUS = 1e-6


def choose(values: np.ndarray, default: np.ndarray) -> np.ndarray:
    """(G,) the argmax of each row of ``values`` (``SearchAgent.action_values``), ``default``'s action
    raised by ``TIE_BONUS`` (ties keep it); ``default`` where no action has a finite value."""
    scored = np.where(np.isnan(values), -np.inf, values)
    rows = np.arange(len(default))
    scored[rows, default] += TIE_BONUS
    valued = np.isfinite(values).any(axis=1)
    return np.where(valued, np.argmax(scored, axis=1), default)


def _check_options(*, samples, max_rollouts, oversample, play_votes, bid_samples, pass_top, pass_samples, endgame,
                   pass_margin, play_margin, play_sharpness) -> None:  # fmt: skip
    """Refuse a search option out of its range in one line naming it (``agents.options``)."""
    bot = "search bot"
    check_integers(bot, 1, "a positive integer", samples=samples, max_rollouts=max_rollouts, oversample=oversample,
                   play_votes=play_votes)  # fmt: skip
    check_integers(bot, 0, "an integer from 0 up", bid_samples=bid_samples, pass_top=pass_top,
                   pass_samples=pass_samples)  # fmt: skip
    check_integers(bot, 0, "a non-negative integer", endgame=endgame)
    check_numbers(bot, pass_margin=pass_margin, play_margin=play_margin, play_sharpness=_sharpness(play_sharpness))


class SearchAgent(EngineRollouts, Agent):
    """Sampling + heuristic rollouts in the batched engine; bids like the heuristic."""

    name = "search"
    #: Named option sets, ``search:fast`` or ``search:strong[,key=value...]`` (chosen on selection seeds: docs/bots.md).
    presets: dict[str, dict[str, int]] = {
        "fast": {"samples": 16, "oversample": 1},
        "strong": {"samples": 64, "oversample": 4},
    }

    def __init__(
        self,
        seed: int | None = None,
        samples: int = 32,
        rollout_policy: type[Agent] | Agent = HeuristicAgent,
        max_rollouts: int = 65536,
        bid_samples: int = 0,
        endgame: int = 0,
        oversample: int = 4,
        pass_top: int = 6,
        pass_samples: int = 0,
        pass_margin: float = 0.0,
        play_margin: float = 0.0,
        play_votes: int = 1,
        play_sharpness: float | str = "auto",
        threads: int = 1,
        bid_nil: bool = True,
    ) -> None:
        super().__init__(seed)
        _check_options(samples=samples, max_rollouts=max_rollouts, oversample=oversample, play_votes=play_votes,
                       bid_samples=bid_samples, pass_top=pass_top, pass_samples=pass_samples, endgame=endgame,
                       pass_margin=pass_margin, play_margin=play_margin, play_sharpness=play_sharpness)  # fmt: skip
        self.threads = check_threads(threads, "search bot option 'threads'")
        """Threads that play the rollouts (card play, and the bidding and passing lookaheads): the same values, and
        so the same decisions, on any number (``agents.search_rollouts``)."""
        self._card_play_options(samples, oversample, play_margin, play_votes, play_sharpness)
        self._lookahead_options(bid_samples, bid_nil, pass_top, pass_samples, pass_margin)
        self._rollout_options(rollout_policy, max_rollouts, endgame)
        self._zero_counters()

    def _card_play_options(
        self, samples: int, oversample: int, play_margin: float, play_votes: int, play_sharpness: float | str
    ) -> None:
        """The card play's options (``__init__``'s, checked)."""
        self.samples = int(samples)
        """Sampled layouts of the hidden cards per decision."""
        self.oversample = int(oversample)
        """Card play (Spades): above 1, ``oversample * samples`` layouts are drawn and ``samples`` of them kept
        by how likely every seat's bid is under the heuristic's bid function for the hand it bid with
        (``agents.search_bidding.sample_play_hands``); 1 keeps every layout drawn. Hearts has no bids: 1."""
        self.play_margin = float(play_margin)
        """Card play: ``act`` plays another card than the heuristic's only when its value beats the heuristic's
        card's by more than this (points per hand); 0 (the default) plays the best-valued card. A margin keeps the
        heuristic's card where the sampled values cannot tell the cards apart (a cleaner teacher to imitate:
        ``train.expert_iteration.labelling``, ``target: choice``)."""
        self.play_sharpness = None if play_sharpness == "auto" else float(play_sharpness)
        """Card play (Spades, ``oversample`` > 1): the layouts are weighted by the card-play model too,
        ``exp(-play_sharpness)`` per past play of an opponent that the heuristic would have played otherwise
        (``agents.spades.play_model``); 0 weighs by the bids alone; ``"auto"`` (the default, kept as None):
        ``AUTO_PLAY_SHARPNESS`` in two-player and partnership games, 0 in cutthroat (measured: docs/bots.md)."""
        self.play_votes = int(play_votes)
        """Card play: ``act`` searches each decision this many times (independent samples) and plays another card
        than the heuristic's only where every search picks that same card (1: one search decides). Two votes with
        ``play_margin=6`` leave the heuristic's card on ~95% of decisions, the deviations that reproduce (a clean
        teacher to imitate: ``train.expert_iteration.labelling``, ``target: choice``); the later searches run only on
        the decisions the first moved off the heuristic's card (~22% of them at margin 6)."""

    def _lookahead_options(
        self, bid_samples: int, bid_nil: bool, pass_top: int, pass_samples: int, pass_margin: float
    ) -> None:
        """The lookahead bidder's and the Hearts lookahead pass's options (``__init__``'s, checked)."""
        self.bid_samples = int(bid_samples)
        """Sampled deals per bid of the lookahead bidder (``agents.search_bidding``); 0 bids as the heuristic."""
        self.bid_nil = bool(bid_nil)
        """The lookahead bidder compares nil and blind nil with the other bids (False: contract bids only, so that
        a network taught by it bids no nil; ``agents.search_bidding.candidate_mask``)."""
        self.pass_top = int(pass_top)
        """Hearts pass by lookahead (``agents.hearts.passing``): candidate passes complete the cards set aside
        from the heuristic's ``pass_top`` most dangerous (and its own pass), ``pass_samples`` deals each; 0
        passes as the heuristic."""
        self.pass_samples = int(pass_samples)
        """Sampled deals per candidate pass of the Hearts lookahead pass; 0 passes as the heuristic."""
        self.pass_margin = float(pass_margin)
        """``act`` passes a card of another candidate than the heuristic's own pass only when its value beats
        that pass's by more than this (points per hand): rollout noise then rarely moves the pass."""

    def _rollout_options(self, rollout_policy: type[Agent] | Agent, max_rollouts: int, endgame: int) -> None:
        """The rollouts' policy, batch bound and the endgame solver's depth (``__init__``'s, checked)."""
        self.rollout = rollout_policy() if isinstance(rollout_policy, type) else rollout_policy
        self.compiled_rollouts = True
        """Play the rollouts in compiled code when the rollout policy is the heuristic (False: in the
        batched engine, the reference the compiled rollouts are tested against; the values are the same)."""
        self.bidder = HeuristicAgent()
        self.max_rollouts = int(max_rollouts)
        """Most rollout games in one engine batch (memory bound)."""
        self.endgame = int(endgame)
        """Tricks left at or below which cards are valued by the exact endgame solver instead of
        rollouts (0: never; a game without an endgame solver, its bot part ``endgame``, keeps its rollouts: Hearts)."""

    def _zero_counters(self) -> None:
        """The decisions searched and the seconds spent, by kind (for decisions per second)."""
        self.decisions = 0
        """Card decisions searched so far (for decisions per second)."""
        self.search_seconds = 0.0
        """Time spent searching them."""
        self.bid_decisions = 0
        """Bidding decisions (BID and BLIND) the lookahead bidder took (for decisions per second)."""
        self.bid_seconds = 0.0
        """Time spent on them."""
        self.pass_decisions = 0
        """Hearts pass decisions (one card each) searched by lookahead."""
        self.pass_seconds = 0.0
        """Time spent on them."""

    def act(self, observations, masks: np.ndarray, context: DecisionContext | None = None) -> np.ndarray:
        """The action of the highest value (``action_values``) in each decision; ties, and the decisions
        the search does not value, keep the heuristic's action (``choose``); a Hearts pass keeps it unless
        the best card's value beats it by more than ``pass_margin``, a card play unless by more than
        ``play_margin``; with ``play_votes`` K, a card play keeps it unless K searches pick the same other card."""
        out, default = self._act_once(observations, masks, context)
        play = np.flatnonzero((context.state.phase[context.games] == PLAY) & (out != default))  # the moves to confirm
        if self.play_votes > 1 and len(play):
            sub = context.take(play)
            agreed = np.ones(len(play), bool)
            for _ in range(self.play_votes - 1):
                agreed &= (
                    self._act_once(None if observations is None else observations[play], masks[play], sub)[0]
                    == out[play]
                )
            out[play[~agreed]] = default[play[~agreed]]
        return out

    def _act_once(self, observations, masks: np.ndarray, context: DecisionContext) -> tuple[np.ndarray, np.ndarray]:
        """One search's actions (``act`` without the votes) and the heuristic's."""
        values, default = self._values_and_default(observations, masks, context)
        out = choose(values, default)
        phase = context.state.phase[context.games]
        passing = phase == context.engine.spec.pass_phase
        for margin, rows in ((self.pass_margin, passing), (self.play_margin, phase == PLAY)):
            rows = np.flatnonzero(rows)
            if len(rows):
                best = np.where(np.isnan(values[rows]), -np.inf, values[rows]).max(axis=1)
                close = ~(best - values[rows, default[rows]] > margin)  # NaN (not valued): the heuristic's
                out[rows[close]] = default[rows[close]]
        return out, default

    def action_values(self, observations, masks: np.ndarray, context: DecisionContext | None = None) -> np.ndarray:
        """(G, A) float64: the search's estimate of every action of each decision, what ``act`` maximizes.

        Card play (PLAY, more than one legal card): ``card_values``, the mean over the sampled layouts
        of the side's bag-adjusted hand points minus the others' mean (Hearts: the others' mean points
        minus the side's). Bids and blind nil with ``bid_samples`` > 0 (Spades): the lookahead
        bidder's mean values (``agents.search_bidding.lookahead_bids``). The Hearts pass with
        ``pass_top`` > 0: each passable card's best candidate pass (``agents.hearts.passing``; a card in
        no candidate is NaN). -inf: an illegal action;
        NaN: a legal action the search does not value (one legal card, the variant decisions,
        bids without ``bid_samples``: ``act`` plays the heuristic's action there). Each
        call draws new samples (the bot's seeded generator), as ``act`` does.
        """
        return self._values_and_default(observations, masks, context)[0]

    def _values_and_default(
        self, observations, masks: np.ndarray, context: DecisionContext | None
    ) -> tuple[np.ndarray, np.ndarray]:
        """``action_values`` and the heuristic's action of each decision (the tie-break)."""
        if context is None:
            raise ValueError("SearchAgent needs a DecisionContext (engine, state, games, seats)")
        masks = np.asarray(masks, dtype=bool)
        engine, state = context.engine, context.state
        default = self.bidder.act(observations, masks, context)
        values = np.where(masks, np.nan, -np.inf)
        self._lookahead_bid_values(values, masks, context)
        passing = np.flatnonzero(state.phase[context.games] == engine.spec.pass_phase)
        if self.pass_top and self.pass_samples and len(passing) and engine.rules.has_passing:
            start = time.perf_counter()
            sub = context.take(passing)
            pass_values = bot_part(engine.rules.game, "passing", "the search bot's option 'pass_samples'")
            values[passing] = pass_values(
                sub, masks[passing], self.pass_samples, self.pass_top, self.rng, self.bidder, self.threads
            )
            self.pass_seconds += time.perf_counter() - start
            self.pass_decisions += len(passing)
        n_cards = engine.layout.n_card_ids
        play = state.phase[context.games] == PLAY
        todo = np.flatnonzero(play & (masks[:, :n_cards].sum(axis=1) > 1))
        if len(todo):
            start = time.perf_counter()
            sub = context.take(todo)
            values[todo, :n_cards] = self._card_values_grouped(sub, masks[todo, :n_cards])
            self.search_seconds += time.perf_counter() - start
            self.decisions += len(todo)
        return values, default

    def _lookahead_bid_values(
        self, values: np.ndarray, masks: np.ndarray, context: DecisionContext, rollout_policy: Agent | None = None
    ) -> None:
        """With ``bid_samples`` > 0 (Spades), set ``values``' rows of the bids and blind nil decisions that have
        several candidates to the lookahead bidder's mean values (``agents.search_bidding.lookahead_bids``), its
        rollouts played by ``rollout_policy`` (None: the heuristic)."""
        bidding = np.flatnonzero(np.isin(context.state.phase[context.games], context.engine.spec.bidding_phases()))
        if not (self.bid_samples and len(bidding) and context.engine.rules.has_bidding):
            return
        from agents.search_bidding import lookahead_bids  # it imports this module's sampler

        start = time.perf_counter()
        bid_values = lookahead_bids(
            context.take(bidding),
            masks[bidding],
            self.bid_samples,
            self.rng,
            heuristic=self.bidder,
            threads=self.threads,
            rollout_policy=rollout_policy,
            nil=self.bid_nil,
        )[1]
        valued = np.isfinite(bid_values)
        rows = valued.any(axis=1)  # decisions with several candidates
        values[bidding[rows]] = np.where(valued[rows], bid_values[rows], values[bidding[rows]])
        self.bid_seconds += time.perf_counter() - start
        self.bid_decisions += len(bidding)

    # ------------------------------------------------------------------ search
    def _card_values_grouped(self, ctx: DecisionContext, legal: np.ndarray) -> np.ndarray:
        """``card_values`` of the decisions in groups whose rollouts fit in ``max_rollouts``."""
        per_decision = legal.sum(axis=1) * self.samples
        out = np.empty(legal.shape)
        start = 0
        while start < len(legal):  # groups of decisions that fit in max_rollouts
            stop = start + 1
            total = per_decision[start]
            while stop < len(legal) and total + per_decision[stop] <= self.max_rollouts:
                total += per_decision[stop]
                stop += 1
            sel = np.arange(start, stop)
            sub = ctx.take(sel)
            out[sel] = self.card_values(sub, legal[sel])
            start = stop
        return out

    def card_values(self, ctx: DecisionContext, legal: np.ndarray) -> np.ndarray:
        """(D, C) mean rollout value of each legal card of each decision (-inf for the others).

        A card's value is the mean, over ``samples`` layouts of the hidden cards drawn from
        what the seat has seen, of its side's bag-adjusted points (Hearts: the others' mean
        points minus its own) when it plays the card and every seat then follows the rollout
        policy to the hand's end. ``legal``: (D, C) bool legal cards of the D decisions.
        With ``endgame`` = K > 0 (Spades), a decision with at most K tricks left values each card
        on each sample by the exact solver instead (``agents.spades.endgame``: every seat then plays
        perfectly for its own side's score).
        """
        engine, state, games, seats = ctx.engine, ctx.state, ctx.games, ctx.seats
        s, n = self.samples, engine.n_players
        if self.oversample > 1 and engine.rules.has_bidding:  # the layouts are weighted by the bids
            from agents.search_bidding import sample_play_layouts  # it imports this module's sampler

            sharpness = self.play_sharpness
            if sharpness is None:
                cutthroat = engine.n_players > 2 and not engine.rules.partnership
                sharpness = 0.0 if cutthroat else AUTO_PLAY_SHARPNESS
            hands, discards = sample_play_layouts(ctx, s, self.oversample, self.rng, self.bidder, sharpness)
        else:
            hands, discards = sample_layouts(engine, state, games, seats, s, self.rng)
        total = np.zeros(legal.shape)
        solved = np.zeros(len(games), bool)
        if self.endgame and has_bot_part(engine.rules.game, "endgame"):
            solved = engine.hand_size - state.n_tricks[games] <= self.endgame
            rows = np.flatnonzero(solved)
            if len(rows):  # every sample of these decisions solved exactly: their mean value
                solve_positions = bot_part(engine.rules.game, "endgame", "the search bot's option 'endgame'")
                values = solve_positions(engine, state, np.repeat(games[rows], s), hands[rows].reshape(-1, n))
                total[rows] = np.where(legal[rows], values.reshape(len(rows), s, -1).sum(axis=1), 0.0)
        if not solved.all():
            self._rollout_totals(ctx, legal & ~solved[:, None], hands, discards, total)
        return np.where(legal, total / s, -np.inf)

    def _rollout_totals(
        self, ctx: DecisionContext, legal: np.ndarray, hands: np.ndarray, discards: np.ndarray, total: np.ndarray
    ) -> None:
        """Add each (decision, legal card)'s summed rollout values over the sampled layouts ``hands`` and
        ``discards`` (D, S, N each: ``agents.search_sampling.sample_layouts``) to ``total``: compiled
        (``agents.search_rollouts``) when the rollouts play the heuristic alone (``compiled_policy``) and
        ``compiled_rollouts`` is set, else in the batched engine (``_engine_rollout_totals``); the two give the same
        values."""
        policy = self.compiled_policy()
        if self.compiled_rollouts and policy is not None:
            rollout_totals(
                ctx.engine, ctx.state, ctx.games, ctx.seats, legal, hands, total, policy, self.threads, discards
            )
        else:
            self._engine_rollout_totals(ctx, legal, hands, discards, total)

    def compiled_policy(self) -> HeuristicAgent | None:
        """The heuristic that plays every ply of the rollouts after the card (the compiled rollouts can play them),
        or None (another policy: the batched engine)."""
        return self.rollout if isinstance(self.rollout, HeuristicAgent) else None
