"""The cross-check's machinery: the rule sets, the reference game of each game of a batch, the
step-by-step comparison and the random play that drives both engines (``tests/spades_env/engine/test_crosscheck.py``).

What the fast engine draws at random (deals, two-player piles, face-up cards, redeals, the cards
drawn in the two-player exchange) is read from its state and handed to the reference, so that
both play exactly the same games.
"""

from __future__ import annotations

import numpy as np

from spades_env import HeartsRules, Rules, SpadesEngine, list_presets
from spades_env.cards import mask_to_cards
from spades_env.engine import OVER, PLAY
from spades_env.engine.check import check_state
from spades_env.games.hearts.phases import PASS
from spades_env.games.hearts.reference import MOON_CARDS, HeartsReferenceGame
from spades_env.games.spades.params import BEMO, BID, BLIND, DRAW, EXCHANGE
from spades_env.games.spades.reference import SpadesReferenceGame
from tests.reference_games import reference_for

PHASE_OF = {
    BLIND: "blind",
    BID: "bid",
    PLAY: "play",
    OVER: "over",
    DRAW: "draw",
    EXCHANGE: "exchange",
    BEMO: "bemo",
    PASS: "pass",
}


def cutthroat(n: int, bonuses: bool) -> Rules:
    exact = bonuses and n in (3, 4)
    return Rules(
        name=f"cutthroat-{n}{'-bonus' if bonuses else ''}",
        n_players=n,
        partnership=False,
        exact_small_bid_bonus=exact,
        big_bid_bonus=bonuses,
    )


RULE_SETS: list[Rules] = [Rules.preset(name) for name in list_presets()] + [
    cutthroat(n, bonuses) for n in (3, 4, 5, 6) for bonuses in (False, True)
]
VARIANT_BASE = Rules(name="partnership-variant")
RULE_SETS += [
    VARIANT_BASE.replace(set_penalty="short"),
    VARIANT_BASE.replace(set_penalty="zero"),
    VARIANT_BASE.replace(bags=False),
    VARIANT_BASE.replace(spades_lead_anytime=True),
    VARIANT_BASE.replace(min_team_bid=4),
    VARIANT_BASE.replace(min_team_bid=13, blind_nil_requires_behind_by=50),
    VARIANT_BASE.replace(lose_score=None, target_score=300, max_hands=3),
    VARIANT_BASE.replace(lose_score="-target", target_score=200, bag_limit=5, bag_penalty=50),
    cutthroat(3, True).replace(spades_lead_anytime=True, set_penalty="short", blind_nil_requires_behind_by=30),
    cutthroat(5, True).replace(bags=False, lose_score=None, max_hands=2),
    # Variants of RULES 4 and 6 beyond the presets, and combinations of them.
    Rules(name="two-player-jokers", n_players=2, partnership=False, jokers=True, spades_lead_anytime=True),
    Rules(name="two-player-plain", n_players=2, partnership=False, blind_nil=False, bemo=True, boston=True),
    VARIANT_BASE.replace(name="jokers-lowest-club", jokers=True, lowest_club_leads=True, misdeal_weak_hand=True),
    VARIANT_BASE.replace(name="face-up-bemo", face_up_deal=True, bemo=True, min_team_bid=4, ten_for_two_hundred=True),
    VARIANT_BASE.replace(name="mirror-jokers", mirror=True, jokers=True, blind_nil=False, boston=True),
    VARIANT_BASE.replace(name="fourteen-boston", fourteen=True, blind_nil=False, boston=True, set_penalty="short"),
    cutthroat(3, True).replace(name="cutthroat-3-house", face_up_deal=True, bemo=True, lowest_club_leads=True),
    cutthroat(5, False).replace(name="cutthroat-5-house", misdeal_weak_hand=True, ten_for_two_hundred=True),
    # Hearts options beyond the presets [RULES 7].
    HeartsRules(name="hearts-moon-jack", moon_subtracts=True, jack_of_diamonds=True, target_score=60),
    HeartsRules(name="hearts-team-jack", partnership=True, jack_of_diamonds=True, max_hands=5),
]
HEARTS_RULES = [r for r in RULE_SETS if r.game == "hearts"]
RULE_IDS = [f"{i}-{r.name}" for i, r in enumerate(RULE_SETS)]


