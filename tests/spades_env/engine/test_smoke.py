import numpy as np

from spades_env import SpadesEngine
from spades_env.engine import OVER
from tests.conftest import step_live_games


def test_random_matches_finish_with_a_winner():
    engine = SpadesEngine("partnership")
    state = engine.reset(np.arange(8))
    rng = np.random.default_rng(0)
    for _ in range(5000):
        if not step_live_games(engine, state, rng):
            break
    assert (state.phase == OVER).all()
    assert (state.winner >= 0).all()
