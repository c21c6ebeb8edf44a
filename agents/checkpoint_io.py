"""Reading checkpoints: the one loader and format check shared by ``agents.neural`` and ``train``.

A checkpoint is one ``torch.save`` file holding a dict of plain data only: tensors,
numbers, strings, ``None``, lists, tuples and dicts (``train/runs/checkpoint.py`` lists the
keys). It is read with ``torch.load(weights_only=True)``, which never runs code from
the file: a file whose pickle names any other Python object is refused, not executed.
Every way a file can be wrong (missing, empty, truncated, text, another torch file, a
dict of other keys, another format) gives one ``CheckpointError`` line naming the file,
what it is and what was expected. A checkpoint's network plays only rules whose observations
and actions mean what they meant in training (``observation_differences``).
"""

from __future__ import annotations

import dataclasses
import pickle
import zipfile
from pathlib import Path
from typing import Any

import torch

from spades_env.engine.actions import ActionLayout
from spades_env.rules import BaseRules

#: Layout of the checkpoint dict. 2: the run state of full checkpoints is plain data (tensors,
#: dicts of ints); 1: it held NumPy arrays and a pickled environment (only slim files of
#: format 1, whose layout is the same as format 2's, can be read with ``weights_only``).
CHECKPOINT_FORMAT = 2
READABLE_FORMATS = (1, 2)
#: Keys every checkpoint, full or slim, holds: what playing needs.
REQUIRED_KEYS = ("format", "rules", "obs_version", "config", "model_hparams", "model", "global_step")
EXPECTED = f"a spades_env checkpoint (a torch.save dict with keys {', '.join(REQUIRED_KEYS)})"


class CheckpointError(ValueError):
    """A file that is not a readable spades_env checkpoint."""


def read_checkpoint(path: str | Path, map_location: str | torch.device = "cpu") -> dict[str, Any]:
    """Load and format-check a checkpoint (full or slim) without running any code from it."""
    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"checkpoint {path} does not exist")
    if not path.is_file():
        raise CheckpointError(f"checkpoint {path} is not a file; expected {EXPECTED}")
    if path.stat().st_size == 0:
        raise CheckpointError(f"checkpoint {path} is an empty file (0 bytes); expected {EXPECTED}")
    try:
        data = torch.load(path, map_location=map_location, weights_only=True)
    except pickle.UnpicklingError as error:
        raise CheckpointError(f"checkpoint {path}: {_unpickling_reason(str(error))}; expected {EXPECTED}") from None
    except Exception as error:  # torch and pickle raise many types for a file that is not theirs
        raise CheckpointError(f"checkpoint {path}: {_unreadable_reason(path, error)}; expected {EXPECTED}") from None
    check_format(data, path)
    return data


def check_format(data: Any, path: str | Path) -> None:
    """Raise ``CheckpointError`` unless ``data`` is a checkpoint dict of a readable format."""
    if not isinstance(data, dict):
        raise CheckpointError(f"checkpoint {path} holds a {type(data).__name__}, not a dict; expected {EXPECTED}")
    missing = [k for k in REQUIRED_KEYS if k not in data]
    if missing:
        keys = ", ".join(map(str, list(data)[:8])) + (", ..." if len(data) > 8 else "")
        raise CheckpointError(f"checkpoint {path} is a dict of keys [{keys}] lacking {missing}; expected {EXPECTED}")
    if data["format"] not in READABLE_FORMATS:
        raise CheckpointError(
            f"checkpoint {path} has format {data['format']!r}; this code reads formats {list(READABLE_FORMATS)}"
        )
    if not isinstance(data["model"], dict) or not all(isinstance(v, torch.Tensor) for v in data["model"].values()):
        raise CheckpointError(f"checkpoint {path}: 'model' is not a dict of tensors (a network state_dict)")
    if not isinstance(data["model_hparams"], dict) or not isinstance(data["rules"], dict):
        raise CheckpointError(f"checkpoint {path}: 'model_hparams' and 'rules' must be dicts")


def _unpickling_reason(message: str) -> str:
    """One line from torch's multi-line ``weights_only`` refusal."""
    for line in message.splitlines():
        line = line.strip()
        if "Unsupported global" in line or "Unsupported operand" in line:
            detail = line.split("error: ", 1)[-1].split(" was not an allowed global")[0]
            if "numpy" in detail:
                return (
                    f"refused: it holds NumPy objects ({detail}); checkpoints hold tensors and plain data only "
                    f"(a full checkpoint of format 1 stored NumPy arrays and cannot be loaded safely)"
                )
            return f"refused: it holds Python objects other than tensors and plain data ({detail}), code is not run"
    return f"not a torch checkpoint ({message.splitlines()[0] if message else 'unpickling failed'})"


def _unreadable_reason(path: Path, error: Exception) -> str:
    """What a file that torch cannot open looks like."""
    with path.open("rb") as f:
        head = f.read(512)
    if head.startswith(b"PK\x03\x04") or zipfile.is_zipfile(path):
        return f"a truncated or damaged torch file ({path.stat().st_size} bytes)"
    try:
        head.decode("utf-8")
        return "a text file, not a torch checkpoint"
    except UnicodeDecodeError:
        pass
    first = str(error).splitlines()[0] if str(error) else type(error).__name__
    return f"not a torch checkpoint ({type(error).__name__}: {first[:120]})"


#: Rules fields the observation encoding depends on (``spades_env.observation``,
#: ``spades_env.games.hearts.observation``): which encoder and blocks (game, face_up_deal,
#: bemo), the seat, side and card counts (n_players, partnership, jokers) and the
#: normalisation of scores and bags (target_score, bag_limit). The action layout is
#: compared as well (``ActionLayout.for_rules``: bids and the special actions). Fields the game's
#: rules lack (Hearts has no ``jokers``, ``bemo``, ...) are not compared: another game differs as a whole.
OBSERVED_RULES = ("game", "n_players", "partnership", "jokers", "face_up_deal", "bemo", "target_score", "bag_limit")


def observation_differences(trained: BaseRules, table: BaseRules) -> list[str]:
    """Why a network trained on ``trained`` would misread ``table``: ``field a vs b`` items (empty: it may play).
    Another game is one difference (its rules have other fields)."""
    if trained.game != table.game:
        return [f"game {trained.game!r} vs {table.game!r}"]
    fields = {f.name for f in dataclasses.fields(trained)}
    diffs = [
        f"{f} {getattr(trained, f)!r} vs {getattr(table, f)!r}"
        for f in OBSERVED_RULES
        if f in fields and getattr(trained, f) != getattr(table, f)
    ]
    if not diffs:
        a, b = ActionLayout.for_rules(trained), ActionLayout.for_rules(table)
        if a != b:
            diffs.append(f"actions (bids 0-{a.max_bid}, {list(a.specials)} vs 0-{b.max_bid}, {list(b.specials)})")
    return diffs
