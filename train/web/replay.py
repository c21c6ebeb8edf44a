"""Replays for the browser: hand records as full-information frames, tournament logs as their results.

A hand record (``spades_env.engine.records``) is checked with ``records.verify`` and
played again decision by decision; a frame (``views.frame``) is taken after the deal and
after every decision, every hand face up. A tournament JSONL log holds each game's
results (points, contracts, bags...); played with ``spades tournament --records`` it holds
every hand's record too, and its games replay frame by frame like records (without, they
come with no frames). The log's report is ``train.tournament_report.summarize``.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from spades_env import cards
from spades_env.engine import SpadesEngine, records
from spades_env.rules import Rules
from train.tournament import TournamentConfig
from train.tournament_log import TournamentLogWarning, parse_game
from train.tournament_report import summarize
from train.web.table import Table
from train.web.views import finished_breakdown, frame

#: Largest replay file read from a server-side path.
MAX_FILE_BYTES = 64 * 2**20
REPLAY_SUFFIXES = (".json", ".jsonl")
TOURNAMENT_NOTE = (
    "a tournament log holds each game's results, not its cards, unless it was played with --records: "
    "the games without records have no frames to step through"
)


def _start(engine: SpadesEngine, record: dict[str, Any]) -> Table:
    """A table at the start of the recorded hand (as ``records.replay`` starts it)."""
    state = engine._empty(1)
    start: dict[str, Any] = {
        "dealers": [record["dealer"]],
        "scores": [record["start_scores"]],
        "bags": [record["start_bags"]],
        "hand_numbers": [record["hand_number"]],
    }
    if engine.rules.two_player:
        start["piles"] = [[cards.parse_card(c) for c in record["pile"]]]
    else:
        start["deals"] = [[[cards.parse_card(c) for c in hand] for hand in record["hands"]]]
    engine.start_matches(state, np.array([0]), np.array([record["key"]], dtype=np.uint64), **start)
    return Table(engine, state)


def record_game(record: Any, title: str) -> dict[str, Any]:
    """``{"title", "frames", "result"}`` of one hand record; ``records.RecordError`` (a ValueError) if invalid."""
    if not isinstance(record, dict):
        raise ValueError(f"{title}: a hand record is a JSON object, got {type(record).__name__}")
    try:
        records.verify(record)
    except ValueError as err:
        raise ValueError(f"{title}: {err}") from None
    engine = SpadesEngine(Rules.from_dict(record["rules"]))
    table = _start(engine, record)
    frames = [frame(table, None, None)]
    for decision in record["actions"]:
        step = table.step(decision["action"])
        frames.append(frame(table, step, step.finished))
    result = finished_breakdown(engine, step.finished)  # the record's last decision ends its hand
    rules = engine.rules
    table_rules = {
        "name": rules.name,
        "game": rules.game,
        "n_players": rules.n_players,
        "partnership": rules.partnership,
    }
    return {"title": title, "rules": table_rules, "frames": frames, "result": result}


def _title(record: Any, k: int) -> str:
    rules = record.get("rules", {}) if isinstance(record, dict) else {}
    name = rules.get("name", "?") if isinstance(rules, dict) else "?"
    number = record.get("hand_number", k) if isinstance(record, dict) else k
    return f"hand {number + 1 if isinstance(number, int) else k + 1} ({name})"


def replay_hands(hands: Any) -> dict[str, Any]:
    """The replay of a list of hand records."""
    if not isinstance(hands, list) or not hands:
        raise ValueError("hands must be a non-empty list of hand records")
    games = [record_game(r, _title(r, k)) for k, r in enumerate(hands)]
    return {"kind": "record", "games": games, "report": None, "note": None}


def replay_tournament(text: str) -> dict[str, Any]:
    """The replay of a tournament JSONL log: per-game results (and frames, where it holds records) and the report."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise ValueError("jsonl is empty: give a tournament log (a header line, then one line per game)")
    try:
        header = json.loads(lines[0])
    except json.JSONDecodeError:
        raise ValueError("jsonl line 1 is not JSON: a tournament log starts with its header line") from None
    if not isinstance(header, dict) or header.get("type") != "header":
        return _hand_lines(lines)
    config_dict = header.get("config")
    if not isinstance(config_dict, dict):
        raise ValueError("jsonl line 1: the tournament header has no 'config' mapping")
    try:
        config = TournamentConfig(**{**config_dict, "bots": tuple(config_dict.get("bots", ()))})
    except TypeError as err:
        raise ValueError(f"jsonl line 1: not a tournament config ({err})") from None
    games, skipped = [], []
    for number, line in enumerate(lines[1:], start=2):
        rec = parse_game(line, config)
        if rec is None:
            skipped.append(number)
        else:
            games.append(rec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TournamentLogWarning)
        report = summarize(config, games)
    out = [tournament_game(r) for r in games]
    note = None if all(g["frames"] for g in out) else TOURNAMENT_NOTE
    if skipped:
        note = (note + "; " if note else "") + f"skipped line(s) {skipped[:10]}: not game records"
    return {"kind": "tournament", "games": out, "report": report, "note": note}


