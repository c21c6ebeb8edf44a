"""The ``spades`` command line."""

from __future__ import annotations

import os
import sys

import typer
import yaml

#: Errors that mean "the input was wrong", not "the program is wrong": shown as one line, exit code 2.
#: ``ValueError`` covers the project's own validation (and ``UnicodeDecodeError``); ``OSError`` missing,
#: unreadable or unwritable files; ``yaml.YAMLError`` a broken YAML file. Anything else is a bug: traceback.
USAGE_ERRORS: tuple[type[BaseException], ...] = (ValueError, OSError, yaml.YAMLError)
USAGE_EXIT_CODE = 2


class _App(typer.Typer):
    """A Typer app that reports usage errors in one line (``error: ...``) and exits 2.

    ``spades --debug ...`` (or ``SPADES_DEBUG=1``) shows the full traceback instead.
    """

    debug = False

    def __call__(self, *args, **kwargs):
        if not args and "args" not in kwargs:
            kwargs["args"] = with_optional_values(sys.argv[1:])
        try:
            return super().__call__(*args, **kwargs)
        except USAGE_ERRORS as err:
            if self.debug or os.environ.get("SPADES_DEBUG"):
                raise
            message = str(err).strip() or type(err).__name__
            if isinstance(err, OSError) and err.filename is not None and str(err.filename) not in message:
                message = f"{message}: {err.filename}"
            print(f"error: {message}", file=sys.stderr)
            print("(run with --debug for the traceback)", file=sys.stderr)
            sys.exit(USAGE_EXIT_CODE)


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
    from train.ray_shards import RayOptions

    return RayOptions(address=address, workers=workers)


RAY_HELP = (
    "Run the chunks as Ray tasks: alone, on a local Ray; with host:port or ray://host:port, on that cluster "
    "(same results as without)."
)
WORKERS_HELP = "With --ray: CPUs of the local Ray (default: all), or most chunks in flight on a cluster."

app = _App(
    help="spades_env: engine, bots, tournaments, training and a web table for Spades, Hearts and their relatives.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
)


@app.callback()
def main(
    debug: bool = typer.Option(False, "--debug", help="Show the full traceback of an error (for bug reports)."),
) -> None:
    """spades_env: engine, bots, tournaments and training for Spades."""
    _App.debug = debug


@app.command()
def presets() -> None:
    """List the rules presets shipped in spades_env/presets/."""
    from spades_env.rules import Rules, list_presets
    from train.rules_text import describe_table

    for name in list_presets():
        rules = Rules.preset(name)
        typer.echo(f"{name:28s} {describe_table(rules)}")


@app.command()
def train(
    config: str = typer.Option(None, help="Training config YAML (default: configs/train/default.yaml)."),
    device: str = typer.Option(None, help="cpu or cuda (default: the config's device)."),
    resume: str = typer.Option(None, help="Checkpoint to resume from, RUN/checkpoints/latest.pt (its config is used)."),
    run_dir: str = typer.Option(None, help="Directory for runs (default: the config's run_dir)."),
    stop_at: int = typer.Option(None, help="Stop after N updates (PPO) or rounds (the other trainers) in all."),
    init_from: str = typer.Option(None, help="Start from this checkpoint's network (default: the config's)."),
    actors: int = typer.Option(
        None, help="Expert iteration: Ray actors that collect the shards (0: this process; default: the config's)."
    ),
    set_: list[str] = typer.Option(  # noqa: B008 (typer reads a repeatable option from a list annotation)
        None, "--set", help="KEY=VALUE: set a config key (a YAML value), e.g. --set seed=4 --set rounds=40; repeatable."
    ),
    rules: str = typer.Option(
        None, help="Rules preset or YAML: expert iteration with its game family's generic config (not with --config)."
    ),
    gpu: bool = typer.Option(False, "--gpu", help="With --rules: the GPU sizing (as --device cuda)."),
    progress: bool = typer.Option(True, help="Expert iteration: a progress bar over the rounds (on a terminal)."),
) -> None:
    """One training run from a config (PPO, expert iteration, bid or card values), or expert iteration at any table
    with --rules: TensorBoard, resumable.

    \f
    The config's ``algorithm`` picks the trainer (train/ppo.py, train/expert_iteration.py, bid_values_train.py)."""
    import dataclasses

    from train.expert_iteration_config import ExpertIterationConfig
    from train.trainers import trainer_for

    if rules is not None or gpu:
        from train.train_rules import train_rules

        path = train_rules(
            rules, gpu=gpu, refused={"--config": config, "--resume": resume}, overrides=_parse_set_options(set_ or []),
            device=device, run_dir=run_dir, init_from=init_from, actors=actors, stop_at=stop_at, progress=progress,
        )  # fmt: skip
        typer.echo(f"checkpoint: {path}")
        return
    where = {} if actors is None else {"actors": actors}
    if resume is not None:
        options = {"--config": config, "--run-dir": run_dir, "--init-from": init_from, "--set": set_ or None}
        given = [flag for flag, value in options.items() if value is not None]
        if given:
            raise ValueError(
                f"{' and '.join(given)} cannot be combined with --resume: a resumed run goes on with its "
                "checkpoint's config, beside the checkpoint (only --device, --stop-at and --actors apply)"
            )
        config_class, run_training = trainer_for(checkpoint=resume)
        _check_actors_option(actors, config_class is ExpertIterationConfig)
        where |= {"progress": progress} if config_class is ExpertIterationConfig else {}
        path = run_training(None, resume=resume, stop_at=stop_at, device=device, **where)
    else:
        config_class, run_training = trainer_for(config=config or "configs/train/default.yaml")
        _check_actors_option(actors, config_class is ExpertIterationConfig)
        cfg = config_class.from_yaml(config or "configs/train/default.yaml")
        cfg = cfg.with_overrides(_parse_set_options(set_ or []), source="--set")
        overrides = {
            k: v for k, v in {"device": device, "run_dir": run_dir, "init_from": init_from}.items() if v is not None
        } | where
        extra = {"progress": progress} if config_class is ExpertIterationConfig else {}
        path = run_training(dataclasses.replace(cfg, **overrides), stop_at=stop_at, **extra)
    typer.echo(f"checkpoint: {path}")


