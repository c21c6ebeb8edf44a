"""The ``spades`` command line: the app, its one-line usage errors, and every command in the order of ``--help``.

The commands that make bots are in ``train.cli.training``, those that play bots against each other in
``train.cli.evaluation``, the options they share in ``train.cli.options``; the installation's and the web
table's (``presets``, ``warmup``, ``serve``) are here.
"""

from __future__ import annotations

import os
import sys

import typer
import yaml

from train.cli import evaluation, training
from train.cli.options import bot_specs, with_optional_values

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


def presets() -> None:
    """List the rules presets shipped in spades_env/presets/."""
    from spades_env.rules import Rules, list_presets
    from train.serve.rules_text import describe_table

    for name in list_presets():
        rules = Rules.preset(name)
        typer.echo(f"{name:28s} {describe_table(rules)}")


def warmup() -> None:
    """Compile every Numba kernel into the cache ahead of first use (what `make setup` runs; ~3 min once)."""
    import time

    from train.cli.warmup import warm_up

    typer.echo("compiling the engine, the heuristic and the search for every game into Numba's cache (once)...")
    start = time.monotonic()
    failed = [(part, text) for part, code, text in warm_up() if code]
    for part, text in failed:
        typer.echo(f"warmup part {part} failed:\n{text}", err=True)
    if failed:
        raise typer.Exit(1)
    typer.echo(f"Numba kernels compiled or loaded in {time.monotonic() - start:.0f} s; later runs load them")


def serve(
    host: str = typer.Option("127.0.0.1", help="Address to listen on (0.0.0.0: every interface)."),
    port: int = typer.Option(8000, help="TCP port to listen on."),
    db: str = typer.Option(
        "",
        help="SQLite file keeping every game (settings and decisions), so a restart resumes them (default: "
        "spades_env/web_games.sqlite in $XDG_STATE_HOME or ~/.local/state); ':memory:' keeps them until the server "
        "stops. A file of anything else is refused, never overwritten.",
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
    """The web table (train/serve): play against the bots and replay records in a browser, at http://HOST:PORT/."""
    if not 1 <= port <= 65535:
        raise ValueError(f"--port must be in 1..65535, got {port}")
    try:
        import uvicorn

        from train.serve.app import create_app
        from train.serve.bots import BotMenu
        from train.serve.guard import LOOPBACK_HOSTS, SWITCH_INTERVAL
        from train.serve.storage import default_db_path
        from train.serve.store import GameStore
        from train.serve.warm import warm_table
    except ModuleNotFoundError as err:
        raise ValueError(f"spades serve needs the web extra ({err.name} is missing): pip install -e '.[web]'") from None
    loopback = host in LOOPBACK_HOSTS or host.startswith("127.")
    menu = BotMenu(bot_specs(bots, "--bots")) if bots.strip() else BotMenu()
    hosts = (*LOOPBACK_HOSTS, host) if loopback else None
    store = GameStore(db or default_db_path(), bots=menu)
    application = create_app(store, replay_dir=replay_dir or None, allowed_hosts=hosts)
    sys.setswitchinterval(SWITCH_INTERVAL)  # light requests get the GIL back soon while replays compute
    warm_table()  # the default table's kernels loaded before the first client waits for them
    kept = "in memory only" if store.storage.path == ":memory:" else f"in {store.storage.path}"
    typer.echo(f"serving the web table at http://{host}:{port}/ (Ctrl+C to stop); games kept {kept}")
    uvicorn.run(application, host=host, port=port, access_log=access_log)


#: Every command and its name, in the order ``spades --help`` lists them.
COMMANDS = (
    ("presets", presets),
    ("train", training.train),
    ("recipe", training.recipe),
    ("export", training.export),
    ("tournament", evaluation.tournament),
    ("bid-bench", evaluation.bid_bench),
    ("position-value", training.position_value),
    ("demo", evaluation.demo),
    ("warmup", warmup),
    ("serve", serve),
)
for _name, _command in COMMANDS:
    app.command(_name)(_command)


if __name__ == "__main__":
    app()
