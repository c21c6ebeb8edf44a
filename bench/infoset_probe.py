"""The information-set probe at size: per bot and table, how many decisions change when the hidden cards move.

python -m bench.infoset_probe --decisions 600 --rules two-player --bot search,search:fast [--values]

For each table (``--rules``, comma-separated presets) it draws ``--decisions`` decisions from seeded heuristic
games (``agents.infoset_probe.sample_decisions``: every phase, two-player draws and Hearts passes included),
re-deals what each deciding seat cannot see and replaces the key (``redeal``), and asks each bot (``--bot``,
comma-separated specs), re-seeded identically, for the decision in both; an honest bot changes none.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents import make_agent
from agents.infoset_probe import probe, sample_decisions
from spades_env.engine import PHASE_NAMES, SpadesEngine


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=600, help="decisions probed per table")
    parser.add_argument("--rules", default="partnership,two-player,cutthroat-4,hearts", help="presets, comma-separated")
    parser.add_argument("--bot", default="random,heuristic,search:fast", help="bot specs, comma-separated")
    parser.add_argument("--seed", type=int, default=0, help="seed of the games, the re-deals and the bots")
    parser.add_argument("--batch", type=int, default=200, help="decisions per bot call")
    parser.add_argument("--values", action="store_true", help="also compare action_values (bots that have them)")
    args = parser.parse_args(argv)
    rows = []
    for rules in args.rules.split(","):
        engine = SpadesEngine(rules)
        state, seats = sample_decisions(engine, args.decisions, args.seed, games=16)
        phases = np.bincount(state.phase, minlength=len(PHASE_NAMES))
        spread = ", ".join(f"{PHASE_NAMES[p]} {c}" for p, c in enumerate(phases) if c)
        print(f"{rules}: {state.batch_size} decisions ({spread})")
        for spec in args.bot.split(","):
            bot = make_agent(spec, seed=args.seed)
            if not bot.supports(engine):
                print(f"  {spec:<24} does not play {rules}")
                continue
            start = time.perf_counter()
            actions = redealt = 0
            values = None  # stays None for a bot without action_values
            rng = np.random.default_rng(args.seed)
            for lo in range(0, state.batch_size, args.batch):
                part = state.take(np.arange(lo, min(lo + args.batch, state.batch_size)))
                result = probe(bot, engine, part, seats[lo : lo + args.batch], args.seed + lo, args.values, rng)
                actions += int(result.actions.sum())
                if result.values is not None:
                    values = (values or 0) + int(result.values.sum())
                redealt += int(result.redealt.sum())
            wall = time.perf_counter() - start
            shown = f", action_values changed {values}" if values is not None else ""
            print(f"  {spec:<24} actions changed {actions}{shown} (re-dealt {redealt}; {wall:.1f} s)")
            rows.append({"rules": rules, "bot": spec, "decisions": state.batch_size, "actions": actions,
                         "values": values, "redealt": redealt})  # fmt: skip
    return rows


if __name__ == "__main__":
    main()
