"""Expert iteration end to end with its smoke recipe: the loss, checkpoints, exact resume, the CLI."""

import dataclasses
import time
from pathlib import Path

import numpy as np
import pytest

from tests.paths import ROOT

torch = pytest.importorskip("torch")

from agents.neural import NeuralAgent, SpadesPolicy  # noqa: E402
from tests.checkpoint_compare import assert_same, without_run_identity  # noqa: E402
from train.expert_iteration.config import ExpertIterationConfig  # noqa: E402
from train.expert_iteration.trainer import distillation_loss, teacher_agreement, train  # noqa: E402
from train.recipes.trainers import trainer_for  # noqa: E402
from train.runs.checkpoint import export_slim, load_checkpoint  # noqa: E402

SMOKE = ROOT / "configs" / "train" / "expert_iteration_smoke.yaml"
RECIPES = sorted((ROOT / "configs" / "train").glob("expert_iteration*.yaml"))


def smoke_config(tmp_path, **changes) -> ExpertIterationConfig:
    return dataclasses.replace(ExpertIterationConfig.from_yaml(SMOKE), run_dir=str(tmp_path), **changes)


def test_the_distillation_loss_goes_down_on_a_fixed_batch():
    torch.set_num_threads(1)  # as the trainer runs (threads: 1); more threads only contend on a small net
    torch.manual_seed(0)
    policy = SpadesPolicy(obs_dim=12, n_actions=6, n_card_actions=4, hidden=16, depth=1)
    obs = torch.randn(64, 12)
    mask = torch.rand(64, 6) < 0.6
    mask[:, 0] = True
    target = torch.rand(64, 6) ** 4 * mask
    target /= target.sum(-1, keepdim=True)
    ret, has_ret = torch.randn(64), (torch.rand(64) < 0.5).float()
    # The cross-entropy's minimum is the target's own entropy: what is left above it is the KL divergence.
    entropy = -(torch.where(target > 0, target * target.log(), torch.zeros_like(target))).sum(-1).mean().item()
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    kl, value = [], []
    for _ in range(60):
        loss, stats = distillation_loss(policy, obs, mask, target, ret, has_ret, vf_coef=0.5)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        kl.append(stats["cross_entropy"] - entropy)
        value.append(stats["value_loss"])
    assert min(kl) >= -1e-5 and kl[-1] < 0.5 * kl[0]
    assert value[-1] < 0.7 * value[0]


