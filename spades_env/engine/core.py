"""The batched trick-taking engine (Spades, and Hearts): reset, legal actions and step over B games.

Every decision runs compiled, in one Numba call over the batch per ``step``,
``random_actions`` and ``legal_action_mask``: the game's loops (``games.spades.loops``,
``games.hearts.loops``), chosen once in ``__init__`` from ``rules.game``, run that game's
one-game rules (``games.<game>.phases``: bids, blind nil, the two-player draw and exchange,
Bemo; the Hearts pass) and the core's card play (``core.trick_play``) over the games. ``step``
checks every game's action before it changes any, mutates the state in place and returns
what happened (finished hands, score changes, finished matches); a weak-hand redeal is dealt
inside that call, and the hands that ended are scored, recorded and followed by the next hand
in one more compiled call (the game's ``loops.end_hands``, from ``engine.hand_cycle``).
``threads`` runs the decision loops over the games in parallel, with the same results.

The engine never branches on the game: ``__init__`` reads the game's spec once
(``games.spec(rules.game)``, a ``games.game_spec.GameSpec``) and asks it for what differs: the
card-play tables (``trick_play.trick_tables``: the trump suit, or none in Hearts [RULES 7];
the suit that may not be led until broken; whether the lowest club leads; the card points and
the first-trick restriction), the pass directions, the bid ranges, blind nil and the weak
hand; ``engine.check``, ``engine.inputs`` and ``engine.records`` ask it too.
"""

from __future__ import annotations

from operator import is_
from typing import Any

import numba
import numpy as np

from spades_env.core import packed, trick_play
from spades_env.core.compile_notice import announce_compile
from spades_env.core.state_arrays import HAND_ENDED
from spades_env.core.table_facts import lowest_club, table_facts
from spades_env.engine import dealing, inputs, state_schema
from spades_env.engine.actions import ActionLayout
from spades_env.engine.hand_cycle import HandCycle
from spades_env.engine.inputs import MatchStarts
from spades_env.engine.results import FinishedHands, IllegalActionError, StepResult
from spades_env.engine.state import (
    FREE_LEAD,
    OVER,
    PHASE_NAMES,
    RESTRICTED_LEAD,
    GameState,
)
from spades_env.games import spec
from spades_env.rules import BaseRules, resolve_rules

__all__ = [
    "FinishedHands",
    "IllegalActionError",
    "SpadesEngine",
    "StepResult",
]

I64 = np.int64


def check_threads(threads, name: str = "threads") -> int:
    """The checked thread count ``threads`` (``name``: what the error calls it): an integer in 1 ..
    ``numba.config.NUMBA_NUM_THREADS``, the most threads Numba's compiled loops may run on."""
    most = numba.config.NUMBA_NUM_THREADS
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or not 1 <= threads <= most:
        raise inputs.EngineInputError(f"{name} must be an integer in 1..{most} (NUMBA_NUM_THREADS), got {threads!r}")
    return int(threads)


def _on_threads(loop, threads: int):
    """``loop`` (a parallel compiled loop) run on ``threads`` threads (Numba's setting is per
    calling thread: set at each call, so that engines with other settings may run beside)."""

    def run(*args):
        numba.set_num_threads(threads)
        return loop(*args)

    return run


def _game_indices(games, b: int) -> np.ndarray:
    """``games`` as (G,) int64 batch indices, each in 0..b-1 (the compiled loops do not check)."""
    g = np.asarray(games, dtype=I64).reshape(-1)
    if len(g) and (g.min() < 0 or g.max() >= b):
        raise inputs.EngineInputError(f"games must be batch indices in 0..{b - 1}, got {g[(g < 0) | (g >= b)][:6]}")
    return g if g.flags.c_contiguous else np.ascontiguousarray(g)


