"""spades_env: a vectorized NumPy engine and environments for Spades and its relatives."""

import gymnasium

from spades_env.engine import EngineInputError, GameState, IllegalActionError, SpadesEngine, sample_legal
from spades_env.envs import VectorSpades, env, raw_env
from spades_env.envs.gym_env import ENV_ID
from spades_env.observation import ObservationEncoder
from spades_env.rules import HeartsRules, Rules, RulesError, list_presets, preset

__version__ = "0.1.0"

#: The engine runs every game (its historical name is ``SpadesEngine``).
Engine = SpadesEngine

if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="spades_env.envs.gym_env:SpadesGymEnv")

__all__ = [
    "Engine",
    "EngineInputError",
    "GameState",
    "IllegalActionError",
    "ObservationEncoder",
    "HeartsRules",
    "Rules",
    "RulesError",
    "SpadesEngine",
    "VectorSpades",
    "env",
    "list_presets",
    "preset",
    "raw_env",
    "sample_legal",
]