def choose(
    legal: list[int], ref: SpadesReferenceGame | HeartsReferenceGame, rng: np.random.Generator, style: dict
) -> int:
    """A random legal action, biased toward blind nil, nil and low bids."""
    if ref.phase == "blind":
        if ref.blind_nil_action in legal and rng.random() < style["blind"]:
            return ref.blind_nil_action
        return ref.look_action
    if ref.phase == "bid":
        if legal[-1] == ref.special.get("redeal") and rng.random() < 0.5:
            return legal[-1]  # show a weak hand
        if legal[0] == ref.bid_offset and rng.random() < style["nil"]:
            return legal[0]
        if rng.random() < style["low"]:
            return legal[min(int(rng.integers(0, 3)), len(legal) - 1)]
        return int(rng.choice(legal))
    return int(rng.choice(legal))


def deal_of(rules: Rules, state, g: int) -> dict:
    """What the reference needs of the fast engine's random draws for game g's hand."""
    hands = {"hands": [mask_to_cards(int(h)) for h in state.deal[g]]}
    if rules.game == "hearts":
        if state.passed[g].any() and state.phase[g] != PASS:
            raise AssertionError("a new hand's deal is read after its pass")
        return hands
    face_up = [mask_to_cards(int(f)) for f in state.face_up[g]]
    if state.pile.shape[1]:
        return {"pile": state.pile[g].tolist(), "face_up": face_up}
    return {**hands, "face_up": face_up}


def new_reference(rules: Rules, state, g: int) -> SpadesReferenceGame | HeartsReferenceGame:
    """The reference game of game g of a freshly reset batch: same deal, dealer, scores, bags, hands played."""
    start = {"dealer": int(state.dealer[g]), "scores": state.scores[g].tolist()}
    start["hand_number"] = int(state.hand_number[g])
    if rules.game != "hearts":
        start["bags"] = state.bags[g].tolist()
    return reference_for(rules)(rules, **start, **deal_of(rules, state, g))


def _cards(masks) -> list[list[int]]:
    return [sorted(mask_to_cards(int(m))) for m in masks]


def compare(engine: SpadesEngine, state, refs: list, mask: np.ndarray | None = None) -> None:
    """Assert that every game of the batch agrees with its reference game."""
    player = engine.current_player(state)
    for g, ref in enumerate(refs):
        where = f"game {g} (rules {engine.rules.name}, hand {ref.hand_number}, phase {ref.phase})"
        assert PHASE_OF[int(state.phase[g])] == ref.phase, where
        assert int(player[g]) == ref.current_player(), where
        assert int(state.dealer[g]) == ref.dealer or ref.phase == "over", where
        assert state.scores[g].tolist() == ref.scores, where
        assert int(state.winner[g]) == ref.winner, where
        assert int(state.hand_number[g]) == ref.hand_number, where
        COMPARE_GAME[engine.rules.game](state, g, ref, where)
        if ref.phase == "over":
            continue
        assert state.tricks_won[g].tolist() == ref.tricks_won, where
        winners = state.trick_winners[g]
        assert winners[winners >= 0].tolist() == ref.trick_winners, where
        assert _cards(state.hands[g]) == [sorted(h) for h in ref.hands], where
        assert _cards(state.deal[g]) == ref.dealt, where
        if mask is not None:
            assert np.flatnonzero(mask[g]).tolist() == ref.legal_actions(), where


def compare_spades(state, g: int, ref: SpadesReferenceGame, where: str) -> None:
    """The Spades fields: bags, bids, blind nils, looks, Bemo, spades broken, face-up cards, the
    two-player draw and exchange; no card points are taken."""
    assert state.bags[g].tolist() == ref.bags, where
    assert state.bids[g].tolist() == [-1 if b is None else b for b in ref.bids], where
    assert state.blind[g].tolist() == ref.blind, where
    assert state.looked[g].tolist() == ref.looked, where
    assert state.bemo[g].tolist() == [-1 if b is None else b for b in ref.bemo], where
    if ref.phase == "over":
        return
    assert bool(state.spades_broken[g]) == ref.spades_broken, where
    assert not state.points_taken[g].any(), where
    visible = [sorted(f & h) for f, h in zip(ref.face_up, ref.hands, strict=True)]
    assert _cards(state.face_up[g] & state.hands[g]) == visible, where
    if ref.two_player:
        assert int(state.pile_pos[g]) == ref.pile_pos and int(state.shown[g]) == ref.shown, where
        assert _cards(state.discards[g]) == [sorted(d) for d in ref.discards], where
        assert _cards(state.seen[g]) == [sorted(x) for x in ref.seen], where
        assert _cards(state.exchanged_out[g]) == [sorted(x) for x in ref.given], where
        assert _cards(state.exchanged_in[g]) == [sorted(x) for x in ref.received], where


