"""The search's sampler: layouts of the hidden cards consistent with everything a seat has seen.

``sample_layouts`` (and ``sample_hidden_hands``, its hands alone) is what every part of the search draws its
deals from (card play in ``agents.search``, the lookahead bid in ``agents.search_bidding``, the Hearts pass in
``agents.hearts.passing``); ``layout_states`` turns sampled layouts into the games the rollouts play, with
nothing of the real state that the deciding seat cannot see (other hands, the two-player opponent's discards,
the pile's order, the match key, other seats' exchanges and passes).
"""

from __future__ import annotations

import numpy as np

from agents.search_draw import keep_propensity
from spades_env import cards
from spades_env.engine import GameState, SpadesEngine, bits, cards_held, dealing
from spades_env.engine.view import known_held, private_masks

#: Suit of each card id; the jokers (52, 53) count as spades.
SUIT = np.minimum(np.arange(cards.N_CARD_IDS) // cards.N_RANKS, cards.SPADES)


def sample_hidden_hands(
    engine: SpadesEngine, state: GameState, games: np.ndarray, seats: np.ndarray, samples: int, rng: np.random.Generator
) -> np.ndarray:
    """(D, samples, N) uint64: full hands per seat, the deciding seat's own and sampled others
    (``sample_layouts``' hands: the same draws)."""
    return sample_layouts(engine, state, games, seats, samples, rng)[0]


def sample_layouts(
    engine: SpadesEngine, state: GameState, games: np.ndarray, seats: np.ndarray, samples: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """(hands, discards), each (D, samples, N) uint64: full hands per seat, the deciding seat's own and sampled
    others, and each seat's two-player draw discards: the deciding seat's own, the opponent's the unseen cards
    the sample leaves it out of its hand (0 in other games). Reads of ``state`` only what the seat may know.

    Each unseen card goes to a seat that has room and has not shown out of its
    suit; cards of suits with more void seats are placed first, and a seat is
    drawn with probability proportional to its free room. If the constraints
    leave a card nowhere to go (rare), it goes to any seat with room.

    Known cards of other seats (``face_up_deal``: face-up cards still held) stay
    with their holders. In two-player the seat's own draw discards are out of play;
    the unseen cards are more than the opponent holds (the opponent's discards are
    unseen), so an extra "discard pile" seat without voids takes the rest; each card
    leans to the opponent by how often the heuristic's draw keeps it and to the pile
    by the complement (``agents.search_draw.keep_propensity``: the opponent holds
    about 5 spades, an even split gave it 3). If an
    opponent bid blind nil it may have drawn some of the seat's discards in the
    exchange: the seat's discards then count as unseen too (an approximation: the
    samples do not cap them at the 3 cards the opponent may have drawn; the opponent's sampled discards
    are then the discard pile's cards less the seat's own discards and exchanged cards).
    """
    d, n = len(games), engine.n_players
    own = state.hands[games, seats]
    known, unseen = _known_and_unseen(engine, state, games, seats)
    others = np.arange(n)[None, :] != seats[:, None]  # (D, N)
    # Cards still held by each seat: public (the cards dealt or drawn less those played), never read off the hands.
    room = np.where(others, cards_held(engine, state)[games] - bits.popcount(known), 0)  # (D, N)
    voids = ((state.voids[games][:, None] >> np.arange(4 * n)) & 1).astype(bool).reshape(d, n, 4)
    # One more seat, the discard pile, takes the unseen cards that no player holds (two-player).
    sink = np.maximum(bits.popcount(unseen) - room.sum(axis=1), 0)
    room = np.concatenate([room, sink[:, None]], axis=1)  # (D, N + 1)
    voids = np.concatenate([voids, np.zeros((d, 1, 4), bool)], axis=1)
    allowed = ~voids & (room[:, :, None] > 0)  # (D, N + 1, 4)
    start = np.zeros((d * samples, n + 1), dtype=np.uint64)
    start[:, :n] = np.repeat(known, samples, axis=0)
    start[np.arange(d * samples), np.repeat(seats, samples)] = np.repeat(own, samples)
    lean = _draw_lean(engine, state, games, seats)
    out = _deal_unseen(unseen, start, room, allowed, lean, engine.layout.n_card_ids, samples, rng)
    hands = out[:, :n].reshape(d, samples, n)
    discards = np.zeros_like(hands)
    if engine.rules.two_player:  # the opponent's discards: what the sample leaves in the discard pile
        rows = np.arange(d)
        mine = state.discards[games, seats]
        discards[rows, :, seats] = mine[:, None]
        pile = out[:, n].reshape(d, samples)
        discards[rows, :, 1 - seats] = pile & ~(mine | state.exchanged_out[games, seats])[:, None]
    return hands, discards


def _known_and_unseen(
    engine: SpadesEngine, state: GameState, games: np.ndarray, seats: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(known (D, N), unseen (D,)) card masks of ``sample_layouts``: the cards other seats are known to hold (face
    up, or passed to them by the seat) and the cards the seat has not seen, which the samples deal."""
    d, n = len(games), engine.n_players
    rows = np.arange(d)
    deck = np.uint64(cards.cards_to_mask(engine.deck))
    hands = state.hands[games]
    own = hands[rows, seats]
    others = np.arange(n)[None, :] != seats[:, None]  # (D, N)
    played = np.bitwise_or.reduce(state.deal[games] & ~hands, axis=1)
    # The cards of other seats the seat knows they hold (the game's: face-up cards, the cards it passed).
    known = known_held(engine, state, games, seats)  # (D, N)
    unseen = deck & ~(played | own | np.bitwise_or.reduce(known, axis=1))  # (D,)
    if engine.rules.two_player:
        others_blind = (state.blind[games] & others).any(axis=1)
        out_of_play = state.discards[games, seats] | state.exchanged_out[games, seats]
        unseen &= np.where(others_blind, ~np.uint64(0), ~out_of_play)
    return known, unseen


def _draw_lean(engine: SpadesEngine, state: GameState, games: np.ndarray, seats: np.ndarray) -> np.ndarray | None:
    """Two-player: (D, N + 1, card ids) how much each seat's draw leans to each card (the opponent kept what its
    draw keeps, the discard pile took the rest); None in other games (no lean)."""
    if not engine.rules.two_player:
        return None
    d, n = len(games), engine.n_players
    keep = keep_propensity(engine)[state.blind[games, 1 - seats].astype(np.int64)]  # (D, card ids)
    lean = np.ones((d, n + 1, engine.layout.n_card_ids))
    lean[np.arange(d), 1 - seats] = keep
    lean[:, n] = 1.0 - keep
    return lean


def _deal_unseen(
    unseen: np.ndarray,
    start: np.ndarray,
    room: np.ndarray,
    allowed: np.ndarray,
    lean: np.ndarray | None,
    n_ids: int,
    samples: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """(D * samples, N + 1) uint64: ``start`` (the known cards, the seat's own) with each decision's ``unseen`` cards
    dealt ``samples`` times to the seats with ``room`` that ``allowed`` (D, N + 1, 4) lets hold their suit, the most
    constrained suits first, each seat drawn by its free room (times its ``lean`` for the card); ``n_ids``: the
    game's card ids."""
    r = len(unseen) * samples
    unseen_r = np.repeat(unseen, samples)
    flags = bits.to_bool(unseen_r, n_ids)  # (R, 52 or 54)
    allowed_r = np.repeat(allowed, samples, axis=0)  # (R, N + 1, 4)
    n_allowed = allowed_r.sum(axis=1)  # (R, 4) seats that may hold each suit
    # Sort key: unseen cards first, the most constrained suits first, random within.
    key = np.where(flags, n_allowed[:, SUIT[:n_ids]] + rng.random(flags.shape), np.inf)
    order = np.argsort(key, axis=1)
    n_cards = flags.sum(axis=1)
    out = start.copy()
    room_r = np.repeat(room, samples, axis=0).astype(np.float64)
    rr = np.arange(r)
    decision = rr // samples
    for k in range(int(n_cards.max(initial=0))):
        live = k < n_cards
        card = order[:, k]
        ok = allowed_r[rr, :, SUIT[card]] & (room_r > 0)
        weight = np.where(ok, room_r if lean is None else room_r * lean[decision, :, card], 0.0)
        stuck = weight.sum(axis=1) == 0
        weight = np.where(stuck[:, None], room_r, weight)
        cum = np.cumsum(weight, axis=1)
        pick = (rng.random(r) * cum[:, -1])[:, None] < cum
        seat = np.argmax(pick, axis=1)
        seat = np.where(live, seat, 0)
        out[rr[live], seat[live]] |= bits.BIT[card[live]]
        room_r[rr[live], seat[live]] -= 1
    return out


#: Mixed into a rollout game's key (``layout_states``): a key from the sampled layout, never the real one.
LAYOUT_KEY_SALT = np.uint64(0x5EA7C0DE)


def layout_states(
    engine: SpadesEngine,
    state: GameState,
    games: np.ndarray,
    seats: np.ndarray,
    hands: np.ndarray,
    discards: np.ndarray | None = None,
) -> GameState:
    """R games for rollouts: game ``games[r]`` of ``state`` as seat ``seats[r]`` knows it, completed by a sampled
    layout: ``hands`` (R, N) (the cards already played stay in the deal), ``discards`` (R, N) (two-player; None:
    the seat's own and none for the others). Nothing hidden from the seat is copied from ``state``: the other
    seats' discards, cards seen, exchanged and passed cards are the layout's (or none), the two-player pile is
    the deck in card order (its content is public, its order is not), and the key is a function of the layout
    and the hand number (a redeal in a rollout deals from it), never the real key."""
    roll = state.take(games)
    played = roll.deal & ~roll.hands
    roll.hands = np.ascontiguousarray(hands, dtype=np.uint64)
    roll.deal = roll.hands | played
    others = np.arange(engine.n_players)[None, :] != seats[:, None]  # (R, N)
    for name in private_masks(engine):  # the game's: discards, seen, exchanged and passed cards
        field = getattr(roll, name)
        field[others] = 0
    own_discards = np.zeros_like(roll.hands)  # the two-player draw discards (none in other games)
    if engine.rules.two_player:
        if discards is not None:
            roll.discards = np.where(others, discards, roll.discards)
        roll.seen |= np.where(others, roll.hands | roll.discards, np.uint64(0))
        roll.pile = np.broadcast_to(engine.deck, roll.pile.shape).copy()  # the pile's cards, in card order
        own_discards = roll.discards
    mixed = roll.hand_number.astype(np.uint64) ^ LAYOUT_KEY_SALT
    for k in range(engine.n_players):
        mixed = dealing.splitmix64(mixed ^ roll.hands[:, k] ^ (own_discards[:, k] << np.uint64(1)))
    roll.key = mixed
    return roll
