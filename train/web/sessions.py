"""The games the server holds: one human seat against bots, each game behind an id and a lock.

A game plays one match at B = 1 (``train.web.table``). After every decision the bots
play on until the human must decide; when a hand ends the game waits for ``next``
(``awaiting == "next_hand"``) and keeps the hand's record; the match goes on to its end.
Every human action is checked against the legal ones before the engine sees it, so a
bad one changes nothing.
"""

from __future__ import annotations

import copy
import secrets
import threading
from collections import OrderedDict
from typing import Any

import numpy as np

from agents import Agent, DecisionContext, make_agent, parse_spec
from spades_env.engine import OVER, FinishedHands, SpadesEngine, records
from spades_env.rules import Rules, list_presets
from train.tournament_play import Observer
from train.web.table import Table
from train.web.views import action_entry, event_entry, player_view

#: The bots a seat may hold (``agents.AGENTS`` names; ``neural`` needs a path, so it is not offered).
BOTS = ("random", "heuristic", "search", "learned")
DEFAULT_BOT = "heuristic"
#: Games kept in memory; the oldest is dropped beyond this.
MAX_GAMES = 1000
MAX_SEED = 2**64 - 1


class GameNotFound(LookupError):
    """No game has this id (never created, or dropped)."""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def preset_rules(name: Any, target_score: Any = None) -> Rules:
    """The rules of a preset by name, with an optional ``target_score``; ValueError naming what is allowed."""
    presets = list_presets()
    if not isinstance(name, str) or name not in presets:
        raise ValueError(f"rules must be a preset name, got {name!r}; presets: {', '.join(presets)}")
    rules = Rules.preset(name)
    if target_score is not None:
        if not _is_int(target_score) or target_score < 1:
            raise ValueError(f"target_score must be a positive integer, got {target_score!r}")
        rules = rules.replace(target_score=target_score)
    return rules


def check_bot_spec(spec: Any, what: str = "bot") -> str:
    """A bot spec (``heuristic``, ``search:samples=8``) whose name is one of ``BOTS``; ValueError otherwise."""
    if not isinstance(spec, str):
        raise ValueError(f"{what} must be a bot name ({', '.join(BOTS)}), got {spec!r}")
    name = spec.partition(":")[0].strip()
    if name not in BOTS:
        raise ValueError(f"{what} {spec!r} is not a bot; bots: {', '.join(BOTS)}")
    parse_spec(spec)  # the options
    return spec


#: Bots whose building is slow (a checkpoint to load): built once per spec, then copied and re-seeded.
SLOW_TO_BUILD = ("learned",)
_templates: dict[str, Agent] = {}
_templates_lock = threading.Lock()


def _make(spec: str, seed: int) -> Agent:
    if spec.partition(":")[0].strip() not in SLOW_TO_BUILD:
        return make_agent(spec, seed=seed)
    with _templates_lock:
        if spec not in _templates:
            _templates[spec] = make_agent(spec, seed=0)
        agent = copy.deepcopy(_templates[spec])
    agent.reset(seed)
    return agent


def build_bot(spec: str, engine: SpadesEngine, seed: int, what: str = "bot") -> Agent:
    """A bot that can play the engine's rules, or ValueError saying why not."""
    check_bot_spec(spec, what)
    agent = _make(spec, seed)
    try:
        agent.check_supports(engine)
    except ValueError as err:
        raise ValueError(f"{what} {spec!r}: {err}") from None
    return agent


