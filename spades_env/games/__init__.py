"""One folder per game: ``spades/`` and ``hearts/`` (rules, phases, scoring, observation, reference).

A game never imports another game; the game-agnostic core (``spades_env.core``) imports no game.
"""
