"""The recipes of configs/recipes/ (``train/recipes/recipe.py``, ``spades recipe``): each shipped recipe runs end to end
at smoke scale, every stage from the network of the stage it names; a stopped recipe goes on where it stopped; a folder
made by another recipe and a broken recipe are refused with one line naming what is wrong."""

import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.paths import ROOT

torch = pytest.importorskip("torch")

from agents.neural import NeuralAgent  # noqa: E402
from spades_env.envs.vector import VectorSpades  # noqa: E402
from tests.train.cli.test_cli import assert_usage_error, spades  # noqa: E402
from train.recipes.recipe import Recipe, run_recipe, stage_output  # noqa: E402
from train.runs.checkpoint import load_checkpoint  # noqa: E402

RECIPES = ROOT / "configs" / "recipes"
#: Each shipped recipe and the committed checkpoint its last stage reproduces (the learned bot of its rules; the fast
#: partnership recipe's network is of that bot's kind).
SHIPPED = {
    "partnership": "partnership_card_values_vs_search.pt",
    "partnership_fast": "partnership_card_values_vs_search.pt",
    "cutthroat4": "cutthroat4_card_values_torso.pt",
    "hearts": "hearts_card_values_iterated3.pt",
}


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_every_shipped_recipe_trains_its_stages_in_order_at_smoke_scale(tmp_path, name):
    path = RECIPES / f"{name}.yaml"
    recipe = Recipe.from_yaml(path)
    lines: list[str] = []
    bot = run_recipe(path, tmp_path / "out", smoke=True, quiet=True, echo=lines.append)
    assert bot == stage_output(tmp_path / "out", recipe.stages[-1])
    assert sum("training" in line for line in lines) == len(recipe.stages)
    for stage in recipe.stages:
        ckpt = load_checkpoint(stage_output(tmp_path / "out", stage))
        assert ckpt["slim"] and ckpt["rules"]["name"] == recipe.rules
        config = ckpt["config"]
        for key in ("init_from", "value_teacher"):  # started from the networks it names, not the committed files
            ref = getattr(stage, key)
            if ref is not None:
                assert config[key] == str(tmp_path / "out" / f"{ref}.pt"), (stage.name, key)
        assert ckpt["model_hparams"].get("state_value", True) is not stage.play_only
        dtypes = {v.dtype for v in ckpt["model"].values() if v.is_floating_point()}
        assert dtypes == ({torch.float16} if stage.half else {torch.float32}), stage.name
    # the last stage's network is the committed learned bot's kind: the same layers, exported the same way
    committed = load_checkpoint(ROOT / "checkpoints" / SHIPPED[name])
    final = load_checkpoint(bot)
    assert {k.split(".")[0] for k in final["model"]} == {k.split(".")[0] for k in committed["model"]}
    assert final["config"]["card_margin"] == committed["config"]["card_margin"]
    agent = NeuralAgent.from_checkpoint(bot)
    env = VectorSpades(recipe.rules, num_envs=4, seed=3)
    agent.check_supports(env.engine)
    obs, info = env.reset()
    for _ in range(30):
        actions = agent.act(obs, info["action_mask"], env.context())
        assert info["action_mask"][np.arange(4), actions].all()
        obs, _, _, _, info = env.step(actions)


def test_a_stopped_recipe_goes_on_from_its_finished_stages_and_its_unfinished_run(tmp_path):
    path, out = RECIPES / "hearts.yaml", tmp_path / "out"
    lines: list[str] = []
    assert run_recipe(path, out, smoke=True, quiet=True, stop_after="expit", echo=lines.append) == out / "expit.pt"
    assert sorted(p.name for p in out.glob("*.pt")) == ["expit.pt", "ppo.pt"]
    first = {p.name: p.read_bytes() for p in out.glob("*.pt")}
    (out / "expit.pt").unlink()  # killed after the stage's last checkpoint, before its network was written
    lines.clear()
    run_recipe(path, out, smoke=True, quiet=True, echo=lines.append)
    assert lines[0] == f"stage 1/7 ppo (../train/hearts.yaml): done, {out / 'ppo.pt'}"
    assert lines[1].startswith("stage 2/7 expit (../train/hearts_expert_iteration.yaml): resuming ")
    assert sum("training" in line for line in lines) == 5  # the five stages not yet begun
    assert {p.name: p.read_bytes() for p in out.glob("*.pt") if p.name in first} == first
    assert len(list((out / "runs" / "expit").iterdir())) == 1  # the same run, not a second one


def test_a_folder_made_by_another_recipe_or_scale_or_holding_other_files_is_refused(tmp_path):
    out = tmp_path / "out"
    run_recipe(RECIPES / "hearts.yaml", out, smoke=True, quiet=True, stop_after="ppo", echo=lambda _: None)
    before = sorted(p.name for p in out.rglob("*"))
    another = r"--out .*: its stages were made by another recipe \(or another version of this one\); give a new --out"
    with pytest.raises(ValueError, match=another):
        run_recipe(RECIPES / "cutthroat4.yaml", out, smoke=True, quiet=True, echo=lambda _: None)
    with pytest.raises(ValueError, match=r"its stages were made at another scale \(--smoke\)"):
        run_recipe(RECIPES / "hearts.yaml", out, smoke=False, quiet=True, echo=lambda _: None)
    assert sorted(p.name for p in out.rglob("*")) == before  # nothing written, nothing lost
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep")
    with pytest.raises(ValueError, match=r"--out .*mine: a folder that holds other files"):
        run_recipe(RECIPES / "hearts.yaml", tmp_path / "mine", smoke=True, quiet=True, echo=lambda _: None)
    assert (tmp_path / "mine" / "notes.txt").read_text() == "keep"
    with pytest.raises(ValueError, match=r"--stop-after 'nope': not a stage of .*its stages are \['ppo', 'expit'"):
        run_recipe(RECIPES / "hearts.yaml", out, smoke=True, stop_after="nope", echo=lambda _: None)


