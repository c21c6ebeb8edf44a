"""Rules [ARCHITECTURE: rules are data]: presets load, bad values fail naming the field."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest
import torch
import yaml

from spades_env import HeartsRules, Rules, RulesError, SpadesEngine, list_presets
from spades_env.rules import RULES_CLASSES, BaseRules, SpadesRules, resolve_rules
from spades_env.rules_yaml import preset_files
from tests.paths import ROOT

CHECKPOINT = ROOT / "checkpoints" / "partnership_ppo.pt"


def test_presets_exist():
    assert {"partnership", "partnership-250", "partnership-no-blind-nil", "partnership-tournament"} <= set(
        list_presets()
    )


@pytest.mark.parametrize("name", list_presets())
def test_every_preset_loads_and_builds_an_engine(name):
    rules = Rules.preset(name)
    assert rules.name == name
    assert resolve_rules(name) == rules
    assert Rules.from_dict(rules.to_dict()) == rules
    engine = SpadesEngine(rules)
    assert engine.reset([0, 1]).deal.shape == (2, rules.n_players)


def test_partnership_preset_is_the_rulebook_default():
    rules = Rules.preset("partnership")
    assert rules.replace(name="custom") == Rules()
    assert (rules.target_score, rules.lose_score, rules.set_penalty, rules.bag_limit, rules.bag_penalty) == (
        500,
        -200,
        "bid",
        10,
        100,
    )
    assert rules.blind_nil and rules.bags and not rules.spades_lead_anytime


def test_tournament_preset_values():
    rules = Rules.preset("partnership-tournament")
    assert rules.min_team_bid == 4 and rules.blind_nil_requires_behind_by == 100
    assert rules.mercy_score == -rules.target_score


@pytest.mark.parametrize(
    "field, value, allowed",
    [
        ("n_players", 7, "2..6"),
        ("n_players", 3, "must be 4 when 'partnership' is true"),
        ("target_score", 0, "1..1000000"),
        ("lose_score", 600, "-1000000..499"),
        ("lose_score", "minus", "'-target'"),
        ("max_hands", 0, "or null"),
        ("blind_nil", "yes", "true or false"),
        ("bags", 1, "true or false"),
        ("blind_nil_requires_behind_by", -5, "1..1000000 or null"),
        ("min_team_bid", 14, "0..13"),
        ("set_penalty", "double", "['bid', 'short', 'zero']"),
        ("bag_limit", 0, "1..1000000"),
        ("bag_penalty", -1, "0..1000000"),
        ("nil_bonus", 1.5, "integer"),
        ("exact_small_bid_bonus", True, "cutthroat with 3 or 4 players"),
        ("big_bid_bonus", True, "cutthroat"),
        ("name", 3, "string"),
    ],
)
def test_bad_values_fail_naming_field_and_allowed_values(field, value, allowed):
    with pytest.raises(RulesError) as err:
        Rules(**{field: value})
    assert repr(field) in str(err.value) or field in str(err.value)
    assert allowed in str(err.value)
    assert isinstance(err.value, ValueError)


def test_cutthroat_only_options_are_checked():
    with pytest.raises(RulesError, match="min_team_bid"):
        Rules(n_players=4, partnership=False, min_team_bid=4)
    with pytest.raises(RulesError, match="exact_small_bid_bonus"):
        Rules(n_players=5, partnership=False, exact_small_bid_bonus=True)
    Rules(n_players=5, partnership=False, big_bid_bonus=True)  # fine


def test_replace_validates_again():
    with pytest.raises(RulesError, match="set_penalty"):
        Rules().replace(set_penalty="none")


def test_unknown_field_lists_known_fields():
    with pytest.raises(RulesError) as err:
        Rules.from_dict({"jokerz": True})
    assert "jokerz" in str(err.value) and "spades_lead_anytime" in str(err.value)


def test_unknown_preset_lists_the_available_ones():
    with pytest.raises(RulesError) as err:
        Rules.preset("no-such-preset")
    assert "no-such-preset" in str(err.value)
    for name in list_presets():
        assert name in str(err.value)


def test_yaml_files(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("target_score: 300\nset_penalty: short\n")
    rules = resolve_rules(str(path))
    assert rules.name == "mine" and rules.target_score == 300 and rules.set_penalty == "short"
    path.write_text("- a list\n")
    with pytest.raises(RulesError, match="mapping"):
        Rules.from_yaml(path)
    path.write_text("set_penalty: triple\n")
    with pytest.raises(RulesError, match="set_penalty"):
        Rules.from_yaml(path)


def test_presets_are_plain_yaml_files_inside_the_package():
    names = sorted(p.name for p in preset_files().iterdir())
    assert names == sorted(f"{name}.yaml" for name in list_presets())


def test_derived_values():
    assert Rules(n_players=3, partnership=False).hand_size == 17
    assert len(Rules(n_players=6, partnership=False).deck) == 48
    assert Rules(lose_score=None).mercy_score is None
    assert [Rules().side_of_seat(s) for s in range(4)] == [0, 1, 0, 1]
    assert Rules(n_players=5, partnership=False).n_sides == 5


# ------------------------------------------------------------------ contradictions
@pytest.mark.parametrize(
    "changes, needed",
    [
        (dict(blind_nil=False, blind_nil_requires_behind_by=100), "blind_nil"),
        (dict(blind_nil=False, blind_nil_bonus=300), "blind_nil"),
        (dict(bags=False, bag_limit=5), "bags"),
        (dict(bags=False, bag_penalty=50), "bags"),
        (dict(boston_wins_match=True), "boston"),
    ],
)
def test_an_option_set_while_the_option_it_needs_is_off_is_refused(changes, needed):
    (name,) = set(changes) - {needed}
    with pytest.raises(RulesError, match=f"rules field '{name}' needs '{needed}': true"):
        Rules(**changes)
    Rules(**{**changes, needed: True})  # fine once it is on
    Rules(**{needed: False})  # and the option left at its default is fine too


def test_a_nil_bonus_under_fourteen_is_refused():
    with pytest.raises(RulesError, match="'nil_bonus' and 'fourteen'"):
        Rules(fourteen=True, blind_nil=False, nil_bonus=50)


def test_ten_for_two_hundred_needs_hands_of_ten_cards():
    with pytest.raises(RulesError, match="'ten_for_two_hundred' needs a contract of 10 tricks"):
        Rules(n_players=6, partnership=False, ten_for_two_hundred=True)
    assert Rules(n_players=5, partnership=False, ten_for_two_hundred=True).hand_size == 10  # fine


def test_replace_with_an_unknown_field_lists_the_known_ones():
    with pytest.raises(RulesError, match=r"unknown rules field\(s\) \['target_scor'\]; known fields: .*'target_score'"):
        Rules().replace(target_scor=1)


# ------------------------------------------------------------------ presets by name
@pytest.mark.parametrize("name", ["partnership.yaml", "hearts.yaml"])
def test_a_preset_given_with_its_file_name_is_the_preset(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # no such file here
    preset = Rules.preset(name[: -len(".yaml")])
    assert Rules.preset(name) == resolve_rules(name) == preset
    assert SpadesEngine(name).rules == preset


def test_a_misspelt_preset_suggests_the_close_one(tmp_path):
    with pytest.raises(RulesError, match="unknown rules preset 'partnershp'; did you mean 'partnership'"):
        Rules.preset("partnershp")
    with pytest.raises(RulesError, match="rules file 'nowhere/partnership.yaml' not found"):
        resolve_rules("nowhere/partnership.yaml")
    with pytest.raises(RulesError, match="cannot read rules file .*none.yaml"):
        Rules.from_yaml(tmp_path / "none.yaml")


# ------------------------------------------------------------------ broken rules files
@pytest.mark.parametrize(
    "content, message",
    [
        (b"target_score: 300\nset_penalty: [short\n", r"bad\.yaml, line 3: not valid YAML"),
        (b"target_score: 300\n  bags: true\n", r"bad\.yaml, line 2: not valid YAML"),
        (b"target_score: 300\nname: caf\xe9\n", r"bad\.yaml, line 2: not UTF-8 text"),
        (b"", r"bad\.yaml: holds no rules fields"),
        (b"# only a comment\n\n# and another\n", r"bad\.yaml: holds no rules fields"),
    ],
    ids=["unclosed-list", "bad-indent", "latin-1", "empty", "comments-only"],
)
def test_a_broken_rules_file_names_the_file_and_the_line(tmp_path, content, message):
    path = tmp_path / "bad.yaml"
    path.write_bytes(content)
    for load in (Rules.from_yaml, resolve_rules, SpadesEngine):
        with pytest.raises(RulesError, match=message):
            load(str(path))


def test_an_explicit_empty_mapping_is_the_defaults(tmp_path):
    path = tmp_path / "defaults.yaml"
    path.write_text("{}  # every field at its default\n")
    assert Rules.from_yaml(path) == Rules(name="defaults")


# ------------------------------------------------- one rules class per game [issue 13]
@pytest.mark.parametrize("name", list_presets())
def test_a_preset_is_its_games_class_with_its_yaml_fields_and_that_class_defaults(name):
    """Each preset is the rules class of its ``game``, holds exactly the values its YAML file sets and
    the class's own defaults elsewhere, and survives ``to_dict``, pickling, copying and hashing."""
    rules = Rules.preset(name)
    data = yaml.safe_load(preset_files().joinpath(f"{name}.yaml").read_text())
    assert type(rules) is RULES_CLASSES[data.get("game", "spades")]
    defaults = type(rules)()
    for f in dataclasses.fields(rules):
        expected = data.get(f.name, name if f.name == "name" else getattr(defaults, f.name))
        assert getattr(rules, f.name) == expected, (name, f.name)
    assert type(rules).from_dict(rules.to_dict()) == rules == BaseRules.from_dict(rules.to_dict())
    assert pickle.loads(pickle.dumps(rules)) == rules and copy.deepcopy(rules) == rules
    assert hash(rules) == hash(Rules.from_dict(rules.to_dict()))
    assert dataclasses.replace(rules, name="x") == rules.replace(name="x") != rules


