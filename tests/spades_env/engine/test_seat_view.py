"""A seat's view (``spades_env.engine.view.seat_view``): a bot is given only what its seat may know.

For seeded decisions of every table family (two-player draws and exchanges, Hearts passes, face-up cards and
Bemo included): no card of another seat that the deciding seat cannot locate, no pile card and no key is in the
view; the view of a state equals the view of ``agents.infoset_probe.redeal``'s re-deal of it (everything the
seat cannot tell apart is absent); the public fields and the seat's own hand are copied as they are; the public
hand sizes and the observations read off a view are those of the full state. Bots that read another seat's hand
or the key get nothing through the tournament, the Gymnasium env and ``VectorSpades.context()``.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from agents.base import Agent, DecisionContext
from agents.infoset_probe import known_cards, redeal, sample_decisions
from spades_env import games as game_registry
from spades_env.engine import SpadesEngine, bits, cards_held, seat_view
from spades_env.engine.state_schema import state_class
from spades_env.observation import encoder_for

TABLES = ["partnership", "two-player", "cutthroat-4", "hearts", "partnership-house"]
#: Fields every seat sees as they are (of every game: each state has some of them).
PUBLIC = (
    "phase", "to_move", "dealer", "leader", "trick", "n_in_trick", "led_suit", "n_tricks", "tricks_won",
    "trick_winners", "bids", "blind", "looked", "n_bids", "spades_broken", "voids", "scores", "bags", "hand_number",
    "winner", "history", "hand_start_scores", "hand_start_bags", "face_up", "bemo", "n_redeals", "pile_pos",
    "points_taken",
)  # fmt: skip
#: The card masks of a seat that only it may see.
PRIVATE = ("hands", "deal", "discards", "seen", "exchanged_out", "exchanged_in", "passed")
_DECISIONS: dict[str, tuple] = {}


def _decisions(preset: str):
    if preset not in _DECISIONS:
        engine = SpadesEngine(preset)
        _DECISIONS[preset] = (engine, *sample_decisions(engine, 40, seed=3))
    return _DECISIONS[preset]


def _names(state) -> set[str]:
    return {f.name for f in dataclasses.fields(state)}


@pytest.mark.parametrize("game", list(game_registry.GAMES))
def test_every_field_of_the_state_is_public_or_private_or_the_pile_shown_or_key(game):
    named = set(PUBLIC) | set(PRIVATE) | {"pile", "shown", "key"}
    assert {f.name for f in dataclasses.fields(state_class(game))} <= named


@pytest.mark.parametrize("preset", TABLES)
def test_a_view_holds_no_card_the_seat_cannot_locate_no_pile_and_no_key(preset):
    engine, state, seats = _decisions(preset)
    rows = np.arange(state.batch_size)
    view = seat_view(engine, state, rows, seats)
    drawing = "pile" in _names(state)  # two-player Spades
    assert (view.key == 0).all() and (not drawing or (view.pile == -1).all())
    for d, seat in enumerate(seats.tolist()):
        known = np.uint64(known_cards(engine, state, d, seat))
        for name in sorted(set(PRIVATE) & _names(state)):
            assert (getattr(view, name)[d] & ~known == 0).all(), (preset, name, d)
        if drawing and view.shown[d] >= 0:
            assert view.to_move[d] == seat
    hidden = np.arange(engine.n_players)[None, :] != seats[:, None]
    assert (view.hands[hidden] != state.hands[hidden]).any(), "the other hands were not blanked"


@pytest.mark.parametrize("preset", TABLES)
def test_the_view_of_a_re_deal_the_seat_cannot_tell_apart_is_the_same(preset):
    engine, state, seats = _decisions(preset)
    rows = np.arange(state.batch_size)
    other, redealt = redeal(engine, state, rows, seats, np.random.default_rng(1))
    assert redealt.all()
    a, b = seat_view(engine, state, rows, seats), seat_view(engine, other, rows, seats)
    for f in dataclasses.fields(a):
        assert np.array_equal(getattr(a, f.name), getattr(b, f.name)), (preset, f.name)


@pytest.mark.parametrize("preset", TABLES)
def test_public_fields_and_the_seats_own_hand_are_copied_and_counts_and_observations_kept(preset):
    engine, state, seats = _decisions(preset)
    games = np.arange(state.batch_size)[::-1].copy()  # any order of games
    view = seat_view(engine, state, games, seats[games])
    for name in sorted(set(PUBLIC) & _names(state)):
        assert np.array_equal(getattr(view, name), getattr(state, name)[games]), name
    rows = np.arange(len(games))
    looked = state.looked[games, seats[games]] if "looked" in _names(state) else np.ones(len(games), bool)
    assert (view.hands[rows, seats[games]] == state.hands[games, seats[games]])[looked].all()
    assert np.array_equal(view.played, state.played[games])
    assert np.array_equal(cards_held(engine, state), bits.popcount(state.hands))
    assert np.array_equal(cards_held(engine, view), cards_held(engine, state)[games])
    encoder = encoder_for(engine)
    assert np.array_equal(encoder.encode(view, rows, seats[games]), encoder.encode(state, games, seats[games]))


def test_a_view_refuses_games_and_seats_of_different_lengths():
    engine, state, seats = _decisions("partnership")
    with pytest.raises(ValueError, match="games and seats must be 1-D and of one length"):
        seat_view(engine, state, np.arange(3), seats[:2])


class Snoop(Agent):
    """A cheat: plays the first legal action, and keeps what it read of the next seat's hand (but the cards it knows
    are there), of the key and of the pile."""

    name = "snoop"

    def __init__(self, seed=None):
        super().__init__(seed)
        self.read: list[np.ndarray] = []

    def act(self, observations, masks, context=None):
        nxt = (context.seats + 1) % context.engine.n_players
        state = context.state
        # the cards it knows are there: face up (Spades), or passed there by it (Hearts)
        if state.game == "hearts":
            known = state.passed[context.games, context.seats]
        else:
            known = state.face_up[context.games, nxt]
        self.read.append(state.hands[context.games, nxt] & ~known)
        self.read.append(state.key[context.games])
        if state.game == "spades":
            self.read.append(state.pile[context.games].ravel() + 1)
        return masks.argmax(axis=1)


@pytest.mark.parametrize("preset", ["partnership", "two-player", "hearts"])
def test_a_cheat_reads_nothing_hidden_through_the_tournament_the_envs_and_the_vector_env(preset):
    from agents import make_agent
    from spades_env.envs.gym_env import SpadesGymEnv
    from spades_env.envs.vector import VectorSpades
    from train.evaluation.tournament_play import play_games

    engine = SpadesEngine(preset)
    snoop = Snoop()
    seat_agents = np.tile(np.arange(engine.n_players) % 2, (6, 1))
    play_games(engine, np.arange(6), seat_agents, [snoop, make_agent("heuristic")], "hand")
    env = SpadesGymEnv(rules=preset, opponents=snoop)
    _, info = env.reset(seed=2)
    for _ in range(30):
        _, _, done, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        if done:
            break
    vector = VectorSpades(preset, num_envs=4, seed=1)
    _, info = vector.reset(seed=1)
    for _ in range(20):
        _, _, _, _, info = vector.step(snoop.act(None, info["action_mask"], vector.context()))
    assert len(snoop.read) > 100
    for read in snoop.read:
        assert not read.any()


def test_the_context_of_a_view_indexes_its_own_rows():
    engine, state, seats = _decisions("cutthroat-4")
    ctx = DecisionContext.of_view(engine, state, np.array([5, 1]), seats[[5, 1]])
    assert ctx.state.batch_size == 2 and list(ctx.games) == [0, 1] and list(ctx.seats) == list(seats[[5, 1]])
    assert np.array_equal(ctx.take(np.array([1])).state.hands, ctx.state.hands)
