"""Every game's ``loops.py`` is generated from the one template (``spades_env/games/loops_template.py.in``,
``spades_env.games.generate_loops``), and its ``state_arrays.py`` from its state's declarations (the core's and
its ``state_fields.py``'s, ``spades_env.games.state_arrays_source``): regenerated here and compared byte for byte,
so the loops have one copy to edit and the compiled state one source (the declarations)."""

from __future__ import annotations

from pathlib import Path

import pytest

from spades_env.core.state_fields import CORE_FIELDS
from spades_env.games import GAMES, generate_loops, part
from spades_env.games.generate_loops import HEADER, PLACEHOLDER, TEMPLATE, loops_source, registered_folders, stale
from spades_env.games.state_arrays_source import state_arrays_source


def test_every_registered_game_has_the_template_loops():
    folders = registered_folders()
    assert [folder.name for folder in folders] == list(GAMES)
    for game, folder in zip(GAMES, folders, strict=True):
        text = (folder / "loops.py").read_text()
        assert text == loops_source(folder), f"{game}: run python -m spades_env.games.generate_loops"
        assert text.startswith(HEADER) and f"The game ``{game}``" in text
        assert Path(part(game, "loops").__file__) == folder / "loops.py"
        arrays = (folder / "state_arrays.py").read_text()
        assert arrays == state_arrays_source(folder), f"{game}: run python -m spades_env.games.generate_loops"
        own = tuple(f.name for f in part(game, "state_fields").FIELDS)
        assert part(game, "loops").gs.FIELDS == tuple(f.name for f in CORE_FIELDS) + own
    assert stale(folders) == []
    assert generate_loops.main(["--check"]) == 0


def test_the_loops_differ_only_in_the_game_name():
    """What is game-specific is in ``phases`` and ``hand_score`` beside the loops, not in the loops."""
    spades, hearts = ((folder / "loops.py").read_text() for folder in registered_folders())
    assert spades.replace("``spades``", "``hearts``") == hearts
    assert PLACEHOLDER in TEMPLATE.read_text()


def _game_folder(root: Path, loops: str | None) -> Path:
    folder = root / "toy"
    folder.mkdir()
    for name in ("phases.py", "hand_score.py"):
        (folder / name).write_text("")
    if loops is not None:
        (folder / "loops.py").write_text(loops)
    return folder


@pytest.mark.parametrize("loops", [None, "edited by hand\n"])
def test_a_missing_or_edited_file_is_found_and_rewritten(tmp_path, capsys, loops):
    folder = _game_folder(tmp_path, loops)
    assert stale([folder]) == [folder / "loops.py", folder / "state_arrays.py"]
    assert generate_loops.main(["--check", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "toy/loops.py: not generated from its source" in out and "toy/state_arrays.py: not generated" in out
    assert generate_loops.main([str(folder)]) == 0
    assert (folder / "loops.py").read_text() == loops_source(folder)
    assert (folder / "state_arrays.py").read_text() == state_arrays_source(folder)
    assert "The game ``toy``" in loops_source(folder) and "class StateArrays(NamedTuple)" in state_arrays_source(folder)
    assert generate_loops.main(["--check", str(folder)]) == 0


def test_a_folder_that_is_not_a_game_is_refused(tmp_path, capsys):
    with pytest.raises(SystemExit):
        generate_loops.main([str(tmp_path)])
    err = capsys.readouterr().err
    assert "folders must be game folders (with phases.py and hand_score.py), got" in err