def compare_hearts(state, g: int, ref: HeartsReferenceGame, where: str) -> None:
    """The Hearts fields: the pass, the points taken, hearts broken (in ``spades_broken``); a Hearts state has
    none of Spades' (bags, bids, blind nils, Bemo, face-up cards)."""
    if ref.phase == "over":
        return
    assert bool(state.spades_broken[g]) == ref.hearts_broken, where
    assert _cards(state.passed[g]) == [sorted(p) for p in ref.passed], where
    assert state.points_taken[g].tolist() == ref.points_taken, where


#: The fields only one game has, compared by that game's function.
COMPARE_GAME = {"spades": compare_spades, "hearts": compare_hearts}


def shot_the_moon(ref: HeartsReferenceGame) -> bool:
    """A seat took every heart and the queen of spades in the hand just played [RULES 7]."""
    taken: list[set[int]] = [set() for _ in range(ref.n)]
    for trick, winner in zip(ref.history, ref.trick_winners, strict=True):
        taken[winner] |= {card for _, card in trick}
    return any(MOON_CARDS <= cards for cards in taken)


def play_and_compare(
    rules: Rules,
    seeds: list[int],
    policy_seed: int,
    style: dict,
    max_steps: int,
    start: dict | None = None,
    threads: int = 1,
) -> dict[str, int]:
    """Play B games in both engines, comparing every step; returns counts of the hands
    completed, the matches ended, the weak-hand redeals, the cards exchanged and the moons shot (Hearts).
    ``threads``: the fast engine's (``SpadesEngine(rules, threads)``)."""
    engine = SpadesEngine(rules, threads=threads)
    state = engine.reset(seeds, **(start or {}))
    b = state.batch_size
    refs = [new_reference(rules, state, g) for g in range(b)]
    assert engine.layout.n_actions == refs[0].n_actions
    rng = np.random.default_rng(policy_seed)
    stats = {"hands": 0, "redeals": 0, "exchanges": 0, "moons": 0, "matches": 0}
    for _ in range(max_steps):
        check_state(engine, state)
        mask = engine.legal_action_mask(state)
        compare(engine, state, refs, mask)
        live = [g for g in range(b) if refs[g].phase != "over"]
        if not live:
            break
        actions = np.zeros(b, dtype=np.int64)
        for g in live:
            actions[g] = choose(refs[g].legal_actions(), refs[g], rng, style)
        received = state.exchanged_in.copy() if rules.two_player else None  # (only two-player Spades exchanges)
        result = engine.step(state, actions, validate=len(live) == b)
        for g in live:
            seat = refs[g].to_move
            # A card given up in the exchange: the reference draws the card the fast engine drew.
            new = [] if received is None else mask_to_cards(int(state.exchanged_in[g, seat] & ~received[g, seat]))
            refs[g].step(int(actions[g]), *new)
            stats["exchanges"] += len(new)
        assert np.flatnonzero(result.hand_done).tolist() == [g for g in live if refs[g].phase in ("deal", "over")]
        for fin in result.finished:
            for i, g in enumerate(fin.games.tolist()):
                ref = refs[g]
                stats["hands"] += 1
                stats["moons"] += rules.game == "hearts" and shot_the_moon(ref)
                assert fin.tricks_won[i].tolist() == ref.tricks_won
                assert fin.trick_winners[i].tolist() == ref.trick_winners
                assert fin.delta[i].tolist() == ref.last_points
                assert result.score_delta[g].tolist() == ref.last_points
                assert fin.scores[i].tolist() == ref.scores
                if rules.game != "hearts":
                    assert fin.bags[i].tolist() == ref.bags
                played = [[ref.history[t][k][1] for k in range(rules.n_players)] for t in range(ref.hand_size)]
                seats = [[ref.history[t][k][0] for k in range(rules.n_players)] for t in range(ref.hand_size)]
                for t in range(ref.hand_size):
                    assert [int(fin.history[i, t, s]) for s in seats[t]] == played[t]
                assert bool(result.match_done[g]) == (ref.phase == "over")
                stats["matches"] += ref.phase == "over"
        for g in live:
            stats["redeals"] += refs[g].phase == "redeal"
            if refs[g].phase in ("deal", "redeal"):  # the next deal (or a redeal) comes from the fast engine
                refs[g].start_hand(**deal_of(rules, state, g))
    check_state(engine, state)
    compare(engine, state, refs)
    return stats
