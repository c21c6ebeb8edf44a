"""The games the server holds: one human seat against bots, each game behind an id and a lock.

A game plays one match at B = 1 (``train.serve.table``). After every decision the bots
play on until the human must decide; when a hand ends the game waits for ``next``
(``awaiting == "next_hand"``) and keeps the hand's record; the match goes on to its end.
Every human action is checked against the legal ones before the engine sees it, so a
bad one changes nothing. A game is its settings and its decisions (``log``): every bot is
re-seeded from the game's seed, its seat and the decision's number before it decides, so
``Game.restore`` rebuilds a game from them exactly, and it goes on as it would have.
The store (``train.serve.store``) keeps them in SQLite and the games in use in memory.
"""

from __future__ import annotations

import functools
import secrets
import threading
from typing import Any

import numpy as np

from agents import Agent, DecisionContext
from agents.builtin_bots import decision_context
from spades_env.engine import OVER, FinishedHands, SpadesEngine, records
from spades_env.rules import Rules, list_presets
from spades_env.rules_check import MAX_RULES_INT, shown
from train.evaluation.tournament_play import Observer
from train.serve.bots import BotMenu, is_heavy
from train.serve.storage import NEXT
from train.serve.table import Table
from train.serve.views import action_entry, event_entry, player_view

__all__ = ["DEFAULT_MENU", "Game", "GameNotFound", "game_settings", "preset_rules"]

MAX_SEED = 2**64 - 1
#: Hint bots a game keeps (least recently asked dropped).
MAX_HINT_BOTS = 4
#: The bots of a server that names none (``train.serve.bots.BOTS``).
DEFAULT_MENU = BotMenu()


class GameNotFound(LookupError):
    """No game has this id (never created, or expired)."""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


@functools.lru_cache(maxsize=64)
def _preset(name: str) -> Rules:
    """A preset's rules, read once (rules are frozen: every game may share them)."""
    return Rules.preset(name)


def preset_rules(name: Any, target_score: Any = None) -> Rules:
    """The rules of a preset by name, with an optional ``target_score``; ValueError naming what is allowed."""
    presets = list_presets()
    if not isinstance(name, str) or name not in presets:
        raise ValueError(f"rules must be a preset name, got {shown(name)}; presets: {', '.join(presets)}")
    rules = _preset(name)
    if target_score is not None:
        if not _is_int(target_score) or not 1 <= target_score <= MAX_RULES_INT:
            raise ValueError(f"target_score must be an integer in 1..{MAX_RULES_INT}, got {shown(target_score)}")
        rules = rules.replace(target_score=target_score)
    return rules


def game_settings(
    rules: Any, bots: Any, seat: Any = 0, seed: Any = None, target_score: Any = None, menu: BotMenu = DEFAULT_MENU
) -> dict[str, Any]:
    """The checked settings of a new game (``seed`` None: a random one), its bots from ``menu``; ValueError naming a
    bad field."""
    table_rules = preset_rules(rules, target_score)
    n = table_rules.n_players
    if not _is_int(seat) or not 0 <= seat < n:
        raise ValueError(f"seat must be an integer in 0..{n - 1} ({table_rules.name} has {n} seats), got {shown(seat)}")
    if isinstance(bots, str) or bots is None:
        bots = [menu.default if bots is None else bots] * (n - 1)
    if not isinstance(bots, list) or len(bots) != n - 1:
        raise ValueError(
            f"bots must be one bot name or a list of {n - 1} (one per other seat, in seat order), got {shown(bots)}"
        )
    for k, spec in enumerate(bots):
        menu.check(spec, f"bots[{k}]")
    if seed is None:
        seed = secrets.randbits(63)
    elif not _is_int(seed) or not 0 <= seed <= MAX_SEED:
        raise ValueError(f"seed must be null or an integer in 0..2**64 - 1, got {shown(seed)}")
    return {"rules": rules, "target_score": target_score, "bots": list(bots), "seat": seat, "seed": seed}


