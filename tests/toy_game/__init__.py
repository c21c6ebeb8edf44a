"""Tricks, a test-only trick-taking game: the proof that a new game is one folder plus one registry line.

Four players, each for themselves, 13 cards each; follow suit, no trump, any suit may be led, no
bidding and no pass; each trick taken is a point, and the match ends when a player reaches the
target score (``target_score``, 26 by default) or after ``max_hands`` hands, the single highest
score winning (a tie for the highest plays on). Dealer+1 leads the first trick.

The folder has what a game folder has (``spades_env/games/<game>/``): its rules class, spec,
phases, loops (generated from the template), hand score, observation encoder, reference engine
and text, and a field of the state of its own (``state_fields.py``: each seat's best hands of the match, which its
phases keep and its hand score records; ``state_arrays.py`` is generated from it).
``tests/spades_env/games/test_toy_game.py`` registers it with one line (``GAMES["tricks"] = TRICKS``) and plays it
through the engine, the PettingZoo env and the random bot.
"""

from spades_env.games import game_parts

#: Its registry entry (``spades_env.games.GAMES["tricks"]``); its batch scoring is its ``hand_score``.
TRICKS = game_parts(
    "tests.toy_game", "TricksRules", "TricksObservationEncoder", "TricksReferenceGame", "hand_score",
    has_state_fields=True,
)  # fmt: skip
