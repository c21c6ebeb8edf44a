"""What a step of the raw AEC env tells the agents: the rewards and terminations of a hand's end, and an illegal
action raised or penalised (the ``illegal`` option).

``AECOutcomes`` is the part of ``spades_env.envs.aec.raw_env`` that keeps PettingZoo's per-agent dicts
(``rewards``, ``_cumulative_rewards``, ``terminations``, ``truncations``, ``infos``) once the engine has played an
action, or refused one; the module docstring of ``spades_env.envs.aec`` specifies them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv

from spades_env.engine import IllegalActionError


class AECOutcomes(AECEnv):
    """Rewards, terminations and illegal actions of ``raw_env`` (which sets the attributes used)."""

    def _end_hand(self, agent: str, delta: list[int], winner: int, to_move: int) -> None:
        """Rewards and terminations after ``agent``'s action ended a hand (side points ``delta``,
        ``to_move`` the first to move in the next hand)."""
        match_over = winner >= 0
        self._live = not match_over
        self._zero_rewards = False
        rewards = dict.fromkeys(self.agents, 0.0)
        if self.reward == "win":
            if match_over:
                for name in self.agents:
                    rewards[name] = 1.0 if self._side[self.agent_name_mapping[name]] == winner else -1.0
        else:
            for name in self.agents:
                # + 0.0: Hearts' minus zero points is 0.0, not -0.0.
                rewards[name] = delta[self._side[self.agent_name_mapping[name]]] * self._scale + 0.0
        self.rewards = rewards
        self._accumulate_rewards()
        if match_over or self.episode == "hand":
            self.terminations = dict.fromkeys(self.agents, True)
            nxt = (self.agent_name_mapping[agent] + 1) % len(self.possible_agents)
            self.agent_selection = self.possible_agents[nxt]
        else:
            self.agent_selection = self.possible_agents[to_move]

    def _action_id(self, agent: str, action: Any) -> int:
        """``action`` as an action id if it is in the action space (a NumPy integer too), else -1."""
        return int(action) if self.action_spaces[agent].contains(action) else -1

    def _raise_illegal(self, agent: str, action: Any, a: int) -> None:
        """Raise ``IllegalActionError`` for ``action`` (id ``a``, -1 outside the action space)."""
        if a < 0 or a >= self._n_actions:
            legal = np.flatnonzero(self._legal()).tolist()
            raise IllegalActionError(
                f"action {action!r} for {agent} is not in the action space (an int in 0..{self._n_actions - 1}); "
                f"legal actions: {legal}"
            )
        self._action[0] = a
        self.engine.step(self.game_state.copy(), self._action)  # raises the engine's error
        raise IllegalActionError(f"illegal action {a} for {agent}")

    def _penalize(self, agent: str) -> None:
        """End the game after an illegal action, as ``TerminateIllegalWrapper`` does."""
        self._cumulative_rewards[agent] = 0.0
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._zero_rewards = False
        self.rewards[agent] = self.illegal_reward
        self.infos[agent] = {"illegal_action": True}
        self._accumulate_rewards()
        self._deads_step_first()
