"""The information-set probe: does a bot's decision depend on anything its seat cannot see?

A bot may read only what the deciding seat knows: the public state and its own hand and private history
(its discards, what it was shown, its passes and what it received). ``redeal`` makes, for each decision, a
state the seat cannot tell from the real one: every card whose place the seat does not know is dealt anew
among the places it could be (the other hands, the two-player opponent's discards and the rest of the pile,
the cards another seat has set aside to pass), keeping every place's number of cards, the shown voids and
the known cards (face-up cards, cards passed to or by the seat, the seat's own discards), and the match
key is replaced. ``probe`` asks a bot, re-seeded identically, for the decision in both states: an honest
bot takes the same action (and gives the same ``action_values``); a bot that reads a hidden hand, the pile
or the key changes some. ``sample_decisions`` draws decisions from seeded games. ``bench/infoset_probe.py``
runs it at size; ``tests/agents/test_bot_invariance.py`` in the test suite.

How a card is re-dealt: each card the seat cannot locate has a place, the set of hidden fields that hold it
(the seat's own fields never do); the new deal gives every place as many of these cards as it had, no card
to a hand that has shown out of its suit, and every hidden field is rewritten card for card (a card's new
identity is the one dealt to its old place), so the new state is as consistent as the old: a two-player
opponent's kept and discarded cards, Hearts passes and their receivers' hands match.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agents.base import Agent, DecisionContext
from agents.heuristic import HeuristicAgent
from spades_env import cards
from spades_env.engine import OVER, GameState, SpadesEngine
from spades_env.engine.view import known_cards as view_known_cards
from spades_env.engine.view import private_masks

#: Suit of each card id for the shown voids: the jokers count as spades.
_SUIT = np.minimum(np.arange(64) // cards.N_RANKS, cards.SPADES)


def mask_fields(engine: SpadesEngine) -> tuple[str, ...]:
    """The card-mask fields of the game's state ((B, N) uint64, in its order) that may hold cards a seat cannot see:
    the hands, the deals and the game's private ones (``spades_env.engine.view.private_masks``)."""
    return ("hands", "deal", *private_masks(engine))


def known_cards(engine: SpadesEngine, state: GameState, g: int, seat: int) -> int:
    """The cards whose place seat ``seat`` knows in game ``g`` (``spades_env.engine.view.known_cards``: played ones,
    its own hand once it has looked and private history, and what its game makes known to it: face-up cards still
    held, the card shown to it, its passes)."""
    return view_known_cards(engine, state, g, seat)


def _places(engine: SpadesEngine, state: GameState, g: int, unseen: list[int]) -> dict[tuple, list[int]]:
    """The cards ``unseen`` grouped by place: the hidden fields holding each (and whether the rest of the
    two-player pile does)."""
    names = mask_fields(engine)
    masks = [(name, k, int(getattr(state, name)[g, k])) for name in names for k in range(engine.n_players)]
    future = set()  # the two-player pile's cards still to come
    if engine.rules.two_player:
        start = int(state.pile_pos[g]) + (1 if state.shown[g] >= 0 else 0)  # the shown card is not to come
        future = {int(c) for c in state.pile[g, start:]}
    places: dict[tuple, list[int]] = {}
    for c in unseen:
        place = tuple((name, k) for name, k, m in masks if (m >> c) & 1) + ((("pile",),) if c in future else ())
        places.setdefault(place, []).append(c)
    return places


def _deal_places(places, voids: int, rng: np.random.Generator, tries: int = 100) -> dict[tuple, list[int]] | None:
    """A new deal of the places' cards: each place as many cards as before, none of a suit a hand in the place
    has shown out of (bit ``4 * seat + suit`` of ``voids``); None if ``tries`` random deals all get stuck."""
    keys = list(places)
    cards_ = [c for key in keys for c in places[key]]
    barred = []  # suits each place may not hold
    for key in keys:
        seats = [k for name, *rest in key if name == "hands" for k in rest]
        barred.append({s for k in seats for s in range(4) if (voids >> (4 * k + s)) & 1})
    for _ in range(tries):
        room = [len(places[key]) for key in keys]
        new: list[list[int]] = [[] for _ in keys]
        order = sorted(cards_, key=lambda c: (sum(_SUIT[c] not in b for b in barred), rng.random()))
        for c in order:
            ok = [i for i in range(len(keys)) if room[i] > 0 and _SUIT[c] not in barred[i]]
            if not ok:
                break
            i = ok[int(rng.choice(len(ok), p=np.array([room[j] for j in ok]) / sum(room[j] for j in ok)))]
            new[i].append(c)
            room[i] -= 1
        else:
            return {key: new[i] for i, key in enumerate(keys)}
    return None


def _remap_mask(mask: int, perm: dict[int, int]) -> int:
    out = 0
    while mask:
        c = (mask & -mask).bit_length() - 1
        out |= 1 << perm.get(c, c)
        mask &= mask - 1
    return out


