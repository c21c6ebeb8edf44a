"""``spades_env.preset`` is game-neutral, and a preset's name is the preset, never a file of that name."""

import spades_env
from spades_env.rules import HeartsRules, SpadesRules, resolve_rules


def test_preset_returns_the_class_of_its_game():
    assert type(spades_env.preset("hearts")) is HeartsRules
    assert type(spades_env.preset("partnership")) is SpadesRules
    assert spades_env.preset("cutthroat-4") == SpadesRules.preset("cutthroat-4")
    assert spades_env.Engine is spades_env.SpadesEngine


def test_a_preset_name_never_reads_a_file_of_that_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "partnership").write_text("game: hearts\nname: my_file\n")
    assert resolve_rules("partnership") == spades_env.preset("partnership")
    (tmp_path / "mine.yaml").write_text("game: hearts\nname: my_file\n")
    assert type(resolve_rules("mine.yaml")) is HeartsRules  # other names are still files


def test_the_game_facts():
    hearts, spades = spades_env.preset("hearts"), spades_env.preset("partnership")
    assert hearts.points_are_penalties and hearts.has_passing and not hearts.has_bidding
    assert not spades.points_are_penalties and spades.has_bidding and not spades.has_passing
