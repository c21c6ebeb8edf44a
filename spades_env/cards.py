"""Card ids, parsing and pretty printing.

A card id is ``suit * 13 + rank``: clubs 0-12, diamonds 13-25, hearts 26-38,
spades 39-51, with rank 0 = two .. 12 = ace. The two jokers of the ``jokers``
variant follow: 52 = little joker, 53 = big joker. A set of cards is a
``uint64`` bitmask with bit ``id`` set, so that each suit is a 13-bit lane.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
N_SUITS = 4
N_RANKS = 13
N_STANDARD_CARDS = 52
LITTLE_JOKER = 52
BIG_JOKER = 53
N_CARD_IDS = 54

SUIT_LETTERS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANK_LETTERS = "23456789TJQKA"
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
JOKER_NAMES = {LITTLE_JOKER: "LJ", BIG_JOKER: "BJ"}

#: ``SUIT_MASK[s]`` is the uint64 bitmask of the 13 cards of suit ``s``.
SUIT_MASK = np.array([np.uint64(0x1FFF) << np.uint64(13 * s) for s in range(N_SUITS)], dtype=np.uint64)
JOKER_MASK = np.uint64((1 << LITTLE_JOKER) | (1 << BIG_JOKER))
#: Everything that counts as a spade (the spade lane plus both jokers).
TRUMP_MASK = np.uint64(int(SUIT_MASK[SPADES]) | int(JOKER_MASK))


def card_suit(card: int) -> int:
    """Suit of a card id; jokers count as spades."""
    return SPADES if card >= N_STANDARD_CARDS else card // N_RANKS


def card_rank(card: int) -> int:
    """Rank of a card id (0 = two .. 12 = ace, 13 = little joker, 14 = big joker)."""
    return card - N_STANDARD_CARDS + N_RANKS if card >= N_STANDARD_CARDS else card % N_RANKS


def card_name(card: int, symbols: bool = False) -> str:
    """Short text for a card: ``"AS"``, ``"TD"``, or with symbols ``"A♠"``, ``"10♦"``."""
    if card in JOKER_NAMES:
        return JOKER_NAMES[card]
    if not 0 <= card < N_STANDARD_CARDS:
        raise ValueError(f"card id must be in 0..{N_CARD_IDS - 1}, got {card}")
    suit, rank = divmod(card, N_RANKS)
    if symbols:
        return RANK_NAMES[rank] + SUIT_SYMBOLS[suit]
    return RANK_LETTERS[rank] + SUIT_LETTERS[suit]


def parse_card(text: str) -> int:
    """Card id from text such as ``"AS"``, ``"10h"``, ``"Q♠"``, ``"LJ"``, ``"BJ"``."""
    t = text.strip().upper()
    for card, name in JOKER_NAMES.items():
        if t == name:
            return card
    if len(t) < 2:
        raise ValueError(f"cannot parse card {text!r}: expected rank then suit, e.g. 'AS' or '10♥'")
    rank_text, suit_text = t[:-1], t[-1]
    if suit_text in SUIT_SYMBOLS:
        suit = SUIT_SYMBOLS.index(suit_text)
    elif suit_text in SUIT_LETTERS:
        suit = SUIT_LETTERS.index(suit_text)
    else:
        raise ValueError(f"cannot parse card {text!r}: unknown suit {suit_text!r} (use one of C D H S ♣ ♦ ♥ ♠)")
    if rank_text == "10":
        rank_text = "T"
    if len(rank_text) != 1 or rank_text not in RANK_LETTERS:
        raise ValueError(f"cannot parse card {text!r}: unknown rank {rank_text!r} (use 2-9, 10 or T, J, Q, K, A)")
    return suit * N_RANKS + RANK_LETTERS.index(rank_text)


def cards_to_mask(cards: Iterable[int]) -> int:
    """Bitmask (Python int) of a collection of card ids."""
    mask = 0
    for card in cards:
        mask |= 1 << int(card)
    return mask


def mask_to_cards(mask: int) -> list[int]:
    """Sorted card ids in a bitmask."""
    mask = int(mask)
    return [c for c in range(N_CARD_IDS) if (mask >> c) & 1]


def format_hand(mask: int, symbols: bool = True) -> str:
    """A hand grouped by suit, spades first, high cards first: ``"♠ A K 3  ♥ Q  ..."``."""
    cards = mask_to_cards(mask)
    parts = []
    jokers = [JOKER_NAMES[c] for c in reversed(cards) if c >= N_STANDARD_CARDS]
    for suit in (SPADES, HEARTS, DIAMONDS, CLUBS):
        ranks = [RANK_NAMES[c % N_RANKS] for c in reversed(cards) if c < N_STANDARD_CARDS and c // N_RANKS == suit]
        head = SUIT_SYMBOLS[suit] if symbols else SUIT_LETTERS[suit]
        lane = " ".join((jokers if suit == SPADES else []) + ranks) or "-"
        parts.append(f"{head} {lane}")
    return "  ".join(parts)
