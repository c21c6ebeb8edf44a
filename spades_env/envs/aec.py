# noqa: D212, D415
"""
# Spades

A PettingZoo AEC environment for Spades (and Hearts) on the engine at B = 1 (see "Implementation and state").

| Import             | `import spades_env; env = spades_env.env(rules="partnership")`        |
|--------------------|-----------------------------------------------------------------------|
| Actions            | Discrete                                                              |
| Parallel API       | No                                                                    |
| Manual Control     | No                                                                    |
| Agents             | `agents = ['player_0', ..., 'player_{N-1}']` (N = 4; 2; cutthroat 3..6) |
| Action Shape       | (1,)                                                                  |
| Action Values      | [0, A - 1]; A = C + (hand size + 1) + specials (68 for partnership)   |
| Observation Shape  | {"observation": (D,), "action_mask": (A,)}; D = 585 for partnership   |
| Observation Values | observation in [0, 1] except scores in [-4, 4]; action_mask 0/1 int8  |

Seats play clockwise; in partnership games `player_0` + `player_2` (side 0) play against
`player_1` + `player_3` (side 1). The rules are a preset name (`spades_env.list_presets()`),
a `spades_env.Rules` object or a YAML path; see docs/rules.md for the game.

### Arguments

``env(rules="partnership", episode="match", reward="points", illegal="raise",
illegal_reward=None, perfect_information=False, render_mode=None)``

- `episode`: `"match"` (play to the target score) or `"hand"` (every episode is the first
  hand of a fresh match; `reset(options=...)` can set the starting scores).
- `reward`: `"points"`, `"scaled"` (points / 100) or `"win"` (match episodes only).
- `illegal`: `"raise"` (an illegal action raises `spades_env.IllegalActionError` naming the
  legal actions) or `"penalty"` (like PettingZoo's `TerminateIllegalWrapper`: the game ends,
  every agent is terminated, the offender gets `illegal_reward` and the others 0; the
  default `illegal_reward` is -1 for `"win"`, -target score for `"points"` and
  -target / 100 for `"scaled"`).
- `perfect_information`: append every seat's hand to the observation (see also `state()`).
- `reset(seed, options)`: `seed` fixes the match (the same seed gives the same deals as
  `SpadesEngine.reset(seed)`); `options` may hold `deal` (N lists of card ids; two-player:
  `pile`, 52 card ids), `dealer`, `scores` and `bags` (one value per side) to set up the
  first hand; any other key is refused (`ValueError` naming the allowed keys).

An action that is not in the action space (a float, a string, an out-of-range int, None for
an agent that is not done) counts as illegal: it raises or is penalised as `illegal` says.

### Action space

One flat `Discrete(A)` space for every decision (`spades_env.engine.actions.ActionLayout`):

| Actions                     | Meaning                                            |
|-----------------------------|----------------------------------------------------|
| 0 .. C - 1                  | play card id (suit * 13 + rank, jokers 52, 53); in the two-player exchange, give it up |
| C .. C + hand size          | bid 0 (nil) .. hand size tricks                    |
| then, only where the rules enable them, in this order: |                     |
| blind nil, look             | declare blind nil / look at the hand (`blind_nil`) |
| keep, discard               | two-player draw: keep or discard the shown card    |
| done exchanging             | two-player blind nil: stop exchanging              |
| no / little / big Bemo      | a side's Bemo declaration (`bemo`)                 |
| redeal                      | show a weak hand and force a redeal (`misdeal_weak_hand`) |

`env.unwrapped.engine.layout` names every id (`layout.describe(a)`).

### Observation space

`{"observation": Box(D,) float32, "action_mask": Box(A,) int8}`. The observation is
seat-relative (the observer is relative seat 0, the partner relative seat 2); its layout is
that of `spades_env.observation.ObservationEncoder` (version 2), in order (C card ids;
blocks marked (rule) exist only under that rule):

| Block           | Size   | Meaning                                                        |
|-----------------|--------|----------------------------------------------------------------|
| hand            | C      | own hand; all zeros while the seat has not looked (blind nil open) |
| played          | N x C  | cards each relative seat played this hand                      |
| trick           | N x C  | card each relative seat played to the current trick            |
| all_hands       | N x C  | only with `perfect_information=True`                           |
| face_up         | N x C  | (face_up_deal) face-up cards still in each relative seat's hand |
| shown, discards, seen | C each | (two-player) card shown to the drawing observer, own discards, cards seen |
| led_suit        | 4      | suit led to the current trick                                  |
| leader          | N      | relative seat leading the current trick                        |
| bid             | N x K  | one-hot bid of each relative seat (K = hand size + 1)          |
| has_bid, nil, blind_nil | N each | bid flags                                          |
| voids           | N x 4  | suits each relative seat has shown out of                      |
| spades_broken   | 1      | a spade has been played                                        |
| bemo            | S x 3  | (bemo) each relative side's Bemo: none, little, big           |
| phase           | 7      | blind, bid, play, over, draw, exchange, bemo                   |
| to_move, dealer | N each | one-hot relative seats                                         |
| tricks_won      | N      | tricks taken / hand size                                       |
| score, bags     | S each | relative sides' score / target (clipped to +-4), bags / bag limit |
| target          | 1      | target score / 1000                                            |

`env.unwrapped.encoder.slices` names every slice; `encoder.view(obs, "bid")` reshapes one.

### Legal action mask

The `action_mask` of the agent to move marks its legal actions (follow suit, no spade lead
before spades are broken unless only spades are held, bids from the minimum team bid up or
the forced bid, blind nil or look, and the variants' special actions); it is all zeros for
every other agent and after the game ends.

### State

`env.state()` is the global state for centralized critics: the observation of seat 0
(`player_0`) with `perfect_information=True` (every seat's hand in `all_hands`, relative seat
j = seat j), float32 in `env.state_space` (a `Box`), whatever the env's own
`perfect_information`.

### Rewards

At the end of each hand every agent receives its side's score change for that hand
(contract, overtricks, nil and blind nil, bag penalties), e.g. +43 for bid 4, took 7;
`"scaled"` divides by 100. With `reward="win"` the winning side's agents get +1 and every
other agent -1 when the match ends, 0 otherwise.

### Hearts

With Hearts rules (`rules="hearts"`, `"hearts-50"`, `"hearts-partnership"`, RULES section 7)
the env is `metadata["name"] == "hearts_v0"`: `Discrete(52)` card actions only (in the pass
phase each player chooses its 3 cards one action at a time, clockwise from the dealer's
left), the observation is `spades_env.games.hearts.observation` (points taken per seat instead of
bids, the cards the observer passed and, once everyone has passed, received, the pass
direction), rewards are **minus** the points each side scored in the hand (the moon
included; `"scaled"` divides by 100), and `render` shows the points taken and the scores.

### Implementation and state

`env()` wraps the raw env in one `OrderEnforcingWrapper`; the raw env itself checks that
every action is in the action space (as PettingZoo's `AssertOutOfBoundsWrapper` would, but
with a real check that `python -O` keeps). The raw env is a thin adapter over the engine at
B = 1, for Spades and Hearts alike: `SpadesEngine.reset(seed, ...)` starts the match,
`SpadesEngine.step(state, [action])` plays each action, `legal_action_mask(state, out=...)`
writes the mask of the player to move (once per step, reused by `observe`, `step` and
`legal_mask()`), and the env's `ObservationEncoder` writes each observation of one seat.
A `"hand"` episode shows the finished hand (`spades_env.envs.hand_end`), not the next deal.
`env.unwrapped.game_state` is the engine's `GameState` of the game (B = 1), the same object for
the whole match, stepped in place. Assigning a state to it (e.g. restoring a copy) makes that
state the game.

### Version history

* v0: initial release (observation layout version 1); observation layout version 2 adds
  the variants of RULES sections 4 and 6 (every preset of `spades_env.list_presets()`).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv

from spades_env.engine import OVER, SpadesEngine
from spades_env.engine.state import GameState
from spades_env.envs.aec_outcomes import AECOutcomes
from spades_env.envs.aec_wrapper import OrderEnforcing
from spades_env.envs.hand_end import hand_end_view, last_card_pending
from spades_env.envs.options import check_options, check_reset_options, check_seed, reward_scale
from spades_env.envs.render import render_text
from spades_env.observation import encoder_for
from spades_env.rules import Rules, resolve_rules

ILLEGAL = ("raise", "penalty")
RESET_OPTIONS = ("deal", "pile", "dealer", "scores", "bags")
#: Accepted by ``reset`` and ignored: PettingZoo's ``api_test`` passes ``{"options": 1}`` to
#: check that ``reset`` takes options.
API_TEST_OPTIONS = ("options",)
#: Frames per second of ``render_mode="human"`` (text printed once per step).
RENDER_FPS = 4


def env(**kwargs: Any) -> AECEnv:
    """The Spades AEC env with PettingZoo's standard wrappers (see ``raw_env`` for arguments).

    One ``OrderEnforcingWrapper`` (``aec_wrapper.OrderEnforcing``); the raw env checks that every
    action is in the action space (PettingZoo's ``AssertOutOfBoundsWrapper``, with a real check).
    """
    return OrderEnforcing(raw_env(**kwargs))


class raw_env(AECOutcomes):  # noqa: N801 - PettingZoo's naming convention
    """Spades as a PettingZoo AEC env; the module docstring is the specification."""

    metadata = {
        "name": "spades_v0",
        "render_modes": ["ansi", "human"],
        "render_fps": RENDER_FPS,
        "is_parallelizable": False,
    }

    def __init__(
        self,
        rules: Rules | str | None = "partnership",
        episode: str = "match",
        reward: str = "points",
        illegal: str = "raise",
        illegal_reward: float | None = None,
        perfect_information: bool = False,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        check_options(episode, reward)
        if illegal not in ILLEGAL:
            raise ValueError(f"illegal must be one of {list(ILLEGAL)}, got {illegal!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.rules = resolve_rules(rules)
        self.engine = SpadesEngine(self.rules)
        self.encoder = encoder_for(self.engine, perfect_information=perfect_information)
        self.episode, self.reward, self.illegal = episode, reward, illegal
        if illegal_reward is None:
            illegal_reward = {"win": -1.0, "points": -float(self.rules.target_score)}.get(
                reward, -self.rules.target_score / 100
            )
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.metadata = {**type(self).metadata, "name": self.rules.ENV_NAME}
        n = self.engine.n_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {name: i for i, name in enumerate(self.possible_agents)}
        n_actions = self.engine.layout.n_actions
        obs_space = gymnasium.spaces.Dict(
            {
                "observation": gymnasium.spaces.Box(self.encoder.low, self.encoder.high, dtype=np.float32),
                "action_mask": gymnasium.spaces.Box(0, 1, shape=(n_actions,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        # ``state()``: seat 0's observation with every hand shown.
        self._state_encoder = (
            self.encoder if perfect_information else encoder_for(self.engine, perfect_information=True)
        )
        self.state_space = gymnasium.spaces.Box(self._state_encoder.low, self._state_encoder.high, dtype=np.float32)
        self.action_spaces = {a: gymnasium.spaces.Discrete(n_actions) for a in self.possible_agents}
        self._side = self.engine.side_of_seat.tolist()
        self._scale = reward_scale(reward, self.rules)
        self._zero_mask = np.zeros(n_actions, np.int8)
        self._n_actions = n_actions
        self._obs_size = self.encoder.size
        self._hand_episodes = episode == "hand"
        self._game = np.zeros(1, np.int64)
        self._seats = [np.array([seat], np.int64) for seat in range(n)]  # ``encode``'s seat argument
        self._action = np.zeros(1, np.int64)
        # The legal mask of the player to move (int8), which the engine writes through a bool view
        # made at each write (a view kept as an attribute would not survive a copy of the env);
        # ``_mask_fresh`` says it is up to date.
        self._legal_int8 = np.zeros(n_actions, np.int8)
        self._mask_fresh = False
        self._live = False  # the match is not over (a Python bool: read on every ``observe``)
        self._zero_rewards = False  # ``rewards`` is already this step's all-zero dict (not rebuilt)
        self._rng: np.random.Generator | None = None
        self._rng_seed: Any = None
        self._state: GameState | None = None
        self._view: GameState | None = None  # what observations show (the final state of a hand episode)

    @property
    def game_state(self) -> GameState | None:
        """The engine's state of the game (B = 1), stepped in place: the same object for the whole match."""
        return self._state

    @game_state.setter
    def game_state(self, value: GameState | None) -> None:
        # Assigning a state (e.g. restoring a copy) makes it the game that is observed and stepped.
        self._state = self._view = value
        self._mask_fresh = False
        self._live = value is not None and value.phase[0] != OVER

    def state(self) -> np.ndarray:
        """The global state (``state_space``): seat 0's observation with every hand shown."""
        if self._state is None:
            raise RuntimeError("call reset() before state()")
        return self._state_encoder.encode(self._view, self._game, self._seats[0])[0]

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        seed = check_seed(seed)
        if seed is not None:
            # The generator of later seedless resets is made when one needs it (slow to make).
            self._rng, self._rng_seed = None, seed
        else:
            if self._rng is None:
                self._rng = np.random.default_rng(self._rng_seed)
            seed = int(self._rng.integers(0, 2**62))
        opts = check_reset_options(options, RESET_OPTIONS, API_TEST_OPTIONS)
        one = {"deal": "deals", "pile": "piles", "dealer": "dealers", "scores": "scores", "bags": "bags"}
        overrides = {one[k]: [v] for k, v in opts.items() if v is not None}
        self.game_state = state = self.engine.reset(seed, **overrides)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._zero_rewards = True
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[state.to_move.item()]
        if self.render_mode == "human":
            self.render()

    # ---------------------------------------------------------------- observe
    def legal_mask(self) -> np.ndarray:
        """(A,) bool legal actions of the agent to move (cached until the next step)."""
        return self._legal().view(bool)

    def _legal(self) -> np.ndarray:
        """(A,) int8 legal actions of the agent to move (cached until the next step)."""
        if not self._mask_fresh:
            self.engine.legal_action_mask(self._state, out=self._legal_int8.view(bool)[None])
            self._mask_fresh = True
        return self._legal_int8

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_name_mapping[agent]
        # The encoder's own writer into a fresh row (``encode`` without its checks of the games,
        # seats and buffer, which hold for the env's one game and its seats).
        obs = np.empty((1, self._obs_size), np.float32)
        self.encoder._write(self._view, self._game, self._seats[seat], obs)
        obs = obs[0]
        if agent == self.agent_selection and self._live and not self.terminations[agent]:
            mask = self._legal().copy()
        else:
            mask = self._zero_mask.copy()
        return {"observation": obs, "action_mask": mask}

    def collect_reward(self, agent: str) -> float:
        """The reward ``agent`` has accumulated since it last moved (what ``last()`` would give it),
        set back to 0 as its own step would: a single-agent view (``SpadesGymEnv``) collects the
        learner's reward this way after the other seats have moved."""
        reward = float(self._cumulative_rewards[agent])
        self._cumulative_rewards[agent] = 0.0
        return reward

    # ------------------------------------------------------------------- step
    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        a = action if type(action) is int else self._action_id(agent, action)
        if not self._mask_fresh:
            self._legal()
        if not (0 <= a < self._n_actions and self._legal_int8[a]):
            if self.illegal == "raise":
                self._raise_illegal(agent, action, a)
            self._penalize(agent)
            return
        self._cumulative_rewards[agent] = 0.0
        state = self._state
        # A hand episode shows the hand as it ended: keep the game before its last card.
        before = state.copy() if self._hand_episodes and last_card_pending(self.engine, state)[0] else None
        self._action[0] = a
        result = self.engine.step(state, self._action, validate=False)
        self._mask_fresh = False
        if result.finished:  # (B = 1: a hand ended; most steps read no result array, none is made)
            if before is not None and not result.match_done[0]:
                self._view = hand_end_view(self.engine, before, result.finished, self._action)
            self._end_hand(agent, result.score_delta[0].tolist(), state.winner.item(), state.to_move.item())
        else:
            if not self._zero_rewards:  # (most steps: the dict of the step before is all zeros already)
                self.rewards = dict.fromkeys(self.agents, 0.0)
                self._zero_rewards = True
            self.agent_selection = self.possible_agents[state.to_move.item()]
        if self.render_mode == "human":
            self.render()

    # ----------------------------------------------------------------- render
    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render without specifying a render_mode.")
            return None
        if self._state is None:
            return None
        text = render_text(self.engine, self._view)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