def test_with_pipeline_the_bid_values_stages_collect_beside_the_update_and_the_folder_remembers(tmp_path):
    path, out = RECIPES / "hearts.yaml", tmp_path / "out"
    run_recipe(path, out, smoke=True, quiet=True, stop_after="card_values", echo=lambda _: None, pipeline=True)
    assert load_checkpoint(out / "card_values.pt")["config"]["pipeline"] is True  # a bid-values stage
    assert "pipeline" not in load_checkpoint(out / "ppo.pt")["config"]  # PPO has no such setting
    with pytest.raises(ValueError, match=r"its stages were made with --pipeline; give a new --out"):
        run_recipe(path, out, smoke=True, quiet=True, echo=lambda _: None)
    plain = tmp_path / "plain"
    run_recipe(path, plain, smoke=True, quiet=True, stop_after="ppo", echo=lambda _: None)
    with pytest.raises(ValueError, match=r"its stages were made without --pipeline"):
        run_recipe(path, plain, smoke=True, quiet=True, echo=lambda _: None, pipeline=True)


def write_recipe(tmp_path: Path, text: str) -> Path:
    shutil.copytree(ROOT / "configs" / "train", tmp_path / "train")
    path = tmp_path / "recipes" / "r.yaml"
    path.parent.mkdir()
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("stages", "message"),
    [
        (
            "  - {name: a, config: ../train/hearts.yaml, init_from: b}",
            r"stage 1 \(a\): init_from 'b' must name an earlier",
        ),
        ("  - {name: a, config: ../train/hearts.yaml, take: first}", r"take must be one of \['best', 'latest'\]"),
        ("  - {name: a, config: ../train/hearts.yaml, epochs: 2}", r"unknown stage key\(s\) \['epochs'\]; known keys"),
        ("  - {name: a, config: ../train/default.yaml}", r"stage 'a': .*default.yaml trains rules 'partnership', the"),
        ("  - {name: a, config: ../train/none.yaml}", r"stage 'a': config .*none.yaml does not exist"),
        ("  - {name: a/b, config: ../train/hearts.yaml}", r"name must be new and made of letters"),
        (
            "  - {name: a, config: ../train/hearts.yaml}\n"
            "  - {name: b, config: ../train/hearts.yaml, value_teacher: a}",
            r"stage 'b': value_teacher is for bid-values configs",
        ),
        (
            "  - {name: a, config: ../train/hearts.yaml, overrides: {seedz: 4}}",
            r"stage 'a': overrides: unknown training config key\(s\) \['seedz'\]; known keys: \[",
        ),
        ("  - {name: a, config: ../train/hearts.yaml, overrides: {seed: four}}", r"overrides: seed must be an integer"),
        (
            "  - {name: a, config: ../train/hearts.yaml, overrides: {init_from: x.pt}}",
            r"stage 1 \(a\): overrides may not set \['init_from'\]: the recipe sets them",
        ),
        ("  - {name: a, config: ../train/hearts.yaml, overrides: [seed]}", r"overrides must be a mapping"),
    ],
)
def test_a_broken_recipe_is_refused_naming_the_stage_and_key(tmp_path, stages, message):
    path = write_recipe(tmp_path, f"rules: hearts\nstages:\n{stages}\n")
    with pytest.raises(ValueError, match=message):
        Recipe.from_yaml(path)


def test_spades_recipe_runs_a_recipe_and_reports_a_bad_one_in_one_line(tmp_path):
    from typer.testing import CliRunner

    from train.cli.app import app

    runner = CliRunner()
    out = tmp_path / "out"
    result = runner.invoke(app, ["recipe", str(RECIPES / "hearts.yaml"), "--out", str(out), "--smoke"])
    assert result.exit_code == 0, result.output
    assert f"network: {out / 'iterated3.pt'}" in result.output
    assert f'spades tournament --rules hearts --bots "neural:path={out / "iterated3.pt"},heuristic"' in result.output
    again = runner.invoke(app, ["recipe", str(RECIPES / "hearts.yaml"), "--out", str(out), "--smoke"])
    assert again.exit_code == 0 and again.output.count(": done, ") == 7  # all done: nothing trains again
    bad = write_recipe(tmp_path, "rules: hearts\nstage: []\n")
    refused = spades("recipe", str(bad), "--out", str(tmp_path / "o2"))
    assert_usage_error(refused, "a recipe has exactly the keys ['rules', 'stages'], got ['rules', 'stage']")
    assert not (tmp_path / "o2").exists()


def test_a_stage_runs_its_config_with_its_overrides():
    """partnership_fast's second card-relearning pass is fast_nil_cards.yaml with another seed, length and name."""
    recipe = Recipe.from_yaml(RECIPES / "partnership_fast.yaml")
    first, again = (next(s for s in recipe.stages if s.name == name) for name in ("nil_cards", "nil_cards_more"))
    assert first.config == again.config
    assert again.overrides == {"exp_name": "fast_nil_cards_more", "seed": 4, "rounds": 40}
    base, _ = recipe.stage_config(first)
    config, _ = recipe.stage_config(again)
    assert (config.seed, config.rounds, config.exp_name) == (4, 40, "fast_nil_cards_more")
    assert (base.seed, base.rounds, base.exp_name) == (3, 20, "fast_nil_cards")
    assert config == base.with_overrides(again.overrides)
