"""What the engine asks Hearts [RULES 7]: no trump, hearts may not be led until broken, the two of
clubs leads, the card points and the first-trick restriction, the pass, no bidding (``GameSpec``,
read by ``SpadesEngine.__init__`` through the registry).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from spades_env import cards
from spades_env.core.phases import OVER, PLAY
from spades_env.games.game_spec import GameSpec
from spades_env.games.hearts import hand_score, phases
from spades_env.games.hearts.phases import PASS
from spades_env.games.hearts.scoring import FIRST_TRICK_FORBIDDEN, card_points, hearts_match_winner

if TYPE_CHECKING:
    from spades_env.core.table_facts import TableFacts
    from spades_env.engine.actions import ActionLayout
    from spades_env.engine.results import FinishedHands
    from spades_env.engine.state import GameState
    from spades_env.games.hearts.rules import HeartsRules

#: Seats between passer and receiver (clockwise) by hand number mod 4: left, right, across, no pass.
PASS_OFFSETS = tuple(int(x) for x in phases.PASS_OFFSETS)
#: The pass direction of each hand number mod 4, in words.
PASS_NAMES = ("left", "right", "across", "none")


class HeartsSpec(GameSpec):
    """Hearts: points, the pass, no trump, no bidding [RULES 7]."""

    name = "hearts"
    broken_suit = cards.HEARTS
    broken_mask = int(cards.SUIT_MASK[cards.HEARTS])
    first_trick_forbidden = int(FIRST_TRICK_FORBIDDEN)
    pass_offsets = PASS_OFFSETS
    pass_names = PASS_NAMES
    pass_phase = PASS
    compile_seconds = 55

    def params(self, rules: HeartsRules, layout: ActionLayout) -> np.ndarray:
        """The int64 parameters ``p`` of a Hearts rule set (indexed by ``phases.P_*``)."""
        p = np.zeros(phases.N_PARAMS, dtype=np.int64)
        p[phases.P_N_PLAYERS] = rules.n_players
        p[phases.P_N_CARD_IDS] = layout.n_card_ids
        p[phases.P_LOWEST_CLUB] = min(c for c in rules.deck if cards.card_suit(c) == cards.CLUBS)
        p[phases.P_DECK_SIZE] = len(rules.deck)
        p[phases.P_DECK : phases.P_DECK + len(rules.deck)] = rules.deck
        return p

    def hand_end_tables(self, rules: HeartsRules) -> hand_score.HeartsTables:
        """The rule set's ``hand_score.HeartsTables``."""
        return hand_score.hearts_tables(rules)

    def club_leads(self, rules: HeartsRules) -> bool:
        """The holder of the two of clubs leads it [RULES 7]."""
        return True

    def card_points(self, rules: HeartsRules) -> np.ndarray:
        """Hearts 1, the queen of spades 13 (the jack of diamonds -10 with ``jack_of_diamonds``)."""
        return card_points(rules)

    def match_winner(self, rules: HeartsRules, scores: np.ndarray, hands_played: np.ndarray) -> np.ndarray:
        """The single lowest score once a side reaches the target [RULES 7]."""
        return hearts_match_winner(rules, scores, hands_played)

    def reachable_phases(self, rules: HeartsRules) -> list[int]:
        """The pass, then play."""
        return [PASS, PLAY, OVER]

    def hidden_card_verb(self, phase: int) -> str | None:
        """The pass: the cards a seat chooses are seen by their receiver only, once every seat has chosen."""
        return "pass" if phase == PASS else None

    def check_state(self, facts: TableFacts, state: GameState, drawing: np.ndarray) -> None:
        """The pass and the points taken; no bid, no Spades variant field set (``hearts.invariants``)."""
        from spades_env.games.hearts import invariants

        invariants.check_hearts(facts, state)

    def hand_end_fields(self, view: GameState, f: FinishedHands) -> None:
        """The points each seat took in its tricks (the last trick's included)."""
        view.points_taken[:] = f.points_taken

    def record_decisions(self, facts: TableFacts, f: FinishedHands, i: int, add) -> tuple[np.ndarray, dict]:
        """The cards passed, seat by seat from the dealer's left; the hands as dealt, before the pass."""
        n = facts.n_players
        dealer = int(f.dealer[i])
        passed = [int(p) for p in f.passed[i]]
        offset = int(facts.pass_offset(f.hand_number[i : i + 1])[0])
        received = [passed[(seat - offset) % n] if offset else 0 for seat in range(n)]
        # The finished hand's deal is the hands after the pass: give back what each seat received.
        deal = f.deal[i]
        deal = np.array([(int(deal[s]) & ~received[s]) | passed[s] for s in range(n)], dtype=np.uint64)
        for seat in [(dealer + k) % n for k in range(1, n + 1)]:
            for c in cards.mask_to_cards(passed[seat]):
                add(seat, c)
        extra: dict[str, Any] = {
            "pass_offset": offset,
            "passed": [[cards.card_name(c) for c in cards.mask_to_cards(p)] for p in passed],
            "points_taken": f.points_taken[i].tolist(),
        }
        return deal, extra


SPEC = HeartsSpec()
