"""Expert iteration's sharded collection: the data depend on the shards, not on where they run.

In this process (``actors: 0``) and on Ray actors (``actors: 2``, a local Ray of 2 CPUs started by the module)
the same tiny run writes the same checkpoint bit for bit, a run stopped after a round resumes to it, and an actor
killed in the middle of a round is replaced without a position lost or counted twice.
"""

import dataclasses
import os

import numpy as np
import pytest

from tests.paths import ROOT

torch = pytest.importorskip("torch")

from tests.checkpoint_compare import assert_same  # noqa: E402
from train.expert_iteration.collect_actors import (  # noqa: E402
    LocalShards,
    ShardedCollection,
    ShardSetup,
    ShardTask,
    ShardWorker,
    numpy_weights,
    shard_bounds,
)
from train.expert_iteration.config import ExpertIterationConfig  # noqa: E402
from train.expert_iteration.labelling import LabelSpec, PositionStream  # noqa: E402
from train.expert_iteration.trainer import train  # noqa: E402
from train.runs.checkpoint import load_checkpoint  # noqa: E402

SMOKE = ROOT / "configs" / "train" / "expert_iteration_smoke.yaml"


def sharded_config(tmp_path, **changes) -> ExpertIterationConfig:
    """The smoke recipe (3 rounds, the first by the heuristic, anchored to the initial network) in 2 shards,
    without its evaluations."""
    base = ExpertIterationConfig.from_yaml(SMOKE)
    changes = {"collect_shards": 2, "eval_every": 0, "eval_final": False, "num_steps": 16, **changes}
    return dataclasses.replace(base, run_dir=str(tmp_path), **changes)


def run_state(path):
    """A checkpoint without what names the run (its name and run_dir) or says where its shards ran."""
    ckpt = load_checkpoint(path)
    config = ckpt["config"] | {"run_dir": "", "actors": 0}
    return {k: v for k, v in ckpt.items() if k != "run_name"} | {"config": config}


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """The 2-shard run in this process: its last checkpoint."""
    return train(sharded_config(tmp_path_factory.mktemp("local")), quiet=True)


def test_shards_cover_the_batch_in_order_with_sizes_within_one():
    assert shard_bounds(10, 3) == [(0, 4), (4, 7), (7, 10)]
    assert shard_bounds(4, 4) == [(0, 1), (1, 2), (2, 3), (3, 4)]
    assert shard_bounds(5, 1) == [(0, 5)]


def tiny_shards():
    """(setup, the 2 shards' games, weights) of 6 partnership games and a tiny network."""
    from agents.neural import SpadesPolicy
    from spades_env.rules import resolve_rules

    rules = resolve_rules("partnership")
    stream = PositionStream(rules, 6, seed=3)
    torch.manual_seed(0)
    policy = SpadesPolicy.for_engine(stream.env.engine, stream.obs.shape[1], hidden=16, depth=1)
    setup = ShardSetup(
        rules=rules, seed=3, episode="match", num_steps=8, reward_scale=0.01, threads=1,
        model_hparams=policy.hyperparameters(), label=LabelSpec(rules, teacher="search:samples=2,oversample=1"),
    )  # fmt: skip
    return setup, ShardedCollection.split(stream.env.state, 2), numpy_weights(policy)


def test_a_shard_worker_gives_a_shard_the_same_data_whatever_it_ran_before():
    """A persistent worker keeps no state between shards: shard 1 after shard 0 equals shard 1 on a fresh worker."""
    setup, states, weights = tiny_shards()
    busy = ShardWorker(setup)
    first = busy.run(ShardTask(4, 0, states[0], heuristic=False), weights)
    second = busy.run(ShardTask(4, 1, states[1], heuristic=False), weights)
    fresh = ShardWorker(setup).run(ShardTask(4, 1, states[1], heuristic=False), weights)
    for key in second.fresh:
        np.testing.assert_array_equal(second.fresh[key], fresh.fresh[key], err_msg=key)
    assert len(first.fresh["obs"]) == 3 * 8 and first.fresh["valued"].any()
    for field in dataclasses.fields(second.state):
        np.testing.assert_array_equal(getattr(second.state, field.name), getattr(fresh.state, field.name))
    # Another round's seeds play other games from the same state.
    other = ShardWorker(setup).run(ShardTask(5, 1, states[1], heuristic=False), weights)
    assert not np.array_equal(other.fresh["obs"], second.fresh["obs"])
    with pytest.raises(ValueError, match="needs the network's weights"):
        LocalShards(setup).run([ShardTask(4, 0, states[0], heuristic=False)], None)