@app.command()
def recipe(
    path: str = typer.Argument(..., help="Recipe YAML (configs/recipes/: partnership, cutthroat4, hearts)."),
    out: str = typer.Option(None, help="Folder of the stages' networks and runs (default: runs/recipe_<name>)."),
    smoke: bool = typer.Option(False, help="Every stage shrunk to seconds (what CI runs): checks the chain, no bot."),
    device: str = typer.Option(None, help="cpu or cuda for every stage (default: each config's device)."),
    stop_after: str = typer.Option(None, help="Stop once this stage is done (run the command again to go on)."),
    pipeline: bool = typer.Option(
        False, help="Bid-values stages collect each next round beside the update (faster on 2+ cores; other runs)."
    ),
) -> None:
    """A learned bot from nothing: a recipe's training stages in order; run it again after a kill to go on.

    \f
    Each stage starts from an earlier one's network (train/recipe.py)."""
    from pathlib import Path

    from train.recipe import Recipe, run_recipe

    folder = out or f"runs/recipe_{Path(path).stem}" + ("_smoke" if smoke else "")
    bot = run_recipe(
        path, folder, smoke=smoke, device=device, stop_after=stop_after, echo=typer.echo, pipeline=pipeline
    )
    typer.echo(f"network: {bot}")
    rules = Recipe.from_yaml(path).rules
    typer.echo(f'evaluate: spades tournament --rules {rules} --bots "neural:path={bot},heuristic" --boards 2000')


def _parse_set_options(items: list[str]) -> dict:
    """``--set KEY=VALUE`` options as a mapping, each value read as YAML (``4``, ``3e-4``, ``true``, ``network``)."""
    import yaml

    pairs: dict = {}
    for item in items:
        key, sep, text = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set {item!r}: give KEY=VALUE, e.g. --set seed=4")
        try:
            pairs[key.strip()] = yaml.safe_load(text)
        except yaml.YAMLError as err:
            raise ValueError(f"--set {item!r}: the value is not YAML ({str(err).splitlines()[0]})") from None
    return pairs


def _check_actors_option(actors: int | None, expert_iteration: bool) -> None:
    if actors is not None and not expert_iteration:
        raise ValueError(
            f"--actors {actors} is for expert iteration (`algorithm: expert_iteration` with collect_shards); "
            "PPO and bid values run in the trainer's process"
        )


@app.command()
def export(
    checkpoint: str = typer.Argument(..., help="Training checkpoint (runs/.../checkpoints/*.pt)."),
    out: str = typer.Argument(..., help="Where to write the slim checkpoint."),
    play_only: bool = typer.Option(
        False, "--play-only", help="Drop the state value head too (the same play, ~0.5 MiB less; PPO cannot train it)."
    ),
    half: bool = typer.Option(
        False, "--half", help="Store the weights as float16 (half the file; played as float32, rounded)."
    ),
) -> None:
    """Write a slim checkpoint: network weights, rules, observation version and config only."""
    from pathlib import Path

    from train.checkpoint import export_slim

    path = export_slim(checkpoint, out, play_only=play_only, half=half)
    typer.echo(f"slim checkpoint: {path} ({Path(path).stat().st_size / 2**20:.2f} MiB)")


