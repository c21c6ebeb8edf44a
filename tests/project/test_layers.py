"""The import layering holds (``make lint`` runs the same check): train above agents above spades_env, inside
spades_env envs above the engine above the games above core, inside train each job above the ones it builds on,
and no import circle (the contracts are in
pyproject.toml's ``[tool.importlinter]``)."""

import subprocess
import sys
from pathlib import Path

from tests.paths import ROOT


def test_import_contracts_are_kept():
    lint_imports = Path(sys.executable).with_name("lint-imports")
    assert lint_imports.exists(), f"lint-imports is missing beside {sys.executable}: pip install -e '.[dev]'"
    done = subprocess.run([str(lint_imports), "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-1000:]
    contracts = (ROOT / "pyproject.toml").read_text().count("[[tool.importlinter.contracts]]")
    assert contracts >= 4 and f"{contracts} kept, 0 broken" in done.stdout