def redeal(
    engine: SpadesEngine, state: GameState, games: np.ndarray, seats: np.ndarray, rng: np.random.Generator
) -> tuple[GameState, np.ndarray]:
    """(the D re-dealt games, (D,) bool whether each was re-dealt): game ``games[d]`` of ``state`` as seat
    ``seats[d]`` cannot tell it from the real one (see the module docstring), with a new random key. A game
    whose cards no random deal could place (voids) is left as it was but for its key (False)."""
    out = state.take(games)
    done = np.zeros(len(games), bool)
    deck = cards.cards_to_mask(engine.deck)
    for d, seat in enumerate(np.asarray(seats).tolist()):
        unseen = deck & ~known_cards(engine, out, d, seat)
        places = _places(engine, out, d, [c for c in range(64) if (unseen >> c) & 1])
        new = _deal_places(places, int(out.voids[d]), rng)
        if new is None:
            continue
        perm = {}
        for key, old in places.items():
            for a, b in zip(rng.permutation(old).tolist(), new[key], strict=True):
                perm[a] = b
        for name in mask_fields(engine):
            field = getattr(out, name)
            for k in range(engine.n_players):
                field[d, k] = _remap_mask(int(field[d, k]), perm)
        if engine.rules.two_player:
            out.pile[d] = [perm.get(int(c), int(c)) for c in out.pile[d]]
        done[d] = True
    out.key = rng.integers(0, 2**63, len(games), dtype=np.int64).astype(np.uint64)
    return out, done


def sample_decisions(
    engine: SpadesEngine, n: int, seed: int, games: int = 8, player: Agent | None = None
) -> tuple[GameState, np.ndarray]:
    """(state, seats): ``n`` decisions (one game each) from ``games`` seeded games that ``player`` (the
    heuristic by default) plays, spread over the phases (each phase in turn gives one of its decisions, drawn
    at random, while it has some)."""
    rng = np.random.default_rng(seed)
    player = player or HeuristicAgent(seed=seed)
    state = engine.reset(np.arange(seed * 1000, seed * 1000 + games))
    by_phase: dict[int, list[GameState]] = {}
    keep = min(1.0, 4.0 * n / (games * engine.hand_size * engine.n_players * 2))
    while sum(len(v) for v in by_phase.values()) < 4 * n and (state.phase != OVER).any():
        live = np.flatnonzero(state.phase != OVER)
        for g in live[rng.random(len(live)) < keep]:
            by_phase.setdefault(int(state.phase[g]), []).append(state.take([g]))
        masks = engine.legal_action_mask(state)
        actions = np.zeros(games, np.int64)
        actions[live] = player.act(None, masks[live], DecisionContext(engine, state, live, state.to_move[live]))
        engine.step(state, actions, validate=False)
    picked: list[GameState] = []
    pools = [rng.permutation(len(v)).tolist() for v in by_phase.values()]
    lists = list(by_phase.values())
    while len(picked) < n and any(pools):
        for pool, items in zip(pools, lists, strict=True):
            if pool and len(picked) < n:
                picked.append(items[pool.pop()])
    out = GameState.concat(picked)
    return out, out.to_move.copy()


@dataclass
class ProbeResult:
    """What changed between the real and the re-dealt decisions, one entry per decision."""

    actions: np.ndarray
    """(D,) bool: the bot took another action."""
    values: np.ndarray | None
    """(D,) bool: its ``action_values`` differ (None: the bot has none, or they were not asked for)."""
    redealt: np.ndarray
    """(D,) bool: the decision's hidden cards were re-dealt (else only its key changed)."""


def decide(
    bot: Agent, engine: SpadesEngine, state: GameState, seats: np.ndarray, seed: int, values: bool = False
) -> tuple[np.ndarray, np.ndarray | None]:
    """The bot's actions (and ``action_values`` where asked for and it has them) for the decisions ``seats``
    (D,) of the D games of ``state``, the bot re-seeded with ``seed`` before each call."""
    games = np.arange(len(seats))
    masks = engine.legal_action_mask(state)
    obs = None
    if getattr(bot, "uses_observations", False):
        from spades_env.observation import encoder_for

        obs = encoder_for(engine).encode(state, games, seats)
    ctx = DecisionContext(engine, state, games, np.asarray(seats, dtype=np.int64))
    bot.reset(seed)
    actions = np.asarray(bot.act(obs, masks, ctx))
    vals = None
    if values and hasattr(bot, "action_values"):
        bot.reset(seed)
        vals = np.asarray(bot.action_values(obs, masks, ctx))
    return actions, vals


def probe(
    bot: Agent,
    engine: SpadesEngine,
    state: GameState,
    seats: np.ndarray,
    seed: int = 0,
    values: bool = False,
    rng: np.random.Generator | None = None,
) -> ProbeResult:
    """Ask ``bot`` (re-seeded with ``seed`` each time) for each decision in the real games ``state`` and in
    ``redeal``'s copies; what changed. Raises ValueError where the re-deal changed the legal actions (it must
    keep all the seat sees)."""
    rng = rng or np.random.default_rng(seed)
    other, redealt = redeal(engine, state, np.arange(state.batch_size), seats, rng)
    if not np.array_equal(engine.legal_action_mask(state), engine.legal_action_mask(other)):
        raise ValueError("the re-deal changed a decision's legal actions")
    a1, v1 = decide(bot, engine, state, seats, seed, values)
    a2, v2 = decide(bot, engine, other, seats, seed, values)
    changed_values = None
    if v1 is not None:
        changed_values = ~np.array([np.array_equal(x, y, equal_nan=True) for x, y in zip(v1, v2, strict=True)])
    return ProbeResult(a1 != a2, changed_values, redealt)


def same_observations(engine: SpadesEngine, state: GameState, other: GameState, seats: np.ndarray) -> np.ndarray:
    """(D,) bool: each deciding seat's observation is the same in both (D-game) states (what ``redeal`` must keep)."""
    from spades_env.observation import encoder_for

    games = np.arange(state.batch_size)
    enc = encoder_for(engine)
    return (enc.encode(state, games, seats) == enc.encode(other, games, seats)).all(axis=1)
