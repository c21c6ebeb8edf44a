"""The heuristic's turns in one game, compiled: its seats' decisions and the engine's steps in one call.

A single-seat env (``spades_env.envs.gym_env``) lets bots move until its learner is to move again.
With the heuristic in those seats, ``HeuristicTurns.play`` does it in one compiled call on the
engine's own state (game 0, B = 1) instead of a Python round trip per decision: the learner's
action first (if given), then, while a seat of ``seats`` is to move, the seat's legal actions
(the game's ``loops.mask_games``), the heuristic's decision (``agents.spades.heuristic_kernel.decide``
or ``agents.hearts.heuristic_kernel.decide``, what ``HeuristicAgent.act`` returns) and the
engine's apply of it (the game's ``loops.apply_games``, what ``SpadesEngine.step`` runs, a
weak-hand redeal included). Each game's compiled loop is its own (``agents.spades.turns.spades_turns``,
``agents.hearts.turns.hearts_turns``, run by the heuristic's game rules, ``HeuristicAgent.game_rules``),
on the helpers here. It stops before an action that plays the last card of the hand, and returns it:
scoring the hand and what an env shows of its end stay with ``SpadesEngine.step`` and the env,
through the one path every step takes. So the games played are those the Python loop plays,
decision for decision (``tests/agents/test_heuristic_turns.py``).

Numba's cache keys a compiled function on its own file: after editing a function called from
the games' turns (the heuristic's kernels, the games' loops, the helpers here), clear their ``__pycache__`` too.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spades_env.engine import PLAY, SpadesEngine
from spades_env.engine.state import GameState

#: ``play``'s answer when no action is left pending (the learner or another bot is to move, or the match is over).
NONE_PENDING = -1


@njit(cache=True, inline="always")
def last_card_pending(s, hand_size):
    """Game 0's next action plays the last card of its hand (``envs.hand_end.last_card_pending``)."""
    return s.phase[0] == PLAY and s.n_tricks[0] == hand_size - 1 and s.n_in_trick[0] == s.hands.shape[1] - 1


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
        self._game = agent.game_rules(engine)

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
        return self._game.turns(engine, common)
