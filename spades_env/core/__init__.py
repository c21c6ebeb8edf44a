"""The game-agnostic trick-taking core, compiled with Numba: trick play and winners (``trick_play``).

Kernels here take the batch-first state arrays and a game's tables as plain arrays and
scalars (no Python objects), so Spades and Hearts run the same compiled code.
"""