def test_rules_is_spades_and_hearts_rules_hold_only_the_fields_both_games_have_and_theirs():
    common = {f.name for f in dataclasses.fields(BaseRules)}
    assert common == {"name", "game", "n_players", "partnership", "target_score", "max_hands"}
    hearts = {f.name for f in dataclasses.fields(HeartsRules)} - common
    spades = {f.name for f in dataclasses.fields(Rules)} - common
    assert hearts == {"moon_subtracts", "jack_of_diamonds"} and "blind_nil" in spades and not hearts & spades
    assert Rules is SpadesRules and Rules(n_players=3, partnership=False).n_sides == 3
    assert isinstance(HeartsRules(), BaseRules) and not isinstance(HeartsRules(), Rules)
    assert resolve_rules({"game": "hearts", "max_hands": 3}) == HeartsRules(max_hands=3)
    assert Rules() != HeartsRules(partnership=True, target_score=500)


def test_a_rules_file_with_game_hearts_is_hearts_rules(tmp_path):
    path = tmp_path / "quick-hearts.yaml"
    path.write_text("game: hearts\ntarget_score: 30\n")
    for rules in (Rules.from_yaml(path), resolve_rules(str(path)), HeartsRules.from_yaml(path)):
        assert rules == HeartsRules(name="quick-hearts", target_score=30)
    path.write_text("game: hearts\nbags: false\n")
    with pytest.raises(RulesError, match="quick-hearts.yaml: rules field 'bags' is a Spades option .* game 'hearts'"):
        Rules.from_yaml(path)


