"""Uniformly random legal actions from a (B, A) bool mask: the one draw, and the bots' draw.

``sample_legal`` is the engine's draw: one ``rng.random(B)``, action k of a row's legal
actions in id order with k = floor(u * count). ``SpadesEngine.random_actions`` draws exactly
the same actions from the same generator state without building the mask (tested), and
``VectorSpades`` and ``spades_env.sample_legal`` are this function.

``random_legal`` is the draw of ``RandomAgent`` and of the Gymnasium env's random opponents:
one uniform per action, the legal action with the largest wins. It is as uniform, but it
consumes the generator differently, so it is kept (not folded into ``sample_legal``) for
seeded games with those bots to stay the games they were.
"""

from __future__ import annotations

import numpy as np

from spades_env.core import bits


def sample_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of a (B, A) bool mask: (B,) int64.

    Action k of each row's legal actions in id order, k uniform below the row's count
    (``bits.pick_true``: a few array operations whatever A is). Rows without a legal
    action (a finished game) get action 0. Draws one ``rng.random(B)``.
    """
    mask = np.asarray(mask, dtype=bool)
    if mask.ndim != 2:
        raise ValueError(f"expected a (B, A) mask, got shape {mask.shape}")
    return bits.pick_true(mask, rng.random(len(mask)))


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of a (B, A) mask: (B,) int64 (the bots' draw).

    Draws one ``rng.random((B, A))`` and takes each row's legal action with the largest
    number. Every row needs a legal action (ValueError otherwise).
    """
    masks = np.asarray(masks)
    if masks.ndim != 2:
        raise ValueError(f"expected a (B, A) mask, got shape {masks.shape}")
    if not masks.astype(bool).any(axis=1).all():
        raise ValueError("every row of the action mask needs at least one legal action")
    return np.argmax(rng.random(masks.shape) * masks, axis=1).astype(np.int64)
