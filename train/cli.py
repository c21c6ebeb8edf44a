"""The ``spades`` command line."""

from __future__ import annotations

import typer

app = typer.Typer(help="spades_env: engine, bots, tournaments and training for Spades.", no_args_is_help=True)


@app.callback()
def main() -> None:
    """spades_env: engine, bots, tournaments and training for Spades."""


@app.command()
def presets() -> None:
    """List the rules presets in configs/rules/."""
    from spades_env.rules import Rules, list_presets

    for name in list_presets():
        rules = Rules.preset(name)
        kind = "partnership" if rules.partnership else f"cutthroat, {rules.n_players} players"
        typer.echo(f"{name:28s} {kind}, to {rules.target_score}")


@app.command()
def train(
    config: str = typer.Option(None, help="Training config YAML (default: configs/train/default.yaml)."),
    device: str = typer.Option(None, help="cpu or cuda (default: the config's device)."),
    resume: str = typer.Option(None, help="Checkpoint to resume from, RUN/checkpoints/latest.pt (its config is used)."),
    run_dir: str = typer.Option(None, help="Directory for runs (default: the config's run_dir)."),
    stop_at: int = typer.Option(None, help="Stop after this many updates in total (resume later)."),
    init_from: str = typer.Option(None, help="Start from this checkpoint's network (default: the config's)."),
) -> None:
    """PPO self-play training (train/ppo.py); logs to TensorBoard, saves checkpoints."""
    import dataclasses

    from train.ppo import PPOConfig
    from train.ppo import train as run_training

    if resume is not None:
        options = {"--config": config, "--run-dir": run_dir, "--init-from": init_from}
        given = [flag for flag, value in options.items() if value is not None]
        if given:
            raise ValueError(
                f"{' and '.join(given)} cannot be combined with --resume: a resumed run goes on with its "
                "checkpoint's config, beside the checkpoint (only --device and --stop-at apply)"
            )
        path = run_training(None, resume=resume, stop_at=stop_at, device=device)
    else:
        cfg = PPOConfig.from_yaml(config or "configs/train/default.yaml")
        overrides = {
            k: v for k, v in {"device": device, "run_dir": run_dir, "init_from": init_from}.items() if v is not None
        }
        path = run_training(dataclasses.replace(cfg, **overrides), stop_at=stop_at)
    typer.echo(f"checkpoint: {path}")


@app.command()
def export(
    checkpoint: str = typer.Argument(..., help="Training checkpoint (runs/.../checkpoints/*.pt)."),
    out: str = typer.Argument(..., help="Where to write the slim checkpoint."),
) -> None:
    """Write a slim checkpoint: network weights, rules, observation version and config only."""
    from pathlib import Path

    from train.checkpoint import export_slim

    path = export_slim(checkpoint, out)
    typer.echo(f"slim checkpoint: {path} ({Path(path).stat().st_size / 2**20:.2f} MiB)")


@app.command()
def tournament(
    bots: str = typer.Option("heuristic,random", help="Comma-separated bot specs (name or name:key=value;...)."),
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
) -> None:
    """Duplicate tournament between bots: fixed deals, seats swapped, resumable JSONL log."""
    from train.tournament import TournamentConfig, print_report, run_tournament, write_csv, write_json

    # Bot options use ';' on the command line, since ',' separates bots.
    specs = tuple(s.strip().replace(";", ",") for s in bots.split(",") if s.strip())
    config = TournamentConfig(bots=specs, rules=rules, boards=boards, mode=mode, seed=seed, chunk=chunk)
    report = run_tournament(config, log, fresh=fresh, progress=progress)
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
    checkpoint: str = typer.Option(None, help="NeuralAgent checkpoint whose bidding head is benchmarked too."),
    oracle_width: int = typer.Option(2, help="The oracle tries each heuristic bid +- this many tricks, and nil."),
    chunk: int = typer.Option(256, help="Deals per engine batch."),
    out: str = typer.Option("bid_bench", help="Directory for bid_bench.json and bid_bench.png."),
) -> None:
    """Bidding strategies on the same deals under heuristic card play (train/bid_bench.py)."""
    from pathlib import Path

    from train.bid_bench import BidBenchConfig, plot_report, print_report, run_bid_bench, write_json

    cfg = BidBenchConfig(
        rules=rules, deals=deals, seed=seed, checkpoint=checkpoint, oracle_width=oracle_width, chunk=chunk
    )
    report = run_bid_bench(cfg, progress=True)
    print_report(report)
    typer.echo(f"json: {write_json(report, Path(out) / 'bid_bench.json')}")
    typer.echo(f"plot: {plot_report(report, Path(out) / 'bid_bench.png')}")


@app.command()
def demo(
    boards: int = typer.Option(60, help="Boards per pair of bots."),
    seed: int = typer.Option(0, help="Tournament seed."),
) -> None:
    """A short duplicate tournament of the built-in bots (random, heuristic, search)."""
    from train.tournament import demo_config, print_report, run_tournament

    report = run_tournament(demo_config(boards=boards, seed=seed), None, progress=True)
    print_report(report)


if __name__ == "__main__":
    app()
