"""spades_env: a vectorized NumPy engine and environments for Spades and its relatives."""

from spades_env.engine import GameState, IllegalActionError, SpadesEngine
from spades_env.rules import Rules, RulesError, list_presets

__version__ = "0.1.0"

__all__ = ["GameState", "IllegalActionError", "Rules", "RulesError", "SpadesEngine", "list_presets"]
