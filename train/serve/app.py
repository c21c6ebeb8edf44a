"""The FastAPI app of ``spades serve``: the JSON API of ``train/serve/API.md`` and the static page at ``/``.

Every error is ``{"detail": "<one line>"}``: 400 for a bad request (the game is left as it was; malformed
JSON included), 404 for an unknown game id, 413 for a body over its cap, 503 when the server is full or
busy, 500 (``internal error <id>``, the traceback in the server's log) for a fault of the server. The docs
are under ``/api/`` (``/api/docs``, ``/api/redoc``, ``/api/openapi.json``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

from fastapi import Body, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from spades_env.rules import Rules, list_presets
from train.serve.bots import BotMenu, is_heavy
from train.serve.guard import BodyLimit, Busy, HostCheck, Pools, error_response, internal_error
from train.serve.sessions import GameNotFound
from train.serve.store import GameStore, StoreFull

STATIC = Path(__file__).resolve().parent / "static"
PLACEHOLDER = """<!doctype html><html><head><meta charset="utf-8"><title>spades_env</title></head>
<body><h1>spades_env web table</h1><p>The page is not installed (train/serve/static/index.html is missing);
the API is at <code>/api/options</code>.</p></body></html>"""


def options(bots: BotMenu) -> dict[str, Any]:
    """``GET /api/options``: the presets and the bots of the server's menu."""
    from train.serve.rules_text import describe_table

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
    return {"presets": presets, "bots": list(bots.offered), "default_bot": bots.default}


def _errors(app: FastAPI) -> None:
    """The exception handlers: every error one line of JSON."""

    @app.exception_handler(ValueError)
    async def bad_request(_request: Request, err: ValueError) -> JSONResponse:
        return error_response(400, err)

    @app.exception_handler(RecursionError)
    async def too_deep(_request: Request, _err: RecursionError) -> JSONResponse:
        return error_response(400, "the request nests JSON too deeply to be read")

    @app.exception_handler(GameNotFound)
    async def not_found(_request: Request, err: GameNotFound) -> JSONResponse:
        return error_response(404, err.args[0] if err.args else "no such game")

    @app.exception_handler(StoreFull)
    @app.exception_handler(Busy)
    async def unavailable(_request: Request, err: Exception) -> JSONResponse:
        return error_response(503, err)

    @app.exception_handler(HTTPException)
    async def http_error(_request: Request, err: HTTPException) -> JSONResponse:
        return error_response(err.status_code, err.detail)

    @app.exception_handler(RequestValidationError)
    async def bad_shape(_request: Request, err: RequestValidationError) -> JSONResponse:
        problems = []
        for e in err.errors()[:3]:
            where = ".".join(str(x) for x in e.get("loc", ()) if x != "body") or "body"
            problems.append(f"{where}: {e.get('msg', 'invalid')}"[:120])
        return error_response(400, "; ".join(problems))

    @app.exception_handler(Exception)
    async def fault(_request: Request, err: Exception) -> JSONResponse:
        return internal_error(err)


def json_response(data: Any) -> Response:
    """``data`` as JSON bytes, made in the worker thread that computed it (a replay's frames are megabytes: the
    event loop, which answers every light request, only sends them)."""
    return Response(json.dumps(data, separators=(",", ":")).encode(), media_type="application/json")


