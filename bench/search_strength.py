"""Search vs heuristic in a duplicate hand tournament, with the search agent's decisions/s.

python -m bench.search_strength --boards 800 --spec search:samples=16 [--rules hearts]
"""

from __future__ import annotations

import argparse
import time

from agents import make_agent
from train.evaluation.tournament import TournamentConfig, run_tournament


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=800, help="duplicate boards (each played twice, seats swapped)")
    parser.add_argument("--spec", default="search:samples=16", help="the search bot spec")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--rules", default="partnership", help="rules preset name or YAML path")
    parser.add_argument(
        "--engine-rollouts",
        action="store_true",
        help="roll out in the batched engine (the reference) instead of compiled",
    )
    args = parser.parse_args(argv)
    made = []

    def factory(spec: str, seed: int):
        agent = make_agent(spec, seed)
        if args.engine_rollouts and hasattr(agent, "compiled_rollouts"):
            agent.compiled_rollouts = False
        made.append(agent)
        return agent

    start = time.perf_counter()
    config = TournamentConfig(
        bots=(args.spec, "heuristic"), boards=args.boards, chunk=200, seed=args.seed, rules=args.rules
    )
    report = run_tournament(config, None, progress=False, agent_factory=factory)
    wall = time.perf_counter() - start
    decisions = sum(getattr(a, "decisions", 0) for a in made)
    seconds = sum(getattr(a, "search_seconds", 0.0) for a in made)
    pair = report["pairs"][0]
    result = f"{pair['diff']:+.2f} ± {pair['diff_ci95']:.2f} points/hand"
    print(f"{args.spec} vs heuristic, {args.rules}, {args.boards} boards: {result}")
    print(f"wall {wall:.1f} s; search decisions {decisions}, {decisions / max(seconds, 1e-9):.1f} decisions/s")
    return report


if __name__ == "__main__":
    main()
