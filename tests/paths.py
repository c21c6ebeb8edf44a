"""Where the tests find the repository and their own files.

The test files sit in folders that mirror the source tree, at different depths, so none computes the
repository's root from its own ``__file__``: each imports it from here.
"""

from pathlib import Path

#: The test folder (``tests/``): the shared helpers, ``golden/`` and ``toy_game/``.
TESTS = Path(__file__).resolve().parent
#: The repository's root (``pyproject.toml``, ``configs/``, ``checkpoints/``, ``docs/``, the packages).
ROOT = TESTS.parent
#: The golden files the tests compare against (``tests/golden/``).
GOLDEN = TESTS / "golden"