class SpadesEngine(HandCycle):
    """Batched rules engine for one rule set (Spades or Hearts, ``rules.game``)."""

    def __init__(self, rules: BaseRules | str | None = None, threads: int = 1) -> None:
        """``rules``: a rules object (``Rules``, ``HeartsRules``), a preset name, or None (partnership).
        ``threads``: how many threads the compiled loops of ``step``, ``random_actions`` and
        ``legal_action_mask`` run the games on (1 .. ``numba.config.NUMBA_NUM_THREADS``); the results
        do not depend on it, and more than 1 pays for large batches only."""
        self.threads = check_threads(threads)
        self.rules = resolve_rules(rules)
        r = self.rules
        self.spec = spec(r.game)
        """What the engine asks the rules' game (``games.<game>.spec.SPEC``, a ``games.game_spec.GameSpec``)."""
        self.layout = ActionLayout.for_rules(r)
        self.n_players = r.n_players
        self.n_sides = r.n_sides
        self.hand_size = r.hand_size
        self.deck = r.deck
        self.next_seat = (np.arange(r.n_players, dtype=I64) + 1) % r.n_players
        # The game's tables: the trump suit (spades; none in Hearts) and the suit that may not be
        # led until broken (spades, or hearts) [RULES 1, 7].
        self.broken_suit = self.spec.broken_suit
        self.broken_mask = np.uint64(self.spec.broken_mask)
        self.lowest_club = lowest_club(self.deck)
        self.club_leads = self.spec.club_leads(r)
        """The holder of the lowest club leads it to the first trick (``lowest_club_leads``, Hearts)."""
        self._unbroken_lead = int(self._lead_state(np.array(False)))  # ``led_suit`` before the first lead
        self.trick_tables = trick_play.trick_tables(
            self.layout.n_card_ids,
            trump=self.spec.trump,
            broken_suit=self.broken_suit,
            broken_mask=self.broken_mask,
            lowest_club=self.lowest_club,
            lead_after=(self._unbroken_lead, int(self._lead_state(np.array(True)))),
            points=self.spec.card_points(r),
            first_trick_forbidden=self.spec.first_trick_forbidden,
        )
        """The card-play tables of the rules (``core.trick_play.TrickTables``): Hearts adds card
        points and the first-trick restriction."""
        self.facts = table_facts(r, self.layout, self.trick_tables, self.spec.pass_offsets)
        """What the game's spec hooks read of the table (``core.table_facts.TableFacts``): never the engine."""
        facts = self.facts
        self.side_of_seat, self.partner, self.pile_size = facts.side_of_seat, facts.partner, facts.pile_size
        self._base: dict[int, np.ndarray] = {}
        self._cell_tables: dict[int, np.ndarray] = {}
        self._status_buffers: dict[int, np.ndarray] = {}
        # The game's compiled loops (step, random_actions, legal_action_mask), chosen once, and what
        # they take after their own arguments: the rule set's parameters and card-play tables.
        self._bind_loops()

    def _bind_loops(self) -> None:
        """Pick the game's compiled loops (step, random_actions, legal_action_mask, end_hands) and
        what they take after their own arguments: the rule set's parameters and tables, packed in
        one array (``core.packed.pack_rules``)."""
        r = self.rules
        loops = self.spec.loops()
        announce_compile(r.game, self.spec.compile_seconds, loops.step_packed)
        self._loops = loops
        self._params = self.spec.params(r, self.layout)
        self._rules = packed.pack_rules(self._params, self.trick_tables)
        self._hand_end_tables = tuple(self.spec.hand_end_tables(r))
        """The rule set's scoring tables, as the game's compiled ``loops.end_hands`` takes them: a plain
        tuple (Numba types one in C; a NamedTuple's fields in Python, about 3 µs a call)."""
        self._record_layout = self._record_fields()
        self._state_schema = state_schema.schema(r.game)
        """The declarations of the state's fields (``engine.check`` checks against them)."""
        arrays = loops.gs  # the game's state arrays (``games/<game>/state_arrays.py``, from the declarations)
        self._state_arrays, self._decision_arrays = arrays.state_arrays, arrays.decision_arrays
        self._state_layout = arrays.LAYOUT
        self._finished_class = state_schema.finished_class(r.game)
        one = self.threads == 1
        self._step = loops.step if one else _on_threads(loops.step_threads, self.threads)
        # The address table needs compiled code (NUMBA_DISABLE_JIT runs the loops as Python: the arrays then).
        self._step_packed = loops.step_packed if one and not numba.config.DISABLE_JIT else None
        self._random = loops.random_actions if one else _on_threads(loops.random_actions_threads, self.threads)
        self._mask = loops.legal_action_mask if one else _on_threads(loops.legal_action_mask_threads, self.threads)
        self._packed_state: tuple[tuple[np.ndarray, ...], np.ndarray | None] | None = None
        """The arrays of the last state stepped and their ``core.packed.state_table`` (None: not packable)."""

    #: What ``_bind_loops`` sets: compiled functions, a module, derived tables and the packed state
    #: (addresses of this process's arrays), rebuilt rather than pickled.
    _BOUND = ("_loops", "_params", "_rules", "_hand_end_tables", "_record_layout", "_state_schema", "_step",
              "_step_packed", "_random", "_mask", "_packed_state", "_state_arrays", "_decision_arrays",
              "_state_layout", "_finished_class")  # fmt: skip

    def __getstate__(self) -> dict:
        """An engine pickles (and deep-copies) as its rules and tables; the compiled loops are
        looked up again when it is loaded."""
        return {k: v for k, v in self.__dict__.items() if k not in self._BOUND}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._bind_loops()

    # ------------------------------------------------------------------ reset
    def reset(
        self,
        seeds: int | np.ndarray | list[int],
        *,
        deals: np.ndarray | list | None = None,
        dealers: np.ndarray | list[int] | int | None = None,
        scores: np.ndarray | list | None = None,
        hand_numbers: np.ndarray | list[int] | int | None = None,
        **own: Any,
    ) -> GameState:
        """Start one new match per seed (``seeds`` is an int for one game, or B ints).

        Optional per-game overrides: ``deals`` (B, N) card masks or lists of card ids for the first
        hand, ``dealers`` (B,), starting ``scores`` (B, S), and ``hand_numbers`` (B,) hands already
        played in the match (Hearts: it sets the pass direction); and the game's own, by name
        (``spec.start_options``): Spades' starting ``bags`` (B, S), two-player's ``piles`` (B, 52) card
        ids, top first (instead of ``deals``), and under ``face_up_deal``, with ``deals``, ``face_ups``
        (B, N) the cards of each hand dealt face up (else drawn from the key).
        Game i of a batch plays exactly the match a single reset with seed i plays.
        Every argument is checked before any work (hashing the seeds, allocating the state);
        a refused one raises ``inputs.EngineInputError`` (a ValueError) naming it.
        """
        seeds = inputs.seed_array(seeds)
        starts = self._match_starts(len(seeds), deals, dealers, scores, hand_numbers, own)
        keys = dealing.game_keys(seeds)
        state = self._empty(len(keys))
        self._begin_matches(state, np.arange(len(keys)), keys, starts)
        return state

    def start_matches(
        self,
        state: GameState,
        games: np.ndarray,
        keys: np.ndarray,
        *,
        deals=None,
        dealers=None,
        scores=None,
        hand_numbers=None,
        **own: Any,
    ) -> None:
        """Start new matches in the given games of an existing state (auto-reset); the overrides of ``reset``."""
        g = np.asarray(games, dtype=I64)
        starts = self._match_starts(len(g), deals, dealers, scores, hand_numbers, own)
        self._begin_matches(state, g, keys, starts)

    def _match_starts(self, n: int, deals, dealers, scores, hand_numbers, own: dict[str, Any]) -> MatchStarts:
        """The checked overrides of ``n`` new matches (see ``inputs.match_starts``)."""
        return inputs.match_starts(self.rules, self.spec, n, self.deck, self.hand_size, self.pile_size, deals=deals,
                                   dealers=dealers, scores=scores, hand_numbers=hand_numbers, own=own)  # fmt: skip

    def _begin_matches(self, state: GameState, g: np.ndarray, keys: np.ndarray, starts: MatchStarts) -> None:
        """Start matches in games ``g`` from checked overrides."""
        dealer = dealing.first_dealer(keys, self.n_players) if starts.dealers is None else starts.dealers
        self._new_matches(state, g, keys, dealer, starts.scores, starts.hand_numbers, starts.own)
        self._start_hand(state, g, starts.deals, starts.own)

    # ------------------------------------------------------------ the pass
    def pass_offset(self, hand_number: np.ndarray) -> np.ndarray:
        """Seats from passer to receiver (clockwise) by hand number, (G,) int64: in Hearts 1 left,
        3 right, 2 across, 0 no pass [RULES 7]; 0 in a game without a pass (Spades)."""
        return self.facts.pass_offset(hand_number)

    # ------------------------------------------------------------ legal moves
    def legal_cards(self, state: GameState) -> np.ndarray:
        """(B,) uint64: cards the player to move may play (meaningful in PLAY)."""
        t = self.trick_tables
        return trick_play.legal_cards_to_move(
            state.hands, state.to_move, state.led_suit, state.n_tricks, t.preferred, t.first_trick_forbidden
        )

    def _lead_state(self, broken: np.ndarray) -> np.ndarray:
        """``led_suit`` value before a lead: restricted while the game's ``broken_suit`` is unbroken
        (unless the game lets it be led at any time: ``spades_lead_anytime``)."""
        if self.spec.lead_anytime(self.rules):
            return np.full(np.shape(broken), FREE_LEAD, I64)
        return np.add(broken, RESTRICTED_LEAD, dtype=I64)  # RESTRICTED_LEAD + 1 == FREE_LEAD

    def min_bid(self, state: GameState, games: np.ndarray | None = None) -> np.ndarray:
        """(G,) int64: lowest legal bid of the player to move (``min_team_bid``, ``mirror``, ``fourteen``)."""
        return self.bid_range(state, games)[0]

    def bid_range(self, state: GameState, games: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(G,) int64 lowest and highest legal bid of the player to move [RULES 2, 6]."""
        g = self._rows(state.batch_size) if games is None else np.asarray(games, dtype=I64)
        return self.spec.bid_range(self.facts, state, g)

    def weak_hand(self, state: GameState, games: np.ndarray | None = None) -> np.ndarray:
        """(G,) bool: the player to move may show a weak hand to force a redeal [RULES 6]."""
        g = self._rows(state.batch_size) if games is None else np.asarray(games, dtype=I64)
        return self.spec.weak_hand(self.facts, state, g)

    def legal_action_mask(
        self, state: GameState, games: np.ndarray | None = None, out: np.ndarray | None = None
    ) -> np.ndarray:
        """(G, n_actions) bool: legal actions of the player to move in each game (all, or ``games``).

        ``out`` (G, n_actions) bool, if given, is filled and returned (every entry is written).
        One compiled call (the game's ``loops.legal_action_mask``).
        """
        b = state.batch_size
        if games is None:
            g = self._rows(b)
        else:
            g = _game_indices(games, b)
        shape = (len(g), self.layout.n_actions)
        if out is None:
            out = np.empty(shape, bool)
        elif not (isinstance(out, np.ndarray) and out.shape == shape and out.dtype == bool):
            got = f"{out.dtype} {out.shape}" if isinstance(out, np.ndarray) else type(out).__name__
            raise inputs.EngineInputError(f"out must be a bool array of shape {shape}, got {got}")
        self._mask(g, out, self._rules, *self._decision_arrays(state))
        return out

    def random_actions(self, state: GameState, rng: np.random.Generator) -> np.ndarray:
        """(B,) int64: a uniformly random legal action in each game (0 where the match is over).

        The actions ``sampling.sample_legal(self.legal_action_mask(state), rng)`` draws, from the same
        single ``rng.random(B)`` (action k of a game's legal actions in id order, k = floor(u *
        count)), drawn in one compiled call without building the mask.
        """
        b = len(state.phase)
        out = np.empty(b, I64)
        self._random(rng.random(b), out, self._rules, *self._decision_arrays(state))
        return out

    def current_player(self, state: GameState) -> np.ndarray:
        """(B,) int64: seat to move, -1 where the match is over."""
        return np.where(state.phase == OVER, -1, state.to_move)

    # ------------------------------------------------------------------- step
    def step(
        self, state: GameState, actions: np.ndarray, validate: bool = True, auto_reset: bool = False
    ) -> StepResult:
        """Apply one action per game (for the player to move) in place.

        Games whose match is over must be given any value and are left unchanged
        only if ``validate`` is False; with validation an action for a finished
        match raises. Raises ``IllegalActionError`` naming the legal actions (of the
        first game whose action is refused; then no game has changed).
        With ``auto_reset`` a game whose match ends starts a new match in the same
        step (its new key is ``dealing.splitmix64`` of the old one, its first dealer
        drawn from that key: the match ``start_matches`` would start), so its state
        is never OVER; ``StepResult.match_done`` and ``winner`` tell what ended.

        Every decision of every game is checked, then applied, in one compiled call (the
        game's ``loops.step``, which also deals a weak-hand redeal); the hands that ended are
        scored and the next ones dealt in one more (``loops.end_hands``).
        """
        b = len(state.phase)
        if not (type(actions) is np.ndarray and actions.dtype == I64 and actions.shape == (b,)):
            actions = inputs.action_array(actions, b)  # checked, as int64
        if not actions.flags.c_contiguous:
            actions = np.ascontiguousarray(actions)
        status = self._status(b)
        table = self._state_table(state) if self._step_packed is not None else None
        if table is not None:
            bad, n_ended = self._step_packed(actions, validate, status, self._rules, table)
        else:
            bad, n_ended = self._step(actions, validate, status, self._rules, *self._state_arrays(state))
        if bad >= 0:
            self._raise_illegal(state, bad, int(actions[bad]))
        result = StepResult(batch_size=b, n_sides=self.n_sides)
        if n_ended:
            self._finish_hands(state, np.flatnonzero(status == HAND_ENDED), result, auto_reset, table)
        return result

    def _state_table(self, state: GameState) -> np.ndarray | None:
        """The ``core.packed.state_table`` of ``state``'s arrays (None if they cannot be packed), kept
        for the last state stepped: it is used again while the state's fields are those very arrays
        (compared by identity, in field order; the kept arrays stay alive with it), so that a field
        assigned a new array is never stepped through the old one's address."""
        kept = self._packed_state
        fields = vars(state).values()
        if kept is not None and len(fields) == len(kept[0]) and all(map(is_, kept[0], fields)):
            return kept[1]
        arrays = self._state_arrays(state)
        table = packed.state_table(arrays, self._state_layout)
        self._packed_state = (arrays, table)
        return table

    def _status(self, b: int) -> np.ndarray:
        """The (b,) int8 buffer the compiled ``step`` writes each game's outcome into (kept per batch
        size: it never reaches a caller)."""
        status = self._status_buffers.get(b)
        if status is None:
            if len(self._status_buffers) >= 8:
                self._status_buffers.clear()
            status = self._status_buffers[b] = np.empty(b, np.int8)
        return status

    def _raise_illegal(self, state: GameState, g: int, a: int) -> None:
        """Raise ``IllegalActionError`` for action ``a`` of game ``g``, naming the legal actions."""
        phase = int(state.phase[g])
        if phase == OVER:
            raise IllegalActionError(
                f"game {g}: the match is over (winner: side {int(state.winner[g])}); no action is legal, reset it"
            )
        legal = np.flatnonzero(self.legal_action_mask(state, np.array([g]))[0])
        names = ", ".join(f"{x} ({self.layout.describe(x)})" for x in legal)
        raise IllegalActionError(
            f"game {g}: illegal action {a} ({self.layout.describe(a)}) for seat {int(state.to_move[g])} "
            f"in phase {PHASE_NAMES[phase]!r}; legal actions: [{names}]"
        )