@app.command()
def tournament(
    bots: str = typer.Option(
        "heuristic,random",
        help="Comma-separated bot specs: name or name:key=value;..., an installed bot, module.path:Object[:...].",
    ),
    rules: str = typer.Option("partnership", help="Rules preset name or YAML path."),
    boards: int = typer.Option(200, help="Seeded boards (deals) per pair of bots."),
    mode: str = typer.Option("hand", help="hand: one hand per board; match: a whole match per board."),
    seed: int = typer.Option(0, help="Tournament seed (boards and bots derive from it)."),
    chunk: int = typer.Option(512, help="Boards per engine batch."),
    log: str = typer.Option(None, help="JSONL game log; an existing log of the same config is resumed."),
    fresh: bool = typer.Option(False, help="Start the log afresh instead of resuming it."),
    json_out: str = typer.Option(None, "--json", help="Write the report as JSON here."),
    csv_out: str = typer.Option(None, "--csv", help="Write per-pair CSV here (and <stem>_bots.csv)."),
    progress: bool = typer.Option(True, help="Show a progress bar."),
    records: bool = typer.Option(False, help="Log every hand's game record too (replayable in `spades serve`)."),
    ray: str = typer.Option(None, "--ray", metavar="[ADDRESS]", help=RAY_HELP),
    ray_workers: int = typer.Option(None, "--ray-workers", help=WORKERS_HELP),
) -> None:
    """Duplicate tournament between bots: fixed deals, seats swapped, resumable JSONL log."""
    import warnings

    from train.tournament import (
        TournamentConfig,
        TournamentLogWarning,
        check_report_outputs,
        print_report,
        run_tournament,
        write_csv,
        write_json,
    )

    specs = bot_specs(bots, "--bots")
    config = TournamentConfig(bots=specs, rules=rules, boards=boards, mode=mode, seed=seed, chunk=chunk)
    check_report_outputs(json_out, csv_out)
    on_ray = ray_options(ray, ray_workers)
    if records and not log:
        raise ValueError("--records writes every hand's record into the game log: give --log FILE too")
    with warnings.catch_warnings():  # what a resumed log skipped, as one plain line each
        warnings.simplefilter("always", TournamentLogWarning)
        warnings.showwarning = lambda message, *_args, **_kw: typer.echo(f"warning: {message}", err=True)
        report = run_tournament(config, log, fresh=fresh, progress=progress, hand_records=records, ray=on_ray)
    print_report(report)
    if json_out:
        write_json(report, json_out)
    if csv_out:
        write_csv(report, csv_out)


@app.command("bid-bench")
def bid_bench(
    deals: int = typer.Option(500, help="Seeded deals; each is played in both seatings."),
    rules: str = typer.Option("partnership", help="Rules preset name or YAML path (partnership)."),
    seed: int = typer.Option(0, help="Benchmark seed (the deals derive from it)."),
    bidders: str = typer.Option(
        "",
        help="Comma-separated bidders: count, lookahead, neural, oracle and any bot spec (its bids); heuristic always "
        "comes first. Default: heuristic, count, lookahead, neural (with --checkpoint), oracle.",
    ),
    checkpoint: str = typer.Option(None, help="NeuralAgent checkpoint whose bidding head is benchmarked too."),
    oracle_width: int = typer.Option(2, help="The oracle tries each heuristic bid +- this many tricks, and nil."),
    chunk: int = typer.Option(256, help="Deals per engine batch."),
    lookahead_samples: int = typer.Option(64, help="Sampled deals per bid of the lookahead bidder (0: no row)."),
    checkpoint_bid_samples: int = typer.Option(
        0, help="The checkpoint's bids averaged with a lookahead's on this many sampled deals (learned:bid_samples)."
    ),
    out: str = typer.Option("bid_bench", help="Directory for bid_bench.json and bid_bench.png."),
    ray: str = typer.Option(None, "--ray", metavar="[ADDRESS]", help=RAY_HELP),
    ray_workers: int = typer.Option(None, "--ray-workers", help=WORKERS_HELP),
    progress: bool = typer.Option(True, help="Show a progress bar."),
) -> None:
    """Bidding strategies and any bot's bids on the same deals under heuristic card play (train/bid_bench.py)."""
    from pathlib import Path

    from train.bid_bench import BidBenchConfig, plot_report, print_report, run_bid_bench, write_json
    from train.output_paths import check_output_folder

    cfg = BidBenchConfig(
        rules=rules,
        deals=deals,
        seed=seed,
        checkpoint=checkpoint,
        oracle_width=oracle_width,
        chunk=chunk,
        lookahead_samples=lookahead_samples,
        checkpoint_bid_samples=checkpoint_bid_samples,
        bidders=bot_specs(bidders, "--bidders"),
    )
    check_output_folder(out, "--out")
    report = run_bid_bench(cfg, progress=progress, ray=ray_options(ray, ray_workers))
    print_report(report)
    typer.echo(f"json: {write_json(report, Path(out) / 'bid_bench.json')}")
    typer.echo(f"plot: {plot_report(report, Path(out) / 'bid_bench.png')}")


