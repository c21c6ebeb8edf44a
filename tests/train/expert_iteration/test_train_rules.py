"""``spades train --rules PRESET``: the game family of every preset, the composed configs, a smoke run of the one
command at every preset (each family, its special decisions included), the one-line errors and the resume."""

import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.heuristic import HeuristicAgent  # noqa: E402
from spades_env.engine import PLAY, SpadesEngine  # noqa: E402
from spades_env.games.hearts.phases import PASS  # noqa: E402
from spades_env.games.spades.params import BEMO, BID, BLIND, DRAW  # noqa: E402
from spades_env.rules import Rules, list_presets, resolve_rules  # noqa: E402
from tests.checkpoint_compare import assert_same, without_run_identity  # noqa: E402
from train.expert_iteration.labelling import LabelSpec, PositionStream, heuristic_behaviour, label_positions  # noqa: E402
from train.expert_iteration.train_rules import FAMILY_DIR, families, game_family, rules_config  # noqa: E402
from train.runs.checkpoint import load_checkpoint  # noqa: E402
from train.runs.round_progress import round_bar  # noqa: E402

#: Every preset's family, written out: a new preset fails the mapping test until it is placed here.
FAMILY_OF = {
    "partnership": "spades_partnership",
    "partnership-250": "spades_partnership",
    "partnership-house": "spades_partnership",
    "partnership-no-blind-nil": "spades_partnership",
    "partnership-tournament": "spades_partnership",
    "fourteen": "spades_partnership",
    "jokers": "spades_partnership",
    "mirror": "spades_partnership",
    "two-player": "spades_two_player",
    "cutthroat-3": "spades_cutthroat",
    "cutthroat-4": "spades_cutthroat",
    "cutthroat-5": "spades_cutthroat",
    "cutthroat-6": "spades_cutthroat",
    "hearts": "hearts",
    "hearts-50": "hearts",
    "hearts-partnership": "hearts",
}

#: A budget of seconds: 2 rounds (HeuristicAgent's, then the network's) of 2 games x 70 decisions (a whole hand at
#: every table, the two-player draw and the Hearts pass included), a tiny network and teacher, a 2-board evaluation.
TINY = {
    "rounds": 2, "num_envs": 2, "num_steps": 70, "hidden": 16, "depth": 1, "minibatch": 64, "label_chunk": 64,
    "eval_deals": 2, "eval_every": 0,
}  # fmt: skip


def tiny_sets(**changes) -> list[str]:
    """``--set KEY=VALUE`` options of ``TINY`` (with ``changes``)."""
    return [arg for key, value in (TINY | changes).items() for arg in ("--set", f"{key}={value}")]


def cli(*args: str):
    from typer.testing import CliRunner

    from train.cli.app import app

    return CliRunner().invoke(app, ["train", *args])


def test_every_preset_has_its_family_read_from_its_rules():
    assert sorted(FAMILY_OF) == list_presets()
    assert {preset: game_family(resolve_rules(preset)) for preset in FAMILY_OF} == FAMILY_OF
    # a table of no preset: its family is read from its facts alone
    assert game_family(Rules(n_players=5, partnership=False, name="five")) == "spades_cutthroat"
    assert game_family(Rules.preset("hearts").replace(partnership=True, name="x")) == "hearts"


def test_the_family_configs_are_the_base_with_the_familys_keys_and_the_gpu_sizing():
    base = rules_config("partnership")
    assert base.rules == "partnership" and base.algorithm == "expert_iteration" and base.device == "cpu"
    assert (base.hidden, base.num_envs, base.teacher) == (256, 512, "search:fast,samples=4,bid_samples=8")
    assert (base.card_labels, base.card_features, base.card_feature_logits) == ("teacher", True, True)
    for preset in ("two-player", "cutthroat-4"):  # every Spades family's cards valued on 4 layouts of the hidden cards
        assert rules_config(preset).teacher == "search:fast,samples=4,bid_samples=8"
    hearts = rules_config("hearts-partnership")
    assert (hearts.teacher, hearts.temperature, hearts.reward_scale) == ("search:fast,pass_samples=4", 0.5, 0.04)
    assert (hearts.rounds, hearts.card_features) == (base.rounds, True)  # the shared keys are base.yaml's
    assert hearts.card_labels == "teacher" and hearts.num_envs == 128  # ... unless the family's file sets them
    gpu = rules_config("cutthroat-5", gpu=True, overrides={"hidden": 64})
    assert (gpu.device, gpu.num_envs, gpu.depth, gpu.hidden) == ("cuda", 2048, 3, 64)
    assert gpu.exp_name == "expit_spades_cutthroat"
    assert rules_config("two-player", device="cuda:1").device == "cuda:1"  # --device cuda picks the GPU sizing too
    assert rules_config("two-player", device="cuda:1").num_envs == 2048
    assert set(families()) == set(FAMILY_OF.values())
    assert {p.stem for p in FAMILY_DIR.glob("*.yaml")} == {*families(), "base", "gpu"}


