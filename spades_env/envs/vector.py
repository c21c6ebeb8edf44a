"""The batched vector API: B games in lockstep, for training and search.

``VectorSpades(rules, num_envs)`` is a ``gymnasium.vector.VectorEnv`` holding one batched
``GameState``. Each ``step`` takes one action per game (for the player to move there) and
returns the observation of the next player to move in each game, the rewards of every seat,
and done flags::

    env = VectorSpades("partnership", num_envs=4096, seed=0)
    obs, info = env.reset()
    while training:
        actions = policy(obs, info["action_mask"])          # (B,) int
        obs, rewards, terminated, truncated, info = env.step(actions)

- ``obs``: (B, D) float32, seat-relative (``spades_env.observation``) for ``info["to_play"]``.
- ``rewards``: (B, N) float32, one column per seat: the seat's side points in a hand that
  ended this step (``reward="points"``; Hearts: minus the points, which are penalties),
  divided by 100 (``"scaled"``), or +1/-1 to the seats of the winning/losing sides when a
  match ends (``"win"``). With ``reward_seat=s`` only seat s's column: (B,) float32, the
  shape Gymnasium's vector wrappers (``RecordEpisodeStatistics``, ``NormalizeReward``,
  ``ClipReward`` ...) need; the observations still belong to the player to move.
- ``terminated``: (B,) bool: the episode ended this step (a match; a hand with
  ``episode="hand"``). ``truncated`` is always False (matches always end).
- ``info``: ``action_mask`` (B, A) bool, ``to_play`` (B,) int64 (-1 for a finished game
  that was not reset), ``hand_done`` and ``match_done`` (B,) bool, ``winner`` (B,) int64
  (winning side of a match that ended this step, else -1) and ``finished_hands`` (the
  engine's ``FinishedHands`` of this step; ``hand_records()`` turns them into JSON records; they
  name each hand by its ``hand_key``, never by the match key: nothing in them deals a later hand).
  ``finished_hands`` is a list for the whole batch, not one entry per game, so Gymnasium's
  ``DictInfoToList`` (which wants every value per game) refuses this info.

With ``auto_reset`` (default), a game whose match ended starts a new match in the same
step; its key is ``splitmix64`` of the old key, so seeded runs are reproducible. With
``episode="hand"`` the match simply goes on: the observation after a finished hand is the
first decision of the next one. Without ``auto_reset`` finished games stay over (their
mask is empty and their actions are ignored) until ``reset``.

Gymnasium's same-step autoreset convention (``metadata["autoreset_mode"]`` is
``AutoresetMode.SAME_STEP``; ``DISABLED`` for ``auto_reset=False`` with match episodes):
for every game whose episode ended this step and that goes on at once (a new match, or the
next hand of ``episode="hand"``), ``info["final_obs"]`` ((B,) object array, None elsewhere)
holds the observation of the end, seat 0's view with nobody to move (what a finished game
shows without ``auto_reset``), and ``info["final_info"]`` its ``to_play`` (-1),
``action_mask`` (empty), ``hand_done``, ``match_done`` and ``winner``; ``info["_final_obs"]``
and ``info["_final_info"]`` mark those games. The keys are there only in such a step.

``reset(seed, options)``: ``options`` may hold ``deals`` (B, N) card masks or lists of card
ids (two-player: ``piles``), ``dealers`` (B,), ``scores`` and ``bags`` (B, S) for the first
hand, and ``reset_mask`` (B,) bool to start new matches in those games only (the others go
on; the other options then give one entry per game reset); any other key is refused.

Observations and masks are written into buffers reused by the next ``step`` when
``copy=False`` (fastest: copy what you keep); ``copy=True`` (default) returns fresh arrays.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from spades_env.engine import OVER, PLAY, IllegalActionError, SpadesEngine, dealing
from spades_env.engine.inputs import SEED_MAX, EngineInputError, action_array, seed_array
from spades_env.engine.records import hand_records
from spades_env.engine.sampling import sample_legal as sample_legal  # re-exported: the engine's draw
from spades_env.envs.context import DecisionContext
from spades_env.envs.hand_end import hand_end_view, last_card_pending
from spades_env.envs.options import check_count, check_options, check_reset_options, check_seed, reward_scale
from spades_env.observation import encoder_for
from spades_env.rules import Rules, resolve_rules

#: The keys ``VectorSpades.reset(options=...)`` takes.
RESET_OPTIONS = ("reset_mask", "deals", "dealers", "scores", "bags", "piles")


class VectorSpades(gymnasium.vector.VectorEnv):
    """B Spades games in lockstep with observations for the player to move in each."""

    metadata = {"name": "spades_vector_v0", "autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        rules: Rules | str | None = "partnership",
        num_envs: int = 1,
        seed: int | None = None,
        perfect_information: bool = False,
        auto_reset: bool = True,
        episode: str = "match",
        reward: str = "points",
        copy: bool = True,
        reward_seat: int | None = None,
    ) -> None:
        check_options(episode, reward)
        self.num_envs = check_count(num_envs, "num_envs")
        self.rules = resolve_rules(rules)
        self.engine = SpadesEngine(self.rules)
        self.encoder = encoder_for(self.engine, perfect_information=perfect_information)
        self.n_players = self.engine.n_players
        if reward_seat is not None and (
            isinstance(reward_seat, bool)
            or not isinstance(reward_seat, (int, np.integer))
            or not 0 <= reward_seat < self.n_players
        ):
            raise ValueError(f"reward_seat must be None or a seat in 0..{self.n_players - 1}, got {reward_seat!r}")
        self.reward_seat = None if reward_seat is None else int(reward_seat)
        # A game whose episode ends goes on at once (a new match, the next hand) unless it is a
        # match without auto_reset: then nothing is reset.
        if not auto_reset and episode == "match":
            self.metadata = {**type(self).metadata, "autoreset_mode": AutoresetMode.DISABLED}
        self.auto_reset = auto_reset
        self.episode = episode
        self.reward = reward
        self.copy = copy
        n_actions = self.engine.layout.n_actions
        self.single_action_space = gymnasium.spaces.Discrete(n_actions)
        self.action_space = gymnasium.spaces.MultiDiscrete(np.full(self.num_envs, n_actions))
        self.single_observation_space = gymnasium.spaces.Box(self.encoder.low, self.encoder.high, dtype=np.float32)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self._seed = seed
        self._rng: np.random.Generator | None = None
        self._rows = np.arange(self.num_envs, dtype=np.int64)
        self._obs = np.empty((self.num_envs, self.encoder.size), np.float32)
        self._mask = np.empty((self.num_envs, n_actions), bool)
        self._current_mask = self._mask
        self._mask_rows = self._rows * n_actions
        self._n_card_ids = self.engine.layout.n_card_ids
        self._seat_side = self.engine.side_of_seat
        self._scale = np.float32(reward_scale(reward, self.rules))
        self.state = None
        self.finished: list = []

    # ------------------------------------------------------------------ reset
    def reset(
        self,
        seed: int | list[int] | np.ndarray | None = None,
        deals: np.ndarray | list | None = None,
        dealers: np.ndarray | list[int] | int | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start B new matches: game i plays the match of seed ``seed + i`` (or ``seed[i]``).

        ``deals`` (B, N) card masks or lists of card ids and ``dealers`` (B,) fix the first hand
        (as the ``options`` keys of the same names do); ``options``: see the module docstring.
        Returns (obs (B, D) float32, info).
        """
        opts = dict(check_reset_options(options, RESET_OPTIONS))
        for name, value in (("deals", deals), ("dealers", dealers)):
            if value is not None:
                if opts.get(name) is not None:
                    raise ValueError(f"{name} is given twice: as an argument and in options")
                opts[name] = value
        games = self._reset_games(opts.pop("reset_mask", None))
        seeds = self._seeds(seed)
        setup = {k: v for k, v in opts.items() if v is not None}
        if games is None:
            self.state = self.engine.reset(seeds, **setup)
        else:
            self.engine.start_matches(self.state, games, dealing.game_keys(seeds[games]), **setup)
        return self._first_view()

    def restore(self, state) -> tuple[np.ndarray, dict[str, Any]]:
        """Go on from a saved batched ``GameState`` (e.g. a training checkpoint's) of ``num_envs`` games.

        Returns (obs (B, D) float32, info) of its pending decisions, as ``reset`` does.
        """
        if state.batch_size != self.num_envs:
            raise ValueError(f"state holds {state.batch_size} games, the env has {self.num_envs}")
        self.state = state.copy()
        return self._first_view()

    def _first_view(self) -> tuple[np.ndarray, dict[str, Any]]:
        """(obs, info) of the pending decisions of a batch that has just been set up (no step yet)."""
        self.finished = []
        zeros = np.zeros(self.num_envs, bool)
        return self._observe(zeros, zeros, np.full(self.num_envs, -1, np.int64))

    def _reset_games(self, reset_mask: Any) -> np.ndarray | None:
        """The games ``options["reset_mask"]`` resets (None: every game)."""
        if reset_mask is None:
            return None
        mask = np.asarray(reset_mask)
        if mask.dtype != bool or mask.shape != (self.num_envs,):
            raise ValueError(
                f"options['reset_mask'] must be a ({self.num_envs},) bool array, got {mask.dtype} of shape {mask.shape}"
            )
        if self.state is None:
            raise ValueError("options['reset_mask'] resets some games of a running batch: call reset() first")
        return np.flatnonzero(mask)

    def _seeds(self, seed) -> np.ndarray:
        if seed is None and self._rng is None:
            seed = self._seed  # the constructor's seed is used by the first reset
        if seed is None:
            if self._rng is None:
                self._rng = np.random.default_rng()
            seed = int(self._rng.integers(0, 2**62))
        if np.ndim(seed) == 0:
            seed = check_seed(seed)
            if seed + self.num_envs - 1 > SEED_MAX:
                raise EngineInputError(f"seed must be at most 2**64 - num_envs ({self.num_envs} games), got {seed}")
            self._rng = np.random.default_rng(seed)
            return np.add(np.uint64(seed), self._rows.astype(np.uint64))
        seeds = seed_array(seed)
        if seeds.shape != (self.num_envs,):
            raise EngineInputError(f"seed must be an int or {self.num_envs} ints (one per game), got {seeds.shape}")
        self._rng = np.random.default_rng(seeds)
        return seeds

    # ------------------------------------------------------------------- step
    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Apply one action per game; see the module docstring for what comes back."""
        if self.state is None:
            raise RuntimeError("call reset() before step()")
        state = self.state
        actions = action_array(actions, self.num_envs)  # integer ids of shape (B,): floats and strings refused
        self._check_legal(actions)
        final = None  # (games, observations) of the episodes that ended and go on at once
        if self.episode == "hand":
            # Copies of the games about to play their hand's last card show the hands' ends.
            ending = np.flatnonzero(last_card_pending(self.engine, state))
            before = state.take(ending) if len(ending) else None
            result = self.engine.step(state, actions, validate=False, auto_reset=self.auto_reset)
            if before is not None:
                final = self._hand_ends(before, ending, actions, result)
        else:
            result = self.engine.step(state, actions, validate=False)
            ended = np.flatnonzero(result.match_done)
            if self.auto_reset and len(ended):
                # The engine's auto_reset, here: the finished matches are observed, then the next
                # match starts (the key is splitmix64 of the old one, as ``step(auto_reset=True)``).
                final = (ended, self.encoder.encode(state, ended, np.zeros(len(ended), np.int64)))
                self.engine.start_matches(state, ended, dealing.splitmix64(state.key[ended]))
        hand_done, match_done = result.hand_done, result.match_done
        self.finished = result.finished
        winner = result.winner
        if self.reward == "win":
            side_won = self._seat_side[None, :] == winner[:, None]
            rewards = np.where(side_won, 1.0, -1.0).astype(np.float32) * match_done[:, None]
        else:
            rewards = result.score_delta[:, self._seat_side].astype(np.float32)
            if self._scale != 1:
                rewards *= self._scale
                rewards += 0.0  # Hearts' minus zero points is 0.0, not -0.0
        if self.reward_seat is not None:
            rewards = rewards[:, self.reward_seat].copy()
        terminated = match_done if self.episode == "match" else hand_done
        out = self._observe(hand_done, match_done, winner, rewards, terminated)
        if final is not None:
            self._add_final(out[-1], *final, result)
        return out

    def _hand_ends(self, before, ending: np.ndarray, actions, result) -> tuple[np.ndarray, np.ndarray] | None:
        """(games, observations) of the hands that ended in ``ending`` (copied ``before`` their last
        card) while their game goes on (a match ended without auto_reset shows its end itself)."""
        rows = np.flatnonzero((result.hand_done & (self.state.phase != OVER))[ending])
        if not len(rows):
            return None
        games = ending[rows]
        if len(rows) < len(ending):
            before = before.take(rows)
        finished = [_select(f, games) for f in result.finished]
        view = hand_end_view(self.engine, before, [f for f in finished if len(f.games)], actions[games])
        return games, self.encoder.encode(view, np.arange(len(games)), np.zeros(len(games), np.int64))

    def _add_final(self, info: dict, games: np.ndarray, final: np.ndarray, result) -> None:
        """``final_obs`` (``final``, the observations of ``games``) and ``final_info`` into ``info``."""
        b = self.num_envs
        obs = np.full(b, None, dtype=object)
        for i, g in enumerate(games.tolist()):
            obs[g] = final[i]
        mask = np.zeros(b, bool)
        mask[games] = True
        final_info = {
            "action_mask": np.zeros((b, self.engine.layout.n_actions), bool),
            "to_play": np.full(b, -1, np.int64),
            "hand_done": result.hand_done & mask,
            "match_done": result.match_done & mask,
            "winner": np.where(mask, result.winner, -1),
        }
        for key in list(final_info):
            final_info[f"_{key}"] = mask
        info.update({"final_obs": obs, "_final_obs": mask, "final_info": final_info, "_final_info": mask.copy()})

    def _check_legal(self, actions: np.ndarray) -> None:
        """Raise ``IllegalActionError`` naming the first game given an illegal action."""
        mask = self._current_mask  # the mask of the current state, computed by the last observe
        n_actions = mask.shape[1]
        in_range = actions.view(np.uint64) < n_actions  # negative actions wrap to huge values
        ok = np.take(mask.reshape(-1), self._mask_rows + actions, mode="clip")
        ok &= in_range
        if ok.all():
            return
        live = self.state.phase != OVER  # finished games (no auto_reset) take any action
        bad = np.flatnonzero(live & ~ok)
        if len(bad):
            g, a = int(bad[0]), int(actions[bad[0]])
            lay = self.engine.layout
            legal = ", ".join(f"{x} ({lay.describe(x)})" for x in np.flatnonzero(mask[g]))
            raise IllegalActionError(
                f"game {g}: illegal action {a} ({lay.describe(a)}) for seat {int(self.state.to_move[g])}; "
                f"legal actions: [{legal}]"
            )

    def _legal_action_mask(self) -> np.ndarray:
        """The engine's ``legal_action_mask`` into the reused buffer, with a shortcut when every
        game is playing a card: the mask is then exactly the legal cards (no bid or special action
        is open in the play phase)."""
        state, mask = self.state, self._mask
        if np.count_nonzero(state.phase == PLAY) == self.num_envs:
            legal = self.engine.legal_cards(state)
            c = self._n_card_ids
            cards = np.unpackbits(legal.view(np.uint8).reshape(-1, 8), axis=1, count=c, bitorder="little")
            mask[:, :c] = cards.view(bool)
            mask[:, c:] = False
            return mask
        return self.engine.legal_action_mask(state, out=mask)

    def _observe(self, hand_done, match_done, winner, rewards=None, terminated=None):
        state = self.state
        to_play = self.engine.current_player(state)
        seats = np.maximum(to_play, 0)
        mask = self._current_mask = self._legal_action_mask()
        obs = self.encoder.encode(state, self._rows, seats, out=self._obs)
        if self.copy:
            obs, mask = obs.copy(), mask.copy()
        info = {
            "action_mask": mask,
            "to_play": to_play,
            "hand_done": hand_done,
            "match_done": match_done,
            "winner": winner,
            "finished_hands": self.finished,
        }
        if rewards is None:
            return obs, info
        return obs, rewards, terminated, np.zeros(self.num_envs, bool), info

    # ---------------------------------------------------------------- helpers
    def context(self) -> DecisionContext:
        """The decision context of the current step (every game, its player to move) for bots: their view
        (``DecisionContext.of_view``), what each seat to move may know."""
        seats = np.maximum(self.engine.current_player(self.state), 0)
        return DecisionContext.of_view(self.engine, self.state, self._rows, seats)

    def action_masks(self) -> np.ndarray:
        """(B, A) bool legal actions of the current state (a fresh array)."""
        return self.engine.legal_action_mask(self.state)

    def hand_records(self) -> list[dict[str, Any]]:
        """JSON-ready records of the hands that finished in the last step."""
        return [rec for f in self.finished for rec in hand_records(self.engine, f)]

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release (``close`` is ``VectorEnv.close``)."""


def _select(finished, games: np.ndarray):
    """The rows of ``FinishedHands`` ``finished`` whose games are in ``games``."""
    keep = np.isin(finished.games, games)
    if keep.all():
        return finished
    return dataclasses.replace(
        finished, **{f.name: getattr(finished, f.name)[keep] for f in dataclasses.fields(finished)}
    )
