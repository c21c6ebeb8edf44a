"""The tournament's append-only JSONL log: a header line (the config), then one line per finished game.

Loading a log never loses a game: a file that is not a tournament log is refused
untouched; only a last line cut short by a kill (no newline) is cut off. A complete line
that is not a valid game record, or a second record of a game already read (same pair,
board and seating), is skipped, and a ``TournamentLogWarning`` says which lines and why;
the games skipped are replayed and appended on resume.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from train.evaluation.tournament_chunks import TournamentConfig

LOG_VERSION = 1
#: The fields of a game record the report reads.
GAME_FIELDS = (
    "pair_index", "board", "seating", "sides", "hands", "points", "adjusted", "winner",
    "contracts", "sets", "bags", "nil_bids", "nil_made",
)  # fmt: skip


class TournamentLogWarning(UserWarning):
    """Lines of a tournament log were skipped on loading (duplicates, corrupt lines, a cut-short last line)."""


def game_key(rec: dict[str, Any]) -> tuple[int, int, int]:
    """The identity of a game: (pair index, board, seating)."""
    return rec["pair_index"], rec["board"], rec["seating"]


def parse_game(line: bytes | str, config: TournamentConfig) -> dict[str, Any] | None:
    """The game record on one log ``line``, or None if it is not a valid one of ``config``'s tournament."""
    try:
        rec = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(rec, dict) or rec.get("type") != "game" or any(k not in rec for k in GAME_FIELDS):
        return None
    key = game_key(rec)
    if not all(isinstance(x, int) and x >= 0 for x in key):
        return None
    if key[0] >= len(config.pairs) or key[1] >= config.boards:
        return None
    return rec


def unique_games(records: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], int]:
    """The records with each game's first record only, and how many repeats were left out."""
    seen: set[tuple[int, int, int]] = set()
    kept = []
    for rec in records:
        key = game_key(rec)
        if key not in seen:
            seen.add(key)
            kept.append(rec)
    return kept, len(records) - len(kept)


def _lines(numbers: list[int]) -> str:
    shown = ", ".join(map(str, numbers[:10]))
    return f"line{'s' if len(numbers) > 1 else ''} {shown}{', ...' if len(numbers) > 10 else ''}"


def read_header(path: Path) -> dict[str, Any] | None:
    """The header of the log at ``path``, or None if its first line is not a tournament log header."""
    with path.open("rb") as fh:
        first = fh.readline(1 << 20)
    try:
        header = json.loads(first)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(header, dict) or header.get("type") != "header" or not isinstance(header.get("config"), dict):
        return None
    return header


class TournamentLog:
    """Append-only JSONL log: a header line, then one line per finished game."""

    def __init__(self, path: str | Path | None, config: TournamentConfig, fresh: bool = False) -> None:
        self.path = Path(path) if path is not None else None
        self.config = config
        self.records: list[dict[str, Any]] = []
        self.done: set[tuple[int, int, int]] = set()
        if self.path is None:
            return
        if self.path.is_dir():
            raise ValueError(f"--log {self.path}: is a folder; give a file path for the JSONL game log")
        if self.path.exists() and self.path.stat().st_size > 0:
            header = read_header(self.path)
            if header is None:
                raise ValueError(
                    f"--log {self.path}: not a tournament log (its first line is no log header); "
                    "the file was left as it is: give another --log path"
                )
            if fresh:
                self.path.unlink()
            else:
                self._check_header(header)
                self._load()
                return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        header = {"type": "header", "version": LOG_VERSION, "config": config.to_dict()}
        self.path.write_text(json.dumps(header) + "\n")

    def _check_header(self, header: dict[str, Any]) -> None:
        if header.get("version") != LOG_VERSION:
            raise ValueError(f"--log {self.path}: log version {header.get('version')!r}, this code reads {LOG_VERSION}")
        if header["config"] != self.config.to_dict():
            raise ValueError(
                f"--log {self.path}: the log was written by a different tournament config "
                f"{header['config']}; this run is {self.config.to_dict()}. Use --fresh or another --log."
            )

    def _load(self) -> None:
        assert self.path is not None
        raw = self.path.read_bytes()
        complete = raw.rfind(b"\n") + 1  # bytes of complete lines
        corrupt, repeated = [], []
        for number, line in enumerate(raw[:complete].split(b"\n")[1:-1], start=2):
            rec = parse_game(line, self.config)
            if rec is None:
                corrupt.append(number)
            elif game_key(rec) in self.done:
                repeated.append(number)
            else:
                self._remember(rec)
        problems = []
        if complete < len(raw):  # a line cut short by a kill: drop it
            with self.path.open("r+b") as fh:
                fh.truncate(complete)
            problems.append(f"cut off an unfinished last line ({len(raw) - complete} bytes, a killed run's)")
        if corrupt:
            problems.append(f"skipped {_lines(corrupt)}: not a valid game record of this tournament")
        if repeated:
            problems.append(f"ignored {_lines(repeated)}: a game already in the log (same pair, board, seating)")
        if problems:
            message = f"--log {self.path}: " + "; ".join(problems)
            if corrupt or complete < len(raw):
                message += "; the games missing are replayed and appended"
            warnings.warn(message, TournamentLogWarning, stacklevel=3)

    def _remember(self, rec: dict[str, Any]) -> None:
        self.records.append(rec)
        self.done.add(game_key(rec))

    def append(self, recs: list[dict[str, Any]]) -> None:
        """Write finished games (and keep them in memory)."""
        new = []
        for r in recs:
            if game_key(r) not in self.done:
                self._remember(r)
                new.append(r)
        if self.path is not None and new:
            with self.path.open("a") as fh:
                fh.write("".join(json.dumps(r, separators=(",", ":")) + "\n" for r in new))
