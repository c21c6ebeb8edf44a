"""``GameSpec``: what the game-agnostic engine (``spades_env.engine``) asks a game, so that it never
branches on which game it runs.

Each game folder defines one subclass and its instance ``SPEC`` (``games/<game>/spec.py``, listed in
the registry ``spades_env.games.GAMES``); ``SpadesEngine.__init__`` reads ``spec(rules.game)`` once.
The defaults here are those of a game without the feature in question (no trump, no bidding, no
pass, no blind nil, no bags): a game overrides what it has. A hook takes the rules, or the table's facts
(``core.table_facts.TableFacts``, built once per engine) and the arrays it reads, never the engine: the engine sits
above the games.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from types import ModuleType

    from spades_env.core.table_facts import TableFacts
    from spades_env.engine.actions import ActionLayout
    from spades_env.engine.results import FinishedHands
    from spades_env.engine.state import GameState
    from spades_env.rules_base import BaseRules

I64 = np.int64


class GameSpec:
    """One game's answers to the engine's questions (a subclass per game; its instance is ``SPEC``)."""

    name: str = ""
    """The game's name (``Rules.game``)."""
    trump: int = -1
    """The trump suit (-1: none) [RULES 1, 7]."""
    broken_suit: int = -1
    """The suit that may not be led until a card of it is played ("broken")."""
    broken_mask: int = 0
    """The cards of ``broken_suit`` (jokers included where they count as that suit)."""
    first_trick_forbidden: int = 0
    """Cards that may not be played to the first trick while the seat holds another (Hearts' points)."""
    pass_offsets: tuple[int, int, int, int] = (0, 0, 0, 0)
    """Seats from passer to receiver (clockwise) by hand number mod 4; 0: no pass."""
    pass_names: tuple[str, str, str, str] = ("none", "none", "none", "none")
    """The pass direction of each hand number mod 4, in words."""
    bid_phase: int = -1
    """The phase in which the player to move bids (-1: the game has no bidding)."""
    blind_phase: int = -1
    """The phase in which the player to move may bid blind nil or look at its hand first (-1: none)."""
    pass_phase: int = -1
    """The phase in which the player to move chooses a card to pass (-1: the game has no pass)."""
    special_actions: tuple[tuple[str, str], ...] = ()
    """Every special action (not a card, not a bid) the game may have, in layout order, each with how
    ``ActionLayout.describe`` names it; a rule set enables some of them (``Rules.special_actions``)."""
    compile_seconds: int = 120
    """Seconds of CPU the game's engine kernels take to compile on this project's machine (docs/benchmarks.md):
    what the one-line notice of a first compile says (``core.compile_notice``)."""

    def __reduce__(self) -> str:
        """Pickled (with an engine) as a reference to its module's ``SPEC``: one spec per game."""
        return "SPEC"

    def loops(self) -> ModuleType:
        """The game's compiled batch loops (``games.<game>.loops``)."""
        from spades_env.games import part

        return part(self.name, "loops")

    def params(self, rules: BaseRules, layout: ActionLayout) -> np.ndarray:
        """The int64 parameters of a rule set that the game's compiled ``phases`` read (indexed by its
        ``phases.P_*``): ``loops``' argument ``p``."""
        raise NotImplementedError

    def hand_end_tables(self, rules: BaseRules) -> tuple:
        """The rule set's scoring tables (the game's ``hand_score.Tables``), which ``loops.end_hands`` takes."""
        raise NotImplementedError

    # ------------------------------------------------------------ card play
    def club_leads(self, rules: BaseRules) -> bool:
        """The holder of the lowest club leads it to the first trick."""
        return False

    def card_points(self, rules: BaseRules) -> np.ndarray | None:
        """(n_card_ids,) int64 points of each card taken, or None (tricks, not points, count)."""
        return None

    def lead_anytime(self, rules: BaseRules) -> bool:
        """``broken_suit`` may be led before it is broken."""
        return False

    def face_up_deal(self, rules: BaseRules) -> bool:
        """Some cards of each hand are dealt face up, seen by all until played (Spades' ``face_up_deal``)."""
        return False

    def face_up_cards(self, rules: BaseRules) -> int:
        """How many cards of each hand are dealt face up (0: none)."""
        return 0

    # --------------------------------------------------------------- actions
    def max_bid(self, rules: BaseRules) -> int:
        """The highest bid action (-1: the game has no bidding, no bid actions)."""
        return -1

    def blind_nil_allowed(self, facts: TableFacts, scores: np.ndarray) -> np.ndarray:
        """(G, S) bool: may a side's players bid blind nil this hand [RULES 2]."""
        return np.zeros(scores.shape, bool)

    def bid_range(self, facts: TableFacts, state: GameState, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(G,) int64 lowest and highest legal bid of the player to move in games ``g``."""
        return np.zeros(len(g), I64), np.full(len(g), facts.hand_size, I64)

    def weak_hand(self, facts: TableFacts, state: GameState, g: np.ndarray) -> np.ndarray:
        """(G,) bool: the player to move in games ``g`` may show a weak hand to force a redeal."""
        return np.zeros(len(g), bool)

    # ------------------------------------------------------ checks of inputs
    def max_bags(self, rules: BaseRules) -> int:
        """The most bags a side may hold at the start of a hand (0: the game counts none)."""
        return 0

    def mercy_score(self, rules: BaseRules) -> int | None:
        """The score at or below which a side ends the match (None: no mercy rule)."""
        return None

    def match_winner(self, rules: BaseRules, scores: np.ndarray, hands_played: np.ndarray) -> np.ndarray:
        """(G,) int64: the side that has won at these scores after these hands, -1 while it goes on."""
        raise NotImplementedError

    def match_ends(self, rules: BaseRules) -> list[str]:
        """What ends a match of these rules, in words (``target_score 500``, ...), for messages."""
        ends = [f"target_score {rules.target_score}"]
        if self.mercy_score(rules) is not None:
            ends.append(f"lose_score {self.mercy_score(rules)}")
        if rules.max_hands is not None:
            ends.append(f"max_hands {rules.max_hands}")
        return ends

    def adjusted_points(self, rules: BaseRules, f: Any, rows: np.ndarray | slice = slice(None)) -> np.ndarray:
        """(G, n_sides) float64: the points of the finished hands ``f`` (the game's ``FinishedHands``, or its
        scoring's score of them; its rows ``rows``) as tournaments compare them (a game without bags: ``f.delta``
        as it is)."""
        return np.asarray(f.delta[rows], np.float64)

    def contract_counts(self, facts: TableFacts, f: FinishedHands) -> dict[str, np.ndarray] | None:
        """(G, n_sides) int64 each, the finished hands' contracts as tournaments count them (``contracts``,
        ``sets``, ``bags``, ``nil_bids``, ``nil_made``); None in a game without contracts."""
        return None

    # ---------------------------------------------------------- state checks
    def reachable_phases(self, rules: BaseRules) -> list[int]:
        """The phases a game of these rules can be in."""
        raise NotImplementedError

    def drawing_phases(self, rules: BaseRules) -> tuple[int, ...]:
        """The phases in which the hands are still being drawn (no deal exists yet)."""
        return ()

    def bidding_phases(self) -> tuple[int, ...]:
        """The game's phases of a bidding decision (blind nil or look, then the bids): () without bidding."""
        return tuple(phase for phase in (self.blind_phase, self.bid_phase) if phase >= 0)

    def hidden_card_verb(self, phase: int) -> str | None:
        """In ``phase``, a card action sets the card aside unseen by the other seats (a pass, a card given up):
        the verb naming it (``"pass"``); None where a card action plays the card."""
        return None

    def check_state(self, facts: TableFacts, state: GameState, drawing: np.ndarray) -> None:
        """The game's own invariants of ``state`` (``engine.check.check_state`` runs the shared ones);
        raise AssertionError naming the game and the broken invariant."""
        raise NotImplementedError

    # ----------------------------------------------------------- new matches
    #: The game's own overrides of new matches, by the names ``SpadesEngine.reset`` and ``start_matches`` take
    #: (besides every game's ``deals``, ``dealers``, ``scores``, ``hand_numbers``): checked by ``check_starts``,
    #: applied by ``new_matches``, ``start_deals`` and ``started_hands``.
    start_options: tuple[str, ...] = ()

    def deals_refused(self, rules: BaseRules) -> str:
        """Why these rules take no ``deals`` override (the one-line error), "" where they do."""
        return ""

    def check_starts(
        self, rules: BaseRules, n: int, deck: tuple[int, ...], hand_size: int, pile_size: int, deals, options
    ) -> dict[str, Any]:
        """The checked ``options`` (the game's own overrides given, by name) of ``n`` new matches; ``deals``: every
        game's override, checked ((n, N) masks; None: not given). A game without options: none."""
        return {}

    def new_matches(self, state: GameState, g: np.ndarray, sides: np.ndarray, own: dict[str, Any]) -> None:
        """Set the game's own match fields of new matches in games ``g`` (``sides``: the flat (G, S) cells of
        their sides; ``own``: the game's overrides, checked); a game without any: nothing."""

    def start_deals(self, state: GameState, g: np.ndarray, own: dict[str, Any], n_players: int) -> np.ndarray | None:
        """The first hands (G, N) of new matches in games ``g`` that the game's overrides ``own`` give (setting in
        ``state`` what they need), else None: the engine's deal (seeded, or the ``deals`` given)."""
        return None

    def started_hands(self, state: GameState, cells: np.ndarray, own: dict[str, Any]) -> None:
        """After the first hands of new matches are set up (``cells``: their flat (game, seat) cells): what the
        game's overrides ``own`` replace of what the deal drew; a game without any: nothing."""

    def hand_end_fields(self, view: GameState, f: FinishedHands) -> None:
        """Write into ``view`` (games before their last card, ``envs.hand_end.hand_end_view``) the game's own fields
        as their hands ended, from ``f`` (their finished hands, in order); a game without any: nothing."""

    # --------------------------------------------------------------- records
    def record_contract(self, facts: TableFacts, f: FinishedHands, i: int) -> dict[str, Any]:
        """The record's ``start_bags``, ``bids``, ``blind_nil`` and ``bags`` of hand ``i`` (layout version 2 has them
        in every game): a game without bidding or bags records none (0 bags, bids -1, no blind nil)."""
        n, sides = f.deal.shape[1], f.scores.shape[1]
        return {"start_bags": [0] * sides, "bids": [-1] * n, "blind_nil": [False] * n, "bags": [0] * sides}

    def record_decisions(self, facts: TableFacts, f: FinishedHands, i: int, add) -> tuple[np.ndarray, dict]:
        """Add (``add(seat, action)``) the decisions of hand ``i`` before its card play, in order, and
        return the hands as the record lists them and the record fields that follow ``dealer``."""
        return f.deal[i], {}

    def record_declarations(self, facts: TableFacts, f: FinishedHands, i: int, leader: int, add) -> None:
        """Add the decisions between the last bid and the first lead (made from ``leader`` on)."""

    def record_result(self, facts: TableFacts, f: FinishedHands, i: int) -> dict[str, Any]:
        """The game's record fields after the tricks (placed before ``hands``)."""
        return {}

    def replay_key(self, facts: TableFacts, state: GameState, action: int, draws: list[int]) -> int | None:
        """Replaying a record that lists its draws (not the match key): the game key under which ``action``,
        of the player to move in the one-game ``state``, draws the card ``draws`` (each seat's recorded
        draws, masks) says; None where the action draws nothing. ValueError naming the seat if it cannot."""
        return None
