"""What the web app puts between a client and the work: body caps, the Host check, JSON errors, the two pools.

- ``BodyLimit``: an ASGI middleware refusing a body above its path's cap (413), by its declared length or as
  it streams in.
- ``HostCheck``: with ``allowed`` hosts (a server bound to a loopback address), any other ``Host`` header is
  refused (400): a page of another site cannot reach the table through DNS rebinding.
- ``Pools``: light requests run in the server's thread pool; heavy ones (replays, search hints, games with
  search or learned bots) in a bounded pool of their own, with a bounded queue (503 beyond it), so a burst of
  replays never delays ``GET /api/options``.
- ``error_response``: every error is ``{"detail": "<one line>"}``; an unexpected one is logged with its
  traceback under an id and answered ``internal error <id>``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse

LOG = logging.getLogger("train.serve")
T = TypeVar("T")
#: Largest request body, by path prefix (the first that matches); ``/api/replay`` takes records and logs.
BODY_CAPS = (("/api/replay", 8 * 2**20), ("", 64 * 2**10))
#: Heavy requests running at once, and waiting beyond those before 503.
HEAVY_WORKERS = 2
HEAVY_QUEUE = 64
#: ``sys.setswitchinterval`` of ``spades serve`` (Python's default is 5 ms): a light request waits less for the GIL.
SWITCH_INTERVAL = 0.001
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1", "[::1]")


class BodyTooLarge(HTTPException):
    """A request body over its cap, found as it streams in (HTTP 413; FastAPI passes HTTP errors on as they are)."""

    def __init__(self, cap: int) -> None:
        super().__init__(413, f"the request body is larger than {cap} bytes (the cap of this endpoint)")


class Busy(Exception):
    """The heavy pool and its queue are full (HTTP 503)."""


#: The longest error detail sent (messages show at most a short prefix of any value; this is a backstop).
MAX_DETAIL_CHARS = 1000


def one_line(text: Any) -> str:
    line = " ".join(str(text).split()) or "bad request"
    return line if len(line) <= MAX_DETAIL_CHARS else line[: MAX_DETAIL_CHARS - 3] + "..."


def error_response(status: int, detail: Any) -> JSONResponse:
    return JSONResponse({"detail": one_line(detail)}, status_code=status)


def internal_error(err: BaseException) -> JSONResponse:
    """Log ``err`` with its traceback under a fresh id; the client gets only the id."""
    error_id = secrets.token_hex(4)
    LOG.error("internal error %s", error_id, exc_info=(type(err), err, err.__traceback__))
    return error_response(500, f"internal error {error_id}")


def body_cap(path: str) -> int:
    return next(cap for prefix, cap in BODY_CAPS if path.startswith(prefix))


async def _send_json(send: Callable, status: int, detail: str) -> None:
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class BodyLimit:
    """Refuse request bodies over ``body_cap`` of their path (413, JSON)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cap = body_cap(scope.get("path", ""))
        length = dict(scope.get("headers", [])).get(b"content-length")
        if length is not None and (not length.isdigit() or int(length) > cap):
            await _send_json(send, 413, f"the request body is larger than {cap} bytes (the cap of this endpoint)")
            return
        seen = 0

        async def limited() -> dict:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > cap:
                    raise BodyTooLarge(cap)
            return message

        await self.app(scope, limited, send)


class HostCheck:
    """With ``allowed`` hosts, refuse a request whose ``Host`` header (less the port) is not one of them."""

    def __init__(self, app: Any, allowed: tuple[str, ...]) -> None:
        self.app = app
        self.allowed = {h.lower() for h in allowed}

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] == "http":
            host = dict(scope.get("headers", [])).get(b"host", b"").decode("latin-1").lower()
            name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
            if name not in self.allowed:
                detail = f"Host {host[:40]!r} is not this server's (it answers {sorted(self.allowed)})"
                await _send_json(send, 400, detail)
                return
        await self.app(scope, receive, send)


class Pools:
    """The heavy pool (``workers`` threads, ``queue`` more waiting) beside the server's own thread pool."""

    def __init__(self, workers: int = HEAVY_WORKERS, queue: int = HEAVY_QUEUE) -> None:
        self.executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="web-heavy")
        self.capacity = workers + queue
        self.in_flight = 0
        self.lock = threading.Lock()

    async def light(self, fn: Callable[[], T]) -> T:
        return await run_in_threadpool(fn)

    async def heavy(self, fn: Callable[[], T]) -> T:
        with self.lock:
            if self.in_flight >= self.capacity:
                raise Busy(f"the server is busy with {self.in_flight} long requests (replays, searches): try again")
            self.in_flight += 1
        try:
            return await asyncio.wrap_future(self.executor.submit(fn))
        finally:
            with self.lock:
                self.in_flight -= 1

    async def run(self, heavy: bool, fn: Callable[[], T]) -> T:
        return await (self.heavy(fn) if heavy else self.light(fn))

    def close(self) -> None:
        self.executor.shutdown(wait=False, cancel_futures=True)
