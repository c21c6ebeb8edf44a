"""The store of the web table's games: every game in SQLite (``storage``), the games in use in memory.

A game in memory is rebuilt from its settings and decisions when it is asked for after a restart or after it left
memory (``sessions.Game``). Memory holds at most ``max_hot`` games, the least recently used leaving first (never
one a request is using); the store holds at most ``max_games``: a game unused for ``idle_seconds`` is deleted, and
beyond the cap a new game is refused (``StoreFull``) until one expires.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from spades_env.rules_check import shown
from train.serve.bots import BotMenu, is_heavy
from train.serve.sessions import DEFAULT_MENU, Game, GameNotFound, game_settings
from train.serve.storage import Storage

#: Games kept in the database (live and finished) before new ones are refused.
MAX_GAMES = 10_000
#: Games kept in memory (the others are rebuilt from the database when asked for).
MAX_HOT_GAMES = 1000
#: A game unused this long is deleted (seconds).
IDLE_SECONDS = 7 * 24 * 3600
#: A game's last use is written to the database at most this often (seconds), besides each decision.
TOUCH_SECONDS = 60
#: The longest game id looked up (ids are 12 characters).
MAX_ID_CHARS = 32


class StoreFull(RuntimeError):
    """The store holds ``max_games`` games that are all in use (HTTP 503)."""


class GameStore:
    """The games of a server, by id; thread-safe (one lock for the index, one per game)."""

    def __init__(
        self,
        db: str | Path = ":memory:",
        max_games: int = MAX_GAMES,
        max_hot: int = MAX_HOT_GAMES,
        idle_seconds: float = IDLE_SECONDS,
        bots: BotMenu = DEFAULT_MENU,
    ) -> None:
        self.storage = Storage(db)
        self.bots = bots
        """The bots its games may hold (``spades serve --bots``)."""
        self.games: OrderedDict[str, Game] = OrderedDict()
        """The games in memory, least recently used first."""
        self.users: dict[str, int] = {}
        """Requests using each game in memory now (never evicted while above 0)."""
        self.max_games, self.max_hot, self.idle_seconds = max_games, max_hot, idle_seconds
        self.lock = threading.Lock()
        self._loading: dict[str, threading.Lock] = {}
        self._last_expiry = 0.0

    # ------------------------------------------------------------ games
    def create(self, rules: Any, bots: Any, seat: Any = 0, seed: Any = None, target_score: Any = None) -> Game:
        """A new game (the bots have played up to the human's first decision); ValueError on bad input."""
        settings = game_settings(rules, bots, seat, seed, target_score, self.bots)
        if self.storage.count() >= self.max_games:
            self.expire(force=True)
            if self.storage.count() >= self.max_games:
                raise StoreFull(
                    f"the server holds its maximum of {self.max_games} games; one is deleted after "
                    f"{self.idle_seconds / 3600:g} hours unused: try again later"
                )
        game = Game(secrets.token_urlsafe(9), settings, menu=self.bots)
        self.storage.add(game.id, settings)
        self.save(game)
        with self.lock:
            self.games[game.id] = game
            self._evict()
        return game

    @contextmanager
    def use(self, game_id: str) -> Iterator[Game]:
        """The game of ``game_id`` (rebuilt if it is not in memory), kept in memory while in use."""
        game = self._get(game_id)
        now = time.time()
        if now - getattr(game, "touched", 0.0) > TOUCH_SECONDS:  # a game only looked at is in use too
            game.touched = now
            self.storage.touch(game.id)
        try:
            yield game
        finally:
            with self.lock:
                self.users[game.id] -= 1
                if not self.users[game.id]:
                    del self.users[game.id]
                self._evict()

    def get(self, game_id: str) -> Game:
        """The game of ``game_id`` (rebuilt if it is not in memory); GameNotFound if there is none."""
        with self.use(game_id) as game:
            return game

    def is_heavy(self, game_id: str) -> bool:
        """Whether the game's bots compute for long (from memory, else from its stored settings)."""
        with self.lock:
            game = self.games.get(game_id)
        if game is not None:
            return game.heavy
        settings = self.storage.settings(game_id) if isinstance(game_id, str) and len(game_id) <= MAX_ID_CHARS else None
        return settings is not None and is_heavy(settings.get("bots", []))

    def save(self, game: Game) -> None:
        """Store the decisions the game took since it was last saved (call with the game's lock held)."""
        saved = getattr(game, "saved", 0)
        if len(game.log) > saved:
            self.storage.append(game.id, saved, game.log[saved:])
            game.saved = len(game.log)

    def _get(self, game_id: str) -> Game:
        if not isinstance(game_id, str) or len(game_id) > MAX_ID_CHARS:
            raise GameNotFound(f"no game with id {shown(game_id)}")
        with self.lock:
            game = self.games.get(game_id)
            if game is not None:
                self.games.move_to_end(game_id)
                self.users[game_id] = self.users.get(game_id, 0) + 1
                return game
            loading = self._loading.setdefault(game_id, threading.Lock())
        with loading:  # one rebuild of a game at a time; others wait for it
            with self.lock:
                game = self.games.get(game_id)
                if game is not None:
                    self.users[game_id] = self.users.get(game_id, 0) + 1
                    return game
            try:
                game = self._rebuild(game_id)
            finally:
                with self.lock:
                    self._loading.pop(game_id, None)
            with self.lock:
                self.games[game_id] = game
                self.users[game_id] = self.users.get(game_id, 0) + 1
        return game

    def _rebuild(self, game_id: str) -> Game:
        stored = self.storage.load(game_id)
        if stored is None:
            raise GameNotFound(
                f"no game with id {shown(game_id)} (never created, or deleted after "
                f"{self.idle_seconds / 3600:g} hours unused)"
            )
        settings, log = stored
        game = Game(game_id, settings, log, self.bots)
        game.saved = len(log)
        return game

    def _evict(self) -> None:
        """Drop the least recently used games not in use from memory beyond ``max_hot`` (lock held)."""
        if len(self.games) <= self.max_hot:
            return
        for game_id in list(self.games):
            if len(self.games) <= self.max_hot:
                break
            if game_id not in self.users:
                del self.games[game_id]

    def expire(self, force: bool = False) -> None:
        """Delete the games unused for ``idle_seconds`` (at most once a minute unless ``force``)."""
        now = time.time()
        if not force and now - self._last_expiry < 60:
            return
        self._last_expiry = now
        gone = self.storage.expire(self.idle_seconds)
        with self.lock:
            for game_id in gone:
                if game_id not in self.users:
                    self.games.pop(game_id, None)

    def close(self) -> None:
        self.storage.close()
