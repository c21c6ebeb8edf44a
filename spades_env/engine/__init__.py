"""The batched engine: ``SpadesEngine`` (reset, legal actions, step over B games of any rule set), its state
arrays, action layout, argument checks, records and checker; it runs the compiled rules of ``spades_env.games``."""

from spades_env.core import bits
from spades_env.engine.actions import ActionLayout
from spades_env.engine.core import FinishedHands, IllegalActionError, SpadesEngine, StepResult
from spades_env.engine.inputs import EngineInputError, EngineInputTypeError
from spades_env.engine.sampling import random_legal, sample_legal
from spades_env.engine.state import OVER, PHASE_NAMES, PLAY, GameState
from spades_env.engine.view import cards_held, seat_view

__all__ = [
    "OVER",
    "PHASE_NAMES",
    "PLAY",
    "ActionLayout",
    "EngineInputError",
    "EngineInputTypeError",
    "FinishedHands",
    "GameState",
    "IllegalActionError",
    "SpadesEngine",
    "StepResult",
    "bits",
    "cards_held",
    "random_legal",
    "sample_legal",
    "seat_view",
]
