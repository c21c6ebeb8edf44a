"""A rule-based Hearts player [RULES 7], vectorized over the batch like ``agents.heuristic``.

``HeuristicAgent`` hands every Hearts decision to this class. It reads only what the
deciding seat can see (its hand, the cards it passed, the public trick history and the
points each seat has taken) and is deterministic.

Passing (three cards, the most dangerous first):

1. the queen of spades, then the ace and king of spades (unless five or more spades
   protect them), then high hearts (ten and up);
2. otherwise high cards of short clubs and diamonds, to void a suit.

Card play, in order of priority:

1. Stop a moon shot: when one opponent has taken every point so far (at least 14), win a
   trick with points in it if possible, and never discard a point card to that player.
2. Follow suit: duck with the highest card that loses to the current winner (the queen of
   spades goes under a king or ace); when every card wins, the last player takes the trick
   with its highest card, others play their lowest.
3. Discard (void in the led suit): the queen of spades, then the ace and king of spades
   while the queen is out, then the highest heart, then the highest card of the shortest
   suit (to void it). In partnership nothing with points goes on the partner's trick.
4. Lead: a low spade to flush out the queen when it is still out and every spade held is
   below it; otherwise the lowest card, keeping off spades while holding the queen, king
   or ace of spades.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent, DecisionContext
from agents.heuristic import HIGHEST, KING, LOWEST, NEG, POPCOUNT, QUEEN, _lanes, _pack
from spades_env import cards
from spades_env.engine import PLAY
from spades_env.engine.hearts_scoring import QUEEN_OF_SPADES, card_points
from spades_env.engine.state import PASS

SUIT = np.arange(cards.N_STANDARD_CARDS) // cards.N_RANKS
RANK = np.arange(cards.N_STANDARD_CARDS) % cards.N_RANKS
IS_HEART = SUIT == cards.HEARTS
HIGH_SPADE = (SUIT == cards.SPADES) & (RANK >= KING)
#: Moon-shot alarm: an opponent has taken every point so far, and at least this many.
MOON_ALARM = 14


class HeartsHeuristicAgent(Agent):
    """Rule-based Hearts passing and card play (individual and partnership), deterministic."""

    name = "heuristic"

    def act(self, observations, masks: np.ndarray, context: DecisionContext | None = None) -> np.ndarray:
        if context is None:
            raise ValueError("HeartsHeuristicAgent needs a DecisionContext (engine, state, games, seats)")
        masks = np.asarray(masks, dtype=bool)
        phase = context.state.phase[context.games]
        out = np.argmax(masks, axis=1).astype(np.int64)
        for p, fn in ((PASS, self.pass_cards), (PLAY, self.play)):
            idx = np.flatnonzero(phase == p)
            if len(idx):
                sub = DecisionContext(context.engine, context.state, context.games[idx], context.seats[idx])
                out[idx] = fn(sub, masks[idx, : cards.N_STANDARD_CARDS])
        return out

    # ------------------------------------------------------------------- pass
    def pass_cards(self, ctx: DecisionContext, legal: np.ndarray) -> np.ndarray:
        """The most dangerous card still in hand (see the module docstring)."""
        st, g, seat = ctx.state, ctx.games, ctx.seats
        length = POPCOUNT[_lanes(st.hands[g, seat] & ~st.passed[g, seat])]  # (B, 4) cards kept so far
        spades = length[:, cards.SPADES][:, None]
        danger = np.where(RANK >= 10, RANK, RANK / 4.0) + np.zeros((len(g), 1))
        danger = danger + np.where(IS_HEART & (RANK >= 8), 40 + RANK, 0)
        guarded = spades >= 5
        danger = np.where((np.arange(52) == QUEEN_OF_SPADES) & ~guarded, 100, danger)
        danger = np.where(HIGH_SPADE & ~guarded, 90 + RANK, danger)
        short = (length <= 3)[:, SUIT] & ~(SUIT == cards.SPADES) & ~IS_HEART
        danger = danger + np.where(short, 15 - 3 * length[:, SUIT], 0)
        return np.argmax(np.where(legal, danger, NEG), axis=1)

    # ------------------------------------------------------------------- play
    def play(self, ctx: DecisionContext, legal: np.ndarray) -> np.ndarray:
        """A card for each decision of the play phase (see the module docstring)."""
        eng, st, g, seat = ctx.engine, ctx.state, ctx.games, ctx.seats
        b, n = len(g), eng.n_players
        rows = np.arange(b)
        points = card_points(eng.rules)[: cards.N_STANDARD_CARDS]
        lanes = _lanes(_pack(legal))  # (B, 4) legal rank sets
        trick = st.trick[g]
        n_in = st.n_in_trick[g]
        lead = n_in == 0
        last = n_in == n - 1
        led = np.clip(st.led_suit[g], 0, 3)
        following = ~lead & (lanes[rows, led] != 0)
        # The current winner of the trick: highest card of the led suit.
        in_led = (trick >= 0) & (SUIT[np.maximum(trick, 0)] == led[:, None])
        win_rank = np.where(in_led, RANK[np.maximum(trick, 0)], -1).max(axis=1)
        win_seat = np.argmax(np.where(in_led, RANK[np.maximum(trick, 0)], -1), axis=1)
        trick_points = np.where(trick >= 0, points[np.maximum(trick, 0)], 0).sum(axis=1)
        played = np.bitwise_or.reduce(st.deal[g] & ~st.hands[g], axis=1)
        hand = st.hands[g, seat]
        queen_out = ((played | hand) >> np.uint64(QUEEN_OF_SPADES)) & np.uint64(1) == 0
        have_queen = ((hand >> np.uint64(QUEEN_OF_SPADES)) & np.uint64(1)).astype(bool)

        # Moon alarm: one opponent holds every point taken so far.
        taken = st.points_taken[g]
        total = taken.sum(axis=1)
        shooter = np.argmax(taken, axis=1)
        side = eng.side_of_seat
        threat = (taken.max(axis=1) == total) & (total >= MOON_ALARM) & (side[shooter] != side[seat])

        legal_ranks = lanes[rows, led]
        below = legal_ranks & ((1 << np.maximum(win_rank, 0)) - 1)
        duck = led * cards.N_RANKS + np.maximum(HIGHEST[below], 0)
        top_led = led * cards.N_RANKS + np.maximum(HIGHEST[legal_ranks], 0)
        low_led = led * cards.N_RANKS + np.maximum(LOWEST[legal_ranks], 0)
        follow = np.where(below != 0, duck, np.where(last, top_led, low_led))
        # Stop the moon: take a trick that has points (or a heart lead) with the highest card.
        stop = threat & ((trick_points > 0) | (led == cards.HEARTS))
        follow = np.where(stop & (HIGHEST[legal_ranks] > win_rank), top_led, follow)

        discard = self._discard(legal, lanes, queen_out, points)
        if eng.rules.partnership or threat.any():
            friendly = side[win_seat] == side[seat]
            safe_only = (threat & (win_seat == shooter)) | (eng.rules.partnership & friendly & ~lead)
            no_points = np.where(legal & (points == 0), RANK + 0.0, NEG)
            has_safe = (no_points > NEG).any(axis=1)
            discard = np.where(safe_only & has_safe, np.argmax(no_points, axis=1), discard)

        choice = np.where(lead, self._lead(legal, lanes, hand, queen_out, have_queen), discard)
        return np.where(following, follow, choice).astype(np.int64)

    def _discard(self, legal: np.ndarray, lanes: np.ndarray, queen_out: np.ndarray, points: np.ndarray):
        """Queen of spades, then A/K of spades while the queen is out, then the highest heart,
        then the highest card of the shortest suit."""
        length = POPCOUNT[lanes]  # (B, 4)
        score = RANK + 2.0 * (13 - length[:, SUIT])  # high cards of short suits
        score = score + np.where(IS_HEART, 40 + RANK, 0)
        score = score + np.where(HIGH_SPADE, 60, 0) * queen_out[:, None]
        score = np.where(np.arange(52) == QUEEN_OF_SPADES, 200, score)
        score = score - np.where(points < 0, 300, 0)  # never throw away the jack of diamonds
        return np.argmax(np.where(legal, score, NEG), axis=1)

    def _lead(self, legal, lanes, hand, queen_out, have_queen) -> np.ndarray:
        """A low spade to flush the queen, else the lowest card away from a spade honour."""
        spade_lane = lanes[:, cards.SPADES]
        low_spades = (spade_lane != 0) & (HIGHEST[spade_lane] < QUEEN)
        flush = queen_out & low_spades & ((_lanes(hand)[:, cards.SPADES] >> QUEEN) == 0)
        keep_off_spades = have_queen | ((_lanes(hand)[:, cards.SPADES] >> KING) != 0)
        length = POPCOUNT[lanes]
        score = -4.0 * RANK - 0.5 * length[:, SUIT] - np.where(IS_HEART, 8, 0)
        score = score - np.where(SUIT == cards.SPADES, 100, 0) * keep_off_spades[:, None]
        score = score + np.where(SUIT == cards.SPADES, 200, 0) * flush[:, None]
        return np.argmax(np.where(legal, score, NEG), axis=1)
