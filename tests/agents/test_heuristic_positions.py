"""The heuristic bot decides exactly as it did when its golden files were recorded.

The positions of ``tests/golden/heuristic_positions.npz`` (every preset, every phase the bot
decides, reached by mixed heuristic and random play; see ``tests.heuristic_positions``) are
replayed through ``HeuristicAgent`` with each recorded set of options, in one batch and one
position at a time; the seeded games of ``tests/golden/heuristic_games.json`` (see
``tests.heuristic_games``) are played again and must take the same actions.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.base import DecisionContext
from spades_env.rules_yaml import list_presets
from tests import heuristic_games
from tests import heuristic_positions as recorded

POSITIONS = recorded.load()


def _actions(agent, entry, games: np.ndarray) -> np.ndarray:
    state = entry["state"]
    ctx = DecisionContext(entry["engine"], state, games, state.to_move[games])
    return agent.act(None, entry["masks"][games], ctx)


def test_every_preset_and_every_phase_the_bot_decides_is_recorded():
    assert sorted(POSITIONS) == list_presets()
    for preset, entry in POSITIONS.items():
        phases = set(np.unique(entry["state"].phase).tolist())
        assert phases == set(recorded.engine_phases(entry["engine"])) - {recorded.REDEAL_OFFERED}, preset


@pytest.mark.parametrize("preset", list_presets())
def test_recorded_masks_are_the_engines_masks(preset):
    entry = POSITIONS[preset]
    np.testing.assert_array_equal(entry["engine"].legal_action_mask(entry["state"]), entry["masks"])


@pytest.mark.parametrize("preset", list_presets())
@pytest.mark.parametrize("bot", [b[0] for b in recorded.BOTS])
def test_heuristic_decides_as_recorded_in_one_batch(preset, bot):
    entry = POSITIONS[preset]
    options, attributes = next((o, a) for name, o, a in recorded.BOTS if name == bot)
    games = np.arange(entry["state"].batch_size)
    actions = _actions(recorded.bot(options, attributes), entry, games)
    np.testing.assert_array_equal(actions, entry["actions"][bot])


@pytest.mark.parametrize("preset", list_presets())
def test_heuristic_decides_as_recorded_one_position_at_a_time(preset):
    entry = POSITIONS[preset]
    agent = recorded.bot({}, {})
    n = entry["state"].batch_size
    got = [int(_actions(agent, entry, np.array([g]))[0]) for g in range(0, n, 7)]
    assert got == entry["actions"]["default"][::7].tolist()


def test_recorded_actions_are_legal_and_the_options_matter():
    for preset, entry in POSITIONS.items():
        for name, actions in entry["actions"].items():
            assert entry["masks"][np.arange(len(actions)), actions].all(), (preset, name)
    differ = sum(int((e["actions"]["default"] != e["actions"]["eager"]).sum()) for e in POSITIONS.values())
    assert differ > 100


@pytest.mark.parametrize("preset", list_presets())
def test_seeded_games_against_random_seats_play_out_as_recorded(preset):
    games = json.loads(heuristic_games.PATH.read_text())[preset]
    assert heuristic_games.play(preset, seed=1 + list_presets().index(preset)) == games