@app.command("position-value")
def position_value(
    out: str = typer.Option("checkpoints/partnership_position_value.pt", help="The checkpoint to write."),
    rules: str = typer.Option("partnership", help="Rules preset name or YAML path (Spades)."),
    hands: int = typer.Option(32768, help="Self-play hands of the learned bot (the positions' source)."),
    keep: float = typer.Option(0.75, help="Probability that a position of a hand is kept."),
    epochs: int = typer.Option(5, help="Passes over the positions."),
    hidden: int = typer.Option(256, help="Width of the network's hidden layers."),
    seed: int = typer.Option(0, help="Seed of the deals, the kept positions and the training."),
) -> None:
    """Train the guided bot's position value network on the learned bot's self-play (train/position_value.py)."""
    from train.position_value import PositionValueConfig, train_position_value

    config = PositionValueConfig(rules=rules, hands=hands, keep=keep, epochs=epochs, hidden=hidden, seed=seed)
    train_position_value(config, out, log=typer.echo)


@app.command()
def demo(
    boards: int = typer.Option(60, help="Boards per pair of bots."),
    seed: int = typer.Option(0, help="Tournament seed."),
) -> None:
    """A short duplicate tournament of the built-in bots (random, heuristic, search)."""
    from train.tournament import demo_config, print_report, run_tournament

    report = run_tournament(demo_config(boards=boards, seed=seed), None, progress=True)
    print_report(report)


@app.command()
def warmup() -> None:
    """Compile every Numba kernel into the cache ahead of first use (what `make setup` runs; ~3 min once)."""
    import time

    from train.warmup import warm_up

    typer.echo("compiling the engine, the heuristic and the search for every game into Numba's cache (once)...")
    start = time.monotonic()
    failed = [(part, text) for part, code, text in warm_up() if code]
    for part, text in failed:
        typer.echo(f"warmup part {part} failed:\n{text}", err=True)
    if failed:
        raise typer.Exit(1)
    typer.echo(f"Numba kernels compiled or loaded in {time.monotonic() - start:.0f} s; later runs load them")


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", help="Address to listen on (0.0.0.0: every interface)."),
    port: int = typer.Option(8000, help="TCP port to listen on."),
    db: str = typer.Option(
        ":memory:",
        help="SQLite file keeping every game (settings and decisions), so a restart resumes them; "
        "':memory:' keeps them until the server stops. A file of anything else is refused, never overwritten.",
    ),
    replay_dir: str = typer.Option(
        "", help="Folder whose .json/.jsonl files a client may replay by name ({'path': ...}); empty: none."
    ),
    access_log: bool = typer.Option(False, help="Print a line for every request (off: it costs the busy server time)."),
    bots: str = typer.Option(
        "",
        help="The bots a client may pick (bot specs, as for tournament --bots; default: random, heuristic, search, "
        "learned): a built-in name takes a client's options within bounds; any other spec (an installed bot, "
        "module.path:Object) is picked by its text as given.",
    ),
) -> None:
    """The web table (train/web): play against the bots and replay records in a browser, at http://HOST:PORT/."""
    if not 1 <= port <= 65535:
        raise ValueError(f"--port must be in 1..65535, got {port}")
    try:
        import uvicorn

        from train.web.app import create_app
        from train.web.bots import BotMenu
        from train.web.guard import LOOPBACK_HOSTS, SWITCH_INTERVAL
        from train.web.store import GameStore
        from train.web.warm import warm_table
    except ModuleNotFoundError as err:
        raise ValueError(f"spades serve needs the web extra ({err.name} is missing): pip install -e '.[web]'") from None
    loopback = host in LOOPBACK_HOSTS or host.startswith("127.")
    menu = BotMenu(bot_specs(bots, "--bots")) if bots.strip() else BotMenu()
    hosts = (*LOOPBACK_HOSTS, host) if loopback else None
    application = create_app(GameStore(db, bots=menu), replay_dir=replay_dir or None, allowed_hosts=hosts)
    sys.setswitchinterval(SWITCH_INTERVAL)  # light requests get the GIL back soon while replays compute
    warm_table()  # the default table's kernels loaded before the first client waits for them
    typer.echo(f"serving the web table at http://{host}:{port}/ (Ctrl+C to stop)")
    uvicorn.run(application, host=host, port=port, access_log=access_log)


if __name__ == "__main__":
    app()
