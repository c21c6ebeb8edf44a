"""The batched trick-taking engine (Spades, and Hearts): reset, legal actions and step over B games.

Card play (one card per game, trick completion, the winner, the history) and the legal
cards run compiled, in one Numba call over the batch (``spades_env.core.trick_play``);
every other rule is written once over the whole batch (masks, ``np.where``, fancy
indexing on uint64 card masks). Nothing loops over games in Python. ``step``
mutates the state in place and returns what happened (finished hands, score
changes, finished matches).

Hearts [RULES 7] shares the card-play core: its tables (``trick_play.trick_tables``: no
trump, the lead restriction on hearts instead of spades, the two of clubs leads through
the ``lowest_club_leads`` machinery, the card points, the first-trick restriction) and the
phase handlers are built for the game in ``__init__``. Hearts adds a PASS phase (each
player chooses 3 cards, one action each, clockwise from dealer+1; then all pass at once),
the first-trick restriction (no heart and not the queen of spades, unless nothing else)
and its own scoring (``engine.hearts_scoring``). There is no bidding.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spades_env import cards
from spades_env.core import trick_play
from spades_env.engine import bits, dealing, inputs
from spades_env.engine.actions import ActionLayout
from spades_env.engine.hearts_scoring import (
    FIRST_TRICK_FORBIDDEN,
    card_points,
    cards_taken,
    hearts_match_winner,
    score_hearts_hand,
)
from spades_env.engine.inputs import MatchStarts
from spades_env.engine.scoring import match_winner, score_hand
from spades_env.engine.state import (
    BEMO,
    BID,
    BLIND,
    DRAW,
    EXCHANGE,
    FREE_LEAD,
    LOWEST_CLUB_LEAD,
    OVER,
    PASS,
    PHASE_NAMES,
    PLAY,
    RESTRICTED_LEAD,
    GameState,
)
from spades_env.rules import Rules, resolve_rules

I64 = np.int64
#: Cards a two-player blind-nil bidder may exchange with the discards [RULES 4].
MAX_EXCHANGE = 3
#: Hearts: cards each player passes [RULES 7].
PASS_CARDS = 3
#: Hearts: seats between passer and receiver (clockwise) by hand number mod 4: left, right,
#: across, no pass [RULES 7].
PASS_OFFSETS = (1, 3, 2, 0)
PASS_NAMES = ("left", "right", "across", "none")
#: A weak hand (``misdeal_weak_hand``) holds none of these: trumps (jokers included), J, Q, K.
WEAK_HAND_MASK = np.uint64(
    int(cards.TRUMP_MASK) | cards.cards_to_mask(s * cards.N_RANKS + r for s in range(4) for r in (9, 10, 11))
)


def _seat_rows(a: np.ndarray) -> np.ndarray:
    """A C-contiguous (..., n_players) int64 array as a flat array of seat rows (one opaque
    8 x n_players-byte item per row): gathering or scattering whole rows by index is then
    one element per row, several times cheaper than one per seat. Shares ``a``'s memory."""
    return a.reshape(-1).view(f"V{8 * a.shape[-1]}")


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
    """(G, S) bool: contract made (a zero contract counts as made; False in Hearts)."""
    bags_added: np.ndarray
    """(G, S) int64: bags the side took in the hand, before any penalty: overtricks of its
    contract and the tricks of its failed nils [RULES 3]. 0 without ``bags`` and in Hearts.
    ``bags`` = ``start_bags`` + ``bags_added`` - ``bag_penalties`` x ``bag_limit``."""
    bag_penalties: np.ndarray
    """(G, S) int64: bag penalties applied in the hand (each ``bag_penalty`` points, already in
    ``delta``). 0 without ``bags`` and in Hearts."""
    bemo: np.ndarray
    """(G, S) int64: Bemo declared by each side (0 none, 1 little, 2 big; -1 without ``bemo``)."""
    pile: np.ndarray
    """(G, P) int64: two-player draw pile (empty otherwise)."""
    discards: np.ndarray
    """(G, N) uint64: two-player draw discards of each player."""
    exchanged_out: np.ndarray
    """(G, N) uint64: cards given up in the two-player blind-nil exchange."""
    passed: np.ndarray
    """(G, N) uint64: Hearts: the cards each seat passed (``deal`` is the hands after the pass)."""
    hand_number: np.ndarray
    """(G,) int64: number of the finished hand in its match (0 = first; sets the Hearts pass)."""
    points_taken: np.ndarray
    """(G, N) int64: Hearts: card points each seat took (before the moon)."""
    key: np.ndarray
    """(G,) uint64: the games' random keys (they seed the exchange draws and face-up cards)."""

    # The nil results follow from ``bids`` and ``tricks_won``: computed when read, not in ``step``.
    @property
    def nil_made(self) -> np.ndarray:
        """(G, N) bool: the seat bid nil or blind nil (``blind`` says which) and took no trick
        [RULES 3]. False in Hearts (no bids: -1)."""
        return (self.bids == 0) & (self.tricks_won == 0)

    @property
    def nil_failed(self) -> np.ndarray:
        """(G, N) bool: the seat bid nil or blind nil and took a trick [RULES 3]. False in Hearts."""
        return (self.bids == 0) & (self.tricks_won > 0)


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
    winner: np.ndarray
    """(B,) int64: the side that won a match ending in this step, else -1 (kept when
    ``auto_reset`` starts the next match at once)."""


