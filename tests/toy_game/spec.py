"""What the engine asks Tricks: no trump, any suit may be led, no bidding, no pass (the
``GameSpec`` defaults), its parameters, tables, match end, phases and invariants."""

from __future__ import annotations

import numpy as np

from spades_env.core.checks import require
from spades_env.core.phases import OVER, PLAY
from spades_env.games.game_spec import GameSpec
from tests.toy_game import hand_score
from tests.toy_game import phases as ph


class TricksSpec(GameSpec):
    """Tricks: a point a trick, nothing else."""

    name = "tricks"

    def params(self, rules, layout) -> np.ndarray:
        """The int64 parameters ``p`` of a rule set (indexed by ``phases.P_*``)."""
        p = np.zeros(ph.N_PARAMS, dtype=np.int64)
        p[ph.P_N_PLAYERS] = rules.n_players
        p[ph.P_N_CARD_IDS] = layout.n_card_ids
        p[ph.P_DECK_SIZE] = len(rules.deck)
        p[ph.P_DECK : ph.P_DECK + len(rules.deck)] = rules.deck
        return p

    def hand_end_tables(self, rules) -> hand_score.Tables:
        return hand_score.tables(rules)

    def match_winner(self, rules, scores: np.ndarray, hands_played: np.ndarray) -> np.ndarray:
        """The single highest score once a side reaches the target."""
        return hand_score.match_winner_of(rules, scores, hands_played)

    def reachable_phases(self, rules) -> list[int]:
        return [PLAY, OVER]

    def new_matches(self, state, g: np.ndarray, sides: np.ndarray, bags) -> None:
        """No best hand yet."""
        state.best_hands[g] = 0

    def check_state(self, facts, state, drawing: np.ndarray) -> None:
        """Every trick of the match's finished hands is a point; no seat has more best hands than hands played."""
        points = state.scores.sum(axis=1)
        require(points == facts.hand_size * state.hand_number, "the scores are not the tricks of the hands played")
        best = state.best_hands
        require(((best >= 0) & (best <= state.hand_number[:, None])).all(axis=1), "best hands not in 0..hands played")


SPEC = TricksSpec()
