"""Replays for the browser: hand records as full-information frames, tournament logs as their results.

A hand record (``spades_env.engine.records``) is checked with ``records.verify`` and
played again decision by decision; a frame (``views.frame``) is taken after the deal and
after every decision, every hand face up. A tournament JSONL log holds each game's
results (points, contracts, bags...); played with ``spades tournament --records`` it holds
every hand's record too, and its games replay frame by frame like records (without, they
come with no frames). The log's report is ``train.evaluation.tournament_report.summarize``.

Nothing in an upload makes the server read a file: the rules of a record are inline (a mapping), those of
a log's header a preset name; a ``path`` is read only under the folder the server was started with
(``spades serve --replay-dir``), resolved and confined to it. Errors show at most a short prefix of a value.
"""

from __future__ import annotations

import json
import os
import stat
import warnings
from pathlib import Path
from typing import Any

from spades_env.engine import records
from spades_env.rules import list_presets
from spades_env.rules_check import shown
from train.evaluation.tournament import TournamentConfig
from train.evaluation.tournament_log import TournamentLogWarning, parse_game
from train.evaluation.tournament_report import summarize
from train.serve.table import Table
from train.serve.views import finished_breakdown, frame

#: Largest replay file read from the replay folder.
MAX_FILE_BYTES = 8 * 2**20
#: Most hand records one replay plays again (each is one frame per decision, about 100 KiB of JSON).
MAX_REPLAY_HANDS = 200
#: Most game lines of a tournament log read.
MAX_LOG_GAMES = 20_000
#: The longest ``path`` read.
MAX_PATH_CHARS = 255
REPLAY_SUFFIXES = (".json", ".jsonl")
KEYLESS = "these rules draw from the key; replay the record with its key, given once the match is over"
TOURNAMENT_NOTE = (
    "a tournament log holds each game's results, not its cards, unless it was played with --records: "
    "the games without records have no frames to step through"
)


def verify_record(record: dict[str, Any]) -> None:
    """``records.verify``; a version 1 record without its ``key`` (the web table gave none while the match went on:
    version 1 named a hand by the match key) is played again with key 0 and must agree in every other field: it
    replays where the key decides nothing the record lists (the two-player exchange draws, a face-up deal's cards
    are drawn from the key). A version 2 record needs no key: it lists its draws."""
    if not (isinstance(record, dict) and record.get("version") == 1 and "key" not in record):
        records.verify(record)
        return
    try:
        again = records.replay(record)
    except ValueError as err:
        raise records.RecordError(f"{err} (replayed without the record's key: {KEYLESS})") from None
    again.pop("key")
    unknown = sorted(set(record) - set(again))
    if unknown:
        raise records.RecordError(f"record field(s) {shown(unknown)} are not fields of a hand record")
    for name, value in again.items():
        if name not in record:
            raise records.RecordError(f"record field {name!r} is missing")
        if json.dumps(record[name], sort_keys=True) != json.dumps(value, sort_keys=True):
            raise records.RecordError(f"record field {name!r} differs on replay without the record's key: {KEYLESS}")


def record_game(record: Any, title: str) -> dict[str, Any]:
    """``{"title", "frames", "result"}`` of one hand record; ``records.RecordError`` (a ValueError) if invalid."""
    if not isinstance(record, dict):
        raise ValueError(f"{title}: a hand record is a JSON object, got {type(record).__name__}")
    if not isinstance(record.get("rules"), dict):
        raise ValueError(f"{title}: record field 'rules' must be the rules inline (a mapping of rules fields)")
    try:
        verify_record(record)
    except ValueError as err:
        raise ValueError(f"{title}: {err}") from None
    hand = records.HandReplay(record)  # as ``records.replay`` plays it: with the draws the record lists
    engine = hand.engine
    table = Table(engine, hand.state, hand.step)
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
    name = name[:40] if isinstance(name, str) else "?"
    number = record.get("hand_number", k) if isinstance(record, dict) else k
    ok = isinstance(number, int) and not isinstance(number, bool) and 0 <= number < 10**6
    return f"hand {number + 1 if ok else k + 1} ({name})"


def replay_hands(hands: Any) -> dict[str, Any]:
    """The replay of a list of hand records."""
    if not isinstance(hands, list) or not hands:
        raise ValueError("hands must be a non-empty list of hand records")
    if len(hands) > MAX_REPLAY_HANDS:
        raise ValueError(f"hands: at most {MAX_REPLAY_HANDS} hand records are replayed at once, got {len(hands)}")
    games = [record_game(r, _title(r, k)) for k, r in enumerate(hands)]
    return {"kind": "record", "games": games, "report": None, "note": None}


