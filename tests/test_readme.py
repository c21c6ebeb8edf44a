"""Every ```python block of the README runs as written, in a fresh namespace."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)


def test_readme_has_quickstarts_for_each_interface():
    text = "\n".join(BLOCKS)
    for name in ("SpadesEngine", "spades_env.env(", "gymnasium.make", "VectorSpades"):
        assert name in text


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_block_runs(block):
    exec(compile(block, str(README), "exec"), {})


def readme_cli_lines() -> list[str]:
    """Every ``spades ...`` command line in the README's bash blocks (comments stripped)."""
    lines = []
    for block in re.findall(r"```bash\n(.*?)```", README.read_text(), re.S):
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if line.startswith("spades "):
                lines.append(line)
    return lines


@pytest.mark.parametrize("line", readme_cli_lines())
def test_readme_command_lines_parse(line):
    """Each command and option the README shows exists and takes the values shown (parsed, not run)."""
    import shlex

    import typer

    from train.cli import app

    group = typer.main.get_command(app)
    args = shlex.split(re.sub(r"<[^>]*>", "X", line))[1:]  # placeholders such as runs/<run> become runs/X
    with group.make_context("spades", args[:1]) as ctx:
        name, command, rest = group.resolve_command(ctx, args)
        command.make_context(name, rest, parent=ctx)
