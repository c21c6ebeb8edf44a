"""The batched Spades engine: reset, legal actions and step over B games at once.

Every rule is written once over the whole batch (masks, ``np.where``, fancy
indexing on uint64 card masks); nothing loops over games in Python. ``step``
mutates the state in place and returns what happened (finished hands, score
changes, finished matches).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spades_env import cards
from spades_env.engine import bits, dealing
from spades_env.engine.actions import ActionLayout
from spades_env.engine.scoring import match_winner, score_hand
from spades_env.engine.state import (
    BID,
    BLIND,
    FREE_LEAD,
    OVER,
    PHASE_NAMES,
    PLAY,
    RESTRICTED_LEAD,
    GameState,
)
from spades_env.rules import Rules, resolve_rules

I64 = np.int64


class IllegalActionError(ValueError):
    """An action that is not legal for the player to move; names the legal ones."""


@dataclass
class FinishedHands:
    """What a record of each hand finished in a step needs (G finished games)."""

    games: np.ndarray
    """(G,) int64: batch indices of the games whose hand finished."""
    deal: np.ndarray
    """(G, N) uint64: the hands as dealt."""
    dealer: np.ndarray
    """(G,) int64: dealer of the finished hand."""
    history: np.ndarray
    """(G, T, N) int64: card each seat played to each trick."""
    bids: np.ndarray
    """(G, N) int64: bids (0 = nil)."""
    blind: np.ndarray
    """(G, N) bool: blind nil declared."""
    tricks_won: np.ndarray
    """(G, N) int64: tricks taken per seat."""
    trick_winners: np.ndarray
    """(G, T) int64: winner of each trick."""
    start_scores: np.ndarray
    """(G, S) int64: scores before the hand."""
    start_bags: np.ndarray
    """(G, S) int64: bags before the hand."""
    delta: np.ndarray
    """(G, S) int64: points scored in the hand."""
    scores: np.ndarray
    """(G, S) int64: scores after the hand."""
    bags: np.ndarray
    """(G, S) int64: bags after the hand."""
    made: np.ndarray
    """(G, S) bool: contract made."""


@dataclass
class StepResult:
    """What one ``step`` did, per game."""

    hand_done: np.ndarray
    """(B,) bool: a hand was scored in this step."""
    match_done: np.ndarray
    """(B,) bool: the match ended in this step."""
    score_delta: np.ndarray
    """(B, S) int64: points each side scored in this step (non-zero only at hand ends)."""
    finished: list[FinishedHands]
    """Details of the hands finished in this step (empty most steps)."""


class SpadesEngine:
    """Batched rules engine for one rule set."""

    def __init__(self, rules: Rules | str | None = None) -> None:
        self.rules = resolve_rules(rules)
        r = self.rules
        self.layout = ActionLayout.for_rules(r)
        self.n_players = r.n_players
        self.n_sides = r.n_sides
        self.hand_size = r.hand_size
        self.deck = r.deck
        self.side_of_seat = np.array([r.side_of_seat(s) for s in range(r.n_players)], dtype=I64)
        self.next_seat = (np.arange(r.n_players, dtype=I64) + 1) % r.n_players
        self.partner = (np.arange(r.n_players, dtype=I64) + 2) % r.n_players if r.partnership else None
        self._suit_of = np.full(64, -1, dtype=I64)
        self._power = np.full((4, 64), -1, dtype=I64)
        for c in range(cards.N_CARD_IDS):
            suit, rank = cards.card_suit(c), cards.card_rank(c)
            self._suit_of[c] = suit
            for led in range(4):
                if suit == cards.SPADES:
                    self._power[led, c] = 100 + rank
                elif suit == led:
                    self._power[led, c] = rank
        self._power_flat = self._power.reshape(-1)
        # PREFERRED[led_suit]: the cards a player must play if holding any (else any card).
        # Row -1 (FREE_LEAD) is empty; row -2 (RESTRICTED_LEAD) holds the non-spades.
        self._preferred = np.zeros(6, dtype=np.uint64)
        self._preferred[: cards.SPADES] = cards.SUIT_MASK[: cards.SPADES]
        self._preferred[cards.SPADES] = cards.TRUMP_MASK
        self._preferred[RESTRICTED_LEAD] = ~cards.TRUMP_MASK
        self._base: dict[int, np.ndarray] = {}

    # ------------------------------------------------------------------ reset
    def reset(
        self,
        seeds: int | np.ndarray | list[int],
        *,
        deals: np.ndarray | list | None = None,
        dealers: np.ndarray | list[int] | int | None = None,
        scores: np.ndarray | list | None = None,
        bags: np.ndarray | list | None = None,
    ) -> GameState:
        """Start one new match per seed (``seeds`` is an int for one game, or B ints).

        Optional per-game overrides: ``deals`` (B, N) card masks or lists of card ids
        for the first hand, ``dealers`` (B,), starting ``scores`` and ``bags`` (B, S).
        Game i of a batch plays exactly the match a single reset with seed i plays.
        """
        keys = dealing.game_keys(np.atleast_1d(seeds))
        state = self._empty(len(keys))
        self.start_matches(state, np.arange(len(keys)), keys, deals=deals, dealers=dealers, scores=scores, bags=bags)
        return state

    def start_matches(
        self,
        state: GameState,
        games: np.ndarray,
        keys: np.ndarray,
        *,
        deals=None,
        dealers=None,
        scores=None,
        bags=None,
    ) -> None:
        """Start new matches in the given games of an existing state (auto-reset)."""
        g = np.asarray(games, dtype=I64)
        n = len(g)
        state.key[g] = keys
        state.dealer[g] = (
            dealing.first_dealer(keys, self.n_players) if dealers is None else self._per_game(dealers, n, "dealers")
        )
        if np.any((state.dealer[g] < 0) | (state.dealer[g] >= self.n_players)):
            raise ValueError(f"dealers must be seats in 0..{self.n_players - 1}, got {state.dealer[g]}")
        state.scores[g] = 0 if scores is None else self._sides_array(scores, n, "scores")
        state.bags[g] = 0 if bags is None else self._sides_array(bags, n, "bags")
        state.hand_number[g] = 0
        state.winner[g] = -1
        self._start_hand(state, g, None if deals is None else self._deal_array(deals, n))

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
        )

    def _start_hand(self, state: GameState, g: np.ndarray, deals: np.ndarray | None = None) -> None:
        if len(g) == 0:
            return
        if deals is None:
            deals = dealing.deal(state.key[g], state.hand_number[g], self.deck, self.n_players)
        state.hands[g] = deals
        state.deal[g] = deals
        state.trick[g] = -1
        state.n_in_trick[g] = 0
        state.led_suit[g] = self._lead_state(np.zeros(len(g), bool))
        state.n_tricks[g] = 0
        state.tricks_won[g] = 0
        state.trick_winners[g] = -1
        state.bids[g] = -1
        state.blind[g] = False
        state.n_bids[g] = 0
        state.spades_broken[g] = False
        state.voids[g] = 0
        state.history[g] = -1
        state.hand_start_scores[g] = state.scores[g]
        state.hand_start_bags[g] = state.bags[g]
        state.looked[g] = ~self._blind_nil_allowed(state.scores[g])[:, self.side_of_seat]
        first = self.next_seat[state.dealer[g]]
        state.to_move[g] = first
        state.leader[g] = first
        state.phase[g] = np.where(state.looked[g, first], BID, BLIND)

    def _blind_nil_allowed(self, scores: np.ndarray) -> np.ndarray:
        """(G, S) bool: may a side's players bid blind nil this hand [RULES 2]."""
        if not self.rules.blind_nil:
            return np.zeros(scores.shape, bool)
        behind = self.rules.blind_nil_requires_behind_by
        if behind is None:
            return np.ones(scores.shape, bool)
        others = np.where(np.eye(self.n_sides, dtype=bool)[None], np.iinfo(I64).min, scores[:, None, :])
        return scores <= others.max(axis=2) - behind

    # ------------------------------------------------------------ legal moves
    def legal_cards(self, state: GameState) -> np.ndarray:
        """(B,) uint64: cards the player to move may play (meaningful in PLAY)."""
        hand = state.hands.reshape(-1)[self._rows(state.batch_size) * self.n_players + state.to_move]
        return self._legal_cards(hand, state.led_suit)

    def _legal_cards(self, hand: np.ndarray, led_suit: np.ndarray) -> np.ndarray:
        """Follow suit if able; lead a non-spade if able while spades are unbroken [RULES 1]."""
        preferred = hand & self._preferred[led_suit]
        return np.where(preferred != 0, preferred, hand)

    def _lead_state(self, broken: np.ndarray) -> np.ndarray:
        """``led_suit`` value before a lead: restricted while spades are unbroken."""
        if self.rules.spades_lead_anytime:
            return np.full(broken.shape, FREE_LEAD, I64)
        return np.where(broken, FREE_LEAD, RESTRICTED_LEAD)

    def _rows(self, b: int) -> np.ndarray:
        rows = self._base.get(b)
        if rows is None:
            rows = self._base[b] = np.arange(b, dtype=I64)
        return rows

    def min_bid(self, state: GameState, games: np.ndarray | None = None) -> np.ndarray:
        """(G,) int64: lowest legal bid of the player to move (``min_team_bid``)."""
        g = self._rows(state.batch_size) if games is None else np.asarray(games, dtype=I64)
        if not (self.rules.partnership and self.rules.min_team_bid):
            return np.zeros(len(g), I64)
        partner_bid = state.bids.reshape(-1)[g * self.n_players + self.partner[state.to_move[g]]]
        return np.where(partner_bid >= 0, np.maximum(0, self.rules.min_team_bid - partner_bid), 0)

    def legal_action_mask(self, state: GameState, games: np.ndarray | None = None) -> np.ndarray:
        """(G, n_actions) bool: legal actions of the player to move in each game (all, or ``games``)."""
        g = self._rows(state.batch_size) if games is None else np.asarray(games, dtype=I64)
        lay = self.layout
        mask = np.zeros((len(g), lay.n_actions), dtype=bool)
        phase = state.phase[g]
        hand = state.hands.reshape(-1)[g * self.n_players + state.to_move[g]]
        legal = self._legal_cards(hand, state.led_suit[g])
        mask[:, : lay.n_card_ids] = bits.to_bool(legal, lay.n_card_ids) & (phase == PLAY)[:, None]
        bid_values = np.arange(lay.max_bid + 1)
        mask[:, lay.bid_offset : lay.blind_nil] = (phase == BID)[:, None] & (
            bid_values >= self.min_bid(state, g)[:, None]
        )
        blind = phase == BLIND
        # Blind nil is a bid of 0: not open to a seat that must still reach ``min_team_bid``.
        mask[:, lay.blind_nil] = blind & (self.min_bid(state, g) == 0)
        mask[:, lay.look] = blind
        return mask

    def current_player(self, state: GameState) -> np.ndarray:
        """(B,) int64: seat to move, -1 where the match is over."""
        return np.where(state.phase == OVER, -1, state.to_move)

    # ------------------------------------------------------------------- step
    def step(self, state: GameState, actions: np.ndarray, validate: bool = True) -> StepResult:
        """Apply one action per game (for the player to move) in place.

        Games whose match is over must be given any value and are left unchanged
        only if ``validate`` is False; with validation an action for a finished
        match raises. Raises ``IllegalActionError`` naming the legal actions.
        """
        actions = np.asarray(actions, dtype=I64).reshape(-1)
        b = state.batch_size
        if len(actions) != b:
            raise ValueError(f"expected {b} actions (one per game), got {len(actions)}")
        result = StepResult(
            hand_done=np.zeros(b, bool),
            match_done=np.zeros(b, bool),
            score_delta=np.zeros((b, self.n_sides), I64),
            finished=[],
        )
        phase = state.phase
        if np.count_nonzero(phase == PLAY) == b:
            self._play(state, slice(None), self._rows(b), actions, result, validate)
            return result
        groups = [(p, np.flatnonzero(phase == p)) for p in (BLIND, BID, PLAY)]
        if validate:
            live = phase != OVER
            if not live.all():
                self._raise_illegal(state, np.flatnonzero(~live)[:1], actions)
            for p, idx in groups:
                if len(idx):
                    {BLIND: self._check_blind, BID: self._check_bid, PLAY: self._check_play}[p](state, idx, actions[idx])
        for p, idx in groups:
            if len(idx) == 0:
                continue
            if p == BLIND:
                self._blind(state, idx, actions[idx])
            elif p == BID:
                self._bid(state, idx, actions[idx])
            else:
                self._play(state, idx, idx, actions[idx], result, False)  # validated above
        return result

    # -------------------------------------------------------------- validation
    def _check_play(self, state: GameState, idx: np.ndarray, a: np.ndarray) -> None:
        """Card plays of a mixed batch, checked before any game of the batch changes."""
        hand = state.hands[idx, state.to_move[idx]]
        self._check_cards(state, idx, self._legal_cards(hand, state.led_suit[idx]), a)

    def _check_cards(self, state: GameState, rows: np.ndarray, legal: np.ndarray, a: np.ndarray) -> None:
        in_range = (a >= 0) & (a < self.layout.n_card_ids)
        ok = in_range & ((legal >> np.where(in_range, a, 0).astype(np.uint64)) & np.uint64(1)).astype(bool)
        if not ok.all():
            self._raise_illegal(state, rows[~ok][:1], None, a[~ok][:1])

    def _check_bid(self, state: GameState, idx: np.ndarray, a: np.ndarray) -> None:
        bid = a - self.layout.bid_offset
        ok = (bid >= self.min_bid(state, idx)) & (bid <= self.layout.max_bid)
        if not ok.all():
            self._raise_illegal(state, idx[~ok][:1], None, a[~ok][:1])

    def _check_blind(self, state: GameState, idx: np.ndarray, a: np.ndarray) -> None:
        ok = ((a == self.layout.blind_nil) & (self.min_bid(state)[idx] == 0)) | (a == self.layout.look)
        if not ok.all():
            self._raise_illegal(state, idx[~ok][:1], None, a[~ok][:1])

    def _raise_illegal(self, state: GameState, game: np.ndarray, actions=None, action=None) -> None:
        g = int(game[0])
        a = int(actions[g] if action is None else action[0])
        phase = int(state.phase[g])
        if phase == OVER:
            raise IllegalActionError(
                f"game {g}: the match is over (winner: side {int(state.winner[g])}); no action is legal, reset it"
            )
        legal = np.flatnonzero(self.legal_action_mask(state, np.array([g]))[0])
        names = ", ".join(f"{x} ({self.layout.describe(x)})" for x in legal)
        raise IllegalActionError(
            f"game {g}: illegal action {a} ({self.layout.describe(a)}) for seat {int(state.to_move[g])} "
            f"in phase {PHASE_NAMES[phase]!r}; legal actions: [{names}]"
        )

    # ---------------------------------------------------------------- phases
    def _blind(self, state: GameState, idx: np.ndarray, a: np.ndarray) -> None:
        seat = state.to_move[idx]
        declared = a == self.layout.blind_nil
        state.looked[idx, seat] = True
        state.blind[idx, seat] = declared
        state.bids[idx, seat] = np.where(declared, 0, -1)
        state.phase[idx] = BID  # the same seat now bids, unless it declared
        done = idx[declared]
        state.n_bids[done] += 1
        self._next_bidder(state, done)

    def _bid(self, state: GameState, idx: np.ndarray, a: np.ndarray) -> None:
        seat = state.to_move[idx]
        state.bids[idx, seat] = a - self.layout.bid_offset
        state.n_bids[idx] += 1
        self._next_bidder(state, idx)

    def _next_bidder(self, state: GameState, idx: np.ndarray) -> None:
        if len(idx) == 0:
            return
        done = state.n_bids[idx] == self.n_players
        start = idx[done]
        first = self.next_seat[state.dealer[start]]
        state.phase[start] = PLAY
        state.leader[start] = first
        state.to_move[start] = first
        more = idx[~done]
        nxt = self.next_seat[state.to_move[more]]
        state.to_move[more] = nxt
        state.phase[more] = np.where(state.looked[more, nxt], BID, BLIND)

    def _play(self, state: GameState, sel, rows: np.ndarray, card: np.ndarray, result: StepResult, validate: bool) -> None:
        """Play one card in each selected game (``sel`` is a slice or the index array ``rows``)."""
        seat = state.to_move[sel]
        at = rows * self.n_players + seat  # flat index of (game, seat)
        hands = state.hands.reshape(-1)
        hand = hands[at]
        n = state.n_in_trick[sel]
        led = state.led_suit[sel]
        if validate:
            self._check_cards(state, rows, self._legal_cards(hand, led), card)
        hands[at] = hand & ~bits.BIT[card]
        suit = self._suit_of[card]
        led = np.where(n == 0, suit, led)
        state.led_suit[sel] = led
        state.voids[sel] |= (suit != led).astype(I64) << (4 * seat + led)
        state.trick.reshape(-1)[at] = card
        state.spades_broken[sel] |= suit == cards.SPADES
        n += 1
        state.n_in_trick[sel] = n
        state.to_move[sel] = self.next_seat[seat]
        complete = n == self.n_players
        n_complete = np.count_nonzero(complete)
        if n_complete == len(rows):
            self._finish_tricks(state, sel, rows, result)
        elif n_complete:
            g = rows[complete]
            self._finish_tricks(state, g, g, result)

    def _finish_tricks(self, state: GameState, sel, rows: np.ndarray, result: StepResult) -> None:
        """Score the completed trick of each selected game; its winner leads next."""
        trick = state.trick[sel]
        winner = np.argmax(self._power_flat[state.led_suit[sel][:, None] * 64 + trick], axis=1)
        at = rows * self.n_players + winner
        state.tricks_won.reshape(-1)[at] += 1
        done = state.n_tricks[sel]
        at = rows * self.hand_size + done
        state.trick_winners.reshape(-1)[at] = winner
        state.history.reshape(-1, self.n_players)[at] = trick
        done += 1
        state.n_tricks[sel] = done
        state.leader[sel] = winner
        state.to_move[sel] = winner
        state.trick[sel] = -1
        state.n_in_trick[sel] = 0
        state.led_suit[sel] = self._lead_state(state.spades_broken[sel])
        ended = rows[done == self.hand_size]
        if len(ended):
            self._finish_hands(state, ended, result)

    def _finish_hands(self, state: GameState, g: np.ndarray, result: StepResult) -> None:
        score = score_hand(self.rules, state.bids[g], state.blind[g], state.tricks_won[g], state.bags[g])
        start_scores, start_bags = state.scores[g].copy(), state.bags[g].copy()
        state.scores[g] += score.delta
        state.bags[g] = score.bags
        state.hand_number[g] += 1
        winner = match_winner(self.rules, state.scores[g], state.hand_number[g])
        state.winner[g] = winner
        result.hand_done[g] = True
        result.score_delta[g] = score.delta
        result.match_done[g] = winner >= 0
        result.finished.append(
            FinishedHands(
                games=g,
                deal=state.deal[g].copy(),
                dealer=state.dealer[g].copy(),
                history=state.history[g].copy(),
                bids=state.bids[g].copy(),
                blind=state.blind[g].copy(),
                tricks_won=state.tricks_won[g].copy(),
                trick_winners=state.trick_winners[g].copy(),
                start_scores=start_scores,
                start_bags=start_bags,
                delta=score.delta,
                scores=state.scores[g].copy(),
                bags=state.bags[g].copy(),
                made=score.made,
            )
        )
        over = winner >= 0
        state.phase[g[over]] = OVER
        cont = g[~over]
        state.dealer[cont] = self.next_seat[state.dealer[cont]]
        self._start_hand(state, cont)

    # ---------------------------------------------------------------- helpers
    def _per_game(self, values, n: int, name: str) -> np.ndarray:
        arr = np.broadcast_to(np.asarray(values, dtype=I64), (n,))
        return arr.copy()

    def _sides_array(self, values, n: int, name: str) -> np.ndarray:
        arr = np.asarray(values, dtype=I64)
        if arr.ndim == 1:
            arr = np.broadcast_to(arr, (n, self.n_sides))
        if arr.shape != (n, self.n_sides):
            raise ValueError(f"{name} must have shape ({n}, {self.n_sides}) (games, sides), got {arr.shape}")
        return arr

    def _deal_array(self, deals, n: int) -> np.ndarray:
        """Accept (n, N) uint64 masks or nested lists of card ids; check it is a legal deal."""
        if isinstance(deals, np.ndarray) and deals.dtype == np.uint64:
            masks = deals
        else:
            if len(deals) != n or any(len(game) != self.n_players for game in deals):
                raise ValueError(
                    f"deals must hold {n} game(s) of {self.n_players} hands each, "
                    f"got {[len(game) for game in deals]} hands per game"
                )
            deck = set(self.deck)
            for i, game in enumerate(deals):
                for seat, hand in enumerate(game):
                    bad = [c for c in hand if int(c) not in deck]
                    if bad:
                        raise ValueError(
                            f"deal for game {i}, seat {seat} holds card id(s) {bad} that are not in the deck "
                            f"of these rules ({len(self.deck)} cards)"
                        )
            masks = np.array([[cards.cards_to_mask(h) for h in game] for game in deals], dtype=np.uint64)
        if masks.shape != (n, self.n_players):
            raise ValueError(f"deals must have shape ({n}, {self.n_players}) (games, seats), got {masks.shape}")
        deck_mask = np.uint64(cards.cards_to_mask(self.deck))
        counts = bits.popcount(masks)
        union = np.bitwise_or.reduce(masks, axis=1)
        bad = np.flatnonzero(
            np.any(counts != self.hand_size, axis=1) | (union != deck_mask) | (counts.sum(axis=1) != len(self.deck))
        )
        if len(bad):
            g = int(bad[0])
            raise ValueError(
                f"deal for game {g} is not a legal deal: each of the {self.n_players} hands needs "
                f"{self.hand_size} distinct cards of the deck, got sizes {counts[g].tolist()} "
                f"({int(bits.popcount(union[g : g + 1])[0])} distinct cards of {len(self.deck)})"
            )
        return masks
