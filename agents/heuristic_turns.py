"""The heuristic's turns in one game, compiled: its seats' decisions and the engine's steps in one call.

A single-seat env (``spades_env.envs.gym_env``) lets bots move until its learner is to move again.
With the heuristic in those seats, ``HeuristicTurns.play`` does it in one compiled call on the
engine's own state (game 0, B = 1) instead of a Python round trip per decision: the learner's
action first (if given), then, while a seat of ``seats`` is to move, the seat's legal actions
(the game's ``loops.mask_games``), the heuristic's decision (``agents.heuristic_spades_kernel.decide``
or ``agents.heuristic_hearts_kernel.decide``, what ``HeuristicAgent.act`` returns) and the
engine's apply of it (the game's ``loops.apply_games``, what ``SpadesEngine.step`` runs, a
weak-hand redeal included). It stops before an action that plays the last card of the hand,
and returns it: scoring the hand and what an env shows of its end stay with ``SpadesEngine.step``
and the env, through the one path every step takes. So the games played are those the
Python loop plays, decision for decision (``tests/test_heuristic_turns.py``).

Numba's cache keys a compiled function on its own file: after editing a function called from
here (the heuristic's kernels, the games' loops), clear this file's ``__pycache__`` too.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents import heuristic_hearts_kernel, heuristic_spades_kernel
from spades_env.core import packed
from spades_env.core import state_arrays as sa
from spades_env.engine import OVER, PLAY, SpadesEngine
from spades_env.engine.state import GameState
from spades_env.games.hearts import loops as hearts_loops
from spades_env.games.hearts.scoring import card_points
from spades_env.games.spades import loops as spades_loops

#: ``play``'s answer when no action is left pending (the learner or another bot is to move, or the match is over).
NONE_PENDING = -1


@njit(cache=True, inline="always")
def _decision_view(state):
    """The ``core.state_arrays.DECISION_FIELDS`` arrays of a ``FIELDS``-ordered state tuple."""
    return state[2], state[3], state[0], state[12], state[8], state[9], state[35], state[36]


@njit(cache=True, inline="always")
def _last_card_pending(s, hand_size):
    """Game 0's next action plays the last card of its hand (``envs.hand_end.last_card_pending``)."""
    return s.phase[0] == PLAY and s.n_tricks[0] == hand_size - 1 and s.n_in_trick[0] == s.hands.shape[1] - 1


@njit(cache=True)
def spades_turns(
    first, seats, row, action, status, rules, table, hand_size, side_of_seat, partner, deck, config, tuning
):
    """Apply ``first`` (an action of the seat to move; -1: none), then the heuristic's decisions of every
    seat s with ``seats[s]`` while one is to move, in game 0 of the state ``table`` (``core.packed``),
    Spades rules ``rules`` (``core.packed.pack_rules``), ``hand_size`` cards a hand. Returns (the action
    left pending because it plays the hand's last card, or -1; the seats that moved, bit s for seat s).
    ``row`` (1, A) bool, ``action`` (1,) int64 and ``status`` (1,) int8 are scratch."""
    p, tables = packed.unpack_rules(rules)
    state = packed.unpack_state(table)
    s = sa.borrow(state)
    games = np.zeros(1, np.int64)
    who = np.zeros(1, np.int64)
    a = first
    moved = 0
    while True:
        if a >= 0:
            if _last_card_pending(s, hand_size):
                return a, moved
            moved |= 1 << s.to_move[0]
            action[0] = a
            spades_loops.apply_games(0, 1, action, status, p, tables, state)
        if s.phase[0] == OVER or not seats[s.to_move[0]]:
            return NONE_PENDING, moved
        who[0] = s.to_move[0]
        spades_loops.mask_games(0, 1, games, row, p, tables, _decision_view(state))
        a = heuristic_spades_kernel.decide(
            s.phase, s.hands, s.deal, s.trick, s.n_in_trick, s.led_suit, s.n_tricks, s.tricks_won, s.bids, s.blind,
            s.voids, s.scores, s.bags, s.shown, s.discards, games, who, row, side_of_seat, partner, deck, config,
            tuning,
        )[0]  # fmt: skip


@njit(cache=True)
def hearts_turns(first, seats, row, action, status, rules, table, hand_size, side_of_seat, partnership, points):
    """``spades_turns`` for Hearts rules: the Hearts heuristic (``partnership``, card ``points``: the rule set's)."""
    p, tables = packed.unpack_rules(rules)
    state = packed.unpack_state(table)
    s = sa.borrow(state)
    games = np.zeros(1, np.int64)
    who = np.zeros(1, np.int64)
    a = first
    moved = 0
    while True:
        if a >= 0:
            if _last_card_pending(s, hand_size):
                return a, moved
            moved |= 1 << s.to_move[0]
            action[0] = a
            hearts_loops.apply_games(0, 1, action, status, p, tables, state)
        if s.phase[0] == OVER or not seats[s.to_move[0]]:
            return NONE_PENDING, moved
        who[0] = s.to_move[0]
        hearts_loops.mask_games(0, 1, games, row, p, tables, _decision_view(state))
        a = heuristic_hearts_kernel.decide(
            s.phase, s.hands, s.deal, s.trick, s.n_in_trick, s.led_suit, s.passed, s.points_taken, games, who, row,
            side_of_seat, partnership, points,
        )[0]  # fmt: skip


class HeuristicTurns:
    """The turns of one heuristic bot (``agents.heuristic.HeuristicAgent``) in one game of an engine: ``play``.

    Made by ``HeuristicAgent.turns(engine)``; the bot's options are read at every call (they are
    plain attributes a caller may change), as ``act`` reads them.
    """

    def __init__(self, agent, engine: SpadesEngine) -> None:
        self.agent = agent
        self.engine = engine
        self._row = np.zeros((1, engine.layout.n_actions), bool)
        self._action = np.zeros(1, np.int64)
        self._status = np.zeros(1, np.int8)
        self._hearts = bool(engine.rules.hearts)
        self._points = card_points(engine.rules) if self._hearts else None

    def play(self, state: GameState, first: int, seats: np.ndarray) -> tuple[int, int]:
        """Play ``first`` (a legal action of the seat to move, not checked; -1: none), then the bot's
        decisions while a seat s with ``seats[s]`` ((N,) bool) is to move, in ``state`` (B = 1), in
        place. Returns (the action left pending because it plays the hand's last card, which the
        caller steps through ``SpadesEngine.step`` that scores the hand, or ``NONE_PENDING``; the
        seats that moved, bit s for seat s). Raises ``ValueError`` for a state that is not one game
        whose arrays the engine packs (``core.packed.state_table``)."""
        engine = self.engine
        if state.batch_size != 1:
            raise ValueError(f"state must hold one game (B = 1), got B = {state.batch_size}")
        table = engine._state_table(state)  # the engine's own, kept while the state's fields are its arrays
        if table is None:
            raise ValueError("state's arrays must be C-contiguous, aligned and writeable, of their fields' dtypes")
        common = (first, seats, self._row, self._action, self._status, engine._rules, table, engine.hand_size)
        if self._hearts:
            partnership = bool(engine.rules.partnership)
            return hearts_turns(*common, engine.side_of_seat, partnership, self._points)
        agent = self.agent
        config, partner, deck = agent._tables_for(engine)
        return spades_turns(*common, engine.side_of_seat, partner, deck, config, agent._tuning(engine))
