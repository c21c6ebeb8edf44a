"""Recorded positions and the heuristic bot's action at each: the yardstick's decisions, pinned.

``python -m tests.heuristic_positions`` (run from the repository root) writes
``tests/golden/heuristic_positions.npz``: for every preset of both games, positions reached by
seeded play in which each game mixes heuristic and uniformly random actions (so that unusual
positions appear: random nils and blind nils, lopsided scores, bags near the limit), every
phase the bot decides (blind nil, bids and redeals, the two-player draw and exchange, Bemo,
Hearts passing, card play). Each position is the deciding game's whole ``GameState`` row, the
legal-action mask and the action of every bot in ``BOTS`` (default options and others).

The file was written with the NumPy bot of commit 345bebf; ``tests/agents/test_heuristic_positions.py``
replays every position and requires the same actions, so a rewrite of the bot (compiled, or
otherwise) must decide exactly as that one did.
"""

from __future__ import annotations

import dataclasses
import pathlib

import numpy as np

from agents.base import DecisionContext
from agents.heuristic import HeuristicAgent
from spades_env.engine import PLAY, GameState, SpadesEngine
from spades_env.engine.state import N_PHASES
from spades_env.engine.state_schema import state_class
from spades_env.games.hearts.phases import PASS
from spades_env.games.spades.params import BEMO, BID, BLIND, DRAW, EXCHANGE
from spades_env.rules import resolve_rules
from spades_env.rules_yaml import list_presets

PATH = pathlib.Path(__file__).parent / "golden" / "heuristic_positions.npz"
#: The bots whose actions are recorded: (name, HeuristicAgent options).
#: (name, HeuristicAgent options, attributes set after construction): the last makes Bemo and
#: redeals common enough to be recorded.
BOTS = (
    ("default", {}, {}),
    ("eager", {"nil_threshold": 2.5, "bid_bias": 0.3, "set_opponents": 1, "two_player_bonus": 1.0}, {}),
    ("bold", {}, {"bemo_threshold": 4.0, "redeal_threshold": 3.0}),
)
#: Positions recorded per preset and phase (card play, every other phase), at most.
QUOTA_PLAY, QUOTA_OTHER = 400, 150
#: A category of its own beside the phases: bids where the weak-hand redeal is legal.
REDEAL_OFFERED = N_PHASES
#: Chance that a position is recorded (card play, every other phase): spread over many hands.
KEEP_PLAY, KEEP_OTHER = 0.04, 0.25
GAMES = 64  #: games played side by side per preset
MAX_STEPS = 2500  #: steps played per preset at most (rare phases may stay under quota)


def bot(options: dict, attributes: dict) -> HeuristicAgent:
    agent = HeuristicAgent(**options)
    for name, value in attributes.items():
        setattr(agent, name, value)
    return agent


