"""The Hearts parts of the bots (``agents.game_parts.BOT_PARTS["hearts"]``): the heuristic's rules
(``heuristic``, ``heuristic_kernel``), its turns in one game (``turns``), the search's rollouts
(``rollouts``) and the lookahead pass (``passing``). Only these modules (and ``agents/spades/``'s) import a
game's modules."""
