"""The observation encoder: exact layout, agreement with a plain-Python reading, no leaks."""

from __future__ import annotations

import numpy as np
import pytest

from spades_env import Rules, SpadesEngine, list_presets
from spades_env import cards as C
from spades_env.engine import OVER, PLAY
from spades_env.games.spades.params import BLIND, DRAW
from spades_env.observation import SCORE_CLIP, VERSION, ObservationEncoder
from tests.conftest import step_live_games

# The Spades layout; Hearts has its own (tests/spades_env/games/hearts/test_hearts.py).
SPADES_PRESETS = [name for name in list_presets() if Rules.preset(name).game != "hearts"]
RULE_SETS = SPADES_PRESETS + [Rules(partnership=False, n_players=3), Rules(partnership=False, n_players=6)]


def _id(rules):
    return rules if isinstance(rules, str) else f"cutthroat{rules.n_players}-object"


def random_states(engine: SpadesEngine, b: int, steps: int, seed: int = 0):
    """Yield the state of b random games after each of ``steps`` random steps."""
    state = engine.reset(np.arange(b) + 100 * seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if not step_live_games(engine, state, rng):
            return
        yield state


def reference(encoder: ObservationEncoder, state, g: int, seat: int) -> np.ndarray:
    """The observation built one entry at a time, straight from the layout table."""
    e, n, s = encoder.engine, encoder.n_players, encoder.n_sides
    obs = np.zeros(encoder.size, np.float32)
    v = lambda name: encoder.view(obs, name)  # noqa: E731 - writable views into obs
    rel = [(seat + j) % n for j in range(n)]
    if state.looked[g, seat]:
        v("hand")[C.mask_to_cards(int(state.hands[g, seat]))] = 1
    for j, abs_seat in enumerate(rel):
        v("played")[j, C.mask_to_cards(int(state.deal[g, abs_seat]) & ~int(state.hands[g, abs_seat]))] = 1
        card = int(state.trick[g, abs_seat])
        if card >= 0:
            v("trick")[j, card] = 1
        if encoder.perfect_information:
            v("all_hands")[j, C.mask_to_cards(int(state.hands[g, abs_seat]))] = 1
        bid = int(state.bids[g, abs_seat])
        if bid >= 0:
            v("bid")[j, bid] = 1
            v("has_bid")[j] = 1
        v("nil")[j] = bid == 0
        v("blind_nil")[j] = state.blind[g, abs_seat]
        v("tricks_won")[j] = state.tricks_won[g, abs_seat] / e.hand_size
        v("voids")[j] = state.void_suits()[g, abs_seat]
        if "face_up" in encoder.slices:  # visible to all while still held
            v("face_up")[j, C.mask_to_cards(int(state.face_up[g, abs_seat]) & int(state.hands[g, abs_seat]))] = 1
    if "shown" in encoder.slices:  # two-player: private to the observer
        if state.phase[g] == DRAW and state.to_move[g] == seat:
            v("shown")[state.shown[g]] = 1
        v("discards")[C.mask_to_cards(int(state.discards[g, seat]) | int(state.exchanged_out[g, seat]))] = 1
        v("seen")[C.mask_to_cards(int(state.seen[g, seat]))] = 1
    if "bemo" in encoder.slices:
        for j in range(s):
            declared = int(state.bemo[g, e.rules.side_of_seat(rel[j])])
            if declared >= 0:
                v("bemo")[j, declared] = 1
    if state.led_suit[g] >= 0:
        v("led_suit")[state.led_suit[g]] = 1
    if state.phase[g] == PLAY:
        v("leader")[rel.index(int(state.leader[g]))] = 1
    v("spades_broken")[0] = state.spades_broken[g]
    v("phase")[state.phase[g]] = 1
    if state.phase[g] != OVER:
        v("to_move")[rel.index(int(state.to_move[g]))] = 1
    v("dealer")[rel.index(int(state.dealer[g]))] = 1
    sides = [e.rules.side_of_seat(rel[j]) for j in range(s)]
    for j, side in enumerate(sides):
        v("score")[j] = np.clip(state.scores[g, side] / e.rules.target_score, -SCORE_CLIP, SCORE_CLIP)
        v("bags")[j] = state.bags[g, side] / e.rules.bag_limit
    v("target")[0] = e.rules.target_score / 1000
    return obs


@pytest.mark.parametrize("perfect", [False, True])
@pytest.mark.parametrize("rules", RULE_SETS, ids=_id)
def test_slices_cover_the_vector_exactly(rules, perfect):
    enc = ObservationEncoder(SpadesEngine(rules), perfect_information=perfect)
    covered = np.zeros(enc.size, int)
    for name, sl in enc.slices.items():
        covered[sl] += 1
        assert sl.stop - sl.start == int(np.prod(enc.shapes[name]))
    assert (covered == 1).all()
    assert ("all_hands" in enc.slices) == perfect
    assert enc.VERSION == VERSION == 2
    assert enc.low.shape == enc.high.shape == (enc.size,)
    assert enc.describe().count("\n") == len(enc.slices) - 1


@pytest.mark.parametrize("perfect", [False, True])
@pytest.mark.parametrize("rules", RULE_SETS, ids=_id)
def test_encoder_matches_a_plain_reading_of_the_state(rules, perfect):
    engine = SpadesEngine(rules)
    enc = ObservationEncoder(engine, perfect_information=perfect)
    rng = np.random.default_rng(1)
    checked = 0
    for k, state in enumerate(random_states(engine, b=6, steps=160)):
        if k % 7:
            continue
        games = np.repeat(np.arange(6), 2)
        seats = rng.integers(0, engine.n_players, len(games))  # any seat, not only the player to move
        got = enc.encode(state, games, seats)
        assert got.dtype == np.float32 and got.shape == (len(games), enc.size)
        for row, (g, seat) in enumerate(zip(games, seats, strict=True)):
            np.testing.assert_allclose(got[row], reference(enc, state, int(g), int(seat)), rtol=1e-6, atol=1e-7)
            one = enc.encode(state, np.array([g]), np.array([seat]))  # the single-game path
            np.testing.assert_allclose(one[0], got[row], rtol=1e-6, atol=1e-7)
        assert (got >= enc.low).all() and (got <= enc.high).all()
        checked += 1
    assert checked >= 5  # some presets (partnership-house) end matches within a hand


def test_encode_fills_a_given_buffer_and_view_reshapes():
    engine = SpadesEngine("partnership")
    enc = ObservationEncoder(engine)
    state = engine.reset([0, 1, 2])
    out = np.full((3, enc.size), 7, np.float32)
    res = enc.encode(state, np.arange(3), state.to_move, out=out)
    assert res is out
    np.testing.assert_array_equal(out, enc.encode(state, np.arange(3), state.to_move))
    assert enc.view(out, "bid").shape == (3, 4, engine.hand_size + 1)
    assert enc.view(out[0], "played").shape == (4, 52)


def _swap_unplayed_same_suit(deal: list[list[int]], a: int, b: int, protected: set[int]) -> list[list[int]]:
    """Swap one unplayed card of some suit between seats a and b (keeps earlier plays legal)."""
    for suit in range(4):
        xs = [c for c in deal[a] if c // 13 == suit and c not in protected]
        ys = [c for c in deal[b] if c // 13 == suit and c not in protected]
        if xs and ys:
            new = [list(h) for h in deal]
            new[a][new[a].index(xs[0])] = ys[0]
            new[b][new[b].index(ys[0])] = xs[0]
            return new
    raise AssertionError("no swappable pair")


@pytest.mark.parametrize("rules", ["partnership", "cutthroat-4"])
def test_hidden_cards_do_not_leak(rules):
    """Swap unseen cards between two other players: the observer's view must not change."""
    engine = SpadesEngine(rules)
    enc = ObservationEncoder(engine)
    god = ObservationEncoder(engine, perfect_information=True)
    state = engine.reset(5, dealers=[3])
    deal = [C.mask_to_cards(int(h)) for h in state.deal[0]]
    rng = np.random.default_rng(0)
    actions = []
    for _ in range(4 + 4 + 21):  # blind-nil choices, bids and five tricks plus one card
        mask = engine.legal_action_mask(state)[0]
        a = int(rng.choice(np.flatnonzero(mask)))
        actions.append(a)
        engine.step(state, [a])
    assert state.phase[0] == PLAY and state.n_tricks[0] >= 4
    played = set(C.mask_to_cards(int(np.bitwise_or.reduce(state.played[0]))))
    swapped = _swap_unplayed_same_suit(deal, 1, 3, played)
    other = engine.reset(5, deals=[swapped], dealers=[3])
    for a in actions:
        engine.step(other, [a])
    for seat in (0, 2):
        g, s = np.array([0]), np.array([seat])
        np.testing.assert_array_equal(enc.encode(state, g, s), enc.encode(other, g, s))
        assert not np.array_equal(god.encode(state, g, s), god.encode(other, g, s))
    for seat in (1, 3):  # the players whose hands changed do see it
        g, s = np.array([0]), np.array([seat])
        assert not np.array_equal(enc.encode(state, g, s), enc.encode(other, g, s))


def test_blind_nil_decider_sees_no_cards_until_it_looks():
    engine = SpadesEngine("partnership")
    enc = ObservationEncoder(engine)
    god = ObservationEncoder(engine, perfect_information=True)
    state = engine.reset(11, dealers=[0])
    assert state.phase[0] == BLIND and state.to_move[0] == 1
    g = np.array([0])
    for seat in range(4):  # nobody has looked yet: every own hand is hidden
        obs = enc.encode(state, g, np.array([seat]))
        assert not enc.view(obs, "hand").any()
        assert god.view(god.encode(state, g, np.array([seat])), "all_hands")[0, 0].sum() == 13
    assert enc.view(enc.encode(state, g, np.array([1])), "phase")[0].tolist() == [1, 0, 0, 0, 0, 0, 0]
    engine.step(state, [engine.layout.look])
    seen = enc.view(enc.encode(state, g, np.array([1])), "hand")[0]
    assert seen.sum() == 13 and set(np.flatnonzero(seen)) == set(C.mask_to_cards(int(state.hands[0, 1])))
    assert not enc.view(enc.encode(state, g, np.array([2])), "hand").any()  # seat 2 still undecided


def test_blocks_read_as_documented_after_bids():
    engine = SpadesEngine("partnership-no-blind-nil")
    enc = ObservationEncoder(engine)
    state = engine.reset(3, dealers=[3])  # seat 0 bids first
    for bid in (3, 0, 4, 2):
        engine.step(state, [engine.layout.bid_action(bid)])
    obs = enc.encode(state, np.array([0]), np.array([1]))  # seen from seat 1
    bids = enc.view(obs, "bid")[0]
    assert [int(np.argmax(r)) for r in bids] == [0, 4, 2, 3]  # seats 1, 2, 3, 0
    assert enc.view(obs, "nil")[0].tolist() == [1, 0, 0, 0]
    assert enc.view(obs, "has_bid")[0].tolist() == [1, 1, 1, 1]
    assert enc.view(obs, "phase")[0].tolist() == [0, 0, 1, 0, 0, 0, 0]
    assert enc.view(obs, "to_move")[0].tolist() == [0, 0, 0, 1]  # seat 0 leads
    assert enc.view(obs, "dealer")[0].tolist() == [0, 0, 1, 0]
    assert enc.view(obs, "target")[0, 0] == pytest.approx(0.5)


@pytest.mark.parametrize("rules", RULE_SETS, ids=_id)
def test_mask_paths_agree(rules):
    """The batched mask, the mask of chosen games, a reused buffer and the one-game path agree."""
    engine = SpadesEngine(rules)
    out = np.ones((8, engine.layout.n_actions), bool)
    for state in random_states(engine, b=8, steps=120, seed=2):
        full = engine.legal_action_mask(state)
        assert engine.legal_action_mask(state, out=out) is out
        np.testing.assert_array_equal(out, full)
        np.testing.assert_array_equal(engine.legal_action_mask(state, np.array([5, 1, 1])), full[[5, 1, 1]])
        for g in range(8):
            np.testing.assert_array_equal(engine.legal_action_mask(state.take([g]))[0], full[g])
            np.testing.assert_array_equal(engine.legal_action_mask(state, np.array([g]))[0], full[g])


# ------------------------------------------------------------ hidden information of the variants
def _step_until(engine, state, stop, rng, limit=400):
    """Random legal steps of a one-game state until ``stop(state)``."""
    for _ in range(limit):
        if stop(state):
            return
        mask = engine.legal_action_mask(state)[0]
        engine.step(state, [int(rng.choice(np.flatnonzero(mask)))])
    raise AssertionError("condition never reached")


def test_two_player_shown_card_is_seen_only_by_the_drawer():
    engine = SpadesEngine("two-player")
    enc = ObservationEncoder(engine)
    state = engine.reset(4)
    rng = np.random.default_rng(0)
    draws = 0
    _step_until(engine, state, lambda s: s.phase[0] == DRAW, rng)
    while state.phase[0] == DRAW:
        drawer, other = int(state.to_move[0]), 1 - int(state.to_move[0])
        g = np.array([0])
        mine = enc.view(enc.encode(state, g, np.array([drawer])), "shown")[0]
        theirs = enc.view(enc.encode(state, g, np.array([other])), "shown")[0]
        assert np.flatnonzero(mine).tolist() == [int(state.shown[0])]
        assert not theirs.any()
        # The opponent's observation does not depend on which card the pile shows.
        swapped = state.copy()
        pos = int(swapped.pile_pos[0])
        swapped.pile[0, [pos, -1]] = swapped.pile[0, [-1, pos]]
        swapped.shown[0] = swapped.pile[0, pos]
        np.testing.assert_array_equal(
            enc.encode(state, g, np.array([other])), enc.encode(swapped, g, np.array([other]))
        )
        engine.step(state, [int(rng.choice([engine.layout.keep, engine.layout.discard]))])
        draws += 1
    assert draws == 26


def test_two_player_discards_stay_hidden_from_the_opponent():
    """Two draws that keep the same cards but discard different ones look the same to the opponent."""
    engine = SpadesEngine(Rules.preset("two-player").replace(blind_nil=False))
    enc = ObservationEncoder(engine)
    pile = list(range(52))
    other_pile = list(pile)
    other_pile[1], other_pile[51] = other_pile[51], other_pile[1]  # the dealer's first discard differs
    a = engine.reset(0, piles=[pile], dealers=[0])
    b = engine.reset(0, piles=[other_pile], dealers=[0])
    keep = engine.layout.keep
    engine.step(a, [keep])  # the dealer (seat 0) keeps card 0 and discards the next card unseen by seat 1
    engine.step(b, [keep])
    g = np.array([0])
    assert int(a.discards[0, 0]) != int(b.discards[0, 0])
    np.testing.assert_array_equal(enc.encode(a, g, np.array([1])), enc.encode(b, g, np.array([1])))
    own = enc.view(enc.encode(a, g, np.array([0])), "discards")[0]
    assert np.flatnonzero(own).tolist() == [1]
    assert np.flatnonzero(enc.view(enc.encode(a, g, np.array([0])), "seen")[0]).tolist() == [0, 1]
    assert not enc.view(enc.encode(a, g, np.array([1])), "discards").any()


def test_face_up_cards_are_visible_to_everyone_until_played():
    engine = SpadesEngine(Rules.preset("partnership").replace(face_up_deal=True))
    enc = ObservationEncoder(engine)
    state = engine.reset(6)
    g = np.array([0])
    for seat in range(4):
        view = enc.view(enc.encode(state, g, np.array([seat])), "face_up")[0]
        for j in range(4):  # relative seat j is absolute seat seat + j
            owner = (seat + j) % 4
            assert set(np.flatnonzero(view[j])) == set(C.mask_to_cards(int(state.face_up[0, owner])))
            assert view[j].sum() == 4
    rng = np.random.default_rng(1)
    _step_until(engine, state, lambda s: s.n_tricks[0] >= 3, rng)
    for seat in range(4):
        view = enc.view(enc.encode(state, g, np.array([seat])), "face_up")[0]
        for j in range(4):
            owner = (seat + j) % 4
            still_held = int(state.face_up[0, owner]) & int(state.hands[0, owner])
            assert set(np.flatnonzero(view[j])) == set(C.mask_to_cards(still_held))
    assert bits_played_face_up(state)  # some face-up card was played and left the block


def bits_played_face_up(state) -> bool:
    return bool(np.any(state.face_up[0] & ~state.hands[0]))


def test_jokers_fill_card_planes_of_54():
    engine = SpadesEngine("jokers")
    enc = ObservationEncoder(engine)
    assert enc.shapes["hand"] == (54,) and enc.shapes["played"] == (4, 54)
    state = engine.reset(2, dealers=[3])
    holder = next(s for s in range(4) if int(state.hands[0, s]) >> C.BIG_JOKER & 1)
    engine.step(state, [engine.layout.look])  # seat 0 looks at its cards
    obs = enc.encode(state, np.array([0]), np.array([0]))
    assert enc.view(obs, "hand")[0, C.BIG_JOKER] == (holder == 0)
