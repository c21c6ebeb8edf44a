"""Every game's ``loops.py``, generated from the one template of the batch loops
(``loops_template.py.in`` beside this file), and its ``state_arrays.py``, generated from its state's
declarations (``state_arrays_source``).

The loops are the same for every game: they call the game's ``phases`` and ``hand_score`` beside
them. Each game still has a file of its own because Numba's on-disk cache keys a compiled function
on its file, and a loop that calls a game's functions is compiled for that game. The generated
file is the template with the game's folder name written in and a header saying so;
``tests/spades_env/games/test_generated_loops.py`` regenerates each and compares them byte for byte.
Rewriting a game's ``state_arrays.py`` touches its ``loops.py`` too: Numba's cache of the loops keys
on their own file only.

Run ``python -m spades_env.games.generate_loops`` after editing the template or a game's ``state_fields.py``
(it writes the files
of every registered game, ``spades_env.games.GAMES``, and of any game folder named on the command
line); ``--check`` writes nothing and fails naming each file that differs.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path

from spades_env.games import GAMES
from spades_env.games.state_arrays_source import state_arrays_source

#: The one template of every game's loops.
TEMPLATE = Path(__file__).with_name("loops_template.py.in")
#: Where the game's folder name goes in the template.
PLACEHOLDER = "{{game}}"
#: The first line of every generated file.
HEADER = (
    "# Generated from spades_env/games/loops_template.py.in by `python -m spades_env.games.generate_loops`;"
    " do not edit.\n"
)


def loops_source(folder: Path) -> str:
    """The text of the ``loops.py`` of the game in ``folder``."""
    return HEADER + TEMPLATE.read_text().replace(PLACEHOLDER, Path(folder).name)


def registered_folders() -> list[Path]:
    """The folder of each registered game (where its ``loops`` module is), without importing it."""
    folders = []
    for game in GAMES.values():
        found = importlib.util.find_spec(game.loops)
        if found is None or found.origin is None:
            raise ValueError(f"a game's loops module must exist, got {game.loops!r}")
        folders.append(Path(found.origin).parent)
    return folders


#: Each generated file of a game folder, and the function of the folder that makes its text.
GENERATED: dict[str, Callable[[Path], str]] = {"loops.py": loops_source, "state_arrays.py": state_arrays_source}


def stale(folders: list[Path]) -> list[Path]:
    """The generated files (``GENERATED``) of ``folders`` that differ from their source's text (or are missing)."""
    paths = [Path(folder) / name for folder in folders for name in GENERATED]
    return [path for path in paths if not path.exists() or path.read_text() != GENERATED[path.name](path.parent)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", type=Path, help="more game folders (the registered games always)")
    parser.add_argument("--check", action="store_true", help="write nothing; fail if a file differs")
    args = parser.parse_args(argv)
    for folder in args.folders:
        if not (folder / "phases.py").is_file() or not (folder / "hand_score.py").is_file():
            parser.error(f"folders must be game folders (with phases.py and hand_score.py), got {str(folder)!r}")
    differing = stale([*registered_folders(), *args.folders])
    if args.check:
        for path in differing:
            print(f"{path}: not generated from its source; run python -m spades_env.games.generate_loops")
        return 1 if differing else 0
    for path in differing:
        path.write_text(GENERATED[path.name](path.parent))
        print(f"wrote {path}")
        if path.name == "state_arrays.py" and (path.parent / "loops.py").exists():
            (path.parent / "loops.py").touch()  # the loops' Numba cache is keyed on their file only
    return 0


if __name__ == "__main__":
    sys.exit(main())
