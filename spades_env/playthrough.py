"""A seeded random-policy match written out as text (a golden playthrough).

``render_match(rules, seed, policy_seed)`` plays one match in the batched engine with
a uniformly random legal policy and writes every hand: the deal (suit symbols), the
blind-nil choices and bids (Hearts: the cards passed), each trick with its leader and
winner, the points, scores and bags (Hearts: points taken), and the match winner. Tests
diff it with a stored file, so any silent change
of the rules, the dealing or the action layout shows up as a readable diff.
"""

from __future__ import annotations

import numpy as np

from spades_env import games
from spades_env.core.text import side_name
from spades_env.engine.core import SpadesEngine
from spades_env.engine.state import OVER
from spades_env.rules import DEFAULT_GAME, Rules, resolve_rules


def _changed_fields(rules: Rules) -> list[str]:
    """``field=value`` for each rule that differs from the game's defaults (new defaulted fields stay out)."""
    default = type(rules)().to_dict()
    changed = [f"{k}={v}" for k, v in rules.to_dict().items() if k != "name" and v != default.get(k)]
    return changed if rules.game == DEFAULT_GAME else [f"game={rules.game}", *changed]


def render_match(rules: Rules | str, seed: int, policy_seed: int, max_hands: int = 100) -> str:
    """Play one seeded match with a seeded uniform random policy and render it as text."""
    rules = resolve_rules(rules)
    engine = SpadesEngine(rules)
    lay = engine.layout
    state = engine.reset(seed)
    rng = np.random.default_rng(policy_seed)
    lines = [
        f"# spades_env playthrough: rules {rules.name!r}, seed {seed}, policy seed {policy_seed}",
        "# rules changed from the defaults: " + (", ".join(_changed_fields(rules)) or "none"),
        f"# actions: {lay.n_actions} (cards 0-{lay.n_card_ids - 1}"
        + (f", bids {lay.bid_offset}-{lay.bid_end - 1}" if lay.max_bid >= 0 else "")
        + "".join(f", {lay.describe(lay.special(name))} {lay.special(name)}" for name in lay.specials)
        + ")",
        "",
    ]
    render = games.part(rules.game, "render")
    hands = 0
    while state.phase[0] != OVER and hands < max_hands:
        legal = np.flatnonzero(engine.legal_action_mask(state)[0])
        result = engine.step(state, [int(rng.choice(legal))])
        for f in result.finished:
            hands += 1
            lines += render.render_finished_hand(engine.facts, hands, f, 0)
            lines.append("")
    if state.phase[0] == OVER:
        winner = int(state.winner[0])
        final = ", ".join(str(int(s)) for s in state.scores[0])
        lowest = " (lowest score)" if rules.points_are_penalties else ""
        lines.append(f"winner: {side_name(rules, winner)}{lowest} after {hands} hands (scores {final})")
    else:
        lines.append(f"stopped after {hands} hands without a winner")
    return "\n".join(lines) + "\n"