def test_a_sharded_run_stopped_after_a_round_resumes_bit_for_bit(tmp_path, local_run):
    half = train(sharded_config(tmp_path), stop_at=1, quiet=True)
    ckpt = load_checkpoint(half)
    assert ckpt["update"] == 1 and len(ckpt["env"]) == 2 and ckpt["next_obs"] is None
    assert_same(run_state(local_run), run_state(train(None, resume=half, quiet=True)))
    assert load_checkpoint(local_run)["global_step"] == 3 * 4 * 16


def test_the_shards_not_where_they_run_fix_the_data(tmp_path, local_run):
    three = train(sharded_config(tmp_path / "three", collect_shards=3, rounds=2), quiet=True)
    two = train(sharded_config(tmp_path / "two", rounds=2), quiet=True)
    assert not torch.equal(
        load_checkpoint(three)["model"]["card_head.weight"], load_checkpoint(two)["model"]["card_head.weight"]
    )


def test_the_config_refuses_actors_without_shards_and_two_kinds_of_workers():
    with pytest.raises(ValueError, match="actors=2 needs collect_shards >= 1"):
        ExpertIterationConfig(actors=2)
    with pytest.raises(ValueError, match="label_workers=2 is for collect_shards: 0"):
        ExpertIterationConfig(collect_shards=2, label_workers=2)
    with pytest.raises(ValueError, match="collect_shards=9"):
        ExpertIterationConfig(collect_shards=9, num_envs=8)


@pytest.fixture(scope="module")
def local_ray():
    import ray

    started = not ray.is_initialized()
    if started:
        ray.init(address="local", num_cpus=2, include_dashboard=False)
    yield
    if started:
        ray.shutdown()


@pytest.mark.xdist_group("ray")  # with tests/train/distributed/test_ray.py: one pytest-xdist worker, one Ray at a time
def test_an_actor_killed_mid_round_is_replaced_and_a_run_on_actors_resumes_to_the_run_in_process(
    local_ray, tmp_path, local_run
):
    """One run on 2 actors: an actor dies holding round 0's second shard, the run stops after that round and
    resumes in this process (``actors=0``, as ``spades train --resume ... --actors 0``): the same checkpoint as
    the run in this process from the start."""
    marker, driver = tmp_path / "killed", os.getpid()

    def kill_once(task):
        if task.round == 0 and task.shard == 1 and os.getpid() != driver and not marker.exists():
            marker.write_text(str(os.getpid()))
            os._exit(1)

    half = train(sharded_config(tmp_path, actors=2), stop_at=1, quiet=True, before_shard=kill_once)
    assert int(marker.read_text()) != driver
    assert load_checkpoint(half)["config"]["actors"] == 2
    resumed = train(None, resume=half, quiet=True, actors=0)
    assert load_checkpoint(resumed)["config"]["actors"] == 0
    assert_same(run_state(local_run), run_state(resumed))


def test_sharded_training_imports_ray_only_for_actors():
    import subprocess
    import sys

    code = (
        "import sys, train.expert_iteration.collect_actors, train.expert_iteration.trainer\nprint('ray' in sys.modules)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert run.stdout.strip() == "False"


@pytest.mark.xdist_group("ray")
def test_an_actor_that_keeps_dying_stops_the_round_with_a_clear_error(local_ray, tmp_path):
    from train.expert_iteration.collect_actors import RayShards

    setup, states, weights = tiny_shards()

    def always_die(task):
        (tmp_path / f"died{os.getpid()}").touch()
        os._exit(1)

    runner = RayShards(setup, 1, always_die, max_restarts=1)
    try:
        with pytest.raises(RuntimeError, match="round 0: shard 0's actor died after 1 restarts this round"):
            runner.run([ShardTask(0, 0, states[0], heuristic=True)], weights)
    finally:
        runner.close()
    assert runner.restarts == 1 and len(list(tmp_path.glob("died*"))) == 2  # the first actor and its one replacement
