"""Every ```python block of the README and of the docs site runs as written, in a fresh namespace, and every
``spades ...`` line of their bash blocks parses (``py`` blocks are the RL libraries' snippets, run by
tests/project/test_integrations.py)."""

import re
from pathlib import Path

import pytest

from tests.paths import ROOT

README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]


def blocks(language: str) -> list[tuple[Path, str]]:
    """``(page, code)`` of every fenced block of ``language`` in the README and the docs."""
    return [(page, code) for page in PAGES for code in re.findall(rf"```{language}\n(.*?)```", page.read_text(), re.S)]


PYTHON = blocks("python")


def block_id(page: Path, index: int) -> str:
    return f"{page.relative_to(ROOT)}:{index}"


def test_readme_has_quickstarts_for_each_interface():
    text = "\n".join(code for page, code in PYTHON if page == README)
    for name in ("SpadesEngine", "spades_env.env(", "gymnasium.make", "VectorSpades"):
        assert name in text
    assert text.index("spades_env.env(") < text.index("gymnasium.make") < text.index("VectorSpades")


def test_readme_is_short():
    assert len(README.read_text().splitlines()) <= 250


@pytest.mark.parametrize(("page", "block"), PYTHON, ids=[block_id(page, i) for i, (page, _) in enumerate(PYTHON)])
def test_python_block_runs(page, block):
    exec(compile(block, str(page), "exec"), {})


def cli_lines() -> list[str]:
    """Every ``spades ...`` command line in the README's and the docs' bash blocks (comments stripped)."""
    lines = []
    for _, block in blocks("bash"):
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if line.startswith("spades "):
                lines.append(line)
    return lines


def test_pages_show_command_lines():
    assert len(cli_lines()) >= 20


@pytest.mark.parametrize("line", cli_lines())
def test_command_lines_parse(line):
    """Each command and option the README and the docs show exists and takes the values shown (parsed, not run)."""
    import shlex

    import typer

    from train.cli.app import app

    group = typer.main.get_command(app)
    args = shlex.split(re.sub(r"<[^>]*>", "X", line))[1:]  # placeholders such as runs/<run> become runs/X
    with group.make_context("spades", args[:1]) as ctx:
        name, command, rest = group.resolve_command(ctx, args)
        command.make_context(name, rest, parent=ctx)