@pytest.mark.parametrize("name", ["partnership", "hearts", "two-player"])
def test_a_rules_mapping_written_before_the_split_per_game_still_loads(name):
    """Records and checkpoints hold the old one-class ``to_dict()``: every field of both games, the
    other game's at the neutral value it had to keep; such a mapping loads to the same rules, and
    the other game's field at any other value is still refused."""
    rules = Rules.preset(name)
    other = RULES_CLASSES["spades" if rules.game == "hearts" else "hearts"]
    old = rules.to_dict() | {k: v for k, v in other.LEGACY_NEUTRAL.items() if k not in rules.to_dict()}
    assert set(old) == {f.name for cls in RULES_CLASSES.values() for f in dataclasses.fields(cls)}
    assert Rules.from_dict(old) == rules
    field, value = ("bags", True) if rules.game == "hearts" else ("jack_of_diamonds", True)
    with pytest.raises(RulesError, match=f"rules field '{field}' is a (Spades|Hearts) option"):
        Rules.from_dict(old | {field: value})
    partial = rules.to_dict() | {next(iter(other.LEGACY_NEUTRAL)): next(iter(other.LEGACY_NEUTRAL.values()))}
    with pytest.raises(RulesError, match="cannot be used with game"):
        Rules.from_dict(partial)


def test_the_neural_checkpoints_rules_load_as_partnership():
    ckpt = torch.load(CHECKPOINT, map_location="cpu", weights_only=False)
    assert Rules.from_dict(ckpt["rules"]) == Rules.preset("partnership")
