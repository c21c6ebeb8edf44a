"""Gymnasium single-agent Spades: the learner plays one seat, bots play the others.

``gymnasium.make("spades_env/Spades-v0", rules="partnership", seat=0, opponents=None,
episode="hand", reward="points")``

- Observation: ``{"observation": Box(D,) float32, "action_mask": Box(A,) int8}`` for the
  learner's seat (the layout of ``spades_env.observation``); action: ``Discrete(A)``.
- Reward: the learner's side's points for each hand that ends during a step (``"scaled"``:
  / 100; ``"win"``: +1/-1 when the match ends, with ``episode="match"``).
- An episode is one hand of a fresh match (``episode="hand"``) or a whole match.
- Hearts rules (``rules="hearts"`` ...) work the same way: the reward is minus the points
  the learner's side took (see ``spades_env.envs.aec``).
- ``opponents``: None (uniformly random legal play), or one opponent for every other seat,
  or a list (one entry per seat, the learner's ignored) or a dict {seat: opponent}; seats
  not given play randomly. An opponent is either an object with the batched agent
  interface ``act(observations (B, D), masks (B, A), context) -> (B,) actions`` (as in
  ``agents/``; ``context`` is a ``spades_env.envs.DecisionContext`` with ``engine``,
  ``state``, ``games``, ``seats``), or a plain callable ``f(observation (D,), mask (A,)) ->
  action``.
- ``illegal``: ``"penalty"`` (default, so that unmasked samplers and Gymnasium's checker
  can step it): an illegal learner action ends the episode with reward ``illegal_reward``
  (default -target score for ``"points"``, -target / 100 for ``"scaled"``, -1 for
  ``"win"``) and ``info["illegal_action"]``; ``"raise"`` raises ``IllegalActionError``.
  An action outside the action space (a float, a string, an int out of range) is illegal.
- ``action_masks()``: the (A,) bool legal actions of the learner (sb3-contrib's
  ``MaskablePPO`` finds it by name); ``reset(options=...)`` takes the AEC env's keys.
- Compiled opponents: an opponent with ``compiled_turns(engine)`` (``agents.HeuristicAgent``)
  plays all its seats' moves between two learner moves, and the learner's own move, in one
  compiled call (its ``play(state, first, seats) -> (pending, moved)``, see
  ``agents.heuristic_turns``) instead of one Python round trip per decision; an action that
  ends a hand, an action that is not a legal int, the other opponents' moves and a state the
  engine cannot pack go through the AEC env as before. The games are the same move for move
  (``tests/spades_env/envs/test_env_golden.py``, ``tests/agents/test_heuristic_turns.py``).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from spades_env.envs.aec import RENDER_FPS, raw_env
from spades_env.envs.context import DecisionContext, random_legal
from spades_env.envs.options import check_seed
from spades_env.rules import Rules

ENV_ID = "spades_env/Spades-v0"


class SpadesGymEnv(gymnasium.Env):
    """One learner seat against bots; every move goes through the AEC env (``game``), the engine at B = 1."""

    metadata = {"render_modes": ["ansi", "human"], "render_fps": RENDER_FPS}

    def __init__(
        self,
        rules: Rules | str | None = "partnership",
        seat: int = 0,
        opponents: Any = None,
        episode: str = "hand",
        reward: str = "points",
        illegal: str = "penalty",
        illegal_reward: float | None = None,
        perfect_information: bool = False,
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.game = raw_env(
            rules=rules,
            episode=episode,
            reward=reward,
            illegal=illegal,
            illegal_reward=illegal_reward,
            perfect_information=perfect_information,
            render_mode=None if render_mode is None else "ansi",  # the text ``render`` returns or prints
        )
        """The AEC env of the game (an adapter over the engine at B = 1): every seat's moves go through it."""
        self.render_mode = render_mode
        n = self.game.engine.n_players
        if not 0 <= int(seat) < n:
            raise ValueError(f"seat must be in 0..{n - 1}, got {seat}")
        self.seat = int(seat)
        self.learner = self.game.possible_agents[self.seat]
        self.opponents = self._opponents(opponents, n)
        self._turns, self._turn_seats = self._compiled_turns()
        # The agents of the seats whose bits are set in k (what ``_turns.play`` says moved), by k.
        self._movers = [[a for s, a in enumerate(self.game.possible_agents) if k >> s & 1] for k in range(1 << n)]
        self.observation_space = self.game.observation_space(self.learner)
        self.action_space = self.game.action_space(self.learner)
        self._rng = np.random.default_rng()
        self._game_rows = np.zeros(1, np.int64)  # the decision context's ``games``: the one game

    def _opponents(self, opponents: Any, n: int) -> list[Any]:
        seats = [s for s in range(n) if s != self.seat]
        if opponents is None:
            table: dict[int, Any] = {}
        elif isinstance(opponents, dict):
            table = {int(k): v for k, v in opponents.items()}
        elif isinstance(opponents, (list, tuple)):
            if len(opponents) != n:
                raise ValueError(f"opponents as a list needs one entry per seat ({n}), got {len(opponents)}")
            table = dict(enumerate(opponents))
        else:
            table = dict.fromkeys(seats, opponents)
        for s, opp in table.items():
            if s in seats and opp is not None and not (hasattr(opp, "act") or callable(opp)):
                raise TypeError(f"opponent for seat {s} must have act(observations, masks, context) or be callable")
        return [table.get(s) if s != self.seat else None for s in range(n)]

    def _compiled_turns(self) -> tuple[Any, np.ndarray | None]:
        """The compiled turns (``compiled_turns(engine)``) of the first opponent that offers them, and
        the (N,) bool seats that opponent plays; (None, None) if none does."""
        for opp in self.opponents:
            make = getattr(opp, "compiled_turns", None)
            if opp is not None and hasattr(opp, "act") and callable(make):
                turns = make(self.game.engine)
                if turns is not None:
                    return turns, np.array([o is opp for o in self.opponents])
        return None, None

    @property
    def rules(self) -> Rules:
        return self.game.rules

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        seed = check_seed(seed)
        super().reset(seed=seed)
        self._rng = self.np_random  # seeded by gymnasium from ``seed``
        game_seed = int(self._rng.integers(0, 2**62)) if seed is None else seed
        self.game.reset(seed=game_seed, options=options)
        self._play_opponents()  # a hand starts with no points scored: nothing to report
        obs = self.game.observe(self.learner)
        if self.render_mode == "human":
            self.render()
        return obs, {}

    def step(self, action):
        game = self.game
        if game.terminations[self.learner]:
            raise RuntimeError("the episode is over: call reset()")
        # The learner's move, then the compiled opponents', in one call (None: not run).
        pending = self._run_turns(int(action)) if self._turns is not None and self._is_legal_int(action) else None
        if pending is None:
            game.step(action)  # an illegal action (or one outside the action space): see ``illegal``
        elif pending >= 0:
            game.step(pending)  # it ends the hand: scored (and shown) by the AEC env
        reward = self._play_opponents()
        terminated = bool(game.terminations[self.learner])
        obs = game.observe(self.learner)
        if self.render_mode == "human":
            self.render()
        return obs, float(reward), terminated, False, dict(game.infos.get(self.learner, {}))

    def action_masks(self) -> np.ndarray:
        """(A,) bool legal actions of the learner (all False once the episode is over)."""
        game = self.game
        if game.terminations[self.learner] or game.agent_selection != self.learner:
            return np.zeros(game.engine.layout.n_actions, bool)
        return game.legal_mask().copy()

    def _play_opponents(self) -> float:
        """Let the bots move until the learner is to move or the episode is over; the learner's reward."""
        game = self.game
        compiled = self._turn_seats
        while not game.terminations[self.learner] and game.agent_selection != self.learner:
            seat = game.agent_name_mapping[game.agent_selection]
            if compiled is not None and compiled[seat]:
                pending = self._run_turns(-1)
                if pending is not None:
                    if pending >= 0:
                        game.step(pending)
                    continue
            game.step(self._opponent_action(seat))
        return game.collect_reward(self.learner)

    def _is_legal_int(self, action: Any) -> bool:
        """``action`` is an int (or NumPy integer) the learner may play now (what the compiled turns take;
        every other action goes through the AEC env's ``step``, which refuses or penalises it)."""
        if not (type(action) is int or isinstance(action, np.integer)):
            return False
        mask = self.game.legal_mask()
        return 0 <= action < len(mask) and bool(mask[action])

    def _run_turns(self, first: int) -> int | None:
        """``first`` (a legal action of the seat to move, -1: none), then the compiled opponents' moves
        (``self._turns.play``) on the AEC env's game; the AEC env is then told what a ``step`` of each
        would have set (the seat to move, all-zero rewards, the movers' cumulative rewards collected).
        Returns the action left pending, which ends the hand (the caller steps it through the AEC env),
        -1 if none, or None if nothing was played: the state's arrays cannot be packed (a state assigned
        to ``game.game_state`` with arrays the engine steps one by one)."""
        game = self.game
        state = game.game_state
        try:
            pending, moved = self._turns.play(state, first, self._turn_seats)
        except ValueError:  # refused before any move: the AEC env plays this turn
            return None
        if moved:
            game.game_state = state  # the legal mask is out of date
            game.agent_selection = game.possible_agents[state.to_move.item()]
            game.rewards = dict.fromkeys(game.agents, 0.0)
            cumulative = game._cumulative_rewards
            for agent in self._movers[moved]:
                cumulative[agent] = 0.0
        return pending

    def _opponent_action(self, seat: int) -> int:
        game = self.game
        opp = self.opponents[seat]
        mask = game.legal_mask()
        if opp is None:
            return int(random_legal(mask[None], self._rng)[0])
        obs = game.observe(game.possible_agents[seat])["observation"]
        if hasattr(opp, "act"):
            context = DecisionContext.of_view(game.engine, game.game_state, self._game_rows, np.array([seat]))
            return int(np.asarray(opp.act(obs[None], mask[None], context)).reshape(-1)[0])
        return int(opp(obs, mask.astype(np.int8)))

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render without specifying a render_mode.")
            return None
        text = self.game.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
