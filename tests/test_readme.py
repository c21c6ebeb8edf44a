"""The README's quickstart code runs as written."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
RUNNABLE = [b for b in BLOCKS if "policy(" not in b]  # the vector sketch needs a policy


def test_readme_has_quickstarts_for_each_interface():
    text = "\n".join(BLOCKS)
    for name in ("SpadesEngine", "spades_env.env(", "gymnasium.make", "VectorSpades"):
        assert name in text


@pytest.mark.parametrize("block", RUNNABLE, ids=[f"block{i}" for i in range(len(RUNNABLE))])
def test_readme_block_runs(block):
    exec(compile(block, str(README), "exec"), {})
