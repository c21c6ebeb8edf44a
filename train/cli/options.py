"""The options several ``spades`` commands share: bot lists, ``--ray [ADDRESS]`` and ``--ray-workers``.

``train.cli.app`` (the app) reads the command line through ``with_optional_values``; the commands in
``train.cli.training`` and ``train.cli.evaluation`` read their options with the rest.
"""

from __future__ import annotations

#: Options whose value may be left out (click requires one): the value they then stand for.
OPTIONAL_VALUES = {"--ray": "local"}


def with_optional_values(argv: list[str]) -> list[str]:
    """``argv`` with the implied value put after an option of ``OPTIONAL_VALUES`` given without one
    (last, or followed by another option): ``--ray`` alone is ``--ray local``."""
    out = []
    for k, arg in enumerate(argv):
        out.append(arg)
        if arg in OPTIONAL_VALUES and (k + 1 == len(argv) or argv[k + 1].startswith("-")):
            out.append(OPTIONAL_VALUES[arg])
    return out


def bot_specs(text: str, option: str) -> tuple[str, ...]:
    """The bot specs of a comma-separated ``option`` (``--bots``, ``--bidders``): on the command line ';' separates
    one bot's options, since ',' separates the bots; an option where a bot should be is refused in one line."""
    specs = tuple(s.strip().replace(";", ",") for s in text.split(",") if s.strip())
    stray = [s for s in specs if "=" in s and ":" not in s]
    if stray:
        raise ValueError(
            f"{option}: {stray[0]!r} is an option, not a bot: on the command line ';' separates one bot's options "
            f"and ',' the bots (e.g. {option} \"search:samples=8;oversample=1,heuristic\")"
        )
    return specs


def ray_options(address: str | None, workers: int | None):
    """The ``RayOptions`` of ``--ray [ADDRESS]`` and ``--ray-workers N``, or None for a run on this process."""
    if address is None:
        if workers is not None:
            raise ValueError("--ray-workers sets the workers of a Ray run: give --ray [ADDRESS] too")
        return None
    from train.distributed.ray_shards import RayOptions

    return RayOptions(address=address, workers=workers)


RAY_HELP = (
    "Run the chunks as Ray tasks: alone, on a local Ray; with host:port or ray://host:port, on that cluster "
    "(same results as without)."
)
WORKERS_HELP = "With --ray: CPUs of the local Ray (default: all), or most chunks in flight on a cluster."
