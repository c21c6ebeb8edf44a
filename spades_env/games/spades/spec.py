"""What the engine asks Spades [RULES 1-6]: spades are trumps and may not be led until broken, the
bidding (blind nil, ``min_team_bid``, ``mirror``, ``fourteen``), the bags, the two-player draw and the
variants' decisions in a record (``GameSpec``, read by ``SpadesEngine.__init__`` through the registry).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from spades_env import cards
from spades_env.core import bits
from spades_env.core.phases import OVER, PLAY
from spades_env.games.game_spec import GameSpec
from spades_env.games.spades import hand_score, params, starts
from spades_env.games.spades.bidding import WEAK_HAND_MASK
from spades_env.games.spades.params import BEMO, BID, BLIND, DRAW, EXCHANGE

if TYPE_CHECKING:
    from spades_env.core.table_facts import TableFacts
    from spades_env.engine.actions import ActionLayout
    from spades_env.engine.results import FinishedHands
    from spades_env.engine.state import GameState
    from spades_env.games.spades.rules import SpadesRules

I64 = np.int64
#: Cards of each hand dealt face up under ``face_up_deal`` [RULES 6].
FACE_UP_CARDS = 4


class SpadesSpec(GameSpec):
    """Spades: trumps, bids, bags [RULES 1-6]."""

    name = "spades"
    trump = cards.SPADES
    broken_suit = cards.SPADES
    broken_mask = int(cards.TRUMP_MASK)  # the jokers are spades [RULES 6]
    bid_phase = BID
    blind_phase = BLIND
    special_actions = (
        ("blind_nil", "blind nil"),
        ("look", "look at cards"),
        ("keep", "keep the shown card"),
        ("discard", "discard the shown card"),
        ("exchange_done", "done exchanging"),
        ("no_bemo", "no Bemo"),
        ("little_bemo", "little Bemo (first 6 tricks)"),
        ("big_bemo", "big Bemo (first 9 tricks)"),
        ("redeal", "show weak hand: redeal"),
    )
    compile_seconds = 135

    def params(self, rules: SpadesRules, layout: ActionLayout) -> np.ndarray:
        """The int64 parameters ``p`` of a Spades rule set (indexed by ``params.P_*``)."""
        p = np.zeros(params.N_PARAMS, dtype=np.int64)
        ids = {
            params.P_BLIND_NIL: layout.blind_nil,
            params.P_LOOK: layout.look,
            params.P_KEEP: layout.keep,
            params.P_DISCARD: layout.discard,
            params.P_EXCHANGE_DONE: layout.exchange_done,
            params.P_NO_BEMO: layout.no_bemo,
            params.P_BIG_BEMO: layout.big_bemo,
            params.P_REDEAL: layout.redeal,
        }
        for at, action in ids.items():
            p[at] = -1 if action is None else action
        p[params.P_N_PLAYERS] = rules.n_players
        p[params.P_HAND_SIZE] = rules.hand_size
        p[params.P_N_CARD_IDS] = layout.n_card_ids
        p[params.P_BID_OFFSET] = layout.bid_offset
        p[params.P_MIRROR] = rules.mirror
        p[params.P_FOURTEEN] = rules.partnership and rules.fourteen
        p[params.P_TEAM_BID] = rules.min_team_bid if rules.partnership else 0
        p[params.P_TWO_PLAYER] = rules.two_player
        p[params.P_BEMO] = rules.bemo
        p[params.P_CLUB_LEADS] = rules.lowest_club_leads
        p[params.P_LOWEST_CLUB] = min(c for c in rules.deck if cards.card_suit(c) == cards.CLUBS)
        p[params.P_PILE_SIZE] = len(rules.deck) if rules.two_player else 0
        p[params.P_BLIND_OPEN] = 0 if not rules.blind_nil else 1 if rules.blind_nil_requires_behind_by is None else 2
        p[params.P_BEHIND_BY] = rules.blind_nil_requires_behind_by or 0
        for seat in range(rules.n_players):
            p[params.P_SIDE_OF_SEAT + seat] = rules.side_of_seat(seat)
        p[params.P_FACE_UP] = FACE_UP_CARDS if rules.face_up_deal else 0
        p[params.P_DECK_SIZE] = len(rules.deck)
        p[params.P_DECK : params.P_DECK + len(rules.deck)] = rules.deck
        return p

    def hand_end_tables(self, rules: SpadesRules) -> hand_score.ScoreTables:
        """The rule set's ``hand_score.ScoreTables``."""
        return hand_score.score_tables(rules)

    def club_leads(self, rules: SpadesRules) -> bool:
        """``lowest_club_leads`` [RULES 6]."""
        return rules.lowest_club_leads

    def lead_anytime(self, rules: SpadesRules) -> bool:
        """``spades_lead_anytime`` [RULES 1]."""
        return rules.spades_lead_anytime

    def face_up_deal(self, rules: SpadesRules) -> bool:
        """``face_up_deal`` [RULES 6]."""
        return rules.face_up_deal

    def face_up_cards(self, rules: SpadesRules) -> int:
        """``FACE_UP_CARDS`` under ``face_up_deal`` [RULES 6]."""
        return FACE_UP_CARDS if rules.face_up_deal else 0

    def max_bid(self, rules: SpadesRules) -> int:
        """Bids of 0 (nil) to every trick of the hand [RULES 2]."""
        return rules.hand_size

    def blind_nil_allowed(self, facts: TableFacts, scores: np.ndarray) -> np.ndarray:
        """(G, S) bool: ``blind_nil``, for a side behind by ``blind_nil_requires_behind_by`` [RULES 2]."""
        rules = facts.rules
        if not rules.blind_nil:
            return np.zeros(scores.shape, bool)
        behind = rules.blind_nil_requires_behind_by
        if behind is None:
            return np.ones(scores.shape, bool)
        if facts.n_sides == 2:  # the other side's score is the other column
            return scores <= scores[:, ::-1] - behind
        others = np.where(np.eye(facts.n_sides, dtype=bool)[None], np.iinfo(I64).min, scores[:, None, :])
        return scores <= others.max(axis=2) - behind

    def bid_range(self, facts: TableFacts, state: GameState, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(G,) int64 lowest and highest legal bid: ``mirror``, ``fourteen``, ``min_team_bid`` [RULES 2, 6]."""
        r, n = facts.rules, facts.n_players
        hi = np.full(len(g), facts.hand_size, I64)
        if r.mirror:
            hand = state.hands.reshape(-1)[g * n + state.to_move[g]]
            spades = bits.popcount(hand & cards.TRUMP_MASK)
            return spades, spades
        if not (r.partnership and (r.min_team_bid or r.fourteen)):
            return np.zeros(len(g), I64), hi
        partner_bid = state.bids.reshape(-1)[g * n + facts.partner[state.to_move[g]]]
        if r.fourteen:
            # Bids of 2 or more; the partner who bids second completes the team's 7.
            forced = 7 - partner_bid
            return np.where(partner_bid >= 0, forced, 2), np.where(partner_bid >= 0, forced, 5)
        return np.where(partner_bid >= 0, np.maximum(0, r.min_team_bid - partner_bid), 0), hi

    def weak_hand(self, facts: TableFacts, state: GameState, g: np.ndarray) -> np.ndarray:
        """(G,) bool: ``misdeal_weak_hand`` and no spade, J, Q or K in the hand [RULES 6]."""
        if not facts.rules.misdeal_weak_hand:
            return np.zeros(len(g), bool)
        hand = state.hands.reshape(-1)[g * facts.n_players + state.to_move[g]]
        return (hand & WEAK_HAND_MASK) == 0

    def max_bags(self, rules: SpadesRules) -> int:
        """``bag_limit - 1`` with ``bags``, else 0 [RULES 3]."""
        return rules.bag_limit - 1 if rules.bags else 0

    def match_winner(self, rules: SpadesRules, scores: np.ndarray, hands_played: np.ndarray) -> np.ndarray:
        """The highest score once a side reaches the target or the mercy score [RULES 3]."""
        from spades_env.games.spades.scoring import match_winner

        return match_winner(rules, scores, hands_played)

    def mercy_score(self, rules: SpadesRules) -> int | None:
        """The resolved ``lose_score`` [RULES 3]."""
        return rules.mercy_score

    def adjusted_points(self, rules: SpadesRules, f: Any, rows: np.ndarray | slice = slice(None)) -> np.ndarray:
        """The bag penalties put back and every bag charged (``scoring.bag_adjusted_points``) [RULES 3]."""
        from spades_env.games.spades.scoring import bag_adjusted_points

        return bag_adjusted_points(rules, f.delta[rows], f.bags_added[rows], f.bag_penalties[rows])

    def contract_counts(self, facts: TableFacts, f: FinishedHands) -> dict[str, np.ndarray] | None:
        """Each side's contract made or set, the bags it took, its nil bids and nils made [RULES 3]."""
        sides = np.eye(facts.n_sides, dtype=np.int64)[facts.side_of_seat]  # (N, S)
        contract = np.where(f.bids > 0, f.bids, 0) @ sides
        return {
            "contracts": (contract > 0).astype(np.int64),
            "sets": ((contract > 0) & ~f.made).astype(np.int64),
            "bags": f.bags_added,
            "nil_bids": (f.nil_made | f.nil_failed).astype(np.int64) @ sides,
            "nil_made": f.nil_made.astype(np.int64) @ sides,
        }

    def reachable_phases(self, rules: SpadesRules) -> list[int]:
        """Bidding and play, with blind nil, Bemo and the two-player draw and exchange when on."""
        reachable = [BID, PLAY, OVER] + [BLIND] * rules.blind_nil + [BEMO] * rules.bemo
        return reachable + ([DRAW] + [EXCHANGE] * rules.blind_nil if rules.two_player else [])

    def drawing_phases(self, rules: SpadesRules) -> tuple[int, ...]:
        """Two-player: the hands are drawn from a pile before the bidding [RULES 4]."""
        return (BLIND, DRAW, EXCHANGE) if rules.two_player else ()

    def hidden_card_verb(self, phase: int) -> str | None:
        """Two-player blind nil: a card given up in the exchange [RULES 4]."""
        return "give up" if phase == EXCHANGE else None

    def check_state(self, facts: TableFacts, state: GameState, drawing: np.ndarray) -> None:
        """Bidding, Bemo, bags, face-up cards and the two-player pile (``spades.invariants``)."""
        from spades_env.games.spades import invariants

        invariants.check_spades(facts, state, drawing)

    def record_decisions(self, facts: TableFacts, f: FinishedHands, i: int, add) -> tuple[np.ndarray, dict]:
        """Blind-nil choices and bids; in two-player the 26 draws and the exchanges before the bids [RULES 2, 4]."""
        lay, n = facts.layout, facts.n_players
        dealer = int(f.dealer[i])
        order = [(dealer + k) % n for k in range(1, n + 1)]
        blind_open = self.blind_nil_allowed(facts, f.start_scores[i : i + 1])[0][facts.side_of_seat]
        if facts.rules.two_player:
            for seat in order:
                if blind_open[seat]:
                    add(seat, lay.blind_nil if f.blind[i, seat] else lay.look)
            for k in range(len(f.pile[i]) // 2):
                seat = order[1] if k % 2 == 0 else order[0]
                second = int(f.pile[i, 2 * k + 1])
                add(seat, lay.keep if (int(f.discards[i, seat]) >> second) & 1 else lay.discard)
            for seat in order:
                if f.blind[i, seat]:
                    given = cards.mask_to_cards(int(f.exchanged_out[i, seat]))
                    for c in given:
                        add(seat, c)
                    if len(given) < 3:
                        add(seat, lay.exchange_done)
            for seat in order:
                if not f.blind[i, seat]:
                    add(seat, lay.bid_action(int(f.bids[i, seat])))
        else:
            for seat in order:
                if blind_open[seat]:
                    add(seat, lay.blind_nil if f.blind[i, seat] else lay.look)
                if not f.blind[i, seat]:
                    add(seat, lay.bid_action(int(f.bids[i, seat])))
        return f.deal[i], {}

    def record_declarations(self, facts: TableFacts, f: FinishedHands, i: int, leader: int, add) -> None:
        """The sides' Bemo declarations, from the leader on [RULES 6]."""
        if facts.rules.bemo:
            lay, n = facts.layout, facts.n_players
            for k in range(facts.n_sides):
                seat = (leader + k) % n
                add(seat, lay.no_bemo + int(f.bemo[i, facts.side_of_seat[seat]]))

    start_options = starts.START_OPTIONS

    def deals_refused(self, rules: SpadesRules) -> str:
        """Two-player deals no hand: it takes ``piles`` (``starts.DEALS_REFUSED``)."""
        return starts.DEALS_REFUSED if rules.two_player else ""

    def check_starts(
        self, rules: SpadesRules, n: int, deck: tuple[int, ...], hand_size: int, pile_size: int, deals, options
    ) -> dict[str, Any]:
        """``bags``, ``piles`` (two-player), ``face_ups`` (``starts.check_starts``)."""
        max_bags, face_ups = self.max_bags(rules), min(self.face_up_cards(rules), hand_size)
        return starts.check_starts(rules, max_bags, face_ups, n, deck, hand_size, pile_size, deals, options)

    def new_matches(self, state: GameState, g: np.ndarray, sides: np.ndarray, own: dict[str, Any]) -> None:
        """The starting bags (``bags``, else 0); no weak-hand redeal yet."""
        state.bags.reshape(-1)[sides] = own.get("bags", 0)
        state.n_redeals[g] = 0

    def start_deals(self, state: GameState, g: np.ndarray, own: dict[str, Any], n_players: int) -> np.ndarray | None:
        """Two-player's draw pile (``piles``) and its empty first hands."""
        return starts.start_deals(state, g, own, n_players)

    def started_hands(self, state: GameState, cells: np.ndarray, own: dict[str, Any]) -> None:
        """The face-up cards given (``face_ups``)."""
        starts.started_hands(state, cells, own)

    def hand_end_fields(self, view: GameState, f: FinishedHands) -> None:
        """The bags after the hand."""
        view.bags[:] = f.bags

    def record_contract(self, facts: TableFacts, f: FinishedHands, i: int) -> dict[str, Any]:
        """The bags before and after the hand, the bids and the blind nils."""
        return {"start_bags": f.start_bags[i].tolist(), "bids": f.bids[i].tolist(), "blind_nil": f.blind[i].tolist(),
                "bags": f.bags[i].tolist()}  # fmt: skip

    def record_result(self, facts: TableFacts, f: FinishedHands, i: int) -> dict[str, Any]:
        """The two-player pile and blind-nil exchange draws, the face-up cards and the Bemo declarations."""
        extra: dict[str, Any] = {}
        names = lambda mask: [cards.card_name(c) for c in cards.mask_to_cards(int(mask))]  # noqa: E731
        if facts.rules.two_player:
            extra["pile"] = [cards.card_name(int(c)) for c in f.pile[i]]
            extra["exchange_draws"] = [names(m) for m in f.exchanged_in[i]]
        if facts.rules.face_up_deal:
            extra["face_up"] = [names(m) for m in f.face_up[i]]
        if facts.rules.bemo:
            extra["bemo"] = f.bemo[i].tolist()
        return extra

    def replay_key(self, facts: TableFacts, state: GameState, action: int, draws: list[int]) -> int | None:
        """A two-player blind-nil exchange of a card draws from the key (``two_player.exchange``): the key under
        which it draws the seat's lowest recorded draw not yet drawn (``hashing.key_for_stream``)."""
        if int(state.phase[0]) != EXCHANGE or action == facts.layout.exchange_done:
            return None
        from spades_env.core.hashing import key_for_stream
        from spades_env.games.spades.two_player import EXCHANGE_SALT, exchange_counter, exchange_pool

        seat = int(state.to_move[0])
        left = draws[seat] & ~int(state.exchanged_in[0, seat])
        if not left:
            raise ValueError(f"seat {seat} exchanges more cards than the record lists it drawing")
        card = (left & -left).bit_length() - 1
        pool = int(exchange_pool(state.discards, state.exchanged_out, state.exchanged_in, 0, seat))
        if not (pool >> card) & 1:
            raise ValueError(f"seat {seat} cannot draw {cards.card_name(card)}: not a discard or card given up left")
        given = int(state.exchanged_out[0, seat]).bit_count()
        counter = int(exchange_counter(int(state.hand_number[0]), given, seat))
        return key_for_stream((pool & ((1 << card) - 1)).bit_count(), counter, EXCHANGE_SALT)


SPEC = SpadesSpec()