class Game:
    """One match: the table, the human's seat, a bot in every other seat, the finished hands' records."""

    def __init__(self, game_id: str, rules: Rules, bots: list[str], seat: int, seed: int) -> None:
        self.id = game_id
        self.engine = SpadesEngine(rules)
        self.seat = seat
        self.seed = seed
        n = self.engine.n_players
        self.bot_specs: list[str | None] = list(bots)
        self.bot_specs.insert(seat, None)
        self.bots: list[Agent | None] = [
            None if spec is None else build_bot(spec, self.engine, _seed(seed, k), f"bot of seat {k}")
            for k, spec in enumerate(self.bot_specs)
        ]
        assert len(self.bots) == n
        self.table = Table(self.engine, self.engine.reset(seed))
        self.observe = Observer(self.engine)
        self.lock = threading.Lock()
        self.records: list[dict[str, Any]] = []
        self.events: list[dict[str, Any]] = []
        self.finished: FinishedHands | None = None
        """The hand just ended, until ``next`` (or for good when the match is over)."""
        self.hint_bots: dict[str, Agent] = {}
        self.decisions = 0
        self._advance()

    # ------------------------------------------------------------ state
    @property
    def over(self) -> bool:
        return self.table.phase == OVER

    @property
    def awaiting(self) -> str:
        if self.over:
            return "nothing"
        if self.finished is not None:
            return "next_hand"
        return "you" if self.table.to_move == self.seat else "nothing"

    def view(self) -> dict[str, Any]:
        rules = self.engine.rules
        out: dict[str, Any] = {
            "id": self.id,
            "rules": {"name": rules.name, "game": rules.game, "n_players": rules.n_players,
                      "partnership": rules.partnership},
            "seat": self.seat,
            "seats": [
                {"seat": k, "name": "You" if spec is None else spec, "side": int(self.engine.side_of_seat[k])}
                for k, spec in enumerate(self.bot_specs)
            ],
            "awaiting": self.awaiting,
            "events": list(self.events),
        }  # fmt: skip
        out.update(player_view(self.table, self.seat, self.finished))
        return out

    # ------------------------------------------------------------ moves
    def act(self, action: Any) -> None:
        """The human's decision; ValueError (nothing changes) unless it is the human's turn and legal."""
        if self.over:
            raise ValueError(f"the match is over (winner: side {int(self.table.state.winner[0])}); no action is legal")
        if self.finished is not None:
            raise ValueError("the hand is over: POST .../next to deal the next hand")
        if self.table.to_move != self.seat:
            raise ValueError(f"it is seat {self.table.to_move}'s turn, not yours (seat {self.seat})")
        legal = self.table.legal()
        if not _is_int(action) or action not in legal:
            phase = self.table.phase
            named = ", ".join(f"{e['id']} ({e['label']})" for e in (action_entry(self.engine, phase, a) for a in legal))
            raise ValueError(f"illegal action {action!r}; legal actions: {named}")
        self.events = []
        self._apply(int(action))
        self._advance()

    def next_hand(self) -> None:
        """Deal on after a hand's end; ValueError unless the game is waiting for it."""
        if self.over:
            raise ValueError("the match is over: there is no next hand")
        if self.finished is None:
            raise ValueError("the hand is not over yet: there is no next hand to deal")
        self.finished = None
        self.events = []
        self.table.new_hand()
        self._advance()

    def _apply(self, action: int) -> None:
        step = self.table.step(action)
        self.decisions += 1
        self.events.append(event_entry(self.engine, step, self.seat))
        if step.finished is not None:
            self.finished = step.finished
            self.records.append(records.hand_records(self.engine, step.finished)[0])

    def _advance(self) -> None:
        """Bots play until the human must decide, a hand ends or the match is over."""
        while not self.over and self.finished is None and self.table.to_move != self.seat:
            self._apply(self.bot_action(self.bots[self.table.to_move]))

    def context(self) -> tuple[np.ndarray, DecisionContext]:
        """The legal mask (1, A) and the decision context of the seat to move."""
        state = self.table.state
        mask = self.engine.legal_action_mask(state)
        return mask, DecisionContext(self.engine, state, np.array([0]), state.to_move[:1].copy())

    def bot_action(self, agent: Agent) -> int:
        mask, ctx = self.context()
        action = int(agent.act(self.observe(agent, ctx.state, ctx.games, ctx.seats), mask, ctx)[0])
        if not mask[0, action]:
            raise RuntimeError(f"bot {agent.name!r} chose the illegal action {action}")
        return action


def _seed(seed: int, seat: int) -> int:
    """A bot's seed from the game's seed and its seat."""
    return int(np.random.SeedSequence([seed, seat]).generate_state(1)[0])


class GameStore:
    """The games of a server, by id; thread-safe (one lock for the index, one per game)."""

    def __init__(self, max_games: int = MAX_GAMES) -> None:
        self.games: OrderedDict[str, Game] = OrderedDict()
        self.max_games = max_games
        self.lock = threading.Lock()

    def create(self, rules: Any, bots: Any, seat: Any = 0, seed: Any = None, target_score: Any = None) -> Game:
        """A new game (the bots have played up to the human's first decision); ValueError on bad input."""
        table_rules = preset_rules(rules, target_score)
        n = table_rules.n_players
        if not _is_int(seat) or not 0 <= seat < n:
            raise ValueError(f"seat must be an integer in 0..{n - 1} ({table_rules.name} has {n} seats), got {seat!r}")
        if isinstance(bots, str) or bots is None:
            bots = [DEFAULT_BOT if bots is None else bots] * (n - 1)
        if not isinstance(bots, list) or len(bots) != n - 1:
            raise ValueError(
                f"bots must be one bot name or a list of {n - 1} (one per other seat, in seat order), got {bots!r}"
            )
        for k, spec in enumerate(bots):
            check_bot_spec(spec, f"bots[{k}]")
        if seed is None:
            seed = secrets.randbits(63)
        elif not _is_int(seed) or not 0 <= seed <= MAX_SEED:
            raise ValueError(f"seed must be null or an integer in 0..2**64 - 1, got {seed!r}")
        game = Game(secrets.token_urlsafe(9), table_rules, bots, seat, seed)
        with self.lock:
            self.games[game.id] = game
            while len(self.games) > self.max_games:
                self.games.popitem(last=False)
        return game

    def get(self, game_id: str) -> Game:
        with self.lock:
            game = self.games.get(game_id)
        if game is None:
            raise GameNotFound(f"no game with id {game_id!r} (games live in the server's memory until it stops)")
        return game
