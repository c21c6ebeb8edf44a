"""The search's rollouts in the batched engine: the reference path of ``agents.search.SearchAgent``.

``EngineRollouts._engine_rollout_totals`` plays every (decision, card, sample) triple as one engine batch,
one ``engine.step`` and one rollout-policy call per ply, with any rollout policy; the compiled rollouts
(``agents.search_rollouts``) play the heuristic's and give the same values to the bit, tested against this
path on every preset. A hand's value is its side's points as the search maximizes them
(``agents.search_rollouts.hand_values``) minus the others' mean. ``agents.guided.GuidedAgent`` overrides
``_rollout`` (its network plays a few plies and a value ends the rollout).
"""

from __future__ import annotations

import dataclasses

import numpy as np

from agents.base import Agent, DecisionContext
from agents.search_rollouts import hand_values, side_margin
from agents.search_sampling import layout_states
from spades_env.engine import GameState, SpadesEngine


def _granularity(m: int) -> int:
    """Batch-size step for m rollouts: the next power of two up to 512, then 512."""
    return min(512, 1 << max(0, int(m - 1).bit_length()))


class EngineRollouts:
    """The rollouts of a search bot (``SearchAgent``: its ``samples`` and its rollout policy ``rollout``) in the
    batched engine."""

    samples: int
    rollout: Agent

    def _engine_rollout_totals(
        self, ctx: DecisionContext, legal: np.ndarray, hands: np.ndarray, discards: np.ndarray, total: np.ndarray
    ) -> None:
        """``_rollout_totals`` in the batched engine: one ``engine.step`` and one policy call per ply over all
        the (decision, card, sample) triples (any rollout policy)."""
        engine, state, games, seats = ctx.engine, ctx.state, ctx.games, ctx.seats
        s, n = self.samples, engine.n_players
        dec, card = np.nonzero(legal)  # one (decision, card) per candidate
        trip_dec = np.repeat(dec, s)
        trip_card = np.repeat(card, s)
        trip_sample = np.tile(np.arange(s), len(dec))
        plays_left = engine.hand_size * n - (state.n_tricks[games] * n + state.n_in_trick[games])
        order = np.argsort(-plays_left[trip_dec], kind="stable")  # longest rollouts first
        # Pad to a multiple of the granularity (copies of the last, dropped below): batch
        # sizes then take few distinct values, which keeps the engine's per-size caches small.
        m = len(order)
        order = np.concatenate([order, np.full(-m % _granularity(m), order[-1])])
        trip_dec, trip_card, trip_sample = trip_dec[order], trip_card[order], trip_sample[order]

        layout = (trip_dec, trip_sample)
        roll = layout_states(engine, state, games[trip_dec], seats[trip_dec], hands[layout], discards[layout])
        values = self._rollout(engine, roll, trip_card, seats[trip_dec], plays_left[trip_dec])
        trip_dec, trip_card, values = trip_dec[:m], trip_card[:m], values[:m]
        np.add.at(total, (trip_dec, trip_card), values)

    def _rollout(
        self, engine: SpadesEngine, roll: GameState, first: np.ndarray, seats: np.ndarray, plays_left: np.ndarray
    ) -> np.ndarray:
        """Play ``first`` then finish each hand with the rollout policy; (M,) values for ``seats``' side."""
        return self._play_rollouts(engine, roll, first, seats, plays_left, int(plays_left.max(initial=0)))[0]

    def _play_rollouts(
        self,
        engine: SpadesEngine,
        roll: GameState,
        first: np.ndarray,
        seats: np.ndarray,
        plays_left: np.ndarray,
        steps: int,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Play ``first`` then ``steps - 1`` plies of the rollout policy: (M,) values for ``seats``' side of the hands
        that ended, and (M,) bool which did (the others are in PLAY, ``steps`` plies on).

        Rollouts are sorted longest first, so the live ones are a prefix of the
        batch; the prefix is rounded up to a multiple of ``_granularity`` (games past
        their hand's end play on harmlessly) to keep the engine's per-size caches small.
        """
        m = len(first)
        gran = _granularity(m)
        values = np.zeros(m)
        recorded = np.zeros(m, dtype=bool)
        side = engine.side_of_seat[seats]
        for step in range(min(steps, int(plays_left.max(initial=0)))):
            live = int(np.count_nonzero(plays_left > step))
            size = min(m, -(-live // gran) * gran)
            view = type(roll)(**{f.name: getattr(roll, f.name)[:size] for f in dataclasses.fields(roll)})
            if step == 0:
                actions = first[:size]
            else:
                masks = engine.legal_action_mask(view)
                ctx = DecisionContext(engine, view, np.arange(size), view.to_move)
                actions = self.rollout.act(None, masks, ctx)
            result = engine.step(view, actions, validate=False)
            for f in result.finished:
                g = f.games
                new = ~recorded[g]
                g = g[new]
                values[g] = side_margin(hand_values(engine, f, new), side[g])
                recorded[g] = True
        return values, recorded
