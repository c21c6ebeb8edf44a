"""``spades serve`` and the packaging of the web table (issue 16)."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from tests.paths import ROOT
from tests.web_helpers import client
from train.cli.app import app
from train.serve.app import STATIC


@pytest.fixture(autouse=True)
def state_home(monkeypatch, tmp_path):
    """The user's state folder, where ``spades serve`` keeps its games by default: a temporary one."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state"


def test_serve_keeps_games_in_the_state_folder_by_default_so_a_restart_resumes_them(monkeypatch, state_home):
    import uvicorn
    from fastapi.testclient import TestClient

    calls = []
    monkeypatch.setattr(uvicorn, "run", lambda application, host, port, access_log: calls.append(application))
    first = CliRunner().invoke(app, ["serve"])
    db = state_home / "spades_env" / "web_games.sqlite"
    assert first.exit_code == 0 and f"games kept in {db}" in first.output and db.is_file()
    c = TestClient(calls[-1], base_url="http://127.0.0.1:8000")
    game_id = c.post("/api/games", json={"seed": 3}).json()["id"]
    view = c.post(
        f"/api/games/{game_id}/action", json={"action": c.get(f"/api/games/{game_id}").json()["legal"][0]["id"]}
    )
    assert view.status_code == 200
    assert CliRunner().invoke(app, ["serve"]).exit_code == 0  # the restarted server: a new app on the same file
    again = TestClient(calls[-1], base_url="http://127.0.0.1:8000").get(f"/api/games/{game_id}")
    assert again.status_code == 200 and again.json() == view.json()
    memory = CliRunner().invoke(app, ["serve", "--db", ":memory:"])
    assert "games kept in memory only" in memory.output
    assert TestClient(calls[-1], base_url="http://127.0.0.1:8000").get(f"/api/games/{game_id}").status_code == 404


def test_serve_runs_uvicorn_on_the_host_and_port(monkeypatch):
    import uvicorn

    calls = []
    monkeypatch.setattr(
        uvicorn, "run", lambda application, host, port, access_log: calls.append((application, host, port, access_log))
    )
    result = CliRunner().invoke(app, ["serve"])
    assert result.exit_code == 0, result.output
    ((application, host, port, access_log),) = calls
    assert (host, port, access_log) == ("127.0.0.1", 8000, False) and "http://127.0.0.1:8000/" in result.output
    assert application.title == "spades_env web table"
    CliRunner().invoke(app, ["serve", "--host", "0.0.0.0", "--port", "8765", "--access-log"])
    assert calls[-1][1:] == ("0.0.0.0", 8765, True)


def test_serve_refuses_a_port_out_of_range(monkeypatch):
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: (_ for _ in ()).throw(AssertionError("must not start")))
    result = CliRunner().invoke(app, ["serve", "--port", "70000"])
    assert result.exit_code != 0 and "--port must be in 1..65535" in str(result.exception)


def test_the_page_is_served_at_the_root():
    c = client()
    r = c.get("/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    if (STATIC / "index.html").is_file():
        assert r.text == (STATIC / "index.html").read_text()
        for name in ("app.js", "style.css"):
            if (STATIC / name).is_file():
                assert c.get(f"/static/{name}").status_code == 200
    else:  # the placeholder until the page lands
        assert "/api/options" in r.text
    assert c.get("/static/no-such-file.js").status_code == 404


def test_the_web_extra_and_the_static_files_are_packaged():
    pyproject = (ROOT / "pyproject.toml").read_text()  # (tomllib is not in Python 3.10)
    web = next(line for line in pyproject.splitlines() if line.startswith("web = "))
    assert all(f'"{name}==' in web for name in ("fastapi", "uvicorn", "httpx2"))
    train_data = next(line for line in pyproject.splitlines() if line.startswith('train = ["serve/'))
    assert '"serve/static/*", "serve/API.md"' in train_data
    makefile = (ROOT / "Makefile").read_text()
    assert "serve:\n\t$(VENV)/bin/spades serve\n" in makefile and ",web" in makefile


def test_serve_keeps_games_in_the_db_reads_replays_from_the_folder_and_checks_the_host(monkeypatch, tmp_path):
    import uvicorn
    from fastapi.testclient import TestClient

    calls = []
    monkeypatch.setattr(uvicorn, "run", lambda application, host, port, access_log: calls.append(application))
    db, folder = tmp_path / "games.sqlite", tmp_path / "replays"
    folder.mkdir()
    (folder / "none.json").write_text("[]")
    args = ["serve", "--db", str(db), "--replay-dir", str(folder)]
    assert CliRunner().invoke(app, args).exit_code == 0
    c = TestClient(calls[-1], base_url="http://127.0.0.1:8000")
    game_id = c.post("/api/games", json={"seed": 1}).json()["id"]
    assert db.is_file() and calls[-1].state.store.storage.settings(game_id)["seed"] == 1
    assert "non-empty list" in c.post("/api/replay", json={"path": "none.json"}).json()["detail"]
    assert TestClient(calls[-1], base_url="http://evil.example").get("/api/options").status_code == 400
    assert CliRunner().invoke(app, ["serve", "--host", "0.0.0.0"]).exit_code == 0
    assert TestClient(calls[-1], base_url="http://any.example").get("/api/options").status_code == 200


def test_serve_refuses_a_db_path_that_is_another_file(monkeypatch, tmp_path):
    import uvicorn

    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: (_ for _ in ()).throw(AssertionError("must not start")))
    notes = tmp_path / "notes.txt"
    notes.write_text("mine")
    result = CliRunner().invoke(app, ["serve", "--db", str(notes)])
    assert result.exit_code != 0 and "not an SQLite database" in str(result.exception)
    assert notes.read_text() == "mine"
