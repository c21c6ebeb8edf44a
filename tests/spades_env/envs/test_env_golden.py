"""Golden env traces: seeded AEC and Gymnasium episodes on every preset must not change silently.

Each case is a seeded run (``tests/env_traces.py``) reduced to one digest per step of all
that the env shows: observations and masks of every agent, rewards, terminations, infos,
``state()``, the render and the engine state. The recorded digests
(``tests/golden/env_traces.json``) were written by the env as it was before it became an
adapter over the engine at B = 1 (``envs/single.py``), so that the adapter is held to it.
Regenerate after a deliberate change with ``UPDATE_GOLDEN=1 .venv/bin/python -m pytest
tests/spades_env/envs/test_env_golden.py`` and say why in the commit.
"""

from __future__ import annotations

import json
import os

import pytest

from spades_env import list_presets
from tests.env_traces import aec_trace, gym_trace
from tests.paths import GOLDEN

TRACES = GOLDEN / "env_traces.json"

#: Presets whose seeded match is long (hundreds of steps): their per-preset case is one hand.
LONG_MATCHES = ("fourteen", "mirror", "hearts", "hearts-partnership")
AEC_CASES: dict[str, dict] = {
    **{
        f"aec-{p}": dict(rules=p, seeds=[i], policy_seed=i, episode="hand" if p in LONG_MATCHES else "match")
        for i, p in enumerate(list_presets())
    },
    "aec-partnership-hand-seedless": dict(rules="partnership", seeds=[3, None, None], episode="hand"),
    "aec-hearts-hand-seedless": dict(rules="hearts", seeds=[4, None], episode="hand", policy_seed=4),
    "aec-partnership-250-win": dict(rules="partnership-250", seeds=[5], reward="win", policy_seed=5),
    "aec-two-player-scaled-perfect": dict(
        rules="two-player", seeds=[6], reward="scaled", perfect_information=True, episode="hand"
    ),
    "aec-hearts-partnership-scaled-perfect": dict(
        rules="hearts-partnership", seeds=[7], reward="scaled", perfect_information=True, episode="hand"
    ),
    "aec-partnership-raise": dict(rules="partnership", seeds=[8], illegal_at=20, episode="hand"),
    "aec-hearts-raise": dict(rules="hearts", seeds=[9], illegal_at=5, episode="hand"),
    "aec-partnership-house-penalty": dict(rules="partnership-house", seeds=[10], illegal="penalty", illegal_at=30),
    "aec-hearts-50-penalty": dict(rules="hearts-50", seeds=[11], illegal="penalty", illegal_at=70, reward="scaled"),
    "aec-jokers-options": dict(
        rules="jokers", seeds=[12], episode="hand", options={"dealer": 1, "scores": [100, 50], "bags": [2, 0]}
    ),
    "aec-two-player-pile": dict(
        rules="two-player", seeds=[13], episode="hand", options={"pile": list(range(52))[::-1], "dealer": 1}
    ),
    "aec-hearts-scores": dict(rules="hearts", seeds=[14], options={"scores": [60, 70, 80, 90]}),
}
GYM_CASES: dict[str, dict] = {
    **{f"gym-{p}": dict(rules=p, seeds=[i], opponents="heuristic", seat=1) for i, p in enumerate(list_presets())},
    "gym-partnership-random-match": dict(rules="partnership", seeds=[1, None], opponents="random", episode="match"),
    "gym-hearts-random-seedless": dict(rules="hearts", seeds=[2, None], opponents="random", seat=2),
    "gym-partnership-mixed-scaled": dict(rules="partnership", seeds=[3], opponents="mixed", reward="scaled"),
    "gym-cutthroat-4-win": dict(
        rules="cutthroat-4", seeds=[4], opponents="heuristic", episode="match", reward="win", seat=3
    ),
}


def _trace(case: str) -> list[str]:
    if case in AEC_CASES:
        return aec_trace(**AEC_CASES[case])
    return gym_trace(**GYM_CASES[case])


def _recorded() -> dict[str, str]:
    return json.loads(TRACES.read_text()) if TRACES.exists() else {}


@pytest.mark.parametrize("case", list(AEC_CASES) + list(GYM_CASES))
def test_env_trace_is_unchanged(case):
    trace = _trace(case)
    recorded = _recorded()
    if os.environ.get("UPDATE_GOLDEN"):
        recorded[case] = " ".join(trace)
        TRACES.write_text(json.dumps(recorded, indent=0, sort_keys=True) + "\n")
    assert case in recorded, f"no recorded trace for {case} in {TRACES} (UPDATE_GOLDEN=1 to record it)"
    expected = recorded[case].split()
    first = next(
        (i for i, (a, b) in enumerate(zip(trace, expected, strict=False)) if a != b), min(len(trace), len(expected))
    )
    assert trace == expected, f"{case}: first difference at digest {first} of {len(expected)} (now {len(trace)})"


def test_the_golden_file_holds_exactly_the_cases():
    assert sorted(_recorded()) == sorted(list(AEC_CASES) + list(GYM_CASES))