def _body_dict(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise ValueError(f"the request body must be a JSON object, got {type(body).__name__}")
    return body


def create_app(
    store: GameStore | None = None,
    *,
    replay_dir: str | Path | None = None,
    allowed_hosts: tuple[str, ...] | None = None,
    pools: Pools | None = None,
) -> FastAPI:
    """The app; ``store`` holds its games (a new one in memory by default; ``app.state.store``);
    ``replay_dir``: the folder ``{"path": ...}`` replays read (None: no file is read); ``allowed_hosts``:
    the only ``Host`` headers answered (None: any)."""
    from train.serve.replay import replay_request

    app = FastAPI(
        title="spades_env web table", docs_url="/api/docs", redoc_url="/api/redoc", openapi_url="/api/openapi.json"
    )
    app.state.store = store = store if store is not None else GameStore()
    app.state.pools = pools = pools if pools is not None else Pools()
    folder = Path(replay_dir) if replay_dir is not None else None
    if folder is not None and not folder.is_dir():
        raise ValueError(f"--replay-dir {str(folder)!r} is not a folder")
    _errors(app)
    app.add_middleware(BodyLimit)
    if allowed_hosts:
        app.add_middleware(HostCheck, allowed=allowed_hosts)
    options_json = json.dumps(options(store.bots)).encode()

    @app.get("/api/options")
    async def get_options() -> Response:
        """Answered on the event loop from bytes made once: no thread to wait for while heavy work runs."""
        return Response(options_json, media_type="application/json")

    _game_routes(app, store, pools)

    @app.post("/api/replay")
    async def post_replay(body: Annotated[Any, Body()] = None) -> dict[str, Any]:
        body = _body_dict(body)
        return await pools.heavy(lambda: json_response(replay_request(body, folder)))

    @app.get("/", include_in_schema=False)
    def index():
        page = STATIC / "index.html"
        return FileResponse(page) if page.is_file() else HTMLResponse(PLACEHOLDER)

    if STATIC.is_dir():  # the page's files (package data); without them only the placeholder at /
        app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def _game_routes(app: FastAPI, store: GameStore, pools: Pools) -> None:
    """``/api/games...``: each request on one game under its lock, in the pool its bots need, then stored."""
    from train.serve.hints import hint

    async def on_game(game_id: str, work, *, heavy: bool | None = None):
        def run():
            store.expire()
            with store.use(game_id) as game, game.lock:
                try:
                    return json_response(work(game))
                finally:
                    store.save(game)

        return await pools.run(store.is_heavy(game_id) if heavy is None else heavy, run)

    @app.post("/api/games")
    async def create_game(body: Annotated[Any, Body()] = None) -> dict[str, Any]:
        body = _body_dict(body)
        known = {"rules", "bots", "seat", "seed", "target_score"}
        unknown = sorted(set(body) - known)
        if unknown:
            raise ValueError(f"unknown field(s) {str(unknown)[:60]}; fields: {sorted(known)}")
        bots = body.get("bots", store.bots.default)
        specs = [bots] if isinstance(bots, str) else bots if isinstance(bots, list) else []

        def create():
            store.expire()
            game = store.create(
                body.get("rules", "partnership"), bots, body.get("seat", 0), body.get("seed"), body.get("target_score")
            )
            with game.lock:
                return json_response(game.view())

        return await pools.run(is_heavy([s for s in specs if isinstance(s, str)]), create)

    @app.get("/api/games/{game_id}")
    async def get_game(game_id: str) -> dict[str, Any]:
        return await on_game(game_id, lambda game: game.view(), heavy=False)

    @app.post("/api/games/{game_id}/action")
    async def post_action(game_id: str, body: Annotated[Any, Body()] = None) -> dict[str, Any]:
        body = _body_dict(body)
        if "action" not in body:
            raise ValueError('the body must be {"action": <action id>}')

        def act(game):
            game.act(body["action"])
            return game.view()

        return await on_game(game_id, act)

    @app.post("/api/games/{game_id}/next")
    async def post_next(game_id: str) -> dict[str, Any]:
        def deal(game):
            game.next_hand()
            return game.view()

        return await on_game(game_id, deal)

    @app.get("/api/games/{game_id}/hint")
    async def get_hint(game_id: str, bot: Annotated[str | None, Query()] = None) -> dict[str, Any]:
        bot = store.bots.default if bot is None else bot
        store.bots.canonical(bot, "hint bot")
        return await on_game(game_id, lambda game: hint(game, bot), heavy=is_heavy([bot]))

    @app.get("/api/games/{game_id}/record")
    async def get_record(game_id: str) -> dict[str, Any]:
        return await on_game(game_id, lambda game: {"hands": game.client_records()}, heavy=False)