class Game:
    """One match: the table, the human's seat, a bot in every other seat, the finished hands' records."""

    def __init__(
        self, game_id: str, settings: dict[str, Any], log: list[int] | None = None, menu: BotMenu = DEFAULT_MENU
    ) -> None:
        """A game of checked ``settings`` (``game_settings``), its bots from ``menu``; with ``log``, rebuilt from its
        decisions."""
        self.id = game_id
        self.menu = menu
        self.settings = settings
        rules = preset_rules(settings["rules"], settings["target_score"])
        seat, seed = settings["seat"], settings["seed"]
        self.engine = SpadesEngine(rules)
        self.seat = seat
        self.seed = seed
        n = self.engine.n_players
        self.bot_specs: list[str | None] = list(settings["bots"])
        self.bot_specs.insert(seat, None)
        self.heavy = is_heavy(self.bot_specs)
        """Its bots compute for long (a search, a network): its requests run in the heavy pool."""
        self.bots: list[Agent | None] = [
            None if spec is None else menu.build(spec, self.engine, _seed(seed, k), f"bot of seat {k}")
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
        self.log: list[int] = []
        """Every decision's action id in order, ``NEXT`` where the next hand was dealt (``storage``)."""
        if log is None:
            self._advance()
        else:
            self._restore(log)

    def _restore(self, log: list[int]) -> None:
        """Apply the logged decisions as they were taken (the events as the human last saw them)."""
        for entry in log:
            if entry == NEXT:
                self._deal_next()
                continue
            if self.finished is None and self.table.to_move == self.seat:
                self.events = []
            self._apply(entry)

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

    def client_records(self) -> list[dict[str, Any]]:
        """The finished hands' records as a client may have them: whole, live match or over. A record names its
        hand by its ``hand_key``, which deals no other hand, never by the match key (which deals every hand of
        the match: with it every hidden card would follow), and lists its own draws, so it replays on its own."""
        return list(self.records)

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
            raise ValueError(f"illegal action {shown(action)}; legal actions: {named}")
        self.events = []
        self._apply(int(action))
        self._advance()

    def next_hand(self) -> None:
        """Deal on after a hand's end; ValueError unless the game is waiting for it."""
        if self.over:
            raise ValueError("the match is over: there is no next hand")
        if self.finished is None:
            raise ValueError("the hand is not over yet: there is no next hand to deal")
        self._deal_next()
        self._advance()

    def _deal_next(self) -> None:
        self.finished = None
        self.events = []
        self.table.new_hand()
        self.log.append(NEXT)

    def _apply(self, action: int) -> None:
        step = self.table.step(action)
        self.decisions += 1
        self.log.append(int(action))
        self.events.append(event_entry(self.engine, step, self.seat))
        if step.finished is not None:
            self.finished = step.finished
            self.records.append(records.hand_records(self.engine, step.finished)[0])

    def _advance(self) -> None:
        """Bots play until the human must decide, a hand ends or the match is over."""
        while not self.over and self.finished is None and self.table.to_move != self.seat:
            seat = self.table.to_move
            agent = self.bots[seat]
            agent.reset(_seed(self.seed, seat, self.decisions))  # a function of the game and the decision
            self._apply(self.bot_action(agent))

    def context(self, agent: Agent) -> tuple[np.ndarray, DecisionContext]:
        """The legal mask (1, A) and ``agent``'s decision context for the seat to move (``decision_context``)."""
        state = self.table.state
        mask = self.engine.legal_action_mask(state)
        return mask, decision_context(agent, self.engine, state, np.array([0]), state.to_move[:1])

    def bot_action(self, agent: Agent) -> int:
        mask, ctx = self.context(agent)
        action = int(agent.act(self.observe(agent, ctx.state, ctx.games, ctx.seats), mask, ctx)[0])
        if not mask[0, action]:
            raise RuntimeError(f"bot {agent.name!r} chose the illegal action {action}")
        return action

    def hint_bot(self, spec: str) -> Agent:
        """The hint bot of ``spec``, re-seeded from this decision (the same hint every time it is asked)."""
        agent = self.hint_bots.pop(spec, None)
        seed = _seed(self.seed, 1000 + self.seat, self.decisions)
        if agent is None:
            agent = self.menu.build(spec, self.engine, seed, "hint bot")
        agent.reset(seed)
        self.hint_bots[spec] = agent
        while len(self.hint_bots) > MAX_HINT_BOTS:
            del self.hint_bots[next(iter(self.hint_bots))]
        return agent


def _seed(seed: int, seat: int, decision: int = 0) -> int:
    """A bot's seed from the game's seed, its seat and the number of the decision."""
    return int(np.random.SeedSequence([seed, seat, decision]).generate_state(1)[0])
