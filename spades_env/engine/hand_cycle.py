"""The hand cycle of the engine: the empty state, new matches, dealing a hand, scoring the hands that ended.

``HandCycle`` is the part of ``SpadesEngine`` that runs between decisions: ``_start_hand`` deals
(``engine.dealing``, NumPy over the games dealt) and sets the hand up to its first decision
in one compiled call (the game's ``loops.begin_hands``); ``_finish_hands`` scores the hands
that ended in a ``step`` (``games.spades.scoring``, ``games.hearts.scoring``), records them
(``FinishedHands``), and starts the next hand, or the next match with ``auto_reset``.
"""

from __future__ import annotations

import numpy as np

from spades_env.core.state_arrays import state_arrays
from spades_env.engine import dealing
from spades_env.engine.results import FinishedHands, StepResult
from spades_env.engine.state import OVER, GameState
from spades_env.games.hearts.scoring import cards_taken, hearts_match_winner, score_hearts_hand
from spades_env.games.spades.scoring import match_winner, score_hand

I64 = np.int64


class HandCycle:
    """Dealing, hand set-up and hand scoring of ``SpadesEngine`` (which sets the attributes used)."""

    def _new_matches(self, state: GameState, g: np.ndarray, keys, dealer, scores=0, bags=0, hand_numbers=0) -> None:
        """The match fields of new matches in games ``g`` (their first hand is dealt after)."""
        state.key[g] = keys
        state.dealer[g] = dealer
        sides = self._cells(g, self.n_sides, state.batch_size)
        state.scores.reshape(-1)[sides] = scores
        state.bags.reshape(-1)[sides] = bags
        state.hand_number[g] = hand_numbers
        state.winner[g] = -1
        state.n_redeals[g] = 0

    def _empty(self, b: int) -> GameState:
        n, s, t = self.n_players, self.n_sides, self.hand_size
        z = lambda *shape: np.zeros(shape, dtype=I64)  # noqa: E731
        return GameState(
            hands=np.zeros((b, n), np.uint64),
            deal=np.zeros((b, n), np.uint64),
            phase=np.full(b, OVER, I64),
            to_move=z(b),
            dealer=z(b),
            leader=z(b),
            trick=np.full((b, n), -1, I64),
            n_in_trick=z(b),
            led_suit=np.full(b, -1, I64),
            n_tricks=z(b),
            tricks_won=z(b, n),
            trick_winners=np.full((b, t), -1, I64),
            bids=np.full((b, n), -1, I64),
            blind=np.zeros((b, n), bool),
            looked=np.ones((b, n), bool),
            n_bids=z(b),
            spades_broken=np.zeros(b, bool),
            voids=z(b),
            scores=z(b, s),
            bags=z(b, s),
            hand_number=z(b),
            winner=np.full(b, -1, I64),
            key=np.zeros(b, np.uint64),
            history=np.full((b, t, n), -1, I64),
            hand_start_scores=z(b, s),
            hand_start_bags=z(b, s),
            face_up=np.zeros((b, n), np.uint64),
            bemo=np.full((b, s), -1, I64),
            n_redeals=z(b),
            pile=np.full((b, self.pile_size), -1, I64),
            pile_pos=z(b),
            shown=np.full(b, -1, I64),
            discards=np.zeros((b, n), np.uint64),
            seen=np.zeros((b, n), np.uint64),
            exchanged_out=np.zeros((b, n), np.uint64),
            exchanged_in=np.zeros((b, n), np.uint64),
            passed=np.zeros((b, n), np.uint64),
            points_taken=z(b, n),
        )

    def _start_hand(
        self,
        state: GameState,
        g: np.ndarray,
        deals: np.ndarray | None = None,
        pile: np.ndarray | None = None,
        *,
        after_play: bool = False,
    ) -> None:
        """Deal and set up the next hand of games ``g`` (its dealer, scores and bags are set).

        ``after_play``: the games have just played a hand out (no weak-hand redeal yet).
        """
        if len(g) == 0:
            return
        r = self.rules
        b = state.batch_size
        if after_play and not r.misdeal_weak_hand:
            counter = state.hand_number[g]  # no redeal yet: the counter is the hand number
        else:
            counter = dealing.deal_counter(state.hand_number[g], state.n_redeals[g])
        if r.two_player:
            pile = dealing.shuffle(state.key[g], counter, self.deck) if pile is None else pile
            state.pile[g] = pile
            state.pile_pos[g] = 0
            deals = np.zeros((len(g), self.n_players), np.uint64)
            state.discards[g] = 0
            state.seen[g] = 0
            state.exchanged_out[g] = 0
            state.exchanged_in[g] = 0
        elif deals is None:
            deals = dealing.deal(state.key[g], counter, self.deck, self.n_players)
        n = self.n_players
        seats = self._cells(g, n, b)  # flat (game, seat) cells of the (B, N) fields
        state.hands.reshape(-1)[seats] = deals
        state.deal.reshape(-1)[seats] = deals
        if r.face_up_deal:
            state.face_up[g] = dealing.pick_cards(state.key[g], counter, deals, 4)
        # The first decision (blind nil, bids, the draw, the pass), compiled per game.
        self._loops.begin_hands(g, *self._rule_args, *state_arrays(state))

    def _cells(self, g: np.ndarray, width: int, b: int) -> np.ndarray:
        """(G, width) flat indices of rows ``g`` of a C-contiguous (b, width...) array.

        NumPy's fancy row indexing (``a[g] = v`` on a 2-D array) of narrow rows is several
        times slower than a flat scatter or ``a.take(g, axis=0)``; the hot paths use these
        instead. The indices are rows of a kept ``arange`` table (taking rows is cheaper
        than broadcasting ``g * width`` against ``arange(width)``).
        """
        table = self._cell_tables.get(width)
        if table is None or len(table) < b:
            table = self._cell_tables[width] = np.arange(b * width, dtype=I64).reshape(b, width)
            table.flags.writeable = False
        return table.take(g, axis=0)

    def _rows(self, b: int) -> np.ndarray:
        """``arange(b)``, kept for the last few batch sizes (callers' batches may vary freely)."""
        rows = self._base.get(b)
        if rows is None:
            if len(self._base) >= 8:
                self._base.clear()
            rows = self._base[b] = np.arange(b, dtype=I64)
            rows.flags.writeable = False
        return rows

    def _finish_hands(self, state: GameState, g: np.ndarray, result: StepResult, auto_reset: bool) -> None:
        # ``g`` is an index array: every ``state.x[g]`` below is already a copy.
        r = self.rules
        take = lambda a: a.take(g, axis=0)  # noqa: E731  (faster than a[g] for 2-D rows)
        tricks_won, bids, blind = take(state.tricks_won), take(state.bids), take(state.blind)
        trick_winners, bemo, hand_number = take(state.trick_winners), take(state.bemo), state.hand_number[g]
        sides = self._cells(g, self.n_sides, state.batch_size)
        scores = state.scores.reshape(-1)[sides]
        bags = state.bags.reshape(-1)[sides]
        history = take(state.history)
        if self.hearts:  # no contracts or bags: the breakdown's fields are zero
            delta = score_hearts_hand(r, cards_taken(history, trick_winners, self.n_players)).delta
            made, added, penalties = np.zeros(delta.shape, bool), np.zeros(delta.shape, I64), np.zeros(delta.shape, I64)
            scores += delta
            winner = hearts_match_winner(r, scores, hand_number + 1)
        else:
            score = score_hand(r, bids, blind, tricks_won, bags, trick_winners=trick_winners, bemo=bemo, in_range=True)
            delta, made, bags = score.delta, score.made, score.bags
            added, penalties = score.bags_added, score.bag_penalties
            scores += delta
            winner = match_winner(r, scores, hand_number + 1, boston=score.boston)
        result.hand_done[g] = True
        result.score_delta.reshape(-1)[sides] = delta
        over = winner >= 0
        result.match_done[g] = over
        result.winner[g] = winner
        n = len(g)
        zeros = np.zeros((n, self.n_players), np.uint64)  # the fields of variants these rules lack
        result.finished.append(
            FinishedHands(
                games=g,
                deal=take(state.deal),
                dealer=state.dealer[g],
                history=history,
                bids=bids,
                blind=blind,
                tricks_won=tricks_won,
                trick_winners=trick_winners,
                start_scores=state.hand_start_scores.reshape(-1)[sides],
                start_bags=state.hand_start_bags.reshape(-1)[sides],
                delta=delta,
                scores=scores,
                bags=bags,
                made=made,
                bags_added=added,
                bag_penalties=penalties,
                bemo=bemo,
                pile=take(state.pile) if r.two_player else state.pile[:n],
                discards=take(state.discards) if r.two_player else zeros,
                exchanged_out=take(state.exchanged_out) if r.two_player else zeros,
                passed=take(state.passed) if self.hearts else zeros,
                points_taken=take(state.points_taken) if self.hearts else np.zeros((n, self.n_players), I64),
                hand_number=hand_number,
                key=state.key[g],
            )
        )
        # The next hand: same match and key, the next dealer. A match that ended is OVER, or
        # with ``auto_reset`` the next match starts (new key, first dealer, 0 points, hand 0).
        dealer = self.next_seat[state.dealer[g]]
        hand_number = hand_number + 1
        any_over = over.any()
        if any_over and auto_reset:
            ended = g[over]
            keys = dealing.splitmix64(state.key[ended])
            state.key[ended] = keys
            dealer[over] = dealing.first_dealer(keys, self.n_players)
            scores = np.where(over[:, None], 0, scores)  # new arrays: the record keeps its own
            bags = np.where(over[:, None], 0, bags)
            hand_number[over] = 0
            winner = -1
        state.scores.reshape(-1)[sides] = scores
        state.bags.reshape(-1)[sides] = bags
        state.hand_number[g] = hand_number
        state.winner[g] = winner
        if any_over and not auto_reset:
            state.phase[g[over]] = OVER
            going_on = ~over
            g, dealer, scores, bags = g[going_on], dealer[going_on], scores[going_on], bags[going_on]
        state.dealer[g] = dealer
        if r.misdeal_weak_hand:
            state.n_redeals[g] = 0
        self._start_hand(state, g, after_play=True)
