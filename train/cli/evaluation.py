"""The ``spades`` commands that play bots against each other: ``tournament``, ``bid-bench`` and ``demo``.

Plain functions with Typer's annotations; ``train.cli.app`` registers them on the app (in the order
``spades --help`` lists the commands).
"""

from __future__ import annotations

import typer

from train.cli.options import RAY_HELP, WORKERS_HELP, bot_specs, ray_options


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

    from train.evaluation.tournament import (
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
    """Bidding strategies and any bot's bids on the same deals, heuristic card play (train/evaluation/bid_bench.py)."""
    from pathlib import Path

    from train.evaluation.bid_bench import BidBenchConfig, plot_report, print_report, run_bid_bench, write_json
    from train.runs.output_paths import check_output_folder

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


def demo(
    boards: int = typer.Option(60, help="Boards per pair of bots."),
    seed: int = typer.Option(0, help="Tournament seed."),
) -> None:
    """A short duplicate tournament of the built-in bots (random, heuristic, search)."""
    from train.evaluation.tournament import demo_config, print_report, run_tournament

    report = run_tournament(demo_config(boards=boards, seed=seed), None, progress=True)
    print_report(report)
