"""Training configs (``train/runs/config_file.py``) refuse unknown keys and values of the wrong type in one line naming
the key and what it takes; ``with_overrides`` and ``spades train --set KEY=VALUE`` set keys the same checked way."""

import pytest

from tests.paths import ROOT
from tests.train.cli.test_cli import assert_usage_error, spades
from train.ppo.config import PPOConfig
from train.recipes.trainers import trainer_for
from train.values.bid_values_config import BidValuesConfig

SMOKE = ROOT / "configs" / "train" / "smoke.yaml"


@pytest.mark.parametrize("path", sorted((ROOT / "configs" / "train").glob("*.yaml")), ids=lambda p: p.stem)
def test_every_shipped_training_config_loads_with_its_types(path):
    config_class, _ = trainer_for(config=path)
    config = config_class.from_yaml(path)
    assert config_class.from_dict(config.to_dict()) == config


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("seed", "4", "seed must be an integer, got '4'"),
        ("seed", True, "seed must be an integer, got True"),
        ("learning_rate", "fast", "learning_rate must be a number, got 'fast'"),
        ("anneal_lr", 1, "anneal_lr must be true or false, got 1"),
        ("exp_name", 3, "exp_name must be a string, got 3"),
        ("target_kl", "x", "target_kl must be a number or null, got 'x'"),
    ],
)
def test_a_value_of_the_wrong_type_is_refused_naming_the_key_and_type(key, value, message):
    with pytest.raises(ValueError, match=f"^here: {message}$"):
        PPOConfig.from_dict({key: value}, source="here")


def test_overrides_set_keys_checked_as_a_file_is():
    config = PPOConfig.from_yaml(SMOKE)
    changed = config.with_overrides({"seed": 9, "learning_rate": 1, "target_kl": None})
    assert (changed.seed, changed.learning_rate, changed.target_kl) == (9, 1, None)
    assert changed.with_overrides({}) == changed and config.seed != 9  # a new config; the old one unchanged
    with pytest.raises(ValueError, match=r"^x: unknown training config key\(s\) \['rounds'\]; known keys: \["):
        config.with_overrides({"rounds": 3}, source="x")  # a bid-values key, not PPO's
    assert BidValuesConfig.from_yaml(ROOT / "configs/train/bid_values.yaml").with_overrides({"rounds": 3}).rounds == 3


def test_numbers_yaml_reads_as_strings_are_read_as_numbers(tmp_path):
    """YAML 1.1 reads ``1e-4`` (no dot) as a string: a number field takes it as the number it says."""
    path = tmp_path / "lr.yaml"
    path.write_text(SMOKE.read_text() + "\nlearning_rate: 1e-4\n")
    assert PPOConfig.from_yaml(path).learning_rate == pytest.approx(1e-4)
    assert PPOConfig.from_yaml(SMOKE).with_overrides({"target_kl": "2e-2"}).target_kl == pytest.approx(0.02)
    with pytest.raises(ValueError, match="^here: seed must be an integer, got '1e3'$"):
        PPOConfig.from_dict({"seed": "1e3"}, source="here")  # an integer field reads no string
    with pytest.raises(ValueError, match="^here: learning_rate must be a number, got 'nan'$"):
        PPOConfig.from_dict({"learning_rate": "nan"}, source="here")


@pytest.mark.parametrize(
    ("option", "words"),
    [
        ("seed=abc", ["--set: seed must be an integer, got 'abc'"]),
        ("seed", ["--set 'seed': give KEY=VALUE"]),
        ("roundz=3", ["--set: unknown training config key(s) ['roundz']"]),
    ],
)
def test_spades_train_set_refuses_a_bad_option_in_one_line(option, words):
    assert_usage_error(spades("train", "--config", str(SMOKE), "--set", option), *words)