def test_a_game_without_a_family_config_is_refused_in_one_line():
    rules = SimpleNamespace(game="tricks", n_players=4, partnership=False)  # the facts game_family reads
    with pytest.raises(ValueError, match=r"no generic training config for game 'tricks'.*add family_configs/tricks"):
        game_family(rules)


def test_the_teacher_of_each_family_values_its_decisions_or_leaves_them_to_the_heuristic():
    """Bids, blind nil and the Hearts pass are valued by the family's teacher, the cards on the real deal or by it; the
    two-player draw and Bemo are not, and there the target is the heuristic's choice, one-hot (every target is a
    distribution of legal actions); a partnership bid's target gives nil its share."""
    valued_phases, unvalued_phases = set(), set()
    for preset in ("partnership-house", "two-player", "cutthroat-5", "hearts-partnership"):
        rules = resolve_rules(preset)
        config = rules_config(preset)
        stream = PositionStream(rules, 4, seed=3)
        positions = stream.collect(90, heuristic_behaviour(HeuristicAgent()), config.reward_scale)
        spec = LabelSpec(
            rules=rules, teacher=config.teacher, seed=(1,), temperature=config.temperature, chunk=64,
            cards=config.card_labels,
        )  # fmt: skip
        labels = label_positions(positions, spec)
        choice = positions.mask.sum(axis=1) > 1
        phase = positions.state.phase
        assert (labels.target[~positions.mask] == 0).all()
        np.testing.assert_allclose(labels.target.sum(axis=1), 1.0, rtol=1e-5)
        unvalued = choice & ~labels.valued
        onehot = np.eye(positions.mask.shape[1], dtype=np.float32)[labels.action]
        np.testing.assert_array_equal(labels.target[unvalued], onehot[unvalued])
        valued_phases |= {(preset, int(p)) for p in np.unique(phase[choice & labels.valued])}
        unvalued_phases |= {(preset, int(p)) for p in np.unique(phase[unvalued])}
        if preset == "partnership-house":
            bids = choice & labels.valued & (phase == BID)
            assert bids.any() and (labels.target[bids, SpadesEngine(rules).layout.bid_offset] > 0).any()  # nil valued
    assert {("partnership-house", BID), ("partnership-house", PLAY), ("partnership-house", BLIND)} <= valued_phases
    assert {("cutthroat-5", BID), ("two-player", BID), ("hearts-partnership", PASS)} <= valued_phases
    assert {("partnership-house", BEMO), ("two-player", DRAW)} <= unvalued_phases
    assert not {p for _, p in unvalued_phases} & {PLAY, BID, PASS}


@pytest.mark.parametrize("preset", list_presets())
def test_the_one_command_trains_at_every_preset(tmp_path, preset):
    result = cli("--rules", preset, "--run-dir", str(tmp_path), "--no-progress", *tiny_sets())
    assert result.exit_code == 0, result.output
    latest = Path(result.output.split("checkpoint:")[-1].strip())
    assert latest.parent.parent.parent == tmp_path and latest.parent.parent.name.startswith(f"{preset}__")
    ckpt = load_checkpoint(latest)
    assert ckpt["update"] == 2 and ckpt["config"]["rules"] == preset
    assert ckpt["config"]["exp_name"] == f"expit_{FAMILY_OF[preset]}"
    layout = SpadesEngine(resolve_rules(preset)).layout
    assert ckpt["model_hparams"]["n_actions"] == layout.n_actions  # one network covers every decision of the table
    assert np.isfinite(ckpt["best_diff"]) and (latest.parent / "best.pt").exists()  # it played the evaluation


