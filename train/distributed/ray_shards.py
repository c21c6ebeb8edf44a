"""Shards of work as Ray tasks: on a local Ray or a cluster, retried when a worker dies, handed back as they finish.

A **shard** is a pure function of its arguments (a tournament's (pair, chunk), a bidding
benchmark's chunk): ``run_shards`` runs ``fn(shard)`` for every shard as a Ray task and calls
``on_result(shard, result)`` on the driver as each one finishes, in completion order. The
driver alone writes (logs, progress bars), so a shard's result is used once: a task whose
worker dies is run again by Ray (``max_retries``) and only its one successful run comes back.
An exception raised by ``fn`` itself is a bug or a bad input, not a lost worker: it is not
retried and reaches the caller.

Ray is imported here only, and only when a run asks for it (``--ray``): ``spades_env`` and
``agents`` never import it, ``train`` only through this module's functions. Joining a
cluster first checks that its address answers, so a wrong address fails at once in one
line naming it (Ray itself would retry for a minute or more).
"""

from __future__ import annotations

import os
import socket
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from train.runs.config_file import require_int

#: ``--ray`` without an address: start a Ray on this machine for the run.
LOCAL = "local"
#: Seconds to wait for a cluster's address to accept a connection before giving up.
CONNECT_TIMEOUT_S = 5.0


class RayAddressError(ValueError):
    """``--ray ADDRESS`` is malformed, or no Ray cluster answers there."""


@dataclass(frozen=True)
class RayOptions:
    """Where and how shards run on Ray."""

    address: str = LOCAL
    """``local``: start a Ray on this machine; ``host:port`` (the head's GCS port, 6379) or
    ``ray://host:port`` (Ray Client, 10001): join that cluster; ``auto``: the cluster this machine is in."""
    workers: int | None = None
    """Local: CPUs of the local Ray (default: all of this machine's); a cluster: most shards in flight at once
    (default: no limit, Ray schedules one per free CPU)."""
    max_retries: int = 3
    """Times a shard is run again when its worker dies."""
    before_shard: Callable[[Any], None] | None = None
    """Called on the worker with the shard before it runs (tests use it to kill a worker; None: nothing)."""

    def __post_init__(self) -> None:
        if self.workers is not None:
            require_int("--ray-workers", self.workers, 1)
        require_int("max_retries", self.max_retries, 0)
        if not isinstance(self.address, str) or not self.address.strip():
            raise RayAddressError(f"--ray address must be host:port or ray://host:port, got {self.address!r}")


def parse_address(address: str) -> tuple[str, int] | None:
    """(host, port) that must answer for ``address``; None for ``local`` and ``auto`` (nothing to check)."""
    if address in (LOCAL, "auto"):
        return None
    rest = address.removeprefix("ray://")
    host, sep, port = rest.rpartition(":")
    if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise RayAddressError(
            f"--ray {address}: expected host:port (e.g. 10.0.0.5:6379) or ray://host:port (e.g. ray://10.0.0.5:10001), "
            "or no address for a local Ray"
        )
    return host.strip("[]"), int(port)


def check_reachable(address: str, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """Refuse (``RayAddressError``, naming the address) a cluster address that does not accept a connection."""
    target = parse_address(address)
    if target is None:
        return
    try:
        socket.create_connection(target, timeout=timeout).close()
    except OSError as err:
        reason = err.strerror or type(err).__name__
        raise RayAddressError(
            f"--ray {address}: no Ray cluster reachable there ({reason}); start one with `ray start --head` "
            "or give --ray without an address for a local Ray"
        ) from None


@contextmanager
def ray_session(options: RayOptions) -> Iterator[None]:
    """Ray for the duration of the block: the one already initialized in this process if any (left running),
    else a new local Ray (even where a cluster runs on this machine; ``auto`` joins that one), shut down
    after, or the cluster of ``options.address``, left (still running) after."""
    try:
        import ray
    except ModuleNotFoundError:
        raise ValueError("--ray needs Ray installed: pip install -e '.[ray]'") from None
    if ray.is_initialized():
        yield
        return
    check_reachable(options.address)
    try:
        if options.address == LOCAL:
            ray.init(address="local", num_cpus=options.workers or os.cpu_count(), include_dashboard=False)
        else:
            ray.init(address=options.address)
    except (ConnectionError, RuntimeError, TimeoutError) as err:
        first = (str(err).strip().splitlines() or [type(err).__name__])[0]
        if options.address == LOCAL:
            raise ValueError(f"--ray: could not start a local Ray: {first}") from None
        raise RayAddressError(
            f"--ray {options.address}: could not join the Ray cluster: {first} (a cluster with token "
            "authentication needs RAY_AUTH_MODE=token and its token here: `ray get-auth-token` on the head)"
        ) from None
    try:
        yield
    finally:
        ray.shutdown()


def _run_shard(fn: Callable[[Any], Any], shard: Any, before: Callable[[Any], None] | None) -> Any:
    """The Ray task: ``fn(shard)`` on a worker (after ``before(shard)``, if given)."""
    if before is not None:
        before(shard)
    return fn(shard)


def run_shards(
    fn: Callable[[Any], Any],
    shards: Sequence[Any],
    options: RayOptions,
    on_result: Callable[[Any, Any], None],
) -> None:
    """Run ``fn(shard)`` for every shard as a Ray task and ``on_result(shard, result)`` on the driver as each ends.

    ``fn`` and the shards travel to the workers by pickling (a module-level ``fn`` by name, so every
    node needs this code installed). Results come back in completion order, each shard's once; if
    ``on_result`` raises (e.g. a stop requested), the shards still running are cancelled.
    """
    if not shards:
        return
    with ray_session(options):
        import ray

        task = ray.remote(num_cpus=1, max_retries=options.max_retries)(_run_shard)
        in_flight = options.workers if options.workers and options.address != LOCAL else len(shards)
        queue = list(shards)
        pending: dict[Any, Any] = {}
        try:
            while queue or pending:
                while queue and len(pending) < in_flight:
                    shard = queue.pop(0)
                    pending[task.remote(fn, shard, options.before_shard)] = shard
                done, _ = ray.wait(list(pending), num_returns=1)
                shard = pending.pop(done[0])
                on_result(shard, ray.get(done[0]))
        finally:
            for ref in pending:
                ray.cancel(ref)
