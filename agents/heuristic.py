"""A rule-based Spades player, vectorized over the batch.

Every decision of a batch is answered by the same short list of rules written
over (B,) and (B, 4) suit-lane arrays; nothing loops over games. The bot reads only what
the deciding seat can see (its own hand and the public state), and it is
deterministic, so duplicate tournaments compare bots and not dice.

Bidding counts sure and likely tricks (aces, protected kings, spade length and
honours, short suits with spare trumps), bids nil with a weak hand and no
dangerous high cards, adjusts for the partner's bid and the bag count, and
bids blind nil only when far behind late in the match.

Jokers (card ids 52, 53) are the two highest spades: rank 13 and 14 of a
15-bit spade lane, so every rule below treats them as trumps. The variant
decisions are short rules of their own: the two-player draw keeps a shown
card that is a likely trick (a trump, an ace or king, a guarded queen, a card
of the longest side suit); the two-player blind-nil exchange gives up high
trumps, then aces and kings; Bemo is declared (little only) with a very
strong hand and a side contract of 10+; a weak hand is shown for a redeal
when it is nearly worthless and nil is unattractive. Forced bids (mirror,
fourteen, minimum team bids) and the forced lowest-club lead come through
the legal-action mask: the bot picks the closest legal bid, the only card.

Hearts rules [RULES 7] are played by ``agents.hearts_heuristic.HeartsHeuristicAgent``,
to which ``act`` hands every decision.

Card play, in order of priority:

1. I bid nil (still alive): duck every trick (highest card that does not win).
2. Partner bid nil (still alive): cover it: play high before the partner,
   overtake the partner's winning card after it.
3. An opponent bid nil (still alive): play under it; never overtake it.
4. Otherwise, while the side still needs tricks (or can set the opponents):
   lead winners, second hand low, third hand high, do not overtake the
   partner's sure winner, win as cheaply as possible; once the contract is
   made, duck to avoid bags.
"""

from __future__ import annotations

import numpy as np

from agents.base import Agent, DecisionContext
from spades_env import cards
from spades_env.engine import BEMO, BID, BLIND, DRAW, EXCHANGE, PLAY, SpadesEngine, bits

