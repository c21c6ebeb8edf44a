"""Environments: PettingZoo AEC (``env``, ``raw_env``), Gymnasium single-seat, batched vector API."""

from spades_env.envs.aec import env, raw_env
from spades_env.envs.context import DecisionContext
from spades_env.envs.gym_env import SpadesGymEnv
from spades_env.envs.vector import VectorSpades

__all__ = ["DecisionContext", "SpadesGymEnv", "VectorSpades", "env", "raw_env"]
