"""Checkpoint files are read safely (``weights_only``) and every bad file gets one clear line."""

import builtins
import pickle
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents import LEARNED_CHECKPOINT, make_agent  # noqa: E402
from agents.checkpoint_io import CheckpointError, read_checkpoint  # noqa: E402
from agents.neural import NeuralAgent  # noqa: E402
from train.runs.checkpoint import STATE_VALUE_PREFIX, export_slim, load_checkpoint, save_checkpoint  # noqa: E402


class WritesMarker:
    """Unpickling this object opens (creates) ``marker`` for writing: code run by the file."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (builtins.open, (self.marker, "w"))


def _loaders(path):
    return [
        lambda: load_checkpoint(path),
        lambda: read_checkpoint(path),
        lambda: NeuralAgent.from_checkpoint(path),
        lambda: make_agent(f"neural:path={path}", seed=0),
        lambda: export_slim(path, path.parent / "slim.pt"),
    ]


@pytest.mark.parametrize("how", ["torch.save", "pickle.dump"])
def test_a_checkpoint_whose_pickle_runs_code_is_refused_and_the_code_does_not_run(tmp_path, how):
    live = tmp_path / "live"
    pickle.loads(pickle.dumps(WritesMarker(live)))
    assert live.exists()  # the payload does run code when unpickled unsafely
    marker = tmp_path / "marker"
    payload = {"format": 2, "rules": {}, "obs_version": 2, "config": {}, "model_hparams": {}, "global_step": 0}
    payload["model"] = {"w": WritesMarker(marker)}
    path = tmp_path / "evil.pt"
    if how == "torch.save":
        torch.save(payload, path)
    else:
        path.write_bytes(pickle.dumps(payload, protocol=2))
    for load in _loaders(path):
        with pytest.raises(ValueError, match="refused: it holds Python objects other than tensors") as info:
            load()
        assert "\n" not in str(info.value) and "evil.pt" in str(info.value)
    assert not marker.exists()


def _bad_files(tmp: Path) -> dict[str, tuple[Path, str]]:
    raw = LEARNED_CHECKPOINT.read_bytes()
    files = {
        "empty": (b"", "is an empty file"),
        "truncated": (raw[: len(raw) // 2], "truncated or damaged torch file"),
        "text": (b"rules: partnership\nseed: 1\n", "a text file, not a torch checkpoint"),
    }
    out = {name: (tmp / f"{name}.pt", msg) for name, (data, msg) in files.items()}
    for name, (data, _) in files.items():
        out[name][0].write_bytes(data)
    torch.save(torch.zeros(3), tmp / "tensor.pt")
    out["tensor"] = (tmp / "tensor.pt", "holds a Tensor, not a dict")
    torch.save({"weights": torch.zeros(3), "epoch": 3}, tmp / "foreign.pt")
    out["foreign"] = (tmp / "foreign.pt", r"dict of keys \[weights, epoch\] lacking \['format'")
    good = torch.load(LEARNED_CHECKPOINT, weights_only=True)
    torch.save({k: v for k, v in good.items() if k != "obs_version"}, tmp / "no_version.pt")
    out["no_version"] = (tmp / "no_version.pt", r"lacking \['obs_version'\]")
    torch.save(good | {"format": 99}, tmp / "future.pt")
    out["future"] = (tmp / "future.pt", r"has format 99; this code reads formats \[1, 2\]")
    torch.save(good | {"model_hparams": dict(good["model_hparams"], hidden=7)}, tmp / "shapes.pt")
    out["shapes"] = (tmp / "shapes.pt", "its network does not match its model_hparams")
    out["missing"] = (tmp / "nowhere" / "latest.pt", "does not exist")
    out["directory"] = (tmp, "is not a file")
    torch.save(good | {"next_obs": np.zeros(3)}, tmp / "numpy.pt")
    out["numpy"] = (tmp / "numpy.pt", "refused: it holds NumPy objects")
    return out


BAD_FILES = ["empty", "truncated", "text", "tensor", "foreign", "no_version", "future", "shapes", "missing"]


@pytest.mark.parametrize("case", [*BAD_FILES, "directory", "numpy"])
def test_every_bad_file_gives_one_line_naming_the_file_and_what_was_expected(tmp_path, case):
    path, message = _bad_files(tmp_path)[case]
    loaders = _loaders(path)[2:4] if case == "shapes" else _loaders(path)
    for load in loaders:
        with pytest.raises(CheckpointError, match=message) as info:
            load()
        text = str(info.value)
        assert "\n" not in text and str(path) in text
        if case not in ("missing", "future", "shapes"):
            assert "expected a spades_env checkpoint" in text


def test_the_committed_checkpoints_read_with_weights_only_and_are_unchanged():
    old = read_checkpoint(LEARNED_CHECKPOINT.parent / "partnership_ppo.pt")  # format 1 still reads
    assert old["format"] == 1 and old["slim"] and old["rules"]["name"] == "partnership"
    ckpt = read_checkpoint(LEARNED_CHECKPOINT)
    assert ckpt["format"] == 2 and ckpt["slim"] and ckpt["rules"]["name"] == "partnership"


def test_save_refuses_anything_but_plain_data(tmp_path):
    payload = {"format": 2, "rules": {}, "obs_version": 2, "config": {}, "model_hparams": {}, "model": {}}
    with pytest.raises(TypeError, match=r"payload\['buffer'\]\['obs'\] is a ndarray"):
        save_checkpoint(tmp_path / "c.pt", payload | {"global_step": 0, "buffer": {"obs": np.zeros(2)}})
    assert not list(tmp_path.iterdir())


def test_export_refuses_to_overwrite_its_source(tmp_path):
    src = tmp_path / "latest.pt"
    src.write_bytes(LEARNED_CHECKPOINT.read_bytes())
    with pytest.raises(ValueError, match="export .* to another path"):
        export_slim(src, tmp_path / "." / "latest.pt")
    assert src.read_bytes() == LEARNED_CHECKPOINT.read_bytes()
    assert read_checkpoint(export_slim(src, tmp_path / "slim.pt"))["slim"]


def test_export_and_position_value_replace_an_existing_file_only_with_force(tmp_path):
    """A file of the user's is never overwritten by mistake: ``export_slim`` (``spades export``) refuses an existing
    out unless forced, and ``spades position-value`` refuses it before any training, both in one line naming it."""
    from typer.testing import CliRunner

    from train.cli.app import app

    src, out = LEARNED_CHECKPOINT.parent / "two_player_expit.pt", tmp_path / "mine.pt"
    out.write_bytes(b"the user's file")
    with pytest.raises(ValueError, match=r"mine.pt already exists: choose another path, or pass --force"):
        export_slim(src, out)
    for args in (["export", str(src), str(out)], ["position-value", "--out", str(out), "--hands", "4"]):
        cli = CliRunner().invoke(app, args)  # the app's own call turns the ValueError into one `error:` line
        assert isinstance(cli.exception, ValueError) and "mine.pt already exists" in str(cli.exception)
        assert out.read_bytes() == b"the user's file"
    assert CliRunner().invoke(app, ["export", "--force", str(src), str(out)]).exit_code == 0
    assert read_checkpoint(out)["slim"]


def test_a_play_only_export_drops_the_state_value_head_and_plays_the_same(tmp_path):
    from spades_env.envs.vector import VectorSpades, sample_legal

    src = LEARNED_CHECKPOINT.parent / "partnership_bid_values_nil_cards.pt"  # it has PPO's state value head
    slim = export_slim(src, tmp_path / "play.pt", play_only=True)
    data, full = read_checkpoint(slim), read_checkpoint(src)
    assert data["model_hparams"] == full["model_hparams"] | {"state_value": False}
    assert (
        set(full["model"]) - set(data["model"])
        == {k for k in full["model"] if k.startswith(STATE_VALUE_PREFIX)}
        != set()
    )
    assert slim.stat().st_size < src.stat().st_size - 2**19
    played, kept = NeuralAgent.from_checkpoint(slim), NeuralAgent.from_checkpoint(src)
    env = VectorSpades("partnership", num_envs=32, seed=4)
    obs, info = env.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(12):  # bids and cards
        np.testing.assert_array_equal(played.act(obs, info["action_mask"]), kept.act(obs, info["action_mask"]))
        obs, _, _, _, info = env.step(sample_legal(info["action_mask"], rng))
    with pytest.raises(ValueError, match="no state value head"):
        played.policy(torch.as_tensor(obs))

    from typer.testing import CliRunner

    from train.cli.app import app

    out = CliRunner().invoke(app, ["export", "--play-only", str(src), str(tmp_path / "cli.pt")])
    assert out.exit_code == 0 and "slim checkpoint:" in out.output, out.output
    assert read_checkpoint(tmp_path / "cli.pt")["model_hparams"]["state_value"] is False


def test_games_in_progress_round_trip_through_plain_data(tmp_path):
    from spades_env.envs.vector import VectorSpades, sample_legal
    from train.runs.checkpoint import env_state, restore_env

    env = VectorSpades("partnership", num_envs=6, seed=2)
    obs, info = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(40):
        obs, _, _, _, info = env.step(sample_legal(info["action_mask"], rng))
    torch.save(env_state(env.state), tmp_path / "env.pt")
    again = VectorSpades("partnership", num_envs=6, seed=99)
    restore_env(again, torch.load(tmp_path / "env.pt", weights_only=True), tmp_path / "env.pt")
    np.testing.assert_array_equal(again.action_masks(), info["action_mask"])
    for _ in range(200):  # past hand ends: the deals come from the restored keys
        actions = sample_legal(info["action_mask"], rng)
        obs, rewards, _, _, info = env.step(actions)
        obs2, rewards2, _, _, info2 = again.step(actions)
        np.testing.assert_array_equal(obs, obs2)
        np.testing.assert_array_equal(rewards, rewards2)
    with pytest.raises(CheckpointError, match="holds 6 games, the run has 3"):
        restore_env(VectorSpades("partnership", num_envs=3), env_state(env.state), "c.pt")


def test_stored_games_are_narrow_and_come_back_with_their_dtypes_and_values():
    import dataclasses

    from spades_env.engine import SpadesEngine
    from spades_env.rules import resolve_rules
    from train.runs.checkpoint import env_state, state_from_env

    state = SpadesEngine(resolve_rules("partnership")).reset(np.arange(5))
    state.scores[:] = [[-700, 40_000], [0, 3], [127, -128], [2**40, 1], [5, 5]]  # int16, int32, int8, int64 ranges
    data = env_state(state)
    assert data["history"].dtype == torch.int8 and data["scores"].dtype == torch.int64  # 2**40 needs int64
    on_disk = sum(t.untyped_storage().nbytes() for t in data.values())
    assert on_disk < 0.25 * sum(getattr(state, f.name).nbytes for f in dataclasses.fields(state))
    assert data["discards"].untyped_storage().nbytes() == 8  # partnership draws no cards: one zero stored
    for stored in (data, {f.name: torch.from_numpy(getattr(state, f.name)) for f in dataclasses.fields(state)}):
        again = state_from_env(stored, "spades")  # narrow, and as checkpoints before the narrowing stored it
        for f in dataclasses.fields(state):
            a, b = getattr(state, f.name), getattr(again, f.name)
            assert a.dtype == b.dtype and a.shape == b.shape, f.name
            np.testing.assert_array_equal(a, b, err_msg=f.name)


def test_stored_games_of_the_union_layout_load_as_the_games_own_fields_and_a_missing_one_is_named():
    import dataclasses

    from spades_env.engine import SpadesEngine
    from train.runs.checkpoint import env_state, state_from_env

    state = SpadesEngine("hearts").reset(np.arange(3))
    data = env_state(state) | {"bids": torch.full((3, 4), -1), "bags": torch.zeros((3, 2), dtype=torch.int64)}
    again = state_from_env(data, "hearts")  # a checkpoint of when every state had every game's fields
    assert type(again) is type(state)
    for f in dataclasses.fields(state):
        np.testing.assert_array_equal(getattr(again, f.name), getattr(state, f.name), err_msg=f.name)
    del data["passed"]
    with pytest.raises(CheckpointError, match=r"checkpoint c.pt: its 'env' lacks the hearts state fields \['passed'\]"):
        state_from_env(data, "hearts", "c.pt")
