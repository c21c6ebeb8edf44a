"""Checks of output paths, made before a long run so that a bad path fails at once, not after the work."""

from __future__ import annotations

import os
from pathlib import Path


def check_output_file(path: str | Path, option: str) -> Path:
    """``path`` as a Path if a file can be written there (its folder exists and is writable), else ValueError.

    ``option`` names the setting in the message (e.g. ``--json``).
    """
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{option} {path}: is a folder; give a file path")
    folder = path.parent
    if not folder.exists():
        raise ValueError(f"{option} {path}: the folder {folder} does not exist; create it or give another path")
    if not folder.is_dir():
        raise ValueError(f"{option} {path}: {folder} is not a folder")
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise ValueError(f"{option} {path}: not writable")
    return path


def check_output_folder(path: str | Path, option: str) -> Path:
    """``path`` as a Path if it is a writable folder or one that can be created, else ValueError."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise ValueError(f"{option} {path}: exists and is not a folder; give a folder path")
    existing = path
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(f"{option} {path}: {existing} is not a folder")
    if not os.access(existing, os.W_OK):
        raise ValueError(f"{option} {path}: {existing} is not writable")
    return path