def test_the_card_value_loss_learns_the_card_values_up_to_each_decisions_mean():
    """``card_value_hidden``: the loss adds the card value head's regression on the valued rows' legal cards, centred
    on each decision's mean (a constant added to a decision's values changes nothing; unvalued rows none); it
    falls on a fixed batch until the head ranks the legal cards as the labels do."""
    from train.expert_iteration.steps import CardValueBatch, card_value_loss

    torch.set_num_threads(1)
    torch.manual_seed(0)
    policy = SpadesPolicy(obs_dim=12, n_actions=6, n_card_actions=4, hidden=32, depth=1, card_value_hidden=32)
    obs, mask = torch.randn(64, 12), torch.rand(64, 6) < 0.7
    mask[:, :2] = True
    points = torch.randn(64, 6) * 20 * mask
    valued = torch.rand(64) < 0.75
    batch = CardValueBatch(points, valued, 0.01, 1.0)
    shifted = CardValueBatch(points + 30.0 * torch.randn(64, 1) * mask, valued, 0.01, 1.0)
    head = policy.card_values(obs)
    assert torch.equal(policy.training_outputs(obs)[2], head)  # the loss's one pass gives the head's own values
    assert card_value_loss(head, mask, batch).item() == pytest.approx(
        card_value_loss(head, mask, shifted).item(), rel=1e-5
    )
    noisy = torch.where(valued[:, None], points, points * 5)
    assert card_value_loss(head, mask, CardValueBatch(noisy, valued, 0.01, 1.0)).item() == pytest.approx(
        card_value_loss(head, mask, batch).item(), rel=1e-5
    )
    assert card_value_loss(head, mask, CardValueBatch(points, valued & False, 0.01, 1.0)).item() == 0.0
    target, ret, has_ret = torch.softmax(torch.randn(64, 6), -1), torch.zeros(64), torch.zeros(64)
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    losses = []
    for _ in range(150):
        loss, stats = distillation_loss(policy, obs, mask, target, ret, has_ret, 0.0, card_values=batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(stats["card_value_loss"])
    assert losses[-1] < 0.1 * losses[0]
    with torch.no_grad():
        q = policy.card_values(obs)
    legal = mask[:, :4] & valued[:, None]
    best_q = torch.where(legal, q, -torch.inf).argmax(-1)
    best_label = torch.where(legal, points[:, :4], -torch.inf).argmax(-1)
    assert (best_q[valued] == best_label[valued]).float().mean() > 0.9


def test_the_nil_weight_weighs_the_cross_entropy_of_nil_hands():
    """``nil_weight``: the positions of hands with a nil bid weigh that much in the cross-entropy's mean; the
    positions know their hand (``nil_hand``, ``GameState.nil_bid``); an older replay without the key still trains."""
    from agents.heuristic import HeuristicAgent
    from spades_env.rules import resolve_rules
    from train.expert_iteration.labelling import LabelSpec, PositionStream, heuristic_behaviour, label_positions
    from train.expert_iteration.steps import train_arrays, train_on_replay

    torch.manual_seed(0)
    policy = SpadesPolicy(obs_dim=12, n_actions=6, n_card_actions=4, hidden=16, depth=1)
    obs, mask = torch.randn(8, 12), torch.ones(8, 6, dtype=torch.bool)
    target = torch.softmax(torch.randn(8, 6), -1)
    ret, has_ret = torch.zeros(8), torch.zeros(8)
    rows = [distillation_loss(policy, obs[i : i + 1], mask[i : i + 1], target[i : i + 1], ret[:1], has_ret[:1], 0.0)[1]
            for i in range(8)]  # fmt: skip
    ce = torch.tensor([r["cross_entropy"] for r in rows])
    weight = torch.tensor([4.0, 1, 1, 4, 1, 1, 1, 1])
    _, weighted = distillation_loss(policy, obs, mask, target, ret, has_ret, 0.0, weight)
    assert weighted["cross_entropy"] == pytest.approx(float((weight * ce).sum() / weight.sum()), rel=1e-5)
    _, plain = distillation_loss(policy, obs, mask, target, ret, has_ret, 0.0)
    assert plain["cross_entropy"] == pytest.approx(float(ce.mean()), rel=1e-5)

    stream = PositionStream("partnership", num_envs=8, seed=2)
    positions = stream.collect(120, heuristic_behaviour(HeuristicAgent()), 0.01)
    spec = LabelSpec(rules=resolve_rules("partnership"), teacher="heuristic", chunk=256)
    part = train_arrays(positions, label_positions(positions, spec))
    np.testing.assert_array_equal(part["nil_hand"], (positions.state.bids == 0).any(axis=1))
    assert part["nil_hand"].any() and not part["nil_hand"].all()
    big = SpadesPolicy(obs_dim=positions.obs.shape[1], n_actions=positions.mask.shape[1], n_card_actions=52, hidden=16)
    config = ExpertIterationConfig(nil_weight=4.0, epochs=1, minibatch=4096)
    old, losses = {k: v for k, v in part.items() if k != "nil_hand"}, []
    for replay in ([part], [old]):
        sums, m = train_on_replay(big, torch.optim.SGD(big.parameters(), lr=0.0), replay, np.random.default_rng(0),
                                  config, torch.device("cpu"))  # fmt: skip
        assert m == len(positions) and np.isfinite(sums["cross_entropy"]).all()
        losses.append(sums["cross_entropy"][0])
    flat, _ = train_on_replay(big, torch.optim.SGD(big.parameters(), lr=0.0), [part], np.random.default_rng(0),
                              dataclasses.replace(config, nil_weight=1.0), torch.device("cpu"))  # fmt: skip
    assert losses[0] != flat["cross_entropy"][0] and losses[1] == pytest.approx(flat["cross_entropy"][0], rel=1e-6)
    with pytest.raises(ValueError, match="nil_weight=0"):
        ExpertIterationConfig(nil_weight=0)


def test_teacher_agreement_counts_ties_between_best_cards_separately():
    policy = SpadesPolicy(obs_dim=3, n_actions=5, n_card_actions=4, hidden=8, depth=1)
    with torch.no_grad():
        policy.card_head.weight.zero_()
        policy.card_head.bias.copy_(torch.tensor([0.0, 5.0, 0.0, 0.0]))  # always card 1 when legal
    best = np.array([[0, 1, 1, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 0]], bool)
    data = {
        "obs": np.zeros((3, 3), np.float32),
        "mask": np.array([[1, 1, 1, 0, 0]] * 3, bool),
        "teacher_best": best,
        "teacher_action": np.array([2, 2, 1]),  # row 0: a tie the heuristic broke toward card 2
        "valued": np.array([True, True, False]),
    }
    stats = teacher_agreement(policy, data, torch.device("cpu"))
    assert stats["agreement/teacher"] == 0.0 and stats["agreement/teacher_best"] == 0.5
    assert stats["agreement/all"] == pytest.approx(1 / 3) and stats["agreement/valued_fraction"] == pytest.approx(2 / 3)


@pytest.fixture(scope="module")
def full_run(tmp_path_factory):
    return train(smoke_config(tmp_path_factory.mktemp("full")), quiet=True)


def test_a_smoke_run_writes_a_playable_checkpoint_with_its_curves(full_run):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    ckpt = load_checkpoint(full_run)
    assert ckpt["update"] == 3 and ckpt["global_step"] == 3 * 4 * 24
    assert ckpt["config"]["algorithm"] == "expert_iteration" and len(ckpt["replay"]) == 2
    assert (full_run.parent / "best.pt").exists()
    events = EventAccumulator(str(full_run.parent.parent))
    events.Reload()
    tags = set(events.Tags()["scalars"])
    expected = {"losses/cross_entropy", "losses/value_loss", "agreement/teacher", "agreement/teacher_best"}
    expected |= {"time/collect_s", "time/label_s"}
    assert expected | {"time/update_s", "eval/diff", "eval/diff_ci95"} <= tags
    assert len(events.Scalars("agreement/teacher")) == 3 and len(events.Scalars("eval/diff")) == 2
    agent = NeuralAgent.from_checkpoint(full_run)
    slim = NeuralAgent.from_checkpoint(export_slim(full_run, full_run.parent / "slim.pt"))
    from spades_env.envs.vector import VectorSpades

    env = VectorSpades("partnership", 8, seed=4)
    obs, info = env.reset(seed=4)
    for _ in range(30):
        action = agent.act(obs, info["action_mask"])
        np.testing.assert_array_equal(action, slim.act(obs, info["action_mask"]))
        obs, _, _, _, info = env.step(action)  # the env refuses an illegal action


def plays_legal_actions(agent, decisions: int = 30) -> None:
    """``agent`` plays ``decisions`` steps of 8 partnership games (the env refuses an illegal action)."""
    from spades_env.envs.vector import VectorSpades

    env = VectorSpades("partnership", 8, seed=4)
    obs, info = env.reset(seed=4)
    for _ in range(decisions):
        obs, _, _, _, info = env.step(agent.act(obs, info["action_mask"]))


def test_a_run_with_deal_card_labels_and_card_features_plays_with_its_features(tmp_path):
    """``card_labels: deal`` and ``card_features``: the run trains, its checkpoint's network reads the card-counting
    inputs, and the bot built from it plays legal cards."""
    path = train(smoke_config(tmp_path, card_labels="deal", card_features=True, card_feature_logits=True), quiet=True)
    ckpt = load_checkpoint(path)
    assert ckpt["config"]["card_labels"] == "deal" and ckpt["config"]["card_features"] is True
    assert "card_values" not in ckpt["replay"][-1]  # kept for a card value head only
    agent = NeuralAgent.from_checkpoint(path)
    assert agent.policy.card_features is not None and agent.policy.card_feature_gate is not None
    plays_legal_actions(agent)
    with pytest.raises(ValueError, match="card_feature_logits=True"):
        smoke_config(tmp_path, card_feature_logits=True)


@pytest.mark.parametrize("shards", [0, 2])
def test_a_run_with_a_card_value_head_plays_its_values_under_its_margin(tmp_path, shards):
    """``card_value_hidden``: the run's network learns its card values beside the card head (the replay keeps
    each legal card's value, collected in one batch or in shards), the checkpoint's ``neural`` bot keeps the run's
    ``card_margin`` and reads the head in points (``1 / reward_scale``), and plays legal cards; a value head on its
    own torso without a width is refused."""
    config = smoke_config(
        tmp_path, card_labels="deal", card_value_hidden=32, card_value_torso=True, card_margin=2.0, reward_scale=0.02,
        collect_shards=shards,
    )  # fmt: skip
    path = train(config, quiet=True)
    replay = load_checkpoint(path)["replay"][-1]
    assert replay["card_valued"].any() and replay["card_values"][replay["card_valued"]].abs().sum() > 0
    agent = NeuralAgent.from_checkpoint(path)
    assert agent.policy.card_value_head is not None and agent.policy.card_value_torso is not None
    assert agent.card_margin == 2.0 and agent.value_scale == pytest.approx(50.0)
    head = agent.policy.card_value_head[-1].weight
    assert head.abs().sum() > 0  # it starts at 0 and learned
    plays_legal_actions(agent)
    with pytest.raises(ValueError, match="card_value_torso=True"):
        smoke_config(tmp_path, card_value_torso=True)
    with pytest.raises(ValueError, match="card_value_hidden=8 needs target='values'"):
        smoke_config(tmp_path, card_value_hidden=8, target="choice")


def test_a_stopped_run_resumes_to_the_uninterrupted_run_bit_for_bit(tmp_path, full_run):
    half = train(smoke_config(tmp_path), stop_at=1, quiet=True)
    assert load_checkpoint(half)["update"] == 1
    now = time.time
    with pytest.MonkeyPatch.context() as patch:  # a later second, as a real resume would have
        patch.setattr(time, "time", lambda: now() + 100)
        resumed = train(None, resume=half, quiet=True)
    assert resumed.parent == half.parent
    a, b = load_checkpoint(full_run), load_checkpoint(resumed)
    assert_same(without_run_identity(a), without_run_identity(b))


def test_a_run_can_start_from_a_checkpoint_and_refuses_another_network(tmp_path, full_run):
    ckpt = load_checkpoint(full_run)
    started = train(smoke_config(tmp_path, init_from=str(full_run), rounds=0, eval_final=False), quiet=True)
    assert_same(load_checkpoint(started)["model"], ckpt["model"])
    with pytest.raises(ValueError, match="network"):
        train(smoke_config(tmp_path, init_from=str(full_run), hidden=16, rounds=0), quiet=True)
    slim = export_slim(full_run, tmp_path / "slim.pt")
    with pytest.raises(ValueError, match="slim checkpoint holds no run state"):
        train(None, resume=slim, quiet=True)


def test_the_config_names_bad_keys_and_values_and_picks_the_trainer():
    with pytest.raises(ValueError, match="unknown expert-iteration config key"):
        ExpertIterationConfig.from_dict({"total_updates": 3})
    with pytest.raises(ValueError, match="temperature=0"):
        ExpertIterationConfig(temperature=0)
    assert trainer_for(config=SMOKE)[0] is ExpertIterationConfig
    assert trainer_for(config=ROOT / "configs" / "train" / "smoke.yaml")[0].__name__ == "PPOConfig"
    for recipe in RECIPES:  # every recipe loads
        assert ExpertIterationConfig.from_yaml(recipe).algorithm == "expert_iteration"


def test_the_cli_trains_and_resumes_the_smoke_recipe(tmp_path):
    from typer.testing import CliRunner

    from train.cli.app import app

    runner = CliRunner()
    first = runner.invoke(app, ["train", "--config", str(SMOKE), "--run-dir", str(tmp_path), "--stop-at", "1"])
    assert first.exit_code == 0, first.output
    latest = Path(first.output.split("checkpoint:")[-1].strip())
    assert load_checkpoint(latest)["update"] == 1
    second = runner.invoke(app, ["train", "--resume", str(latest), "--stop-at", "2", "--actors", "0"])
    assert second.exit_code == 0, second.output
    assert load_checkpoint(latest)["update"] == 2
    refused = runner.invoke(app, ["train", "--resume", str(latest), "--actors", "2"])  # the smoke run has no shards
    assert "actors=2 needs collect_shards >= 1" in str(refused.exception) and load_checkpoint(latest)["update"] == 2


def test_the_cli_refuses_actors_for_ppo(tmp_path):
    from typer.testing import CliRunner

    from train.cli.app import app

    ppo_smoke = ROOT / "configs" / "train" / "smoke.yaml"
    result = CliRunner().invoke(app, ["train", "--config", str(ppo_smoke), "--run-dir", str(tmp_path), "--actors", "1"])
    assert result.exit_code != 0 and not list(tmp_path.iterdir())
    assert "--actors 1 is for expert iteration" in str(result.exception)


CARD_IMITATION = ROOT / "configs" / "train" / "card_imitation.yaml"


def test_the_card_imitation_recipe_clones_the_heuristics_cards_and_keeps_the_bids(tmp_path, monkeypatch):
    """``teacher: heuristic``: the card decisions with a choice are the valued ones, labelled with the heuristic's
    card; the bids keep the probabilities of the network the run starts from; the checkpoint plays its own cards."""
    import train.expert_iteration.trainer as expit
    from spades_env.engine import PLAY

    recipe = ExpertIterationConfig.from_yaml(CARD_IMITATION)
    assert recipe.teacher == "heuristic" and recipe.unvalued == "behaviour" and recipe.anchor_to == "initial"
    assert recipe.opponents == "heuristic"
    assert recipe.init_from == "checkpoints/partnership_bids.pt"
    rounds, real = [], expit.label_positions

    def spy(positions, spec, ray=None):
        labels = real(positions, spec, ray)
        rounds.append((positions, labels))
        return labels

    monkeypatch.setattr(expit, "label_positions", spy)
    wrapped, real_against = [], expit.against_heuristic
    monkeypatch.setattr(expit, "against_heuristic", lambda *a: wrapped.append(a) or real_against(*a))
    tiny = dict(rounds=2, num_envs=8, num_steps=64, eval_every=1, eval_deals=4, eval_initial=False, label_chunk=64)
    latest = train(dataclasses.replace(recipe, run_dir=str(tmp_path), **tiny), quiet=True)
    start = NeuralAgent.from_checkpoint(ROOT / recipe.init_from, play="network").policy
    for positions, labels in rounds:
        cards = (positions.state.phase == PLAY) & (positions.mask.sum(axis=1) > 1)
        np.testing.assert_array_equal(labels.valued, cards)
        assert cards.any() and (~cards).any()
        with torch.no_grad():  # the unvalued decisions (bids among them) keep the starting network's probabilities
            logits, _ = start(torch.as_tensor(positions.obs[~cards]))
        probs = torch.softmax(logits.masked_fill(~torch.as_tensor(positions.mask[~cards]), -torch.inf), -1)
        np.testing.assert_allclose(labels.target[~cards], probs.numpy(), atol=1e-5)
    assert len(wrapped) == len(rounds) == 2  # every round played against the heuristic
    agent = NeuralAgent.from_checkpoint(latest)
    assert agent.play == "network" and (latest.parent / "best.pt").exists()


def test_against_heuristic_puts_the_heuristic_at_every_seat_outside_the_learners_side():
    from agents.base import DecisionContext
    from agents.heuristic import HeuristicAgent
    from spades_env.envs.vector import VectorSpades
    from train.expert_iteration.steps import against_heuristic

    for rules in ("partnership", "cutthroat-4"):
        env = VectorSpades(rules, 12, seed=6)
        _, info = env.reset(seed=6)
        engine, bot = env.engine, HeuristicAgent()
        first_legal = lambda obs, mask, ctx: (mask.argmax(axis=1), mask / mask.sum(axis=1, keepdims=True))  # noqa: E731
        behaviour = against_heuristic(first_legal, bot)
        learner_sides = set()
        for _ in range(40):
            mask, seats = info["action_mask"].astype(bool), info["to_play"]
            ctx = DecisionContext(engine, env.state, np.arange(12), seats)
            action, probs = behaviour(None, mask, ctx)
            learner = engine.side_of_seat[seats] == np.arange(12) % engine.n_sides
            learner_sides |= set(engine.side_of_seat[seats[learner]].tolist())
            np.testing.assert_array_equal(action[learner], mask[learner].argmax(axis=1))
            rows = np.flatnonzero(~learner)
            sub = DecisionContext(engine, env.state, rows, seats[rows])
            np.testing.assert_array_equal(action[~learner], bot.act(None, mask[rows], sub))
            np.testing.assert_array_equal(probs, mask / mask.sum(axis=1, keepdims=True))  # the behaviour's, kept
            _, _, _, _, info = env.step(action)
        assert learner_sides == set(range(engine.n_sides))  # every side is the learner's in some game
    with pytest.raises(ValueError, match="opponents='bots'"):
        ExpertIterationConfig(opponents="bots")


def test_train_on_learner_keeps_exactly_the_decisions_the_learner_took():
    """``learner_rows`` picks the rows ``against_heuristic`` left to the learner: the complement of the rows the
    heuristic was asked about, at partnership and cutthroat-4."""
    from agents.heuristic import HeuristicAgent
    from train.expert_iteration.labelling import PositionStream
    from train.expert_iteration.steps import against_heuristic, learner_rows

    class SpyHeuristic(HeuristicAgent):
        def act(self, obs, mask, ctx):
            asked.append(ctx.games.copy())
            return super().act(obs, mask, ctx)

    first_legal = lambda obs, mask, ctx: (mask.argmax(axis=1), mask / mask.sum(axis=1, keepdims=True))  # noqa: E731
    for rules, games in (("partnership", 6), ("cutthroat-4", 8)):
        asked: list[np.ndarray] = []
        stream = PositionStream(rules, games, seed=3)
        positions = stream.collect(30, against_heuristic(first_legal, SpyHeuristic()), 0.01)
        heuristic = np.zeros((30, games), bool)
        for t, rows in enumerate(asked):
            heuristic[t, rows] = True
        rows = learner_rows(positions, stream.env.engine, games)
        np.testing.assert_array_equal(rows, np.flatnonzero(~heuristic.reshape(-1)))
        kept = positions.take(rows)
        np.testing.assert_array_equal(kept.obs, positions.obs[rows])
        np.testing.assert_array_equal(kept.state.hands, positions.state.hands[rows])
        assert 0 < len(rows) < len(positions)


@pytest.mark.parametrize("shards", [0, 2])
def test_a_train_on_learner_run_labels_only_the_learners_positions(tmp_path, shards):
    config = smoke_config(
        tmp_path, opponents="heuristic", train_on="learner", teacher="heuristic", rounds=1, eval_every=0,
        eval_initial=False, eval_final=False, collect_shards=shards, heuristic_rounds=0,
    )  # fmt: skip
    ckpt = load_checkpoint(train(config, quiet=True))
    everything = config.num_envs * config.num_steps
    assert 0.3 * everything < ckpt["global_step"] < 0.7 * everything  # one side of two: about half the decisions
    with pytest.raises(ValueError, match="train_on='learner' needs opponents='heuristic'"):
        ExpertIterationConfig(train_on="learner")
    with pytest.raises(ValueError, match="train_on='seats'"):
        ExpertIterationConfig(train_on="seats")


def test_the_dagger_checkpoint_is_the_card_imitation_recipes_network_playing_its_own_cards():
    from agents import LEARNED_CHECKPOINT
    from tests.checkpoint_compare import committed_checkpoint

    dagger = LEARNED_CHECKPOINT.parent / "partnership_dagger.pt"  # the learned bot's card play (test_bid_values)
    keys = ("teacher", "opponents", "unvalued", "anchor_to", "rounds", "num_envs", "num_steps", "epochs", "init_from")
    recipe = ExpertIterationConfig.from_yaml(CARD_IMITATION)
    data = committed_checkpoint(dagger, recipe, "partnership", keys)
    assert data["update"] == 30  # best.pt of the run: its last round
    assert NeuralAgent.from_checkpoint(dagger).play == "network"


CUTTHROAT4_IMITATION = ROOT / "configs" / "train" / "cutthroat4_imitation.yaml"


def test_the_cutthroat4_dagger_checkpoint_is_the_cutthroat4_imitation_recipes_network():
    """cutthroat4_dagger.pt (the start of the learned cutthroat-4 bot, test_bid_values) is made by
    ``cutthroat4_imitation.yaml`` (learner-only DAgger of the heuristic's cards from cutthroat4_ppo.pt), and refuses
    other tables."""
    from agents.learned import LEARNED_CHECKPOINTS
    from spades_env.envs.vector import VectorSpades
    from tests.checkpoint_compare import committed_checkpoint

    path = LEARNED_CHECKPOINTS["cutthroat-4"].parent / "cutthroat4_dagger.pt"
    recipe = ExpertIterationConfig.from_yaml(CUTTHROAT4_IMITATION)
    assert (recipe.teacher, recipe.opponents, recipe.train_on) == ("heuristic", "heuristic", "learner")
    assert recipe.init_from == "checkpoints/cutthroat4_ppo.pt"
    keys = ("teacher", "opponents", "train_on", "unvalued", "anchor_to", "rounds", "num_envs", "num_steps", "init_from")
    data = committed_checkpoint(path, recipe, "cutthroat-4", keys)
    assert data["update"] == 25  # best.pt of the run: its last round
    direct = NeuralAgent.from_checkpoint(path)
    direct.check_supports(VectorSpades("cutthroat-4", num_envs=1).engine)
    with pytest.raises(ValueError, match="cutthroat-4"):
        direct.check_supports(VectorSpades("partnership", num_envs=1).engine)


@pytest.mark.parametrize("shards", [0, 2])
def test_a_teacher_naming_the_network_searches_with_the_network_of_each_round(tmp_path, monkeypatch, shards):
    import agents

    specs = []
    real = agents.make_agent

    def spy(spec, *args, **kwargs):
        specs.append(spec)
        return real(spec, *args, **kwargs)

    monkeypatch.setattr(agents, "make_agent", spy)
    teacher = "guided:samples=2,top=2,depth=0,oversample=1,path={network}"
    config = smoke_config(
        tmp_path, teacher=teacher, warmup_teacher="search:samples=2,oversample=1", rounds=2, eval_every=0,
        eval_final=False, collect_shards=shards,
    )  # fmt: skip
    last = train(config, quiet=True)
    network = last.parent / "teacher.pt"
    labels = [s for s in specs if s.startswith(("guided", "search"))]
    assert labels[0] == "search:samples=2,oversample=1"  # the heuristic's round: the warm-up teacher
    assert labels[-1] == teacher.replace("{network}", str(network))  # the learner's round: its network
    # The teacher's network is the one that played round 2: the network after round 1's update.
    after_one = train(dataclasses.replace(config, run_dir=str(tmp_path / "again")), stop_at=1, quiet=True)
    assert_same(load_checkpoint(network)["model"], load_checkpoint(after_one)["model"])
    assert NeuralAgent.from_checkpoint(network).policy.hyperparameters() == load_checkpoint(last)["model_hparams"]
    with pytest.raises(ValueError, match="warmup_teacher="):
        ExpertIterationConfig(warmup_teacher="guided:path={network}")


def test_an_evaluation_against_a_search_bot_logs_its_curves(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    config = smoke_config(
        tmp_path, rounds=1, eval_every=0, eval_search="search:samples=2,oversample=1", eval_search_deals=2
    )
    last = train(config, quiet=True)
    events = EventAccumulator(str(last.parent.parent))
    events.Reload()
    assert {"eval/diff", "eval_search/diff", "eval_search/diff_ci95", "eval_search/board_win_rate"} <= set(
        events.Tags()["scalars"]
    )
    with pytest.raises(ValueError, match="eval_search='nosuchbot'"):
        ExpertIterationConfig(eval_search="nosuchbot")
