"""``train`` shows its architecture: one subpackage per job (runs, distributed, evaluation, values, ppo,
expert_iteration, recipes, serve, cli), no module directly in ``train/``, each subpackage saying in its
``__init__`` what it holds and importing nothing there (the import circles are ``make lint``'s: pyproject.toml's
``acyclic_siblings`` contract, ``tests/project/test_layers.py``)."""

import ast
import subprocess
import sys
from pathlib import Path

from tests.paths import ROOT

TRAIN = ROOT / "train"


def _subpackages() -> list[Path]:
    return sorted(p for p in TRAIN.iterdir() if p.is_dir() and any(p.glob("*.py")))


def test_train_holds_subpackages_only():
    assert sorted(p.name for p in TRAIN.glob("*.py")) == ["__init__.py"]
    assert [p.name for p in _subpackages()] == sorted(
        ["runs", "distributed", "evaluation", "values", "ppo", "expert_iteration", "recipes", "serve", "cli"]
    )


def test_every_subpackage_says_what_it_holds_and_imports_nothing():
    for package in _subpackages():
        init = package / "__init__.py"
        assert init.exists(), f"{package.name}/ has modules but no __init__.py"
        tree = ast.parse(init.read_text())
        assert ast.get_docstring(tree), f"{init.relative_to(TRAIN.parent)} has no docstring"
        assert [type(node).__name__ for node in tree.body] == ["Expr"], f"{init.name} of {package.name} holds code"


def test_importing_every_subpackage_loads_no_heavy_package():
    """``import train.ppo`` and the rest cost nothing: torch, Ray and FastAPI come with the modules that use them."""
    names = ", ".join(f"train.{p.name}" for p in _subpackages())
    code = f"import sys, {names}\nprint(','.join(m for m in ('torch', 'ray', 'fastapi', 'typer') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "", f"importing the train subpackages pulled in: {out}"