def _random_starts(engine: SpadesEngine, rng: np.random.Generator, g: int) -> dict:
    """Scores and bags of matches already under way (half the games), so that late-match rules fire."""
    target = engine.rules.target_score
    scores = rng.integers(-target // 4, int(target * 0.95), size=(g, engine.n_sides))
    scores[: g // 2] = 0
    out = {"scores": scores}
    if engine.rules.game != "hearts":
        bags = rng.integers(0, max(1, engine.rules.bag_limit), size=(g, engine.n_sides))
        bags[: g // 2] = 0
        out["bags"] = bags
    return out


def record_preset(preset: str, seed: int) -> dict[str, np.ndarray]:
    """Positions of one preset: the deciding games' state rows, their masks and each bot's action."""
    engine = SpadesEngine(resolve_rules(preset))
    rng = np.random.default_rng(seed)
    state = engine.reset(rng.integers(0, 2**31, size=GAMES), **_random_starts(engine, rng, GAMES))
    randomness = rng.uniform(0.0, 0.7, size=GAMES)  # each game's share of random actions
    driver = HeuristicAgent()
    rows: list[GameState] = []
    masks_kept: list[np.ndarray] = []
    kept = np.zeros(N_PHASES + 1, dtype=np.int64)
    quota = np.full(N_PHASES + 1, QUOTA_OTHER)
    quota[PLAY] = QUOTA_PLAY
    chance = np.full(N_PHASES + 1, KEEP_OTHER)
    chance[PLAY] = KEEP_PLAY
    chance[REDEAL_OFFERED] = 1.0
    redeal = engine.layout.redeal
    for _ in range(MAX_STEPS):
        games = np.arange(GAMES)
        masks = engine.legal_action_mask(state)
        ctx = DecisionContext(engine, state, games, state.to_move.copy())
        heuristic = driver.act(None, masks, ctx)
        actions = np.where(rng.random(GAMES) < randomness, engine.random_actions(state, rng), heuristic)
        keep = []
        category = state.phase.copy()
        if redeal is not None:
            category[(state.phase == BID) & masks[:, redeal]] = REDEAL_OFFERED
        for g in np.flatnonzero(rng.random(GAMES) < chance[category]):
            if kept[category[g]] < quota[category[g]]:
                kept[category[g]] += 1
                keep.append(g)
        if len(keep):
            rows.append(state.take(keep))
            masks_kept.append(masks[keep])
        engine.step(state, actions, auto_reset=True)
        if (kept[engine_phases(engine)] >= quota[engine_phases(engine)]).all():
            break
    positions = GameState.concat(rows)
    masks = np.concatenate(masks_kept)
    out = {f"state.{k}": v for k, v in state_arrays(positions).items()}
    out["masks"] = np.packbits(masks, axis=1)
    out["n_actions"] = np.array(masks.shape[1])
    for name, options, attributes in BOTS:
        g = np.arange(positions.batch_size)
        out[f"action.{name}"] = bot(options, attributes).act(
            None, masks, DecisionContext(engine, positions, g, positions.to_move)
        )
    return out


def engine_phases(engine: SpadesEngine) -> list[int]:
    """The phases a bot decides in under these rules."""
    r, lay = engine.rules, engine.layout
    if r.game == "hearts":
        return [PASS, PLAY]
    phases = [BID, PLAY]
    phases += [BLIND] if lay.blind_nil is not None else []
    phases += [DRAW] if lay.keep is not None else []
    phases += [EXCHANGE] if lay.exchange_done is not None else []
    phases += [BEMO] if lay.no_bemo is not None else []
    phases += [REDEAL_OFFERED] if lay.redeal is not None else []
    return phases


def state_arrays(state: GameState) -> dict[str, np.ndarray]:
    """The state's fields, integers narrowed to the smallest type that holds them (restored on load)."""
    out = {}
    for f in dataclasses.fields(state):
        a = getattr(state, f.name)
        if a.dtype == np.int64 and a.size:
            for small in (np.int8, np.int16, np.int32):
                info = np.iinfo(small)
                if a.min() >= info.min and a.max() <= info.max:
                    a = a.astype(small)
                    break
        out[f.name] = a
    return out


def load() -> dict[str, dict]:
    """preset -> {"engine", "state" (GameState), "masks" (K, A) bool, "actions" {bot name: (K,) int64}}."""
    raw = np.load(PATH)
    out = {}
    for preset in list_presets():
        fields = {}
        engine = SpadesEngine(resolve_rules(preset))
        kind = state_class(engine.rules.game)  # the file also holds the other games' fields, as states did once
        for f in dataclasses.fields(kind):
            a = raw[f"{preset}/state.{f.name}"]
            fields[f.name] = a.astype(np.int64) if a.dtype.kind == "i" else a
        n_actions = int(raw[f"{preset}/n_actions"])
        masks = np.unpackbits(raw[f"{preset}/masks"], axis=1, count=n_actions).astype(bool)
        actions = {name: raw[f"{preset}/action.{name}"].astype(np.int64) for name, _, _ in BOTS}
        out[preset] = {
            "engine": engine,
            "state": kind(**fields),
            "masks": masks,
            "actions": actions,
        }
    return out


def write() -> None:
    arrays = {}
    for k, preset in enumerate(list_presets()):
        for name, a in record_preset(preset, seed=1000 + k).items():
            arrays[f"{preset}/{name}"] = a
    np.savez_compressed(PATH, **arrays)


if __name__ == "__main__":
    write()
    print(f"wrote {PATH} ({PATH.stat().st_size} bytes)")
