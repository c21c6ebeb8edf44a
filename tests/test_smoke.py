import numpy as np

from spades_env import SpadesEngine
from spades_env.engine import OVER


def test_random_matches_finish_with_a_winner():
    engine = SpadesEngine("partnership")
    state = engine.reset(np.arange(8))
    rng = np.random.default_rng(0)
    for _ in range(5000):
        live = np.flatnonzero(state.phase != OVER)
        if len(live) == 0:
            break
        sub = state.take(live)
        mask = engine.legal_action_mask(sub)
        engine.step(sub, np.argmax(rng.random(mask.shape) * mask, axis=1))
        state.put(live, sub)
    assert (state.phase == OVER).all()
    assert (state.winner >= 0).all()
