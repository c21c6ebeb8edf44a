"""Hearts' observation encoder, where it was imported from before the games had their own folders.

The encoder and its layout live in ``spades_env.games.hearts.observation``; get a game's
encoder with ``spades_env.observation.encoder_for(engine)``.
"""

from spades_env.games.hearts.observation import HEARTS_PHASES, HEARTS_VERSION, HeartsObservationEncoder

__all__ = ["HEARTS_PHASES", "HEARTS_VERSION", "HeartsObservationEncoder"]