N = cards.N_CARD_IDS
#: Card ids 52 and 53 (little and big joker) are spades of rank 13 and 14, so that
#: ``suit * 13 + rank`` stays the card id and the spade lane is 15 bits wide.
SUIT = np.minimum(np.arange(N) // cards.N_RANKS, cards.SPADES)
RANK = np.arange(N) - cards.N_RANKS * SUIT
IS_SPADE = SUIT == cards.SPADES
#: Preference key for "low"/"high" outside trick-winning: spades are worth more.
VALUE = RANK + cards.N_RANKS * IS_SPADE
#: ``POWER[led, card]`` strength of a card in a trick led with suit ``led``; row 4
#: (no lead yet) ranks by VALUE; the extra last column (index -1) is an empty slot.
POWER = np.full((5, N + 1), -1, dtype=np.int64)
for _led in range(4):
    POWER[_led, :N] = np.where(IS_SPADE, 100 + RANK, np.where(SUIT == _led, RANK, -1))
POWER[4, :N] = VALUE
LANE_BITS = 15  #: 13 ranks, plus the two jokers on top of the spade lane
#: ``HIGHEST[lane]`` rank of the highest set bit of a lane, -1 for none.
HIGHEST = np.full(1 << LANE_BITS, -1, dtype=np.int64)
for _r in range(LANE_BITS):
    HIGHEST[1 << _r : 1 << (_r + 1)] = _r
_values = np.arange(1 << LANE_BITS)
#: ``LOWEST[lane]`` rank of the lowest set bit, -1 for none; ``POPCOUNT[lane]`` bits set.
LOWEST = np.where(_values > 0, HIGHEST[_values & -_values], -1)
POPCOUNT = np.bitwise_count(_values).astype(np.int64)
_FULL = (1 << LANE_BITS) - 1
#: ``ABOVE[r]`` the set of ranks strictly above r (index -1: every rank).
ABOVE = np.array([(_FULL << (r + 1)) & _FULL for r in range(LANE_BITS)] + [_FULL], dtype=np.int64)
IS_SPADE_LANE = (np.arange(4) == cards.SPADES).astype(np.int64)
NEG = -(10**6)
ACE, KING, QUEEN, JACK = 12, 11, 10, 9
#: How dangerous a card is to a nil bidder (0: safe enough to keep): trumps from the
#: jack up (jokers highest) first, then side aces and kings.
RISK = np.where(IS_SPADE & (RANK >= JACK), 100 + RANK, np.where(~IS_SPADE & (RANK >= KING), 50 + RANK, 0))


def _pick(score: np.ndarray, ok: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Card with the highest score among ``ok`` per row, and whether any was ok."""
    s = np.where(ok, score, NEG)
    return np.argmax(s, axis=1), ok.any(axis=1)


class HeuristicAgent(Agent):
    """Rule-based bidding and card play (partnership and cutthroat), deterministic."""

    name = "heuristic"

    def __init__(
        self,
        seed: int | None = None,
        nil_threshold: float = 1.6,
        bid_bias: float = 0.45,
        set_opponents: int = 0,
        two_player_bonus: float = 2.0,
    ) -> None:
        super().__init__(seed)
        self.nil_threshold = nil_threshold
        """Highest estimated trick count with which the bot still considers nil."""
        self.bid_bias = bid_bias
        """Added to the trick estimate before rounding down: 0.5 rounds to nearest."""
        self.set_opponents = bool(set_opponents)
        """After making the contract, keep winning tricks while the opponents can still be set."""
        self.redeal_threshold = 1.5
        """A weak hand estimated below this many tricks is shown for a redeal (when nil is not bid)."""
        self.bemo_threshold = 7.0
        """Own estimated tricks needed before declaring little Bemo."""
        self.two_player_bonus = two_player_bonus
        """Two-player: tricks added to the estimate before bidding (it counts tricks as if four
        hands shared them; two players take 6.5 each on average). Tuned in duplicate self-play."""
        self._tables: dict = {}
        from agents.hearts_heuristic import HeartsHeuristicAgent  # it builds on this module's tables

        self._hearts = HeartsHeuristicAgent(seed)
        """Hearts decisions go to the Hearts strategy (``agents.hearts_heuristic``)."""

    def supports(self, engine: SpadesEngine) -> bool:
        return True

    # ------------------------------------------------------------------ entry
    def act(self, observations, masks: np.ndarray, context: DecisionContext | None = None) -> np.ndarray:
        if context is None:
            raise ValueError("HeuristicAgent needs a DecisionContext (engine, state, games, seats)")
        if context.engine.rules.hearts:
            return self._hearts.act(observations, masks, context)
        masks = np.asarray(masks, dtype=bool)
        phase = context.state.phase[context.games]
        out = np.zeros(len(masks), dtype=np.int64)
        if np.count_nonzero(phase == PLAY) == len(masks):
            return self.play(context, masks)
        handlers = (
            (BLIND, self.blind),
            (DRAW, self.draw),
            (EXCHANGE, self.exchange),
            (BID, self.bid),
            (BEMO, self.bemo),
            (PLAY, self.play),
        )
        for p, fn in handlers:
            idx = np.flatnonzero(phase == p)
            if len(idx):
                sub = DecisionContext(context.engine, context.state, context.games[idx], context.seats[idx])
                out[idx] = fn(sub, masks[idx])
        return out

    # ------------------------------------------------------------- blind nil
    def blind(self, ctx: DecisionContext, masks: np.ndarray) -> np.ndarray:
        """Look at the cards, except blind nil when far behind with the opponents near the target."""
        eng, st, g, seat = ctx.engine, ctx.state, ctx.games, ctx.seats
        lay = eng.layout
        scores = st.scores[g]
        mine = scores[np.arange(len(g)), eng.side_of_seat[seat]]
        others = np.where(np.eye(eng.n_sides, dtype=bool)[eng.side_of_seat[seat]], NEG, scores).max(axis=1)
        desperate = (others - mine >= 200) & (others >= 0.6 * eng.rules.target_score)
        if eng.rules.partnership:
            partner_bid = st.bids[g, eng.partner[seat]]
            desperate &= partner_bid != 0
        go = desperate & masks[:, lay.blind_nil]
        return np.where(go, lay.blind_nil, lay.look)

    # ------------------------------------------------------- two-player draw
    def draw(self, ctx: DecisionContext, masks: np.ndarray) -> np.ndarray:
        """Keep the shown card when it is a likely trick, else discard it (and keep the next, unseen).

        Likely tricks: a trump, an ace or king, a queen with a companion; or a card
        of my longest side suit (4+ cards), which keeps the other suits short for
        ruffing. A blind-nil drawer keeps low side cards and discards the rest.
        Reads only the shown card and the drawer's own hand.
        """
        eng, st, g, seat = ctx.engine, ctx.state, ctx.games, ctx.seats
        lay = eng.layout
        rows = np.arange(len(g))
        shown = np.maximum(st.shown[g], 0)
        suit, rank, trump = SUIT[shown], RANK[shown], IS_SPADE[shown]
        length = POPCOUNT[_lanes(st.hands[g, seat])]  # (B, 4)
        suit_len = length[rows, suit]
        side_len = np.where(IS_SPADE_LANE.astype(bool), -1, length)
        longest_side = (suit_len >= 4) & (suit_len == side_len.max(axis=1))
        keep = trump | (rank >= KING) | ((rank == QUEEN) & (suit_len >= 1)) | (~trump & longest_side)
        nil = st.blind[g, seat]
        keep = np.where(nil, ~trump & (rank <= 6), keep)
        return np.where(keep, lay.keep, lay.discard)

    def exchange(self, ctx: DecisionContext, masks: np.ndarray) -> np.ndarray:
        """Blind nil: give up the riskiest card (high trumps, then aces and kings), up to 3, then stop."""
        lay = ctx.engine.layout
        risk = RISK[: lay.n_card_ids]
        card, ok = _pick(
            np.broadcast_to(risk, masks[:, : lay.n_card_ids].shape), masks[:, : lay.n_card_ids] & (risk > 0)
        )
        return np.where(ok, card, lay.exchange_done)

    # ---------------------------------------------------------------- bidding
    def estimate_tricks(self, engine: SpadesEngine, hand: np.ndarray) -> np.ndarray:
        """(B,) float: expected tricks of each uint64 hand, by counting honours, length and shortness."""
        lanes = _lanes(hand)  # (B, 4) int64; jokers are the top spades
        length = POPCOUNT[lanes]
        has = lambda rank: ((lanes >> rank) & 1).astype(bool)  # noqa: E731
        ace, king, queen = has(ACE), has(KING), has(QUEEN)
        side = np.arange(4) != cards.SPADES
        n = engine.n_players
        # Side suits: aces, protected kings and queens; long suits get ruffed sooner.
        deep = length <= max(3, engine.hand_size // 3)
        side_tricks = np.where(ace, np.where(deep, 1.0, 0.6), 0.0)
        side_tricks += np.where(king & (length >= 2), np.where(ace, 0.9, 0.6) * deep, 0.0)
        side_tricks += np.where(queen & (length >= 3) & (ace | king), 0.35 * deep, 0.0)
        side_total = (side_tricks * side).sum(axis=1)
        # Spades: honours plus length beyond the average holding.
        s_len = length[:, cards.SPADES]
        # The three highest trumps (with jokers: big joker, little joker, ace of spades).
        t = _top_trump(engine)
        s_ace, s_king, s_queen = (((lanes[:, cards.SPADES] >> r) & 1).astype(bool) for r in (t, t - 1, t - 2))
        honours = s_ace * 1.0 + s_king * np.where(s_len >= 2, np.where(s_ace, 1.0, 0.8), 0.3)
        honours += s_queen * np.where(s_len >= 3, np.where(s_ace & s_king, 1.0, 0.6), 0.1)
        average = round(13 / n)
        long_tricks = np.maximum(0, s_len - average)
        spade_total = np.minimum(s_len, honours + long_tricks)
        # Shortness: voids and singletons ruff while spare spades remain.
        shortness = ((length == 0) * 1.0 + (length == 1) * 0.5 + (length == 2) * 0.2) * side
        spare = np.maximum(0.0, s_len - spade_total)
        ruffs = np.minimum(shortness.sum(axis=1), spare) * 0.8
        return side_total + spade_total + ruffs

    def bid(self, ctx: DecisionContext, masks: np.ndarray) -> np.ndarray:
        """Bid the estimated tricks (rounded with the bag count in mind), or nil with a weak hand."""
        eng, st, g, seat = ctx.engine, ctx.state, ctx.games, ctx.seats
        lay, rules = eng.layout, eng.rules
        b = len(g)
        hand = st.hands[g, seat]
        est = self.estimate_tricks(eng, hand)
        bid_est = est + self.two_player_bonus if rules.two_player else est
        side = eng.side_of_seat[seat]
        bags = st.bags[g, side]
        near_limit = rules.bags & (bags >= rules.bag_limit - 3)
        # Near the bag limit round up (overtricks hurt); otherwise round to nearest.
        want = np.floor(bid_est + self.bid_bias + np.where(near_limit, 0.35, 0.0)).astype(np.int64)
        want = np.clip(want, 1, lay.max_bid)
        partner_bid = np.full(b, -1, dtype=np.int64)
        if rules.partnership:
            partner_bid = st.bids[g, eng.partner[seat]]
            room = lay.max_bid - np.maximum(partner_bid, 0)
            want = np.clip(want, 1, np.maximum(room, 1))
        # Nil: few tricks, no ace, no dangerous spades, high side cards guarded by length.
        lanes = _lanes(hand)
        length = POPCOUNT[lanes]
        top = HIGHEST[lanes]
        s_len, s_top = length[:, cards.SPADES], top[:, cards.SPADES]
        exposed = ((top >= QUEEN) & (length <= 3) & (np.arange(4) != cards.SPADES)).any(axis=1)
        nil = (est <= self.nil_threshold) & (s_len <= 3) & (s_top < _top_trump(eng) - 2) & ~exposed
        nil &= ~(top >= ACE).any(axis=1)
        nil &= (partner_bid == -1) | (partner_bid >= 3)
        choice = np.where(nil, 0, want)
        # Forced bids (mirror, fourteen, min_team_bid) come through the mask: the closest legal bid.
        out = self._closest_legal(choice, masks[:, lay.bid_offset : lay.bid_end]) + lay.bid_offset
        if lay.redeal is not None:
            # A weak hand that may force a redeal: take it when the hand is nearly worthless,
            # nil is unattractive and the partner has not bid a good hand; otherwise bid it.
            redeal = masks[:, lay.redeal] & (est < self.redeal_threshold) & ~nil & (partner_bid < 4)
            out = np.where(redeal, lay.redeal, out)
        return out

    # ------------------------------------------------------------------ Bemo
    def bemo(self, ctx: DecisionContext, masks: np.ndarray) -> np.ndarray:
        """Little Bemo only with a very strong hand and a side contract to match; never big Bemo.

        The side must take the first 6 tricks, so the declarer's own hand must hold
        about 7 tricks and the side must have bid 10 or more with no nil.
        """
        eng, st, g, seat = ctx.engine, ctx.state, ctx.games, ctx.seats
        lay = eng.layout
        est = self.estimate_tricks(eng, st.hands[g, seat])
        mine = eng.side_of_seat[None, :] == eng.side_of_seat[seat][:, None]  # (B, N)
        bids = st.bids[g]
        contract = np.where(mine, np.maximum(bids, 0), 0).sum(axis=1)
        nil = (mine & (bids == 0)).any(axis=1)
        go = (est >= self.bemo_threshold) & (contract >= 10) & ~nil & masks[:, lay.little_bemo]
        return np.where(go, lay.little_bemo, lay.no_bemo)

    @staticmethod
    def _closest_legal(bid: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """The legal bid nearest to the wanted one (ties go up), never nil unless wanted."""
        values = np.arange(legal.shape[1])
        dist = np.abs(values[None, :] - bid[:, None]) * 2 + (values[None, :] < bid[:, None])
        dist = np.where(legal & ((values[None, :] > 0) | (bid[:, None] == 0)), dist, 10**6)
        fallback = np.where(legal, values[None, :], 10**6)
        choice = np.argmin(dist, axis=1)
        ok = dist[np.arange(len(bid)), choice] < 10**6
        return np.where(ok, choice, np.argmin(fallback, axis=1))

    # ---------------------------------------------------------------- card play
    def play(self, ctx: DecisionContext, masks: np.ndarray) -> np.ndarray:
        """Choose a card for each decision in the play phase (see the module docstring).

        Works on suit lanes: (B, 4) arrays of 13-bit rank sets, so that "lowest
        card that wins" is a table lookup per suit and an argmin over four suits.
        """
        eng, st, g, seat = ctx.engine, ctx.state, ctx.games, ctx.seats
        rules = eng.rules
        b, n = len(g), eng.n_players
        rows = np.arange(b)
        legal = _lanes(_pack(masks[:, : eng.layout.n_card_ids]))  # (B, 4) int64 rank sets
        hand = st.hands[g, seat]
        trick = st.trick[g]
        n_in = st.n_in_trick[g]
        lead = n_in == 0
        last = n_in == n - 1
        led = st.led_suit[g]

        # --- what the seat sees: unseen cards, the trick's winner, voids, contracts
        played = np.bitwise_or.reduce(st.deal[g] & ~st.hands[g], axis=1)
        unseen = self._tables_for(eng)[0] & ~(played | hand)
        if rules.two_player:
            # My own draw discards are out of play, unless a blind-nil opponent may have drawn them.
            others_blind = (st.blind[g] & (np.arange(n)[None, :] != seat[:, None])).any(axis=1)
            unseen &= np.where(others_blind, ~np.uint64(0), ~st.discards[g, seat])
        top_unseen = HIGHEST[_lanes(unseen)]  # (B, 4)
        boss = ABOVE[top_unseen]  # (B, 4): ranks that no unseen card of the suit beats
        trick_power = POWER[np.where(lead, 4, led)[:, None], trick]  # (B, N); empty slots are -1
        win_power = trick_power.max(axis=1)
        win_seat = trick_power.argmax(axis=1)
        led_lane = np.clip(led, 0, 3)
        beats = np.zeros_like(legal)
        ruffed = win_power >= 100
        spade_floor = ABOVE[np.where(ruffed, win_power - 100, -1)]
        beats[:, cards.SPADES] = legal[:, cards.SPADES] & spade_floor
        in_led = legal[rows, led_lane] & ABOVE[np.clip(win_power, -1, 12)]
        beats[rows, led_lane] |= np.where(ruffed, 0, in_led)
        beats = np.where(lead[:, None], legal, beats)
        following = ~lead & (legal[rows, led_lane] != 0)

        side_of = eng.side_of_seat
        my_side = side_of[seat]
        opponent = side_of[None, :] != my_side[:, None]  # (B, N)
        bids, won = st.bids[g], st.tricks_won[g]
        nil_alive = (bids == 0) & (won == 0)
        voids = ((st.voids[g][:, None] >> np.arange(4 * n)) & 1).astype(bool).reshape(b, n, 4)
        to_play = (trick < 0) & (np.arange(n)[None, :] != seat[:, None])

        sides = self._tables_for(eng)[1]
        contract = np.where(bids > 0, bids, 0) @ sides
        taken = np.where(bids > 0, won, 0) @ sides
        remaining = eng.hand_size - st.n_tricks[g]
        need = contract[rows, my_side] - taken[rows, my_side]
        want_win = (need > 0) & (need <= remaining)
        if rules.partnership and self.set_opponents:
            opp_need = contract[rows, 1 - my_side] - taken[rows, 1 - my_side]
            bag_danger = rules.bags & (st.bags[g, my_side] >= rules.bag_limit - 2)
            want_win |= (opp_need > 0) & (opp_need <= remaining) & ~bag_danger

        # --- candidate cards
        low, _ = _lowest(legal)
        high_legal, _ = _highest(legal)
        high_under, has_under = _highest(legal & ~beats)
        cheap_beat, has_beat = _lowest(beats)
        high_beat, _ = _highest(beats)
        cheap_boss, has_boss = _lowest(beats & boss)
        # Leads that win: a boss in a side suit no opponent can ruff, else a boss spade.
        opp_void = (voids & opponent[:, :, None]).any(axis=1)  # (B, 4)
        safe = ~opp_void | (np.arange(4) == cards.SPADES)
        lead_boss, has_lead_boss = _highest(np.where(safe, legal & boss, 0), spade_extra=-50)
        length = POPCOUNT[_lanes(hand)]
        lead_long, _ = _by_suit(legal, LOWEST[legal], length * 16 - LOWEST[legal] - 400 * IS_SPADE_LANE)
        opp_nil = nil_alive & opponent

        duck = np.where(has_under, high_under, np.where(last, high_legal, low))
        win_lead = np.where(has_lead_boss, lead_boss, lead_long)

        # --- normal play
        if rules.partnership:
            partner = eng.partner[seat]
            partner_card = trick[rows, partner]
            partner_winning = ~lead & (win_seat == partner) & (partner_card >= 0)
            pc = np.maximum(partner_card, 0)
            partner_boss = RANK[pc] > top_unseen[rows, SUIT[pc]]
            partner_sure = partner_winning & (last | partner_boss)
        else:
            partner_winning = partner_sure = np.zeros(b, bool)
        second = (n_in == 1) & ~last
        middle = ~lead & ~last & ~second  # third hand in a 4-player game
        beat_following = np.where(has_boss, cheap_boss, np.where(following, high_beat, cheap_beat))
        contest = np.where(
            has_beat,
            np.where(last, cheap_beat, np.where(second & following & ~has_boss, low, beat_following)),
            low,
        )
        contest = np.where(second & ~following & has_beat, cheap_beat, contest)
        normal_win = np.where(lead, win_lead, np.where(partner_sure, low, contest))
        third_high = middle & partner_winning & ~partner_sure
        normal_win = np.where(third_high, np.where(has_beat, beat_following, low), normal_win)
        normal = np.where(want_win, normal_win, np.where(lead, low, duck))

        # --- nil overrides
        choice = normal
        any_opp_nil = opp_nil.any(axis=1)
        if any_opp_nil.any():
            # Attack a nil: lead low in a suit the nil bidder still holds, play under it.
            nil_holds = (opp_nil[:, :, None] & ~voids).any(axis=1)  # (B, 4)
            lead_attack, has_attack = _lowest(np.where(nil_holds, legal, 0))
            lead_attack = np.where(has_attack, lead_attack, low)
            nil_winning = opp_nil[rows, win_seat] & ~lead
            nil_to_play = (opp_nil & to_play).any(axis=1)
            attack = np.where(lead, lead_attack, np.where(nil_winning, duck, np.where(nil_to_play, low, choice)))
            choice = np.where(any_opp_nil, attack, choice)
        if rules.partnership:
            partner_nil = nil_alive[rows, partner]
            if partner_nil.any():
                partner_to_play = to_play[rows, partner]
                top = HIGHEST[legal]
                cover_lead, _ = _by_suit(legal, top, top + 20 * (top > top_unseen) - 5 * IS_SPADE_LANE)
                cover = np.where(has_beat, np.where(following, high_beat, cheap_beat), low)
                overtake = np.where(has_beat, cheap_beat, low)
                protect = np.where(
                    lead, cover_lead, np.where(partner_to_play, cover, np.where(partner_winning, overtake, choice))
                )
                choice = np.where(partner_nil, protect, choice)
        me_nil = nil_alive[rows, seat]
        choice = np.where(me_nil, np.where(lead, low, duck), choice)
        return choice.astype(np.int64)

    # ---------------------------------------------------------------- helpers
    def _tables_for(self, engine: SpadesEngine) -> tuple[np.uint64, np.ndarray]:
        """(deck mask, seat-to-side matrix) of an engine's rules, cached."""
        key = engine.rules
        if key not in self._tables:
            sides = np.zeros((engine.n_players, engine.n_sides), dtype=np.int64)
            sides[np.arange(engine.n_players), engine.side_of_seat] = 1
            self._tables[key] = (np.uint64(cards.cards_to_mask(engine.deck)), sides)
        return self._tables[key]


def _top_trump(engine: SpadesEngine) -> int:
    """Spade-lane rank of the highest trump: 14 (big joker) with jokers, else 12 (ace)."""
    return ACE + 2 * int(engine.rules.jokers)


def _pack(flags: np.ndarray) -> np.ndarray:
    """(B, 52 or 54) bool card flags -> (B,) uint64 masks."""
    out = np.zeros((len(flags), 8), dtype=np.uint8)
    out[:, :7] = np.packbits(flags, axis=1, bitorder="little")
    return out.view("<u8").reshape(-1)


def _lanes(mask: np.ndarray) -> np.ndarray:
    """(B,) uint64 masks -> (B, 4) int64 rank sets per suit; the jokers are spade ranks 13 and 14."""
    lanes = bits.lanes(mask, 4)
    lanes[..., cards.SPADES] |= ((mask >> np.uint64(cards.LITTLE_JOKER)) & np.uint64(3)).astype(np.int64) << 13
    return lanes


def _by_suit(lanes: np.ndarray, rank: np.ndarray, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Card (suit*13 + rank[suit]) of the non-empty suit with the highest score, and whether any."""
    s = np.where(lanes != 0, score, NEG)
    suit = np.argmax(s, axis=1)
    rows = np.arange(len(lanes))
    return suit * cards.N_RANKS + np.maximum(rank[rows, suit], 0), s[rows, suit] > NEG


def _lowest(lanes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lowest-value card of each (B, 4) lane set (lowest rank; spades last), and whether any."""
    r = LOWEST[lanes]
    return _by_suit(lanes, r, -(r + cards.N_RANKS * IS_SPADE_LANE))


def _highest(lanes: np.ndarray, spade_extra: int = cards.N_RANKS) -> tuple[np.ndarray, np.ndarray]:
    """Highest-value card of each (B, 4) lane set (spades first unless ``spade_extra`` < 0), and whether any."""
    r = HIGHEST[lanes]
    return _by_suit(lanes, r, r + spade_extra * IS_SPADE_LANE)
