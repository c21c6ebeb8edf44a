"""Every integer rules field is bounded to what the engine holds, refused in one line by the rules themselves
(issue 51): ``Rules(...)``, ``replace``, ``from_dict`` (records, checkpoints) and YAML files alike."""

from __future__ import annotations

import dataclasses
import re

import pytest

from spades_env.engine import SpadesEngine
from spades_env.rules import HeartsRules, Rules, RulesError, list_presets
from spades_env.rules_check import MAX_RULES_INT

HUGE = (MAX_RULES_INT + 1, 2**63, 2**64, 10**400)


def _int_fields(cls) -> list[str]:
    return [f.name for f in dataclasses.fields(cls) if "int" in str(f.type) and f.name not in ("n_players",)]


@pytest.mark.parametrize("cls", [Rules, HeartsRules])
@pytest.mark.parametrize("value", HUGE, ids=["bound+1", "2**63", "2**64", "10**400"])
def test_every_integer_field_refuses_values_beyond_the_bound_naming_field_and_range(cls, value):
    fields = _int_fields(cls)
    assert "target_score" in fields and (cls is HeartsRules or {"bag_limit", "nil_bonus"} <= set(fields))
    for name in fields:
        with pytest.raises(RulesError) as err:
            cls().replace(**{name: value})
        text = str(err.value)
        assert f"'{name}'" in text and re.search(r"in -?\d+\.\.\d+", text), text
        assert "\n" not in text and len(text) < 200, text


def test_negative_bounds_too():
    with pytest.raises(RulesError, match=r"'lose_score' must be an integer in -1000000\.\.499"):
        Rules(lose_score=-(2**63))


def test_records_checkpoints_and_yaml_files_refuse_alike(tmp_path):
    with pytest.raises(RulesError, match="'target_score'"):
        Rules.from_dict({**Rules().to_dict(), "target_score": 2**64})
    path = tmp_path / "big.yaml"
    path.write_text("target_score: 18446744073709551616\n")
    with pytest.raises(RulesError, match="'target_score' must be an integer in 1..1000000"):
        Rules.from_yaml(path)


def test_the_bound_itself_plays():
    rules = Rules(target_score=MAX_RULES_INT, bag_penalty=MAX_RULES_INT, nil_bonus=MAX_RULES_INT, max_hands=2)
    engine = SpadesEngine(rules)
    assert engine.reset(0).batch_size == 1


def test_every_preset_is_within_the_bounds():
    for name in list_presets():
        Rules.preset(name)


def test_a_bad_value_is_shown_by_a_short_prefix():
    with pytest.raises(RulesError) as err:
        Rules(set_penalty="x" * 10_000)
    assert len(str(err.value)) < 200
    with pytest.raises(RulesError) as err:
        Rules(target_score=10**400)
    assert "an integer of 1329 bits" in str(err.value)
