"""Information-set invariance: no shipped bot's decision (nor the example user's bot's) depends on a card its seat
cannot see, or on the key.

For seeded decisions of every table family (two-player draws and bids, Hearts passes included),
``agents.infoset_probe.redeal`` re-deals what the deciding seat cannot see and replaces the match key; the
bot, re-seeded identically, must take the same action (the search: give the same ``action_values``). Two
cheating bots show that the probe catches a bot that reads a hidden hand or the key. A larger run:
``python -m bench.infoset_probe``.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents import SearchAgent, make_agent
from agents.base import Agent
from agents.infoset_probe import probe, redeal, same_observations, sample_decisions
from agents.learned import LEARNED_CHECKPOINTS
from spades_env.engine import PLAY, SpadesEngine
from spades_env.engine.check import check_state
from spades_env.games.hearts.phases import PASS
from spades_env.games.spades.params import DRAW

TABLES = ["partnership", "two-player", "cutthroat-4", "hearts"]
#: Decisions probed per table (spread over the phases by ``sample_decisions``), and the seed of their games: with
#: these, each search variant below changes some two-player ``action_values`` (search:fast 4, the deep search 1,
#: the engine rollouts 4 of 32) in the search as it was before it stopped reading the opponent's real discards.
DECISIONS = 32
SEED = 12
#: Every path of the search at a small size: the play and bid weighting, the lookahead bid, the Hearts
#: lookahead pass and the endgame solver.
DEEP_SEARCH = "search:samples=4,oversample=2,bid_samples=2,pass_samples=2,endgame=2"
#: The guided search at a small size: the network's prior, a few plies of its play, then the heuristic.
GUIDED = "guided:samples=2,top=2,depth=2"
_DECISIONS: dict[str, tuple] = {}


def _decisions(preset: str):
    """The table's engine and its probed decisions (state, seats), drawn once per module."""
    if preset not in _DECISIONS:
        engine = SpadesEngine(preset)
        _DECISIONS[preset] = (engine, *sample_decisions(engine, DECISIONS, seed=SEED))
    return _DECISIONS[preset]


def _engine_rollout_search(seed: int) -> SearchAgent:
    """``search:fast`` whose rollouts run in the batched engine (the reference path of the compiled ones)."""
    bot = make_agent("search:fast,samples=4", seed=seed)
    bot.compiled_rollouts = False
    return bot


def _kth_legal(masks: np.ndarray, k: np.ndarray) -> np.ndarray:
    """(B,) the (k mod legal count)-th legal action of each row."""
    return np.array([np.flatnonzero(row)[int(i) % int(row.sum())] for row, i in zip(masks, k, strict=True)])


class ReadsAHiddenHand(Agent):
    """A cheat: picks its action by the next seat's hand."""

    name = "reads-a-hand"

    def act(self, observations, masks, context=None):
        nxt = (context.seats + 1) % context.engine.n_players
        return _kth_legal(masks, context.state.hands[context.games, nxt] % np.uint64(7919))


class ReadsTheKey(Agent):
    """A cheat: picks its action by the match key (from which every later deal follows)."""

    name = "reads-the-key"

    def act(self, observations, masks, context=None):
        return _kth_legal(masks, context.state.key[context.games] % np.uint64(7919))


@pytest.mark.parametrize("preset", TABLES)
def test_the_redeal_keeps_what_the_seat_sees_and_moves_what_it_cannot(preset):
    engine, state, seats = _decisions(preset)
    phases = set(state.phase.tolist())
    assert PLAY in phases and (DRAW in phases if preset == "two-player" else True)
    assert PASS in phases if preset == "hearts" else True
    other, redealt = redeal(engine, state, np.arange(state.batch_size), seats, np.random.default_rng(0))
    check_state(engine, other)
    assert redealt.all()
    assert same_observations(engine, state, other, seats).all()
    assert np.array_equal(engine.legal_action_mask(state), engine.legal_action_mask(other))
    assert (other.key != state.key).all()
    rows = np.arange(state.batch_size)
    assert (other.hands[rows, seats] == state.hands[rows, seats]).all() or preset != "two-player"
    moved = (other.hands != state.hands).any(axis=1)
    assert moved.mean() > 0.5
    if preset == "two-player":  # the opponent's discards and the rest of the pile are dealt anew too
        assert (other.discards[rows, 1 - seats] != state.discards[rows, 1 - seats]).any()
        assert (other.pile != state.pile).any()


#: The docs' example of a user's bot (docs/your-bot.md), named by its import string: it plays Spades only.
USER_BOT = "examples.my_bot:MyBot"
#: Every shipped bot at every table it plays: the networks (``learned``, and ``guided`` on them) only where a
#: checkpoint was trained for the table; and the example of a user's bot.
#: The guided search's fast preset: its rollouts in the search's compiled code (depth 0).
GUIDED_FAST = "guided:fast"
SPECS = ["random", "heuristic", "search:fast", DEEP_SEARCH, "engine-rollouts", "learned", GUIDED, GUIDED_FAST, USER_BOT]


def _plays(spec: str, preset: str) -> bool:
    if spec in ("learned", GUIDED, GUIDED_FAST):
        return preset in LEARNED_CHECKPOINTS
    return spec != USER_BOT or preset != "hearts"


CASES = [(p, s) for p in TABLES for s in SPECS if _plays(s, p)]


@pytest.mark.parametrize(("preset", "spec"), CASES)
def test_a_bot_decides_alike_on_every_deal_its_seat_cannot_tell_apart(preset, spec):
    engine, state, seats = _decisions(preset)
    bot = _engine_rollout_search(5) if spec == "engine-rollouts" else make_agent(spec, seed=5)
    assert bot.supports(engine), f"{spec} does not play {preset}"
    result = probe(bot, engine, state, seats, seed=5, values=isinstance(bot, SearchAgent))
    assert result.redealt.all()
    assert not result.actions.any(), f"{spec} at {preset}: {int(result.actions.sum())} decisions changed"
    if result.values is not None:
        assert not result.values.any(), f"{spec} at {preset}: {int(result.values.sum())} action_values changed"


@pytest.mark.parametrize("preset", TABLES)
@pytest.mark.parametrize("cheat", [ReadsAHiddenHand, ReadsTheKey])
def test_the_probe_catches_a_bot_that_reads_a_hidden_hand_or_the_key(preset, cheat):
    engine, state, seats = _decisions(preset)
    result = probe(cheat(seed=0), engine, state, seats, seed=0)
    assert result.actions.sum() >= 3


def test_the_probe_script_counts_the_changed_decisions_per_bot_and_table(capsys):
    from bench.infoset_probe import main

    rows = main(["--decisions", "8", "--rules", "two-player", "--bot", "heuristic,search:fast", "--values"])
    assert [(r["bot"], r["decisions"], r["actions"], r["values"]) for r in rows] == [
        ("heuristic", 8, 0, None),
        ("search:fast", 8, 0, 0),
    ]
    assert "search:fast" in capsys.readouterr().out