def test_the_one_command_trains_at_a_table_of_a_rules_file(tmp_path):
    table = tmp_path / "my_table.yaml"
    table.write_text("name: my-table\nn_players: 5\npartnership: false\nblind_nil: true\n")
    result = cli("--rules", str(table), "--run-dir", str(tmp_path / "runs"), "--no-progress", *tiny_sets(rounds=1))
    assert result.exit_code == 0, result.output
    latest = Path(result.output.split("checkpoint:")[-1].strip())
    assert latest.parent.parent.name.startswith("my-table__expit_spades_cutthroat__")
    assert load_checkpoint(latest)["rules"]["blind_nil"] is True


def test_the_gpu_sizing_collects_in_shards(tmp_path):
    """``gpu.yaml`` composes into a run that goes (on the CPU here, its shards in this process: the same data as on
    its Ray actors)."""
    sets = tiny_sets(num_envs=8, num_steps=20, device="cpu", actors=0)
    result = cli("--rules", "hearts", "--gpu", "--run-dir", str(tmp_path), "--no-progress", *sets)
    assert result.exit_code == 0, result.output
    ckpt = load_checkpoint(Path(result.output.split("checkpoint:")[-1].strip()))
    assert ckpt["config"]["collect_shards"] == 8 and ckpt["global_step"] == 2 * 8 * 20 and len(ckpt["env"]) == 8


def test_a_rules_run_resumes_to_the_uninterrupted_run(tmp_path):
    full = cli("--rules", "two-player", "--run-dir", str(tmp_path / "full"), "--no-progress", *tiny_sets())
    half = cli("--rules", "two-player", "--run-dir", str(tmp_path / "half"), "--no-progress", "--stop-at", "1",
               *tiny_sets())  # fmt: skip
    assert full.exit_code == 0 and half.exit_code == 0, full.output + half.output
    latest = Path(half.output.split("checkpoint:")[-1].strip())
    assert load_checkpoint(latest)["update"] == 1
    now = time.time
    with pytest.MonkeyPatch.context() as patch:  # a later second, as a real resume would have
        patch.setattr(time, "time", lambda: now() + 100)
        resumed = cli("--resume", str(latest), "--no-progress")
    assert resumed.exit_code == 0, resumed.output
    a = load_checkpoint(Path(full.output.split("checkpoint:")[-1].strip()))
    assert_same(without_run_identity(a), without_run_identity(load_checkpoint(latest)))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rules", "bogus"], "unknown rules preset 'bogus' available presets: ['cutthroat-3'"),
        (["--rules", "hearts", "--config", "x.yaml"], "--rules cannot be combined with --config"),
        (["--rules", "hearts", "--resume", "x.pt"], "--rules cannot be combined with --resume"),
        (["--gpu"], "--gpu picks the GPU sizing of a --rules run"),
        (["--rules", "hearts", "--gpu", "--device", "cpu"], "cannot be combined with --device cpu"),
        (["--rules", "hearts", "--set", "rules=partnership"], "the rules of a --rules run are --rules' (hearts)"),
        (["--rules", "hearts", "--set", "temperature=0"], "bad expert-iteration config value(s): temperature=0"),
        (["--rules", "hearts", "--set", "nope=1"], "--set: unknown expert-iteration config key(s) ['nope']"),
        (["--rules", "hearts", "--set", "card_labels=real"], "bad expert-iteration config value(s): card_labels="),
        (
            ["--rules", "hearts", "--set", "card_labels=deal", "--set", "target=choice"],
            "card_labels='deal' needs target='values' (got target='choice')",
        ),
    ],
)
def test_the_one_command_refuses_bad_options_in_one_line(tmp_path, args, message):
    result = cli(*args, "--run-dir", str(tmp_path))
    assert result.exit_code != 0 and not list(tmp_path.iterdir())
    text = str(result.exception)
    assert message in text and "\n" not in text


def test_the_progress_bar_shows_only_when_asked_for_on_a_terminal(monkeypatch):
    import sys

    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)
    assert round_bar(10, 0, True) is None
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    assert round_bar(10, 0, False) is None
    bar = round_bar(10, 4, True, desc="hearts")
    try:
        assert (bar.total, bar.n, bar.unit, bar.desc) == (10, 4, "round", "hearts")
    finally:
        bar.close()
