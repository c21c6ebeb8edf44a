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


if __name__ == "__main__":
    app()
