"""PettingZoo's ``OrderEnforcingWrapper`` with a direct ``last`` and ``step``: the wrapper ``spades_env.env()``
puts around the raw AEC env (``spades_env.envs.aec``).
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """``OrderEnforcingWrapper`` with a direct ``last`` and ``step``.

    The behaviour is that of the wrapper; only the attribute look-ups it repeats on every
    ``last`` and ``step`` are skipped.
    """

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        raw = self.env
        agent = raw.agent_selection
        return (
            raw.observe(agent) if observe else None,
            raw._cumulative_rewards[agent],
            raw.terminations[agent],
            raw.truncations[agent],
            raw.infos[agent],
        )

    def step(self, action: Any) -> None:
        raw = self.env
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            raw.step(action)  # it checks the action (in the action space, legal)

    def __str__(self) -> str:
        return str(self.env)
