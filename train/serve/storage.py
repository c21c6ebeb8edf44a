"""The games of the web table in SQLite (Python's ``sqlite3``): each game's settings and its decisions in order.

A game is seeded, so its settings (preset, target score, bots, seat, seed) and the decisions taken (every action
id, and ``NEXT`` where the next hand was dealt) rebuild it exactly (``sessions.Game.restore``). ``Storage`` opens a
database file of its own (a new one, or one it wrote before: a file of anything else is refused, never
overwritten), or ``:memory:`` (the games last as long as the server). One connection behind a lock.
``spades serve`` keeps its games in ``default_db_path()`` unless told otherwise, so a restart resumes them.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

#: The log entry of ``next`` (action ids are >= 0).
NEXT = -1
SCHEMA = 1
SQLITE_MAGIC = b"SQLite format 3\x00"
TABLES = (
    "CREATE TABLE IF NOT EXISTS spades_web_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS games (id TEXT PRIMARY KEY, settings TEXT NOT NULL, created REAL NOT NULL, "
    "last_used REAL NOT NULL)",
    "CREATE TABLE IF NOT EXISTS actions (game_id TEXT NOT NULL, seq INTEGER NOT NULL, action INTEGER NOT NULL, "
    "PRIMARY KEY (game_id, seq)) WITHOUT ROWID",
)


def default_db_path() -> Path:
    """Where ``spades serve`` keeps its games by default: ``spades_env/web_games.sqlite`` in the user's state folder
    (``$XDG_STATE_HOME``, else ``~/.local/state``), the folder made if missing."""
    state = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    folder = Path(state) / "spades_env"
    folder.mkdir(parents=True, exist_ok=True)
    return folder / "web_games.sqlite"


class StorageError(ValueError):
    """The database path cannot hold the games (another kind of file, another database, unreadable)."""


def _check_path(path: Path) -> None:
    """Refuse a path that holds something other than an empty file or an SQLite database."""
    if not path.exists():
        if not path.parent.is_dir():
            raise StorageError(f"--db {str(path)!r}: the folder {str(path.parent)!r} does not exist")
        return
    if not path.is_file():
        raise StorageError(f"--db {str(path)!r} is not a file")
    with path.open("rb") as file:
        head = file.read(len(SQLITE_MAGIC))
    if head and head != SQLITE_MAGIC:
        raise StorageError(f"--db {str(path)!r} is a file but not an SQLite database: it is left as it is")


class Storage:
    """Settings and decisions of every game, by id."""

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        if self.path != ":memory:":
            _check_path(Path(self.path))
        try:
            self.db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
            tables = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as err:
            raise StorageError(f"--db {self.path!r}: not a readable SQLite database ({err})") from None
        if tables and "spades_web_meta" not in tables:
            self.db.close()
            raise StorageError(
                f"--db {self.path!r} is a database of something else ({len(tables)} tables): left as it is"
            )
        self.lock = threading.Lock()
        with self.lock:
            if self.path != ":memory:":
                self.db.execute("PRAGMA journal_mode = WAL")
                self.db.execute("PRAGMA synchronous = NORMAL")
            for statement in TABLES:
                self.db.execute(statement)
            self.db.execute("INSERT OR IGNORE INTO spades_web_meta VALUES ('schema', ?)", (str(SCHEMA),))

    def add(self, game_id: str, settings: dict[str, Any]) -> None:
        now = time.time()
        with self.lock:
            self.db.execute("INSERT INTO games VALUES (?, ?, ?, ?)", (game_id, json.dumps(settings), now, now))

    def append(self, game_id: str, start: int, actions: list[int]) -> None:
        """Store ``actions`` as the game's decisions ``start``, ``start + 1``, ... and mark it used now."""
        with self.lock:
            self.db.execute("BEGIN")
            self.db.executemany(
                "INSERT INTO actions VALUES (?, ?, ?)", [(game_id, start + k, a) for k, a in enumerate(actions)]
            )
            self.db.execute("UPDATE games SET last_used = ? WHERE id = ?", (time.time(), game_id))
            self.db.execute("COMMIT")

    def touch(self, game_id: str) -> None:
        with self.lock:
            self.db.execute("UPDATE games SET last_used = ? WHERE id = ?", (time.time(), game_id))

    def load(self, game_id: str) -> tuple[dict[str, Any], list[int]] | None:
        """The settings and decisions of a game, or None if there is no such game."""
        with self.lock:
            row = self.db.execute("SELECT settings FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                return None
            rows = self.db.execute("SELECT action FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)).fetchall()
        return json.loads(row[0]), [r[0] for r in rows]

    def settings(self, game_id: str) -> dict[str, Any] | None:
        with self.lock:
            row = self.db.execute("SELECT settings FROM games WHERE id = ?", (game_id,)).fetchone()
        return None if row is None else json.loads(row[0])

    def count(self) -> int:
        with self.lock:
            return self.db.execute("SELECT COUNT(*) FROM games").fetchone()[0]

    def expire(self, idle_seconds: float) -> list[str]:
        """Delete the games unused for ``idle_seconds``; their ids."""
        cutoff = time.time() - idle_seconds
        with self.lock:
            ids = [r[0] for r in self.db.execute("SELECT id FROM games WHERE last_used < ?", (cutoff,))]
            self.db.execute("BEGIN")
            self.db.executemany("DELETE FROM actions WHERE game_id = ?", [(i,) for i in ids])
            self.db.executemany("DELETE FROM games WHERE id = ?", [(i,) for i in ids])
            self.db.execute("COMMIT")
        return ids

    def close(self) -> None:
        with self.lock:
            self.db.close()
