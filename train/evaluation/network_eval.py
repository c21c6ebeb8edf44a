"""Evaluation of a training network against HeuristicAgent (duplicate, hand mode), for runs and their callers.

Every trainer (PPO, expert iteration, bid values) evaluates with it (when: ``train.runs.scaffold.due_after``) and
keeps its rule of which network is best (``eval_gain``); ``train/ppo/trainer.py`` re-exports
``evaluate_against_heuristic`` and ``evaluate``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from agents.neural import NeuralAgent, SpadesPolicy

if TYPE_CHECKING:
    from spades_env.rules import Rules
    from train.ppo.config import PPOConfig


def evaluate_against_heuristic(agent: Any, rules: str, boards: int, seed: int) -> dict[str, float]:
    """Duplicate tournament (``train/evaluation/tournament.py``, hand mode) of ``agent`` against HeuristicAgent.

    ``rules`` is a preset name or rules YAML path.
    Returns ``points_per_hand`` of each bot (bag-adjusted), ``diff`` (agent - heuristic,
    mean per board) with ``diff_ci95`` (half-width of its 95% interval) and ``board_win_rate``.
    """
    return evaluate_against(agent, "heuristic", rules, boards, seed)


def evaluate_against(agent: Any, opponent: str, rules: str, boards: int, seed: int) -> dict[str, float]:
    """``evaluate_against_heuristic`` against the bot spec ``opponent`` (e.g. ``search:fast``); the
    opponent's points are ``heuristic_points_per_hand`` whatever it is, so the keys stay the same."""
    from agents import make_agent
    from train.evaluation.tournament import TournamentConfig, run_tournament

    config = TournamentConfig(bots=("ppo", opponent), rules=rules, boards=boards, mode="hand", seed=seed)
    factory = lambda spec, s: agent if spec == "ppo" else make_agent(spec, seed=s)  # noqa: E731
    report = run_tournament(config, None, progress=False, agent_factory=factory)
    pair = report["pairs"][0]
    return {
        "points_per_hand": pair["points_per_hand"]["ppo"],
        "heuristic_points_per_hand": pair["points_per_hand"][opponent],
        "diff": pair["diff"],
        "diff_ci95": pair["diff_ci95"],
        "board_win_rate": pair["board_wins"]["ppo"] / max(1, pair["boards"]),
    }


def evaluate(policy: SpadesPolicy, config: PPOConfig, rules: Rules | None = None) -> dict[str, float] | None:
    """``eval/*`` scalars of the greedy policy (trained on ``rules``) against HeuristicAgent, and
    ``eval_search/*`` against ``config.eval_search`` where one is set, or None if the tournament is missing."""
    try:
        import train.evaluation.tournament  # noqa: F401
    except ImportError:
        return None
    device = torch.device("cpu")
    agent = NeuralAgent(clone_policy(policy, device), greedy=True, name="ppo", rules=rules, play=config.card_play)
    result = evaluate_against_heuristic(agent, config.rules, config.eval_deals, config.eval_seed)
    scalars = {f"eval/{k}": v for k, v in result.items()}
    if config.eval_search:
        vs = evaluate_against(agent, config.eval_search, config.rules, config.eval_search_deals, config.eval_seed)
        scalars |= {f"eval_search/{k}": v for k, v in vs.items() if k in ("diff", "diff_ci95", "board_win_rate")}
    return scalars


def clone_policy(policy: SpadesPolicy, device: torch.device) -> SpadesPolicy:
    """A detached copy of ``policy`` on ``device``, in eval mode."""
    copy = SpadesPolicy(**policy.hyperparameters())
    copy.load_state_dict({k: v.detach().to("cpu").clone() for k, v in policy.state_dict().items()})
    return copy.to(device).eval()


def net_from(snapshot: dict[str, torch.Tensor], like: SpadesPolicy, device: torch.device) -> SpadesPolicy:
    """A network shaped like ``like`` holding the weights ``snapshot`` (an opponent-pool entry), in eval mode."""
    net = SpadesPolicy(**like.hyperparameters())
    net.load_state_dict(snapshot)
    return net.to(device).eval()


def eval_gain(diff: float, rules: Rules) -> float:
    """How much better than HeuristicAgent an evaluation's ``diff`` (network - heuristic, per hand) is: the diff
    itself, or minus it in Hearts, whose points are penalties (lower is better [RULES 7]). ``keep_best`` keeps
    the network of the highest gain."""
    return -diff if rules.points_are_penalties else diff
