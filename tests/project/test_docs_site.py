"""The docs site builds with ``mkdocs build --strict``: a broken link, a missing page, a bad snippet include or an
API reference entry that no longer resolves fails here (``make docs`` is the same build)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import ROOT


@pytest.mark.slow
def test_docs_site_builds_strictly(tmp_path):
    mkdocs = Path(sys.executable).with_name("mkdocs")
    if not mkdocs.exists():
        pytest.fail(f"mkdocs is not installed beside {sys.executable}: pip install -e '.[docs]' (make setup does)")
    site = tmp_path / "site"
    done = subprocess.run(
        [str(mkdocs), "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT, capture_output=True, text=True, timeout=600, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-4000:]
    for page in ("index.html", "rules/index.html", "environments/index.html", "reference/engine/index.html"):
        assert (site / page).is_file(), page
    environments = (site / "environments" / "index.html").read_text()
    assert "Observation of <code>partnership</code>: 585 float32 entries, 68 actions." in environments
    assert "SpadesEngine" in (site / "reference" / "engine" / "index.html").read_text()
    shutil.rmtree(site)
