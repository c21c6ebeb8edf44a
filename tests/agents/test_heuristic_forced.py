"""A forced card (one legal card) is answered without running the card-play rules, as they answer it.

``agents.spades.heuristic_kernel.decide`` and ``agents.hearts.heuristic_kernel.decide`` return the only legal
card straight away (``heuristic_lanes.only_card``); the rules (``play_choice``) must give that
card in every such position of heuristic games, so that the shortcut changes no decision.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents import HeuristicAgent
from agents.base import DecisionContext
from agents.hearts import heuristic_kernel as hearts_kernel
from agents.heuristic_lanes import only_card
from agents.spades import heuristic_play as spades_play
from spades_env import SpadesEngine
from spades_env.engine import PLAY
from spades_env.games.hearts.scoring import card_points


def test_only_card_names_a_single_flag_else_minus_one():
    row = np.zeros(68, bool)
    assert only_card(row, 54) == -1
    row[53] = True
    assert only_card(row, 54) == 53 and only_card(row, 52) == -1
    row[7] = True
    assert only_card(row, 54) == -1


def _rules_choice(engine, agent, st, g, seat, mask):
    """The card the card-play rules give in game ``g`` (what ``decide`` ran before the shortcut)."""
    if engine.rules.game == "hearts":
        return hearts_kernel.play_choice(
            st.hands[g], st.deal[g], st.trick[g], st.n_in_trick[g], st.led_suit[g], st.points_taken[g], seat, mask,
            engine.side_of_seat, bool(engine.rules.partnership), card_points(engine.rules),
        )  # fmt: skip
    config, partner, deck = agent.game_rules(engine).tables(engine)
    side = engine.side_of_seat[seat]
    return spades_play.play_choice(
        st.hands[g], st.deal[g], st.trick[g], st.n_in_trick[g], st.led_suit[g], st.n_tricks[g], st.tricks_won[g],
        st.bids[g], st.blind[g], st.voids[g], st.bags[g, side], st.discards[g, seat], seat, mask,
        engine.side_of_seat, partner, deck, config,
    )  # fmt: skip


@pytest.mark.parametrize("rules", ["partnership", "cutthroat-3", "two-player", "jokers", "hearts"])
def test_forced_cards_are_what_the_rules_play(rules):
    engine, agent = SpadesEngine(rules), HeuristicAgent()
    state = engine.reset(np.arange(64) + 7)
    checked = 0
    for _ in range(engine.hand_size * engine.n_players + 40):
        masks = engine.legal_action_mask(state)
        games, seats = np.arange(64), state.to_move.copy()
        actions = agent.act(None, masks, DecisionContext(engine, state, games, seats))
        forced = np.flatnonzero((state.phase == PLAY) & (masks.sum(axis=1) == 1))
        for g in forced[:8].tolist():  # a few per step: the rules run once each from Python
            card = int(np.flatnonzero(masks[g])[0])
            assert actions[g] == card == _rules_choice(engine, agent, state, g, int(seats[g]), masks[g])
            checked += 1
        engine.step(state, actions, auto_reset=True)
    assert checked >= 50
