"""The Spades parts of the bots (``agents.game_parts.BOT_PARTS["spades"]``): the heuristic's rules
(``heuristic``: its options' tables, ``heuristic_kernel``, ``heuristic_play``, ``heuristic_config``), its
turns in one game (``turns``), the search's rollouts (``rollouts``) and the exact endgame solver
(``endgame``, ``endgame_search``). Only these modules (and ``agents/hearts/``'s) import a game's modules."""