def tournament_game(rec: dict[str, Any]) -> dict[str, Any]:
    """One logged game: its results, and when the log holds its hands' records (``spades tournament
    --records``) the frames of every hand in turn, with the bots named in their seats."""
    pair = rec.get("pair", ["?", "?"])
    title = f"{pair[0]} vs {pair[1]}, board {rec['board']}, seating {rec['seating']}"
    hands = rec.get("records") or []
    if not hands:
        return {"title": title, "frames": [], "result": rec}
    played = [record_game(h, f"{title}, hand {k + 1}") for k, h in enumerate(hands)]
    rules = played[0]["rules"]
    bots = rec.get("seats") or [f"Seat {s}" for s in range(rules["n_players"])]
    seats = [{"seat": s, "name": str(bots[s]), "side": s % 2 if rules["partnership"] else s} for s in range(len(bots))]
    frames = [f for game in played for f in game["frames"]]
    return {"title": title, "rules": rules, "seats": seats, "frames": frames, "result": played[-1]["result"],
            "summary": rec}  # fmt: skip


def _hand_lines(lines: list[str]) -> dict[str, Any]:
    """JSONL of hand records, one per line."""
    hands = []
    for number, line in enumerate(lines, start=1):
        try:
            hands.append(json.loads(line))
        except json.JSONDecodeError:
            raise ValueError(f"jsonl line {number} is not JSON") from None
    return replay_hands(hands)


def replay_json(data: Any) -> dict[str, Any]:
    """The replay of parsed JSON: one hand record, ``{"hands": [...]}`` or a list of records."""
    if isinstance(data, list):
        return replay_hands(data)
    if isinstance(data, dict) and "hands" in data and "actions" not in data:
        return replay_hands(data["hands"])
    if isinstance(data, dict):
        return {"kind": "record", "games": [record_game(data, _title(data, 0))], "report": None, "note": None}
    raise ValueError(f"a replay is a hand record, a list of them or a tournament log, got {type(data).__name__}")


def replay_path(path: Any) -> dict[str, Any]:
    """The replay of a server-side ``.json`` (records) or ``.jsonl`` (tournament log or records) file."""
    if not isinstance(path, str) or not path.strip():
        raise ValueError(f"path must be the path of a .json or .jsonl file on the server, got {path!r}")
    file = Path(path).expanduser()
    if file.suffix not in REPLAY_SUFFIXES:
        raise ValueError(f"path {path!r}: only .json (records) and .jsonl (tournament logs) files are read")
    if not file.is_file():
        raise ValueError(f"path {path!r}: no such file")
    if file.stat().st_size > MAX_FILE_BYTES:
        raise ValueError(f"path {path!r}: larger than {MAX_FILE_BYTES >> 20} MiB")
    text = file.read_text(encoding="utf-8")
    if file.suffix == ".jsonl":
        return replay_tournament(text)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"path {path!r}: not JSON ({err.msg}, line {err.lineno})") from None
    return replay_json(data)


def replay_request(body: Any) -> dict[str, Any]:
    """``POST /api/replay``: exactly one of ``record``, ``hands``, ``jsonl`` or ``path``."""
    keys = ("record", "hands", "jsonl", "path")
    if not isinstance(body, dict):
        raise ValueError(f"the replay body is a JSON object with one of {list(keys)}")
    given = [k for k in keys if body.get(k) is not None]
    if len(given) != 1:
        raise ValueError(f"give exactly one of {list(keys)}, got {given or 'none'}")
    key = given[0]
    value = body[key]
    if key == "record":
        if not isinstance(value, dict):
            raise ValueError(f"record must be one hand record (a JSON object), got {type(value).__name__}")
        return {"kind": "record", "games": [record_game(value, _title(value, 0))], "report": None, "note": None}
    if key == "hands":
        return replay_hands(value)
    if key == "jsonl":
        if not isinstance(value, str):
            raise ValueError(f"jsonl must be the text of a tournament log, got {type(value).__name__}")
        return replay_tournament(value)
    return replay_path(value)