class SpadesEngine:
    """Batched rules engine for one rule set (Spades or Hearts, ``rules.game``)."""

    def __init__(self, rules: Rules | str | None = None) -> None:
        self.rules = resolve_rules(rules)
        r = self.rules
        self.hearts = r.hearts
        self.layout = ActionLayout.for_rules(r)
        self.n_players = r.n_players
        self.n_sides = r.n_sides
        self.hand_size = r.hand_size
        self.deck = r.deck
        self.side_of_seat = np.array([r.side_of_seat(s) for s in range(r.n_players)], dtype=I64)
        self.next_seat = (np.arange(r.n_players, dtype=I64) + 1) % r.n_players
        self.partner = (np.arange(r.n_players, dtype=I64) + 2) % r.n_players if r.partnership else None
        # The game's tables: spades are trumps in Spades, Hearts has no trump; the suit that
        # may not be led until broken is spades, or hearts [RULES 1, 7].
        self.broken_suit = cards.HEARTS if self.hearts else cards.SPADES
        self.broken_mask = cards.SUIT_MASK[cards.HEARTS] if self.hearts else cards.TRUMP_MASK
        self.lowest_club = min(c for c in self.deck if cards.card_suit(c) == cards.CLUBS)
        self.club_leads = r.lowest_club_leads or self.hearts
        """The holder of the lowest club leads it to the first trick (``lowest_club_leads``, Hearts)."""
        self._unbroken_lead = int(self._lead_state(np.array(False)))  # ``led_suit`` before the first lead
        self._points = card_points(r) if self.hearts else None  # Hearts: the points of each card id
        # Card play (``_play``) runs compiled, on these tables; Hearts adds card points and the
        # first-trick restriction.
        self._trick_tables = trick_play.trick_tables(
            self.layout.n_card_ids,
            trump=-1 if self.hearts else cards.SPADES,
            broken_suit=self.broken_suit,
            broken_mask=self.broken_mask,
            lowest_club=self.lowest_club,
            lead_after=(self._unbroken_lead, int(self._lead_state(np.array(True)))),
            points=self._points,
            first_trick_forbidden=int(FIRST_TRICK_FORBIDDEN) if self.hearts else 0,
        )
        self._suit_of = np.full(64, -1, dtype=I64)  # the suit of each card id (-1: none)
        self._suit_of[: cards.N_CARD_IDS] = [cards.card_suit(c) for c in range(cards.N_CARD_IDS)]
        self._power = self._trick_tables.power  # (4, 64) each card's power by led suit (the trick winner)
        self._empty_seat_row = _seat_rows(np.full(r.n_players, -1, I64))[0]  # a trick with no card yet
        # ``_card_bit[a + 1]``: the bit of card a, or 0 for -1 and every id past the cards
        # (``take(mode="clip")`` sends any lower or higher action to those ends).
        self._card_bit = np.concatenate([[0], bits.BIT[: self.layout.n_card_ids], [0]]).astype(np.uint64)
        # Hearts: the pass directions.
        self._pass_offsets = np.array(PASS_OFFSETS, dtype=I64)
        self.pile_size = len(self.deck) if r.two_player else 0
        self._bid_values = np.arange(self.layout.max_bid + 1, dtype=I64)
        # No min_team_bid, mirror or fourteen: every bid 0..hand size is open (the usual case).
        self._every_bid_open = not (r.forced_bids or (r.partnership and r.min_team_bid))
        self._base: dict[int, np.ndarray] = {}
        self._cell_tables: dict[int, np.ndarray] = {}
        # (check, apply) of each decision but card play (``_play`` checks and applies those).
        self._handlers = {
            BLIND: (self._check_blind, self._blind),
            BID: (self._check_bid, self._bid),
            DRAW: (self._check_draw, self._draw),
            EXCHANGE: (self._check_mask, self._exchange),
            BEMO: (self._check_bemo, self._bemo),
            PASS: (self._check_pass, self._pass),
        }
        # Only the phases these rules can reach, so that a mixed-phase step looks at no more.
        reachable = {PASS, PLAY} if self.hearts else {BID, PLAY}
        reachable |= {BLIND} if r.blind_nil else set()
        reachable |= ({DRAW} | ({EXCHANGE} if r.blind_nil else set())) if r.two_player else set()
        reachable |= {BEMO} if r.bemo else set()
        self._handlers = {p: h for p, h in self._handlers.items() if p in reachable}

    # ------------------------------------------------------------------ reset
    def reset(
        self,
        seeds: int | np.ndarray | list[int],
        *,
        deals: np.ndarray | list | None = None,
        dealers: np.ndarray | list[int] | int | None = None,
        scores: np.ndarray | list | None = None,
        bags: np.ndarray | list | None = None,
        piles: np.ndarray | list | None = None,
        hand_numbers: np.ndarray | list[int] | int | None = None,
    ) -> GameState:
        """Start one new match per seed (``seeds`` is an int for one game, or B ints).

        Optional per-game overrides: ``deals`` (B, N) card masks or lists of card ids
        for the first hand (``piles`` (B, 52) card ids, top first, in two-player),
        ``dealers`` (B,), starting ``scores`` and ``bags`` (B, S), and ``hand_numbers`` (B,)
        hands already played in the match (Hearts: it sets the pass direction).
        Game i of a batch plays exactly the match a single reset with seed i plays.
        Every argument is checked before any work (hashing the seeds, allocating the state);
        a refused one raises ``inputs.EngineInputError`` (a ValueError) naming it.
        """
        seeds = inputs.seed_array(seeds)
        starts = self._match_starts(
            len(seeds), deals=deals, dealers=dealers, scores=scores, bags=bags, piles=piles, hand_numbers=hand_numbers
        )
        keys = dealing.game_keys(seeds)
        state = self._empty(len(keys))
        self._begin_matches(state, np.arange(len(keys)), keys, starts)
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
        piles=None,
        hand_numbers=None,
    ) -> None:
        """Start new matches in the given games of an existing state (auto-reset)."""
        g = np.asarray(games, dtype=I64)
        starts = self._match_starts(
            len(g), deals=deals, dealers=dealers, scores=scores, bags=bags, piles=piles, hand_numbers=hand_numbers
        )
        self._begin_matches(state, g, keys, starts)

    def _match_starts(self, n: int, **overrides) -> MatchStarts:
        """The checked overrides of ``n`` new matches (see ``inputs.match_starts``)."""
        return inputs.match_starts(self.rules, n, self.deck, self.hand_size, self.pile_size, **overrides)

    def _begin_matches(self, state: GameState, g: np.ndarray, keys: np.ndarray, starts: MatchStarts) -> None:
        """Start matches in games ``g`` from checked overrides."""
        dealer = dealing.first_dealer(keys, self.n_players) if starts.dealers is None else starts.dealers
        self._new_matches(
            state, g, keys, dealer, scores=starts.scores, bags=starts.bags, hand_numbers=starts.hand_numbers
        )
        if starts.piles is not None:
            self._start_hand(state, g, pile=starts.piles)
        else:
            self._start_hand(state, g, starts.deals)

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
        scores: np.ndarray | None = None,
        bags: np.ndarray | None = None,
        dealer: np.ndarray | None = None,
    ) -> None:
        """Deal and set up the next hand of games ``g`` (its dealer, scores and bags are set).

        ``after_play``: the games have just played a hand out (their trick is empty), and
        ``scores``, ``bags`` and ``dealer`` are theirs, already in the state.
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
        if r.bemo:
            state.bemo[g] = -1
        if r.two_player:
            state.shown[g] = -1
        if not after_play:
            _seat_rows(state.trick)[g] = self._empty_seat_row
            state.n_in_trick[g] = 0
        state.led_suit[g] = self._unbroken_lead
        state.n_tricks[g] = 0
        state.tricks_won.reshape(-1)[seats] = 0
        state.trick_winners[g] = -1  # whole rows: cheaper than their cells
        state.bids.reshape(-1)[seats] = -1
        state.blind.reshape(-1)[seats] = False
        state.n_bids[g] = 0
        state.spades_broken[g] = False
        state.voids[g] = 0
        state.history[g] = -1
        sides = self._cells(g, self.n_sides, b)
        if scores is None:
            scores = state.scores.reshape(-1)[sides]
            bags = state.bags.reshape(-1)[sides]
            dealer = state.dealer[g]
        state.hand_start_scores.reshape(-1)[sides] = scores
        state.hand_start_bags.reshape(-1)[sides] = bags
        first = self.next_seat[dealer]
        state.to_move[g] = first
        state.leader[g] = first
        if r.blind_nil:
            allowed = self._blind_nil_allowed(scores)
            state.looked.reshape(-1)[seats] = ~allowed[:, self.side_of_seat]
            first_allowed = allowed.reshape(-1)[self._rows(len(g)) * self.n_sides + self.side_of_seat[first]]
            state.phase[g] = np.where(first_allowed, BLIND, BID)
        else:
            state.phase[g] = BID
        if r.two_player:
            # Blind nil is declared before the draw, the non-dealer first; then the dealer draws [RULES 4].
            dealer_blind = state.looked[g, first] & ~state.looked[g, dealer]
            state.to_move[g] = np.where(dealer_blind, dealer, first)
            state.phase[g] = np.where(state.looked[g, first] & state.looked[g, dealer], DRAW, BLIND)
            self._begin_draw(state, g[state.phase[g] == DRAW])
        if self.hearts:
            self._begin_pass(state, g)

    # ---------------------------------------------------------------- Hearts
    def pass_offset(self, hand_number: np.ndarray) -> np.ndarray:
        """Hearts: seats from passer to receiver (clockwise) by hand number: 1 left, 3 right, 2 across,
        0 no pass; (G,) int64 [RULES 7]."""
        return self._pass_offsets[np.asarray(hand_number, dtype=I64) % 4]

    def _begin_pass(self, state: GameState, g: np.ndarray) -> None:
        """Hearts: dealer+1 chooses first; on every fourth hand nobody passes and play starts [RULES 7]."""
        state.passed[g] = 0
        state.points_taken[g] = 0
        state.phase[g] = PASS
        self._start_play(state, g[self.pass_offset(state.hand_number[g]) == 0])

    def _pass(self, state: GameState, idx: np.ndarray, a: np.ndarray) -> None:
        """Hearts: set card ``a`` aside to pass; after each seat's third card the next seat chooses,
        and after the last seat's the cards change hands all at once [RULES 7]."""
        seat = state.to_move[idx]
        state.passed[idx, seat] |= bits.BIT[a]
        full = bits.popcount(state.passed[idx, seat]) == PASS_CARDS
        nxt = self.next_seat[seat]
        state.to_move[idx] = np.where(full, nxt, seat)
        done = idx[full & (nxt == self.next_seat[state.dealer[idx]])]
        if len(done) == 0:
            return
        offset = self.pass_offset(state.hand_number[done])
        giver = (np.arange(self.n_players)[None, :] - offset[:, None]) % self.n_players
        passed = state.passed[done]
        received = np.take_along_axis(passed, giver, axis=1)
        hands = (state.hands[done] & ~passed) | received
        state.hands[done] = hands
        state.deal[done] = hands  # the hands as play starts; the record restores the dealt ones
        self._start_play(state, done)

    def _begin_draw(self, state: GameState, g: np.ndarray) -> None:
        """Two-player: the dealer takes the first card off the pile [RULES 4]."""
        state.phase[g] = DRAW
        state.to_move[g] = state.dealer[g]
        state.shown[g] = state.pile[g, 0]

    def _blind_nil_allowed(self, scores: np.ndarray) -> np.ndarray:
        """(G, S) bool: may a side's players bid blind nil this hand [RULES 2]."""
        if not self.rules.blind_nil:
            return np.zeros(scores.shape, bool)
        behind = self.rules.blind_nil_requires_behind_by
        if behind is None:
            return np.ones(scores.shape, bool)
        if self.n_sides == 2:  # the other side's score is the other column
            return scores <= scores[:, ::-1] - behind
        others = np.where(np.eye(self.n_sides, dtype=bool)[None], np.iinfo(I64).min, scores[:, None, :])
        return scores <= others.max(axis=2) - behind

    # ------------------------------------------------------------ legal moves
    def legal_cards(self, state: GameState) -> np.ndarray:
        """(B,) uint64: cards the player to move may play (meaningful in PLAY)."""
        t = self._trick_tables
        return trick_play.legal_cards_to_move(
            state.hands, state.to_move, state.led_suit, state.n_tricks, t.preferred, t.first_trick_forbidden
        )

    def _legal_cards(self, hand: np.ndarray, led_suit: np.ndarray, n_tricks: np.ndarray) -> np.ndarray:
        """(G,) uint64: the cards of each hand that may be played (``trick_play.legal_cards``: follow
        suit if able; the lead restrictions [RULES 1, 6]; Hearts: no points on the first trick
        unless nothing else [RULES 7]). hand, led_suit, n_tricks (tricks completed): (G,)."""
        t = self._trick_tables
        return trick_play.legal_cards_of(hand, led_suit, n_tricks, t.preferred, t.first_trick_forbidden)

    def _lead_state(self, broken: np.ndarray) -> np.ndarray:
        """``led_suit`` value before a lead: restricted while spades are unbroken."""
        if self.rules.spades_lead_anytime:
            return np.full(np.shape(broken), FREE_LEAD, I64)
        return np.add(broken, RESTRICTED_LEAD, dtype=I64)  # RESTRICTED_LEAD + 1 == FREE_LEAD

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

    def min_bid(self, state: GameState, games: np.ndarray | None = None) -> np.ndarray:
        """(G,) int64: lowest legal bid of the player to move (``min_team_bid``, ``mirror``, ``fourteen``)."""
        return self.bid_range(state, games)[0]

    def bid_range(self, state: GameState, games: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(G,) int64 lowest and highest legal bid of the player to move [RULES 2, 6]."""
        g = self._rows(state.batch_size) if games is None else np.asarray(games, dtype=I64)
        r = self.rules
        hi = np.full(len(g), self.hand_size, I64)
        if r.mirror:
            hand = state.hands.reshape(-1)[g * self.n_players + state.to_move[g]]
            spades = bits.popcount(hand & cards.TRUMP_MASK)
            return spades, spades
        if not (r.partnership and (r.min_team_bid or r.fourteen)):
            return np.zeros(len(g), I64), hi
        partner_bid = state.bids.reshape(-1)[g * self.n_players + self.partner[state.to_move[g]]]
        if r.fourteen:
            # Bids of 2 or more; the partner who bids second completes the team's 7.
            forced = 7 - partner_bid
            return np.where(partner_bid >= 0, forced, 2), np.where(partner_bid >= 0, forced, 5)
        return np.where(partner_bid >= 0, np.maximum(0, r.min_team_bid - partner_bid), 0), hi

    def weak_hand(self, state: GameState, games: np.ndarray | None = None) -> np.ndarray:
        """(G,) bool: the player to move may show a weak hand to force a redeal [RULES 6]."""
        g = self._rows(state.batch_size) if games is None else np.asarray(games, dtype=I64)
        if not self.rules.misdeal_weak_hand:
            return np.zeros(len(g), bool)
        hand = state.hands.reshape(-1)[g * self.n_players + state.to_move[g]]
        return (hand & WEAK_HAND_MASK) == 0

    def legal_action_mask(
        self, state: GameState, games: np.ndarray | None = None, out: np.ndarray | None = None
    ) -> np.ndarray:
        """(G, n_actions) bool: legal actions of the player to move in each game (all, or ``games``).

        ``out`` (G, n_actions) bool, if given, is filled and returned (every entry is written).
        """
        lay = self.layout
        if games is None:
            g, phase, led, to_move = self._rows(state.batch_size), state.phase, state.led_suit, state.to_move
            n_tricks = state.n_tricks
        else:
            g = np.asarray(games, dtype=I64)
            phase, led, to_move = state.phase[g], state.led_suit[g], state.to_move[g]
            n_tricks = state.n_tricks[g]
        b = len(g)
        mask = np.empty((b, lay.n_actions), bool) if out is None else out
        if b == 1:
            return self._legal_action_mask_one(state, int(g[0]), mask)
        hand = state.hands.reshape(-1)[g * self.n_players + to_move]
        cards_open = phase == PLAY
        legal = self._legal_cards(hand, led, n_tricks)
        if self.hearts:
            # Passing: any held card not chosen yet.
            passing = phase == PASS
            chosen = state.passed.reshape(-1)[g * self.n_players + to_move]
            legal = np.where(passing, hand & ~chosen, legal)
            cards_open = cards_open | passing
        if self.rules.two_player:
            # In the exchange any held card not just drawn may be given up (the phase ends after the third).
            exchange = phase == EXCHANGE
            received = state.exchanged_in.reshape(-1)[g * self.n_players + to_move]
            legal = np.where(exchange, hand & ~received, legal)
            cards_open = cards_open | exchange
        legal = np.where(cards_open, legal, np.uint64(0))
        # Each uint64 is 8 little-endian bytes: unpack them and keep the card bits.
        card_bits = np.unpackbits(legal.view(np.uint8), bitorder="little").reshape(b, 64)
        mask[:, : lay.n_card_ids] = card_bits[:, : lay.n_card_ids].view(bool)
        bids = mask[:, lay.bid_offset : lay.bid_end]
        if self._every_bid_open:
            bids[:] = (phase == BID)[:, None]
            lo = None
        else:
            lo, hi = self.bid_range(state, games)
            np.greater_equal(self._bid_values, lo[:, None], out=bids)
            if self.rules.forced_bids:
                bids &= self._bid_values <= hi[:, None]
            bids &= (phase == BID)[:, None]
        if lay.specials:
            self._special_mask(state, g, phase, lo, mask)
        return mask

    def _special_mask(self, state: GameState, g: np.ndarray, phase: np.ndarray, lo, mask: np.ndarray) -> None:
        """The special actions of ``mask`` (blind nil, draw, exchange, Bemo, redeal) [RULES 2, 4, 6].

        ``lo`` (G,) int64 is the lowest legal bid, or None when every bid is open.
        """
        lay = self.layout
        mask[:, lay.bid_end :] = False
        if lay.blind_nil is not None:
            blind = phase == BLIND
            # Blind nil is a bid of 0: not open to a seat that must still reach ``min_team_bid``.
            mask[:, lay.blind_nil] = blind if lo is None else blind & (lo == 0)
            mask[:, lay.look] = blind
        if lay.keep is not None:
            mask[:, lay.keep] = phase == DRAW
            mask[:, lay.discard] = phase == DRAW
        if lay.exchange_done is not None:
            mask[:, lay.exchange_done] = phase == EXCHANGE
        if lay.no_bemo is not None:
            mask[:, lay.no_bemo : lay.big_bemo + 1] = (phase == BEMO)[:, None]
        if lay.redeal is not None:
            mask[:, lay.redeal] = (phase == BID) & self.weak_hand(state, g)

    def _legal_action_mask_one(self, state: GameState, g: int, out: np.ndarray) -> np.ndarray:
        """``legal_action_mask`` of one game (the AEC and Gymnasium envs), with Python scalars."""
        lay = self.layout
        row = out[0]
        row[:] = False
        phase = int(state.phase[g])
        seat = int(state.to_move[g])
        if phase == PLAY or phase == EXCHANGE or phase == PASS:
            hand = state.hands[g, seat : seat + 1]
            if phase == PLAY:
                legal = self._legal_cards(hand, state.led_suit[g : g + 1], state.n_tricks[g : g + 1])
            elif phase == PASS:
                legal = hand & ~state.passed[g, seat : seat + 1]
            else:
                legal = hand & ~state.exchanged_in[g, seat : seat + 1]
            row[: lay.n_card_ids] = np.unpackbits(legal.view(np.uint8), bitorder="little")[: lay.n_card_ids]
            if phase == EXCHANGE:
                row[lay.exchange_done] = True
            return out
        games = np.array([g])
        if phase == BID:
            lo, hi = (int(x[0]) for x in self.bid_range(state, games))
            row[lay.bid_offset + lo : lay.bid_offset + hi + 1] = True
            if lay.redeal is not None:
                row[lay.redeal] = bool(self.weak_hand(state, games)[0])
        elif phase == BLIND:
            row[lay.look] = True
            row[lay.blind_nil] = int(self.bid_range(state, games)[0][0]) == 0
        elif phase == DRAW:
            row[lay.keep] = row[lay.discard] = True
        elif phase == BEMO:
            row[lay.no_bemo : lay.big_bemo + 1] = True
        return out

    def random_actions(self, state: GameState, rng: np.random.Generator) -> np.ndarray:
        """(B,) int64: a uniformly random legal action in each game (0 where the match is over).

        The actions ``sampling.sample_legal(self.legal_action_mask(state), rng)`` draws, from the same
        single ``rng.random(B)`` (action k of a game's legal actions in id order, k = floor(u *
        count)), but card plays, bids and blind-nil choices are drawn without the mask.
        """
        b = state.batch_size
        u = rng.random(b)
        t = self._trick_tables
        actions = trick_play.random_legal_cards(
            state.hands, state.to_move, state.led_suit, state.n_tricks, u, t.preferred, t.first_trick_forbidden
        )
        phase = state.phase
        counts = self._phase_counts(phase)
        if counts[PLAY] == b:
            return actions
        lay = self.layout
        if counts[OVER]:
            actions[phase == OVER] = 0
        if counts[BID] and len(g := np.flatnonzero(phase == BID)):
            if self._every_bid_open and lay.redeal is None:  # 0..hand size
                actions[g] = lay.bid_offset + (u[g] * (self.hand_size + 1)).astype(I64)
            else:
                lo, hi = self.bid_range(state, g)
                n_bids = hi - lo + 1
                count = n_bids if lay.redeal is None else n_bids + self.weak_hand(state, g)
                k = (u[g] * count).astype(I64)  # the bids in order, then the redeal (the last id)
                actions[g] = np.where(k < n_bids, lay.bid_offset + lo + k, -1 if lay.redeal is None else lay.redeal)
        if counts[BLIND] and len(g := np.flatnonzero(phase == BLIND)):
            # Blind nil (the lower id) where a bid of 0 is open, and look [RULES 2].
            open_ = True if self._every_bid_open else self.bid_range(state, g)[0] == 0
            k = (u[g] * (1 + np.asarray(open_, I64))).astype(I64)
            actions[g] = np.where((k == 0) & open_, lay.blind_nil, lay.look)
        if counts[PASS] and len(g := np.flatnonzero(phase == PASS)):  # any held card not chosen yet
            held = self._passable(state, g)
            actions[g] = bits.select_kth(held, (u[g] * np.bitwise_count(held)).astype(I64))
        if counts[DRAW] and len(g := np.flatnonzero(phase == DRAW)):  # keep, then discard
            actions[g] = lay.keep + (u[g] * 2).astype(I64) * (lay.discard - lay.keep)
        if counts[BEMO] and len(g := np.flatnonzero(phase == BEMO)):  # no, little or big Bemo
            actions[g] = lay.no_bemo + (u[g] * (lay.big_bemo - lay.no_bemo + 1)).astype(I64)
        if counts[EXCHANGE] and len(g := np.flatnonzero(phase == EXCHANGE)):  # rare: from the mask
            actions[g] = bits.pick_true(self.legal_action_mask(state, g), u[g])
        return actions

    def _passable(self, state: GameState, g: np.ndarray) -> np.ndarray:
        """Hearts: (G,) uint64 cards the passer may still choose (held, not chosen yet) [RULES 7]."""
        at = g * self.n_players + state.to_move[g]
        return state.hands.reshape(-1).take(at) & ~state.passed.reshape(-1).take(at)

    def _phase_counts(self, phase: np.ndarray) -> np.ndarray:
        """How many games are in each phase (one pass over the batch)."""
        return np.bincount(phase, minlength=len(PHASE_NAMES))

    def current_player(self, state: GameState) -> np.ndarray:
        """(B,) int64: seat to move, -1 where the match is over."""
        return np.where(state.phase == OVER, -1, state.to_move)

    # ------------------------------------------------------------------- step
    def step(
        self, state: GameState, actions: np.ndarray, validate: bool = True, auto_reset: bool = False
    ) -> StepResult:
        """Apply one action per game (for the player to move) in place.

        Games whose match is over must be given any value and are left unchanged
        only if ``validate`` is False; with validation an action for a finished
        match raises. Raises ``IllegalActionError`` naming the legal actions.
        With ``auto_reset`` a game whose match ends starts a new match in the same
        step (its new key is ``dealing.splitmix64`` of the old one, its first dealer
        drawn from that key: the match ``start_matches`` would start), so its state
        is never OVER; ``StepResult.match_done`` and ``winner`` tell what ended.
        """
        b = state.batch_size
        actions = inputs.action_array(actions, b)
        result = StepResult(
            hand_done=np.zeros(b, bool),
            match_done=np.zeros(b, bool),
            score_delta=np.zeros((b, self.n_sides), I64),
            finished=[],
            winner=np.full(b, -1, I64),
        )
        phase = state.phase
        counts = self._phase_counts(phase)
        n_play = counts[PLAY]
        if n_play == b:
            self._play(state, actions, result, validate, auto_reset)
            return result
        groups = [(p, np.flatnonzero(phase == p)) for p in self._handlers if counts[p]]
        if validate:
            if counts[OVER]:
                self._raise_illegal(state, np.flatnonzero(phase == OVER)[:1], actions)
            for p, idx in groups:
                self._handlers[p][0](state, idx, actions[idx])
        if n_play:
            # Card plays before the other decisions: ``_play`` checks its cards before any
            # game changes.
            self._play(state, actions, result, validate, auto_reset)
        for p, idx in groups:
            self._handlers[p][1](state, idx, actions[idx])
        return result

    # -------------------------------------------------------------- validation
    def _check_bid(self, state: GameState, idx: np.ndarray, a: np.ndarray) -> None:
        bid = a - self.layout.bid_offset
        if self._every_bid_open:  # 0..hand size (a negative bid is huge as unsigned)
            ok = bid.view(np.uint64) <= np.uint64(self.hand_size)
        else:
            lo, hi = self.bid_range(state, idx)
            ok = (bid >= lo) & (bid <= hi)
        if self.layout.redeal is not None:
            ok |= (a == self.layout.redeal) & self.weak_hand(state, idx)
        self._require(state, idx, a, ok)

    def _check_blind(self, state: GameState, idx: np.ndarray, a: np.ndarray) -> None:
        """Blind-nil choices: look, or blind nil where a bid of 0 is open [RULES 2]."""
        lay = self.layout
        ok = a == lay.look
        blind = a == lay.blind_nil
        if blind.any():
            ok |= blind & (self.bid_range(state, idx)[0] == 0 if not self._every_bid_open else True)
        self._require(state, idx, a, ok)

    def _check_draw(self, state: GameState, idx: np.ndarray, a: np.ndarray) -> None:
        """Two-player draw: keep or discard, both always open [RULES 4]."""
        self._require(state, idx, a, (a == self.layout.keep) | (a == self.layout.discard))

    def _check_bemo(self, state: GameState, idx: np.ndarray, a: np.ndarray) -> None:
        """Bemo: no, little or big, all always open [RULES 6]."""
        lay = self.layout
        self._require(state, idx, a, (a >= lay.no_bemo) & (a <= lay.big_bemo))

    def _check_pass(self, state: GameState, idx: np.ndarray, a: np.ndarray) -> None:
        """Hearts passing: a held card not chosen yet [RULES 7]."""
        bit = self._card_bit.take(a + 1, mode="clip")
        self._require(state, idx, a, (self._passable(state, idx) & bit) != 0)

    def _require(self, state: GameState, idx: np.ndarray, a: np.ndarray, ok: np.ndarray) -> None:
        """Raise ``IllegalActionError`` for the first game of ``idx`` whose action is not ``ok``."""
        if not ok.all():
            self._raise_illegal(state, idx[~ok][:1], None, a[~ok][:1])

    def _check_mask(self, state: GameState, idx: np.ndarray, a: np.ndarray) -> None:
        """Two-player exchanges: checked against the legal-action mask (these steps are rare)."""
        mask = self.legal_action_mask(state, idx)
        in_range = (a >= 0) & (a < self.layout.n_actions)
        self._require(state, idx, a, in_range & mask[np.arange(len(idx)), np.where(in_range, a, 0)])

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
        at = idx * self.n_players + seat
        declared = a == self.layout.blind_nil
        state.looked.reshape(-1)[at] = True
        state.blind.reshape(-1)[at] = declared
        state.bids.reshape(-1)[at] = np.where(declared, 0, -1)
        state.n_bids[idx] += declared
        if self.rules.two_player:
            # Both blind-nil choices come before the draw: the non-dealer's, then the dealer's.
            dealer = state.dealer[idx]
            dealer_next = (seat != dealer) & ~state.looked[idx, dealer]
            state.to_move[idx] = dealer
            self._begin_draw(state, idx[~dealer_next])
            return
        state.phase[idx] = BID  # the same seat now bids, unless it declared
        self._next_bidder(state, idx[declared])

    def _draw(self, state: GameState, idx: np.ndarray, a: np.ndarray) -> None:
        """Two-player draw: keep the shown card and discard the next, or the other way round [RULES 4]."""
        seat = state.to_move[idx]
        pos = state.pile_pos[idx]
        first, second = state.pile[idx, pos], state.pile[idx, pos + 1]
        keep = a == self.layout.keep
        state.hands[idx, seat] |= bits.BIT[np.where(keep, first, second)]
        state.discards[idx, seat] |= bits.BIT[np.where(keep, second, first)]
        state.seen[idx, seat] |= bits.BIT[first] | bits.BIT[second]
        pos = pos + 2
        state.pile_pos[idx] = pos
        state.to_move[idx] = self.next_seat[seat]
        over = pos >= self.pile_size
        state.shown[idx] = np.where(over, -1, state.pile[idx, np.minimum(pos, self.pile_size - 1)])
        g = idx[over]
        first_seat = self.next_seat[state.dealer[g]]
        # After the draw, blind-nil players exchange (non-dealer first), then the bidding starts.
        state.to_move[g] = np.where(state.blind[g, first_seat], first_seat, state.dealer[g])
        exchange = state.blind[g, first_seat] | state.blind[g, state.dealer[g]]
        state.phase[g[exchange]] = EXCHANGE
        self._begin_bidding(state, g[~exchange])

    def _exchange(self, state: GameState, idx: np.ndarray, a: np.ndarray) -> None:
        """Two-player blind nil: give up a card, draw one at random from the discards [RULES 4]."""
        give = a != self.layout.exchange_done
        g, card = idx[give], a[give]
        seat = state.to_move[g]
        n_out = bits.popcount(state.exchanged_out[g, seat])
        pool = np.bitwise_or.reduce(state.discards[g] | state.exchanged_out[g], axis=1)
        pool &= ~np.bitwise_or.reduce(state.exchanged_in[g], axis=1) & ~state.exchanged_out[g, seat]
        draw = dealing.stream(state.key[g], state.hand_number[g] * 16 + n_out + 4 * seat, salt=29)
        new = bits.select_kth(pool, (draw % bits.popcount(pool).astype(np.uint64)).astype(I64))
        state.hands[g, seat] = (state.hands[g, seat] & ~bits.BIT[card]) | bits.BIT[new]
        state.seen[g, seat] |= bits.BIT[new]
        state.exchanged_in[g, seat] |= bits.BIT[new]
        state.exchanged_out[g, seat] |= bits.BIT[card]
        done = idx[~give | (bits.popcount(state.exchanged_out[idx, state.to_move[idx]]) >= MAX_EXCHANGE)]
        seat = state.to_move[done]
        dealer = state.dealer[done]
        dealer_next = (seat != dealer) & state.blind[done, dealer]
        state.to_move[done] = dealer
        self._begin_bidding(state, done[~dealer_next])

    def _begin_bidding(self, state: GameState, g: np.ndarray) -> None:
        """Two-player: the kept hands become the hand's deal; the non-dealer bids first [RULES 4]."""
        state.deal[g] = state.hands[g]
        state.phase[g] = BID
        first = self.next_seat[state.dealer[g]]
        state.to_move[g] = np.where(state.bids[g, first] >= 0, state.dealer[g], first)
        self._end_bidding(state, g[state.n_bids[g] == self.n_players])

    def _bid(self, state: GameState, idx: np.ndarray, a: np.ndarray) -> None:
        if self.layout.redeal is not None:
            redeal = a == self.layout.redeal
            if redeal.any():
                # A weak hand was shown: a new seeded deal by the same dealer [RULES 6].
                g = idx[redeal]
                state.n_redeals[g] += 1
                self._start_hand(state, g)
                idx, a = idx[~redeal], a[~redeal]
        state.bids.reshape(-1)[idx * self.n_players + state.to_move[idx]] = a - self.layout.bid_offset
        state.n_bids[idx] += 1
        self._next_bidder(state, idx)

    def _bemo(self, state: GameState, idx: np.ndarray, a: np.ndarray) -> None:
        """One Bemo decision per side, from the first leader on (consecutive seats) [RULES 6]."""
        seat = state.to_move[idx]
        state.bemo[idx, self.side_of_seat[seat]] = a - self.layout.no_bemo
        state.to_move[idx] = self.next_seat[seat]
        self._start_play(state, idx[np.all(state.bemo[idx] >= 0, axis=1)])

    def _end_bidding(self, state: GameState, g: np.ndarray) -> None:
        """After the last bid: the Bemo declarations, or the first lead."""
        if self.rules.bemo:
            state.phase[g] = BEMO
            state.to_move[g] = self._first_leader(state, g)
        else:
            self._start_play(state, g)

    def _first_leader(self, state: GameState, g: np.ndarray) -> np.ndarray:
        """Dealer+1, or the holder of the lowest club under ``lowest_club_leads`` and in Hearts [RULES 1, 6, 7]."""
        if self.club_leads:
            held = (state.hands[g] >> np.uint64(self.lowest_club)) & np.uint64(1)
            return np.argmax(held, axis=1).astype(I64)
        return self.next_seat[state.dealer[g]]

    def _start_play(self, state: GameState, g: np.ndarray) -> None:
        first = self._first_leader(state, g)
        state.phase[g] = PLAY
        state.leader[g] = first
        state.to_move[g] = first
        if self.club_leads:
            state.led_suit[g] = LOWEST_CLUB_LEAD

    def _next_bidder(self, state: GameState, idx: np.ndarray) -> None:
        if len(idx) == 0:
            return
        done = state.n_bids[idx] == self.n_players
        self._end_bidding(state, idx[done])
        more = idx[~done]
        nxt = self.next_seat[state.to_move[more]]
        state.to_move[more] = nxt
        state.phase[more] = np.where(state.looked.reshape(-1)[more * self.n_players + nxt], BID, BLIND)

    def _play(
        self, state: GameState, actions: np.ndarray, result: StepResult, validate: bool, auto_reset: bool
    ) -> None:
        """Play card ``actions[g]`` in every game g in PLAY (the others are left alone), in one
        compiled call (``core.trick_play.play_cards``): with ``validate`` every card is checked
        before any game changes. Then the hands whose last trick was completed are scored;
        ``auto_reset`` as in ``step``."""
        if not actions.flags.c_contiguous:
            actions = np.ascontiguousarray(actions)
        bad, ended = trick_play.play_cards(
            actions,
            state.phase,
            PLAY,
            validate,
            state.hands,
            state.trick,
            state.n_in_trick,
            state.led_suit,
            state.to_move,
            state.voids,
            state.spades_broken,
            state.tricks_won,
            state.points_taken,
            state.trick_winners,
            state.history,
            state.n_tricks,
            state.leader,
            *self._trick_tables,
        )
        if bad >= 0:
            self._raise_illegal(state, np.array([bad]), actions)
        if len(ended):
            self._finish_hands(state, ended, result, auto_reset)

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
        self._start_hand(state, g, after_play=True, scores=scores, bags=bags, dealer=dealer)