def replay_tournament(text: str) -> dict[str, Any]:
    """The replay of a tournament JSONL log: per-game results (and frames, where it holds records) and the report."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise ValueError("jsonl is empty: give a tournament log (a header line, then one line per game)")
    if len(lines) > MAX_LOG_GAMES + 1:
        raise ValueError(f"jsonl: at most {MAX_LOG_GAMES} game lines are read, got {len(lines) - 1}")
    try:
        header = json.loads(lines[0])
    except json.JSONDecodeError:
        raise ValueError("jsonl line 1 is not JSON: a tournament log starts with its header line") from None
    if not isinstance(header, dict) or header.get("type") != "header":
        return _hand_lines(lines)
    config = _log_config(header.get("config"))
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
    if sum(len(r.get("records") or []) for r in games) > MAX_REPLAY_HANDS:
        raise ValueError(f"jsonl: at most {MAX_REPLAY_HANDS} hand records are replayed at once")
    out = [tournament_game(r) for r in games]
    note = None if all(g["frames"] for g in out) else TOURNAMENT_NOTE
    if skipped:
        note = (note + "; " if note else "") + f"skipped line(s) {skipped[:10]}: not game records"
    return {"kind": "tournament", "games": out, "report": report, "note": note}


def _log_config(config: Any) -> TournamentConfig:
    """The config of a log's header: its rules a preset name (a file it names is not read), its bots a list."""
    if not isinstance(config, dict):
        raise ValueError("jsonl line 1: the tournament header has no 'config' mapping")
    presets = list_presets()
    if config.get("rules", "partnership") not in presets:
        raise ValueError(
            f"jsonl line 1: config.rules must be a preset name ({', '.join(presets)}), got "
            f"{shown(config.get('rules'))} (a rules file named in a log is not read)"
        )
    bots = config.get("bots")
    if not isinstance(bots, list) or not all(isinstance(b, str) and len(b) <= 200 for b in bots):
        raise ValueError(f"jsonl line 1: config.bots must be a list of bot specs, got {shown(bots)}")
    try:
        return TournamentConfig(**{**config, "bots": tuple(bots)})
    except TypeError as err:
        raise ValueError(f"jsonl line 1: not a tournament config ({shown(str(err))})") from None


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


def replay_file(folder: Path | None, path: Any) -> Path:
    """The file ``path`` names inside ``folder`` (relative to it, no ``..``, no link out of it), a regular
    ``.json``/``.jsonl`` file; ValueError naming the field (and never whether a file exists outside)."""
    if folder is None:
        raise ValueError(
            "path: this server reads no replay file (start it with --replay-dir DIR to replay files there)"
        )
    if not isinstance(path, str) or not path.strip() or "\0" in path or len(path) > MAX_PATH_CHARS:
        raise ValueError(
            f"path must name a file inside the replay folder in at most {MAX_PATH_CHARS} characters, got {shown(path)}"
        )
    name = Path(path)
    if name.is_absolute() or ".." in name.parts:
        raise ValueError(f"path must be relative to the replay folder, without '..', got {shown(path)}")
    if name.suffix not in REPLAY_SUFFIXES:
        raise ValueError(f"path {shown(path)}: only .json (records) and .jsonl (tournament logs) files are read")
    try:
        base = folder.resolve()
        file = (base / name).resolve()
        if not file.is_relative_to(base):
            raise ValueError(f"path {shown(path)} leads out of the replay folder")
        if not file.is_file():
            raise ValueError(f"path {shown(path)}: no such file in the replay folder")
    except OSError as err:
        raise ValueError(f"path {shown(path)}: cannot be read ({err.strerror or 'error'})") from None
    return file


def read_capped(file: Path) -> str:
    """The text of a regular file of at most ``MAX_FILE_BYTES`` (opened without following a last link)."""
    try:
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as err:
        raise ValueError(f"path: the file cannot be read ({err.strerror or 'error'})") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("path: not a regular file")
        if info.st_size > MAX_FILE_BYTES:
            raise ValueError(f"path: the file is larger than {MAX_FILE_BYTES >> 20} MiB")
        raw = handle.read(MAX_FILE_BYTES + 1)
    if len(raw) > MAX_FILE_BYTES:
        raise ValueError(f"path: the file is larger than {MAX_FILE_BYTES >> 20} MiB")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError("path: the file is not UTF-8 text") from None


def replay_path(folder: Path | None, path: Any) -> dict[str, Any]:
    """The replay of a ``.json`` (records) or ``.jsonl`` (tournament log or records) file in ``folder``."""
    file = replay_file(folder, path)
    text = read_capped(file)
    if file.suffix == ".jsonl":
        return replay_tournament(text)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"path {shown(path)}: not JSON ({err.msg}, line {err.lineno})") from None
    return replay_json(data)


def replay_request(body: Any, folder: Path | None = None) -> dict[str, Any]:
    """``POST /api/replay``: exactly one of ``record``, ``hands``, ``jsonl`` or ``path`` (a file in ``folder``)."""
    keys = ("record", "hands", "jsonl", "path")
    if not isinstance(body, dict):
        raise ValueError(f"the replay body is a JSON object with one of {list(keys)}")
    unknown = sorted(set(body) - set(keys))
    if unknown:
        raise ValueError(f"unknown replay field(s) {shown(unknown)}; fields: {list(keys)} (exactly one)")
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
    return replay_path(folder, value)
