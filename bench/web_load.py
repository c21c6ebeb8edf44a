"""Load benchmark of the web table (issue 51): a ``spades serve`` app under uvicorn on 127.0.0.1, driven by async
httpx clients, every phase bounded in time.

1. ``--clients`` clients play whole matches (random legal actions, ``next`` between hands): requests/s,
   p50/p99 latency, errors.
2. ``--replays`` clients replay records without pause while one client asks ``GET /api/options``: its p50/p99.
3. ``--learned-games`` games with ``learned`` bots are created: the server's memory per game.

The server's resident memory (``VmRSS``, and its peak ``VmHWM``) is printed after each phase.

    python -m bench.web_load --seconds 15 --clients 50 --replays 40 --learned-games 200
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx2 as httpx

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def memory_mib(pid: int) -> tuple[float, float]:
    """The process's resident memory now and at its peak (MiB), from /proc."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines() if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024


def cpu_seconds(pid: int) -> float:
    """The process's CPU time so far (user + system), from /proc: a cost per request that other jobs on the
    machine do not inflate as they do latencies."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def quantiles(latencies: list[float]) -> str:
    if not latencies:
        return "no requests"
    xs = sorted(latencies)
    p = lambda q: xs[min(len(xs) - 1, int(q * len(xs)))] * 1000  # noqa: E731
    return f"p50 {p(0.50):.1f} ms, p99 {p(0.99):.1f} ms, max {xs[-1] * 1000:.1f} ms"


class Tally:
    def __init__(self) -> None:
        self.latencies: list[float] = []
        self.errors = 0

    async def call(self, client: httpx.AsyncClient, method: str, url: str, parse: bool = True, **kwargs) -> dict | None:
        t0 = time.perf_counter()
        try:
            r = await client.request(method, url, **kwargs)
        except httpx.HTTPError:
            self.errors += 1
            return None
        self.latencies.append(time.perf_counter() - t0)
        if r.status_code != 200:
            self.errors += 1
            return None
        return r.json() if parse else None


async def player(client: httpx.AsyncClient, tally: Tally, deadline: float, seed: int) -> int:
    """Play whole matches until the deadline; the matches finished."""
    rng, done = random.Random(seed), 0
    while time.perf_counter() < deadline:
        view = await tally.call(client, "POST", "/api/games", json={"rules": "partnership", "target_score": 150})
        while view is not None and time.perf_counter() < deadline:
            if view["awaiting"] == "you":
                action = rng.choice(view["legal"])["id"]
                view = await tally.call(client, "POST", f"/api/games/{view['id']}/action", json={"action": action})
            elif view["awaiting"] == "next_hand":
                view = await tally.call(client, "POST", f"/api/games/{view['id']}/next")
            else:
                done += 1
                break
    return done


async def play_phase(base: str, clients: int, seconds: float, pid: int) -> None:
    tally, t0, cpu0 = Tally(), time.perf_counter(), cpu_seconds(pid)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=httpx.Limits(max_connections=clients)) as client:
        matches = await asyncio.gather(*(player(client, tally, t0 + seconds, k) for k in range(clients)))
    elapsed, cpu = time.perf_counter() - t0, cpu_seconds(pid) - cpu0
    print(
        f"play: {clients} clients, {elapsed:.1f} s: {len(tally.latencies) / elapsed:.0f} requests/s, "
        f"{quantiles(tally.latencies)}, errors {tally.errors}, matches finished {sum(matches)}; "
        f"server CPU {cpu / max(len(tally.latencies), 1) * 1000:.2f} ms per request"
    )


async def record_hands(client: httpx.AsyncClient, hands: int) -> list[dict]:
    """Records of a played match (with their key: the match is over)."""
    view = (await client.post("/api/games", json={"bots": "heuristic", "seed": 1, "target_score": 60})).json()
    rng = random.Random(1)
    while view["awaiting"] != "nothing":
        if view["awaiting"] == "you":
            body = {"action": rng.choice(view["legal"])["id"]}
            view = (await client.post(f"/api/games/{view['id']}/action", json=body)).json()
        else:
            view = (await client.post(f"/api/games/{view['id']}/next")).json()
    out = (await client.get(f"/api/games/{view['id']}/record")).json()["hands"]
    return (out * hands)[:hands]


async def replay_phase(base: str, replays: int, seconds: float) -> None:
    heavy = Tally()
    async with httpx.AsyncClient(base_url=base, timeout=120, limits=httpx.Limits(max_connections=replays + 2)) as c:
        body = {"hands": await record_hands(c, 4)}
        deadline = time.perf_counter() + seconds

        async def replayer() -> None:
            while time.perf_counter() < deadline:
                await heavy.call(c, "POST", "/api/replay", parse=False, json=body)

        poller = multiprocessing.get_context("spawn").Pool(1)  # its own process: the replays' traffic never delays it
        light = poller.apply_async(poll_options, (base, seconds))
        await asyncio.gather(*(replayer() for _ in range(replays)))
        latencies, errors = light.get(30)
        poller.close()
    print(
        f"replays: {replays} clients replaying 4 hands each: {len(heavy.latencies) / seconds:.1f} replays/s, "
        f"errors (503 busy included) {heavy.errors}; GET /api/options meanwhile (from another process, every 50 ms): "
        f"{quantiles(latencies)}, errors {errors}"
    )


def poll_options(base: str, seconds: float) -> tuple[list[float], int]:
    """``GET /api/options`` every 50 ms for ``seconds``: the latencies and the errors."""
    latencies, errors = [], 0
    deadline = time.perf_counter() + seconds
    with httpx.Client(base_url=base, timeout=30) as client:
        while time.perf_counter() < deadline:
            t0 = time.perf_counter()
            try:
                ok = client.get("/api/options").status_code == 200
            except httpx.HTTPError:
                ok = False
            latencies.append(time.perf_counter() - t0)
            errors += not ok
            time.sleep(0.05)
    return latencies, errors


async def learned_phase(base: str, games: int, pid: int) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=120) as client:
        first = await client.post("/api/games", json={"bots": "learned", "seed": 0})  # loads the checkpoints
        if first.status_code != 200:
            print(f"learned: skipped ({first.json()['detail']})")
            return
        before, _ = memory_mib(pid)
        t0, tally = time.perf_counter(), Tally()
        sem = asyncio.Semaphore(8)

        async def create(k: int) -> None:
            async with sem:
                await tally.call(client, "POST", "/api/games", json={"bots": "learned", "seed": k})

        await asyncio.gather(*(create(k) for k in range(1, games + 1)))
        after, peak = memory_mib(pid)
    per_game = (after - before) / max(games, 1)
    print(
        f"learned: {games} games in {time.perf_counter() - t0:.1f} s, errors {tally.errors}; RSS {before:.0f} -> "
        f"{after:.0f} MiB ({per_game * 1024:.0f} KiB per game; 1,000 games ~ {before + per_game * 1000:.0f} MiB)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15.0, help="length of each timed phase")
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--replays", type=int, default=40)
    parser.add_argument("--learned-games", type=int, default=200)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout whose server to run (a baseline)")
    parser.add_argument(
        "--db",
        default="",
        help="the server's --db (default: a new file in a temporary folder, as served games are kept)",
    )
    args = parser.parse_args()
    if not 0 < args.seconds <= 120:
        raise SystemExit("--seconds must be in (0, 120]")
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(args.root)}
    scratch = tempfile.TemporaryDirectory(prefix="web_load_")
    db = args.db or str(Path(scratch.name) / "games.sqlite")
    command = [sys.executable, "-m", "train.cli.app", "serve", "--port", str(port), "--db", db]
    server = subprocess.Popen(command, cwd=args.root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(1800):
            try:
                if httpx.get(base + "/api/options", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.1)
        else:
            raise SystemExit("the server did not start within 180 s")
        print(f"server pid {server.pid}: RSS {memory_mib(server.pid)[0]:.0f} MiB at start")
        asyncio.run(play_phase(base, args.clients, args.seconds, server.pid))
        print("after play: RSS {:.0f} MiB (peak {:.0f})".format(*memory_mib(server.pid)))
        asyncio.run(replay_phase(base, args.replays, args.seconds))
        print("after replays: RSS {:.0f} MiB (peak {:.0f})".format(*memory_mib(server.pid)))
        if args.learned_games:
            asyncio.run(learned_phase(base, args.learned_games, server.pid))
        print(json.dumps({"rss_mib": round(memory_mib(server.pid)[0]), "peak_mib": round(memory_mib(server.pid)[1])}))
    finally:
        server.terminate()
        server.wait(10)
        scratch.cleanup()


if __name__ == "__main__":
    main()
