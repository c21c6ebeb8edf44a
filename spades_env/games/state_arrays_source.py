"""The text of a game's ``state_arrays.py``, generated from its state's declarations (``generate_loops`` writes it).

A game's state is the core's fields (``core.state_fields.CORE_FIELDS``) then its own (the ``FIELDS`` of the
``state_fields.py`` in its folder; none without one). Inside compiled code the state is a ``StateArrays``
NamedTuple of those arrays in that order, bundled from the arrays passed one by one (``borrow``: one
``borrowed(state[k])`` per field, so that the bundle counts no reference) or from the views of a
``core.packed.state_table`` (``unpack_state``); ``DecisionArrays`` is the subset the legal actions and the random
draws read (the fields declared ``decision``). Numba's on-disk cache keys each compiled function on its file, and a
NamedTuple's type on its class: each game has its own file, generated so that it has one source to edit
(the declarations).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from spades_env.core.state_fields import CORE_FIELDS, StateField

#: The first line of every generated file.
HEADER = "# Generated from the game's state declarations by `python -m spades_env.games.generate_loops`; do not edit.\n"
#: The local name of each symbolic size in ``unpack_state`` (``core.state_fields.DIMENSIONS``).
_SIZE_NAMES = {"B": "b", "N": "n", "S": "s", "T": "t", "P": "p"}
_DTYPE_NAMES = {"int64": "np.int64", "uint64": "np.uint64", "bool": "np.bool_"}


def declared_fields(folder: Path) -> tuple[StateField, ...]:
    """The game's own fields: the ``FIELDS`` of ``folder/state_fields.py`` (loaded from its file, so that a folder
    not registered or importable is read too), or none without that file."""
    path = Path(folder) / "state_fields.py"
    if not path.is_file():
        return ()
    spec = importlib.util.spec_from_file_location(f"_state_fields_of_{Path(folder).name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return tuple(module.FIELDS)


def _dtype(field: StateField) -> str:
    import numpy as np

    return _DTYPE_NAMES[np.dtype(field.dtype).name]


def _tuple(items: list[str]) -> str:
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _unpack_sizes(fields: tuple[StateField, ...]) -> str:
    """The line of ``unpack_state`` that reads the sizes the fields use from the table's head (in ``DIMENSIONS``
    order: B, N, S, T, P at 0 to 4)."""
    used = [d for d in _SIZE_NAMES if any(d in f.dims for f in fields)]
    names = ", ".join(_SIZE_NAMES[d] for d in used)
    values = ", ".join(f"table[{list(_SIZE_NAMES).index(d)}]" for d in used)
    return f"    {names} = {values}"


def state_arrays_source(folder: Path) -> str:
    """The text of the ``state_arrays.py`` of the game in ``folder``."""
    game = Path(folder).name
    fields = (*CORE_FIELDS, *declared_fields(folder))
    decision = [k for k, f in enumerate(fields) if f.decision]
    lines = [
        HEADER + f'"""The state arrays of the game ``{game}`` inside compiled code, from its declarations: the core\'s',
        "fields (``core.state_fields.CORE_FIELDS``), then the game's own (``state_fields.FIELDS`` beside this file).",
        "",
        "``StateArrays``: the arrays as one value; ``borrow``: it bundled from the arrays passed one by one, as",
        "views that count no reference (``core.state_arrays.borrowed``); ``unpack_state``: the views of a",
        "``core.packed.state_table``; ``DecisionArrays``: the fields the legal actions and the random draws read.",
        "Generated (``spades_env.games.state_arrays_source``): edit the declarations and regenerate.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
        "from operator import attrgetter",
        "from typing import NamedTuple",
        "",
        "import numpy as np",
        "from numba import njit",
        "",
        "from spades_env.core.packed import view_at",
        "from spades_env.core.state_arrays import borrowed",
        "",
        "",
        "class StateArrays(NamedTuple):",
        f'    """The arrays of a {game} ``GameState`` (same names, shapes and meanings)."""',
        "",
        *(f"    {f.name}: np.ndarray" for f in fields),
        "",
        "",
        "#: The fields, in order (``GameState``'s).",
        "FIELDS = StateArrays._fields",
        "N_FIELDS = len(FIELDS)",
        "#: ``state_arrays(state)``: the state's arrays in ``FIELDS`` order (one C call).",
        "state_arrays = attrgetter(*FIELDS)",
        "#: Each field's dtype and dimensions after the batch (``core.state_fields.DIMENSIONS``), in ``FIELDS`` order.",
        "LAYOUT = (",
        *(f'    ({_dtype(f)}, "{"".join(f.dims[1:])}"),  # {f.name}' for f in fields),
        ")",
        "",
        "",
        "class DecisionArrays(NamedTuple):",
        '    """The arrays the legal actions and the random draws read (a ``StateArrays`` subset)."""',
        "",
        *(f"    {fields[k].name}: np.ndarray" for k in decision),
        "",
        "",
        "DECISION_FIELDS = DecisionArrays._fields",
        "#: ``decision_arrays(state)``: the state's arrays in ``DECISION_FIELDS`` order.",
        "decision_arrays = attrgetter(*DECISION_FIELDS)",
        *_compiled_source(fields, decision),
    ]
    return "\n".join(lines)


def _compiled_source(fields: tuple[StateField, ...], decision: list[int]) -> list[str]:
    """The lines of the compiled functions of a game's ``state_arrays.py``: ``borrow``, ``borrow_decision``,
    ``decision_view`` and ``unpack_state`` of the state's ``fields`` (``decision``: the indices of the decision
    fields)."""
    return [
        "",
        "",
        "@njit(cache=True)",
        "def borrow(state):",
        '    """``StateArrays`` of borrowed views of ``state`` (its arrays in ``FIELDS`` order)."""',
        "    return StateArrays(",
        *(f"        borrowed(state[{k}]),  # {f.name}" for k, f in enumerate(fields)),
        "    )",
        "",
        "",
        "@njit(cache=True)",
        "def borrow_decision(state):",
        '    """``DecisionArrays`` of borrowed views of ``state`` (its arrays in ``DECISION_FIELDS`` order)."""',
        "    return DecisionArrays(",
        *(f"        borrowed(state[{j}]),  # {fields[k].name}" for j, k in enumerate(decision)),
        "    )",
        "",
        "",
        '@njit(cache=True, inline="always")',
        "def decision_view(state):",
        '    """The ``DECISION_FIELDS`` arrays of a ``FIELDS``-ordered state tuple."""',
        f"    return {', '.join(f'state[{k}]' for k in decision)}",
        "",
        "",
        "@njit(cache=True)",
        "def unpack_state(table):",
        '    """The arrays a ``core.packed.state_table`` describes, as a plain tuple in ``FIELDS`` order (views of',
        "    the state's own memory, of the types of the arrays passed one by one; valid while the call that made them",
        '    runs)."""',
        _unpack_sizes(fields),
        "    return (",
        *(
            f"        view_at(table, {k}, {_dtype(f)}, {_tuple([_SIZE_NAMES[d] for d in f.dims])}),  # {f.name}"
            for k, f in enumerate(fields)
        ),
        "    )",
        "",
    ]
