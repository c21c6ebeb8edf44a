"""The FastAPI app of ``spades serve``: the JSON API of ``train/web/API.md`` and the static page at ``/``.

Every error is ``{"detail": "<one line>"}``: 400 for a bad request (the game is left
as it was), 404 for an unknown game id, 422 for a body of the wrong shape.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from fastapi import Body, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles

from spades_env.rules import Rules, list_presets
from train.web.sessions import BOTS, DEFAULT_BOT, GameNotFound, GameStore

STATIC = Path(__file__).resolve().parent / "static"
PLACEHOLDER = """<!doctype html><html><head><meta charset="utf-8"><title>spades_env</title></head>
<body><h1>spades_env web table</h1><p>The page is not installed (train/web/static/index.html is missing);
the API is at <code>/api/options</code>.</p></body></html>"""


def _one_line(text: str) -> str:
    return " ".join(str(text).split()) or "bad request"


def options() -> dict[str, Any]:
    """``GET /api/options``: the presets and the bots."""
    from train.rules_text import describe_table

    presets = []
    for name in list_presets():
        rules = Rules.preset(name)
        presets.append(
            {
                "name": name,
                "game": rules.game,
                "n_players": rules.n_players,
                "partnership": rules.partnership,
                "description": describe_table(rules),
            }
        )
    return {"presets": presets, "bots": list(BOTS), "default_bot": DEFAULT_BOT}


def create_app(store: GameStore | None = None) -> FastAPI:
    """The app; ``store`` holds its games (a new, empty one by default; ``app.state.store``)."""
    from train.web.hints import hint
    from train.web.replay import replay_request

    app = FastAPI(title="spades_env web table", docs_url="/api/docs", openapi_url="/api/openapi.json")
    app.state.store = store = store if store is not None else GameStore()
    presets_cache = options()

    @app.exception_handler(ValueError)
    async def bad_request(_request: Request, err: ValueError) -> JSONResponse:
        return JSONResponse({"detail": _one_line(str(err))}, status_code=400)

    @app.exception_handler(GameNotFound)
    async def not_found(_request: Request, err: GameNotFound) -> JSONResponse:
        return JSONResponse({"detail": _one_line(str(err))}, status_code=404)

    @app.exception_handler(RequestValidationError)
    async def bad_shape(_request: Request, err: RequestValidationError) -> JSONResponse:
        problems = []
        for e in err.errors()[:3]:
            where = ".".join(str(x) for x in e.get("loc", ()) if x != "body") or "body"
            problems.append(f"{where}: {e.get('msg', 'invalid')}")
        return JSONResponse({"detail": _one_line("; ".join(problems))}, status_code=422)

    def body_dict(body: Any) -> dict[str, Any]:
        if not isinstance(body, dict):
            raise ValueError(f"the request body must be a JSON object, got {type(body).__name__}")
        return body

    @app.get("/api/options")
    def get_options() -> dict[str, Any]:
        return presets_cache

    @app.post("/api/games")
    def create_game(body: Annotated[Any, Body()]) -> dict[str, Any]:
        body = body_dict(body)
        known = {"rules", "bots", "seat", "seed", "target_score"}
        unknown = sorted(set(body) - known)
        if unknown:
            raise ValueError(f"unknown field(s) {unknown}; fields: {sorted(known)}")
        game = store.create(
            body.get("rules", "partnership"),
            body.get("bots", DEFAULT_BOT),
            body.get("seat", 0),
            body.get("seed"),
            body.get("target_score"),
        )
        with game.lock:
            return game.view()

    @app.get("/api/games/{game_id}")
    def get_game(game_id: str) -> dict[str, Any]:
        game = store.get(game_id)
        with game.lock:
            return game.view()

    @app.post("/api/games/{game_id}/action")
    def post_action(game_id: str, body: Annotated[Any, Body()]) -> dict[str, Any]:
        game = store.get(game_id)
        body = body_dict(body)
        if "action" not in body:
            raise ValueError('the body must be {"action": <action id>}')
        with game.lock:
            game.act(body["action"])
            return game.view()

    @app.post("/api/games/{game_id}/next")
    def post_next(game_id: str) -> dict[str, Any]:
        game = store.get(game_id)
        with game.lock:
            game.next_hand()
            return game.view()

    @app.get("/api/games/{game_id}/hint")
    def get_hint(game_id: str, bot: Annotated[str, Query()] = DEFAULT_BOT) -> dict[str, Any]:
        game = store.get(game_id)
        with game.lock:
            return hint(game, bot)

    @app.get("/api/games/{game_id}/record")
    def get_record(game_id: str) -> dict[str, Any]:
        game = store.get(game_id)
        with game.lock:
            return {"hands": list(game.records)}

    @app.post("/api/replay")
    def post_replay(body: Annotated[Any, Body()]) -> dict[str, Any]:
        return replay_request(body_dict(body))

    @app.get("/", include_in_schema=False)
    def index():
        page = STATIC / "index.html"
        return FileResponse(page) if page.is_file() else HTMLResponse(PLACEHOLDER)

    if STATIC.is_dir():  # the page's files (package data); without them only the placeholder at /
        app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app
