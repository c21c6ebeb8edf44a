"""How well a sampled layout explains the cards the other seats played: a card-play likelihood for the sampler.

The bid model (``agents.search_bidding._bid_log_likelihood``) keeps the layouts under which the
heuristic would have bid what each seat bid. The cards played say more: a seat that ducked, covered,
or led a suit chose that card from the hand it held. ``play_mismatches`` replays the hand so far on
each sampled layout (every seat's hand at the start of play: its sampled cards and the cards it has
played since) and counts, for the opponents of the deciding seat (a partner plays as the deciding seat
does, which the heuristic does not model), the plays where the heuristic
(``agents.spades.heuristic_play.play_choice``) holding that layout would have played another card
(forced cards say nothing). ``agents.search_bidding.sample_play_hands`` subtracts ``PLAY_SHARPNESS``
times the count from each layout's log-weight. Against heuristic players the model is exact; against
others, as for the bid model, it is a soft preference (Spades only: Hearts has no bid weighting).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.search_rollouts import (
    BROKEN,
    DEAL,
    HANDS,
    LEADER,
    LED,
    N_IN,
    N_TRICKS,
    ROW,
    TO_MOVE,
    TRICK,
    VOIDS,
    WON,
    borrowed_scratch,
    legal_row,
    play_card,
    scratch_for,
)
from agents.spades.rollouts import spades_play_choice
from spades_env.core import state_arrays as sa
from spades_env.engine import GameState, SpadesEngine
from spades_env.engine.state import LOWEST_CLUB_LEAD
from spades_env.games.spades import state_arrays as gs

#: Log-likelihood lost per past play of another seat that the heuristic would have played otherwise.
PLAY_SHARPNESS = 1.0


@njit(cache=True, inline="always")
def _start_of_play(s, g, hands, first_leader, first_led, x):
    """The scratch ``x`` at game ``g``'s first lead with the sampled ``hands`` (N,) and the cards played since."""
    n = s.hands.shape[1]
    for k in range(n):
        held = hands[k] | (s.deal[g, k] & ~s.hands[g, k])
        x[HANDS][0, k] = held
        x[DEAL][0, k] = held
        x[TRICK][0, k] = -1
        x[WON][0, k] = 0
    x[N_IN][0] = 0
    x[LED][0] = first_led
    x[TO_MOVE][0] = first_leader
    x[LEADER][0] = first_leader
    x[VOIDS][0] = 0
    x[BROKEN][0] = False
    x[N_TRICKS][0] = 0


@njit(cache=True)
def play_mismatches(
    games, seats, first_leaders, first_led, sampled, discards, out, side_of_seat, partner, deck, config, tables,
    scratch, state,
):  # fmt: skip
    """``out[d, j]`` += the past plays of the opponents of ``seats[d]`` that the heuristic, holding layout
    ``sampled[d, j]`` (N,) with the two-player draw discards ``discards[d, j]`` (N,), would have played otherwise
    (replayed from the first lead of ``first_leaders[d]``, ``led_suit`` ``first_led`` before it, through the
    finished tricks and the current one)."""
    s, t = gs.borrow(state), sa.borrow_tables(tables)
    x = borrowed_scratch(scratch)
    row = x[ROW]
    n = s.hands.shape[1]
    for d in range(len(games)):
        g, me = games[d], seats[d]
        for j in range(sampled.shape[1]):
            _start_of_play(s, g, sampled[d, j], first_leaders[d], first_led, x)
            misses = 0
            for trick in range(s.n_tricks[g] + 1):
                leader = x[LEADER][0]
                plays = n if trick < s.n_tricks[g] else s.n_in_trick[g]
                for p in range(plays):
                    seat = (leader + p) % n
                    card = s.history[g, trick, seat] if trick < s.n_tricks[g] else s.trick[g, seat]
                    if side_of_seat[seat] != side_of_seat[me]:  # the opponents' plays
                        choice = legal_row(x, t, row)
                        if choice < 0:
                            choice = spades_play_choice(
                                x[HANDS][0], x[DEAL][0], x[TRICK][0], x[N_IN][0], x[LED][0], x[N_TRICKS][0],
                                x[WON][0], s.bids[g], s.blind[g], x[VOIDS][0], s.bags[g, side_of_seat[seat]],
                                discards[d, j, seat], seat, row, side_of_seat, partner, deck, config,
                            )  # fmt: skip
                        if choice != card:
                            misses += 1
                    play_card(x, card, t)
            out[d, j] += misses
    return out


def play_log_likelihood(
    engine: SpadesEngine,
    state: GameState,
    games: np.ndarray,
    seats: np.ndarray,
    hands: np.ndarray,
    policy,
    sharpness: float = PLAY_SHARPNESS,
    discards: np.ndarray | None = None,
) -> np.ndarray:
    """(D, M) ``-sharpness`` times ``play_mismatches`` of the layouts ``hands`` (D, M, N) of the D card-play
    decisions (Spades, PLAY phase) of ``state``; ``policy``: the ``HeuristicAgent`` whose play is the model;
    ``discards`` (D, M, N): the layouts' two-player draw discards (``agents.search_sampling.sample_layouts``;
    None: the state's own, for callers whose layouts are the real hands)."""
    rules = engine.rules
    n = engine.n_players
    d, m = hands.shape[:2]
    first = (state.dealer[games] + 1) % n
    if rules.lowest_club_leads:  # the holder of the lowest club led it (public once it is played)
        club = np.uint64(1) << np.uint64(engine.lowest_club)
        first = np.argmax((state.deal[games] & club) != 0, axis=1)
    first_led = int(LOWEST_CLUB_LEAD) if rules.lowest_club_leads else int(engine._unbroken_lead)
    config, partner, deck = policy.game_rules(engine).tables(engine)
    if discards is None:
        discards = np.broadcast_to(state.discards[games][:, None, :], hands.shape)
    out = play_mismatches(
        np.ascontiguousarray(games, dtype=np.int64), np.ascontiguousarray(seats, dtype=np.int64),
        np.ascontiguousarray(first, dtype=np.int64), first_led, np.ascontiguousarray(hands, dtype=np.uint64),
        np.ascontiguousarray(discards, dtype=np.uint64), np.zeros((d, m)),
        engine.side_of_seat, partner, deck, config, tuple(engine.trick_tables), scratch_for(state),
        gs.state_arrays(state),
    )  # fmt: skip
    return -sharpness * out
