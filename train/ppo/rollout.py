"""Rollout collection of PPO self-play: who plays each game's other side, and ``num_steps`` decisions per game.

One network plays every seat of ``num_envs`` games in lockstep (``spades_env.VectorSpades``). Each
decision is a transition of the seat that took it (``train.ppo.core.TurnBuffer`` chains them per
seat); the reward of a hand (the change of the seat's side score, times ``reward_scale``) is
credited to each seat's last decision of that hand. Optionally a hand's opponents are a past
snapshot of the network (an opponent pool) or HeuristicAgent (``Opponents``); their decisions
are not trained on. With ``card_play: heuristic`` HeuristicAgent plays every card at the table and the
network learns only the rest (bids, blind nil, Bemo). With ``card_anchor`` the heuristic's card in each
of the learner's card positions is stored beside its own (``TurnBuffer.teacher``) for the update's anchor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from agents.builtin_bots import decision_context
from agents.heuristic import HeuristicAgent
from spades_env.engine import PLAY
from train.ppo.config import PPOConfig
from train.ppo.core import MaskedCategorical, TurnBuffer
from train.ppo.critic import ActorCritic
from train.ppo.opponents import HEURISTIC, SELF_PLAY, Opponents
from train.ppo.stats import HandStats
from train.values.bid_values import best_or_explore

if TYPE_CHECKING:
    from train.ppo.hindsight_bids import HindsightBids
    from train.ppo.pairing import PairedGames


def heuristic_cards(state: Any, config: PPOConfig, live: np.ndarray | None) -> np.ndarray:
    """(B,) bool: the games whose decision this step is a card HeuristicAgent plays for whoever holds the seat
    (``card_play: heuristic``; none otherwise); ``live``: the games taking a decision (None: all). These
    decisions are not stored: a seat's chain of decisions skips them, so a hand's reward goes to the seat's
    last decision of its own (the bid) and no return bootstraps from the value of a card nothing trains."""
    if config.card_play != "heuristic":
        return np.zeros(len(state.phase), bool)
    cards = state.phase == PLAY
    return cards if live is None else cards & live


def bot_actions(bot: HeuristicAgent, engine: Any, state: Any, rows: np.ndarray, seats: np.ndarray, mask: np.ndarray):
    """(len(rows),) int64: ``bot``'s decisions in games ``rows`` (``seats``, ``mask``: every game's)."""
    return bot.act(None, mask[rows], decision_context(bot, engine, state, rows, seats[rows]))


def teacher_cards(
    engine: Any, state: Any, config: PPOConfig, learner_rows: np.ndarray, seats: np.ndarray, mask: np.ndarray,
    heuristic: HeuristicAgent,
) -> np.ndarray | None:  # fmt: skip
    """(B,) int64: HeuristicAgent's card in each of the learner's stored card positions this step
    (``learner_rows``, (B,) bool; with ``card_anchor_hands: nil`` only in hands where a seat bid nil), -1
    elsewhere (``card_anchor``); None without an anchor."""
    if not config.card_anchor:
        return None
    teacher = np.full(len(learner_rows), -1, np.int64)
    anchored = learner_rows & (state.phase == PLAY)
    if config.card_anchor_hands == "nil":
        anchored &= state.nil_bid
    rows = np.flatnonzero(anchored)
    if len(rows):
        teacher[rows] = bot_actions(heuristic, engine, state, rows, seats, mask)
    return teacher


def hindsight_bids(
    hindsight: HindsightBids, engine: Any, state: Any, logits: torch.Tensor, action: np.ndarray, learn: np.ndarray,
    seats: np.ndarray, mask: np.ndarray, rows: np.ndarray, explore: float, rng: np.random.Generator,
) -> np.ndarray:  # fmt: skip
    """The games of the learner's regular bids this step (of ``learn`` (B,) bool; they leave PPO's loss): ``action``
    (B,) (changed) their greedy or exploring bids on the bidding head's values
    (``train.values.bid_values.best_or_explore``), recorded in ``hindsight`` with their buffer ``rows`` until their
    hands end."""
    bidding = np.flatnonzero(learn & (state.phase == engine.spec.bid_phase))
    if not len(bidding):
        return bidding
    lo, hi = engine.layout.bid_offset, engine.layout.bid_end
    cand = mask[bidding, lo:hi]
    action[bidding] = lo + best_or_explore(logits[bidding, lo:hi].double().cpu().numpy(), cand, explore, rng)
    hindsight.record(bidding, seats[bidding], rows[bidding], cand)
    return bidding


def adjusted_rewards(engine: Any, rewards: np.ndarray, finished: list) -> np.ndarray:
    """(B, N) float32 env rewards with each finished hand's points replaced by its side's bag-adjusted
    points (``engine.spec.adjusted_points``, as tournaments score) [RULES 3]; Hearts keeps its sign
    (the env's reward is minus the penalty points)."""
    out = np.array(rewards, np.float32)
    sign = -1.0 if engine.rules.points_are_penalties else 1.0
    for f in finished:
        adjusted = engine.spec.adjusted_points(engine.rules, f)
        out[f.games] = (sign * adjusted[:, engine.side_of_seat]).astype(np.float32)
    return out


def relative_rewards(engine: Any, rewards: np.ndarray, weight: float) -> np.ndarray:
    """(B, N) float32 rewards with each seat's side reward minus ``weight`` times the mean reward of the
    other sides (``opponent_reward_weight``): a point taken from any opponent side counts, as it does
    when a tournament compares sides. Partnership: own side minus ``weight`` times the other side."""
    out = np.asarray(rewards, np.float32)
    if weight == 0.0:
        return out
    side_of_seat, n_sides = engine.side_of_seat, engine.n_sides
    first_seat = np.array([np.flatnonzero(side_of_seat == side)[0] for side in range(n_sides)])
    side_reward = out[:, first_seat]  # (B, n_sides): every seat of a side has its side's reward
    others_mean = (side_reward.sum(axis=1, keepdims=True) - side_reward) / np.float32(n_sides - 1)
    return (out - np.float32(weight) * others_mean[:, side_of_seat]).astype(np.float32)


def _step_and_credit(envs, action: np.ndarray, buffer: TurnBuffer, config: PPOConfig, stats: HandStats,
                     pairing: PairedGames | None, hindsight: HindsightBids | None):  # fmt: skip
    """Step ``envs`` with ``action``, credit the rewards to ``buffer`` (bag-adjusted, opponent-relative, scaled,
    paired as the config says) and count the finished hands; returns the next observations, the step's info and
    which games finished a hand."""
    engine = envs.engine
    hand_number = None if pairing is None else envs.state.hand_number.copy()
    next_obs, rewards, terminated, truncated, info = envs.step(action)
    hand_done = np.asarray(info["hand_done"], bool)
    episode_end = hand_done if config.credit == "hand" else (terminated | truncated)
    if config.bag_adjusted_reward and info.get("finished_hands"):
        rewards = adjusted_rewards(engine, rewards, info["finished_hands"])
    if config.opponent_reward_weight:
        rewards = relative_rewards(engine, rewards, config.opponent_reward_weight)
    rewards = np.asarray(rewards, np.float32) * config.reward_scale
    if pairing is not None:
        rewards = pairing.credit(buffer, rewards, hand_done, hand_number)
    buffer.add_rewards(rewards, episode_end | terminated | truncated)
    for finished in info.get("finished_hands", ()):
        stats.add(finished, engine.side_of_seat, engine.n_sides, engine.rules.has_bidding)
        if hindsight is not None:
            hindsight.finish(engine, finished, config.hindsight_nil)
    return next_obs, info, hand_done


def collect_rollout(
    model: ActorCritic,
    envs: Any,
    buffer: TurnBuffer,
    opponents: Opponents,
    step_input: tuple[np.ndarray, np.ndarray, np.ndarray],
    *,
    config: PPOConfig,
    rng: np.random.Generator,
    stats: HandStats,
    device: torch.device,
    pairing: PairedGames | None = None,
    hindsight: HindsightBids | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play ``config.num_steps`` decisions in every game of ``envs`` into ``buffer`` (with the values of
    ``model``'s critic; the observations stored are the env's, perfect-information ones for a perfect critic).

    ``step_input``: (observations, legal masks, seats to play) of the pending decisions; returns
    those after the rollout. Actions are drawn with ``rng`` (Gumbel-max); the heuristic and pool
    opponents act for the seats the learner does not hold. ``pairing``: the games are duplicate twins
    (``train/ppo/pairing.py``): hand rewards are paired, finished matches wait for their twin's. ``hindsight``
    (``bid_learning: hindsight``): the learner's regular bids are its greedy (or exploring) bids on the bidding
    head's values, kept there until their hands end and stored untrained in the buffer.
    """
    engine = envs.engine
    side_of_seat = engine.side_of_seat
    next_obs, next_mask, next_seat = step_input
    model.eval()
    for _ in range(config.num_steps):
        rows_in = model.rows(next_obs, opponents.opponent != SELF_PLAY)
        obs_t = torch.as_tensor(rows_in, device=device)
        mask_t = torch.as_tensor(next_mask, device=device)
        with torch.no_grad():
            logits, value = model(obs_t)
            dist = MaskedCategorical(logits, mask_t)
            action = dist.sample(rng)
            opponent = opponents.opponent
            learn = (opponent == SELF_PLAY) | (side_of_seat[next_seat] == opponents.learner_side)
            live = None if pairing is None else next_seat >= 0  # a finished match waiting for its twin's
            bot_cards = heuristic_cards(envs.state, config, live)
            learn &= ~bot_cards
            stored = ~bot_cards if live is None else live & ~bot_cards  # the decisions the buffer keeps
            others = ~learn & stored
            heuristic, state = opponents.heuristic, envs.state
            teacher = teacher_cards(engine, state, config, learn & stored, next_seat, next_mask, heuristic)
            if bot_cards.any():
                rows = np.flatnonzero(bot_cards)
                action[rows] = bot_actions(heuristic, engine, state, rows, next_seat, next_mask)
            for k in np.unique(opponent[others]):
                rows = np.flatnonzero(others & (opponent == k))
                if k == HEURISTIC:
                    action[rows] = bot_actions(heuristic, engine, state, rows, next_seat, next_mask)
                    continue
                opp_logits, _ = opponents.pool_nets[k](model.policy_obs(obs_t[rows]))
                action[rows] = MaskedCategorical(opp_logits, mask_t[rows]).sample(rng)
            if hindsight is not None:
                learn[hindsight_bids(hindsight, engine, state, logits, action, learn & stored, next_seat, next_mask,
                                     rows_in, config.bid_explore, rng)] = False  # fmt: skip
            logprob = dist.log_prob(torch.as_tensor(action, device=device))
        logprob, value = logprob.cpu().numpy(), value.cpu().numpy()
        buffer.add(rows_in, next_mask, action, logprob, value, next_seat, learn, stored, teacher)
        next_obs, info, hand_done = _step_and_credit(envs, action, buffer, config, stats, pairing, hindsight)
        next_mask, next_seat = info["action_mask"], info["to_play"]
        if pairing is None:
            opponents.draw(np.flatnonzero(hand_done))
            continue
        restarted = pairing.restart_finished(envs)
        if restarted is not None:
            next_obs, info = restarted
            next_mask, next_seat = info["action_mask"], info["to_play"]
        pairing.draw_opponents(opponents, envs.state, np.flatnonzero(hand_done | ((next_seat >= 0) & ~live)))
    if pairing is not None:
        pairing.end_rollout(buffer)
    return next_obs, next_mask, next_seat
