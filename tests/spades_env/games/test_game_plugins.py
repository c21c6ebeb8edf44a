"""[Issue 47] Each game is a plugin: nothing above a game's folder knows Spades from Hearts.

Every module of ``spades_env`` (outside ``spades_env/games/``), ``agents``, ``train`` (the web app
included) and ``bench`` asks the game's facts (``rules.has_bidding``, ``rules.has_passing``,
``rules.points_are_penalties``, the engine's spec) and never branches on the game's name; it reaches
a game's modules only through the registries (``spades_env.games.GAMES``, ``agents.game_parts.BOT_PARTS``).
The one exception is each game's own bot parts, ``BOT_PART_MODULES``: a module added there is a
visible decision.
"""

from __future__ import annotations

import ast
import pathlib

import numpy as np
import pytest

from agents import HeuristicAgent, SearchAgent, game_parts
from agents.base import DecisionContext
from spades_env import SpadesEngine, games
from spades_env.engine import PLAY
from spades_env.games.hearts.phases import PASS
from spades_env.observation import encoder_for
from tests.paths import ROOT

#: The packages that must not know one game from another (``spades_env/games/`` excepted).
PACKAGES = ("spades_env", "agents", "train", "bench")
#: The modules that are one game's bot parts (``agents.game_parts``), each with its game: the only modules
#: outside ``spades_env/games/`` that import a game's modules.
BOT_PART_MODULES = {
    "agents/spades/endgame.py": "spades",
    "agents/spades/endgame_search.py": "spades",
    "agents/spades/heuristic_kernel.py": "spades",
    "agents/spades/rollouts.py": "spades",
    "agents/spades/turns.py": "spades",
    "agents/spades/play_model.py": "spades",
    "agents/hearts/heuristic.py": "hearts",
    "agents/hearts/heuristic_kernel.py": "hearts",
    "agents/hearts/passing.py": "hearts",
    "agents/hearts/rollouts.py": "hearts",
    "agents/hearts/turns.py": "hearts",
}


def _game_branches(path: pathlib.Path) -> list[str]:
    """Where a file chooses behaviour by game: reads ``.hearts`` (or a name ``hearts``) in the test of an
    ``if`` / ``x if c else y`` / ``while`` / ``assert``, reads an attribute ``.hearts`` anywhere, or compares
    anything with a game's name."""
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If | ast.IfExp | ast.While | ast.Assert):
            if any(isinstance(sub, ast.Name) and sub.id == "hearts" for sub in ast.walk(node.test)):
                found.add(f"{path.name}:{node.lineno}")
        hearts_read = isinstance(node, ast.Attribute) and node.attr == "hearts" and isinstance(node.ctx, ast.Load)
        named = isinstance(node, ast.Compare) and any(
            isinstance(side, ast.Constant) and side.value in games.GAMES for side in (node.left, *node.comparators)
        )
        if hearts_read or named:
            found.add(f"{path.name}:{node.lineno}")
    return sorted(found, key=lambda where: int(where.rpartition(":")[2]))


#: The modules of ``spades_env/games/`` that are no game's: the interface every game's spec implements.
NEUTRAL_GAME_MODULES = {"spades_env.games.game_spec"}


def _game_imports(path: pathlib.Path) -> list[str]:
    """The game modules a file imports other than through the registry ``spades_env.games`` (its game-neutral
    modules, ``spades_env.games.game_spec``'s interface, are no game's)."""
    tree = ast.parse(path.read_text())
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("spades_env.games.") and node.module not in NEUTRAL_GAME_MODULES:
                bad.append(node.module)
            elif node.module == "spades_env.games":
                bad += [f"spades_env.games.{a.name}" for a in node.names if a.name in games.GAMES]
        elif isinstance(node, ast.Import):
            bad += [a.name for a in node.names if a.name.startswith("spades_env.games.")]
    return bad


def _modules(package: str) -> list[pathlib.Path]:
    """Every module of ``package`` but the games' folders (``spades_env/games/``)."""
    return [p for p in sorted((ROOT / package).rglob("*.py")) if "games" not in p.relative_to(ROOT).parts[:2]]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_module_above_the_games_branches_on_a_game(package):
    paths = _modules(package)
    assert len(paths) >= 10
    branches = [where for path in paths for where in _game_branches(path)]
    assert not branches, f"branches on the game: {branches}"


@pytest.mark.parametrize("package", PACKAGES)
def test_only_a_games_bot_parts_import_its_modules(package):
    """Outside ``BOT_PART_MODULES`` no module imports a game's module; each of those imports its own game's only
    (and at least one: a module that no longer needs it leaves the list)."""
    for path in _modules(package):
        where = path.relative_to(ROOT).as_posix()
        imported = _game_imports(path)
        if where not in BOT_PART_MODULES:
            assert not imported, f"{where} imports {imported}"
            continue
        own = f"spades_env.games.{BOT_PART_MODULES[where]}"
        assert imported and all(m == own or m.startswith(own + ".") for m in imported), (where, imported)


def _special_actions() -> set[str]:
    """Every registered game's special actions' names (``GameSpec.special_actions``)."""
    return {name for game in games.GAMES for name, _ in games.spec(game).special_actions}


def _game_names_used(path: pathlib.Path) -> list[str]:
    """Where a file names a game or a game's special action: a string constant that is a registered game's name
    (``"hearts"``) or one of its special actions (``"blind_nil"``), docstrings included (a docstring is never
    exactly a name)."""
    names = set(games.GAMES) | _special_actions()
    tree = ast.parse(path.read_text())
    return [
        f"{path.name}:{node.lineno} {node.value!r}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names
    ]


#: The names the engine may use that are also a special action's: the records' field ``blind_nil`` (the state's
#: ``blind``, in every game's records).
ENGINE_NAMES_ALLOWED = {"records.py": ["'blind_nil'"]}


def test_the_engine_names_no_game_nor_a_games_phase_or_special_action():
    """The engine reads every game through the registry (``games.part``, ``games.spec``): it names no game, no
    game's special action (``ActionLayout`` reads them from ``GameSpec.special_actions``) and exports no game's
    phase (a game's own code is imported from its folder; a caller above the games asks ``GameSpec.bid_phase``...)."""
    import spades_env.engine as engine_package
    import spades_env.engine.state as state_module

    paths = sorted((ROOT / "spades_env" / "engine").rglob("*.py"))
    assert len(paths) >= 10
    allowed = ENGINE_NAMES_ALLOWED.get
    used = [w for path in paths for w in _game_names_used(path) if w.split()[1] not in allowed(path.name, ())]
    assert used == []
    assert [m for path in paths for m in _game_imports(path)] == []
    shared = {"PLAY", "OVER", "N_PHASES", "PHASE_NAMES", "FREE_LEAD", "RESTRICTED_LEAD", "LOWEST_CLUB_LEAD"}
    for module in (engine_package, state_module):
        phases = {name for name in module.__all__ if name.isupper()}
        assert phases <= shared, (module.__name__, phases - shared)
        for name in ("BID", "BLIND", "DRAW", "EXCHANGE", "BEMO", "PASS", "N_SPADES_PHASES"):
            assert not hasattr(module, name), (module.__name__, name)


def test_the_games_phase_facts_and_special_actions():
    spades, hearts = games.spec("spades"), games.spec("hearts")
    spades_phases = games.part("spades", "phases")
    assert (spades.bid_phase, spades.blind_phase, spades.pass_phase) == (spades_phases.BID, spades_phases.BLIND, -1)
    assert spades.bidding_phases() == (spades_phases.BLIND, spades_phases.BID)
    assert (hearts.bid_phase, hearts.blind_phase, hearts.pass_phase, hearts.bidding_phases()) == (-1, -1, PASS, ())
    assert hearts.hidden_card_verb(PASS) == "pass" and hearts.hidden_card_verb(PLAY) is None
    assert spades.hidden_card_verb(spades_phases.EXCHANGE) == "give up" and spades.hidden_card_verb(PLAY) is None
    for name in ("partnership", "two-player", "partnership-house", "hearts"):
        engine = SpadesEngine(name)
        declared = [special for special, _ in engine.spec.special_actions]
        assert set(engine.rules.special_actions) <= set(declared)
        assert list(engine.layout.specials) == [s for s in declared if s in engine.rules.special_actions]
    layout = SpadesEngine("hearts").layout
    assert layout.specials == () and layout.blind_nil is None and layout.special("redeal") is None
    with pytest.raises(ValueError, match=r"^unknown special action 'fly'; known: \['blind_nil', 'look', "):
        layout.special("fly")
    with pytest.raises(AttributeError, match="has no attribute 'fly'"):
        layout.fly  # noqa: B018


def test_the_scans_see_what_they_forbid(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from spades_env.games.hearts import loops\nfrom spades_env.games import spades, part\n"
        "def f(self, r):\n    x = 1 if r.hearts else 2\n    if self.rules.game == 'hearts':\n        return x\n"
        "    self.flag = r.game != 'spades'\n    return r.hearts\n"
    )
    assert _game_branches(bad) == ["bad.py:4", "bad.py:5", "bad.py:7", "bad.py:8"]
    assert _game_imports(bad) == ["spades_env.games.hearts", "spades_env.games.spades"]
    assert _game_names_used(bad) == ["bad.py:5 'hearts'", "bad.py:7 'spades'"]
    named = tmp_path / "named.py"
    named.write_text('"""Blind nil and spades."""\nPART = games.part("spades", "phases")\nX = lay.special("look")\n')
    assert _game_names_used(named) == ["named.py:2 'spades'", "named.py:3 'look'"]
    fine = tmp_path / "fine.py"
    fine.write_text("from spades_env import games\ndef f(r):\n    return r.has_bidding and r.name == 'hearts-50'\n")
    assert _game_branches(fine) == [] and _game_imports(fine) == [] and _game_names_used(fine) == []


def test_every_bot_part_module_is_in_its_games_folder_and_every_game_has_bot_parts():
    assert set(game_parts.BOT_PARTS) == set(games.GAMES)
    for where, game in BOT_PART_MODULES.items():
        assert where.startswith(f"agents/{game}/") and (ROOT / where).is_file(), where
    for game, parts in game_parts.BOT_PARTS.items():
        for name in game_parts.BotParts._fields:
            if not getattr(parts, name):
                assert not game_parts.has_bot_part(game, name)
                continue
            part = game_parts.bot_part(game, name, "this test")
            assert part.__module__.startswith(f"agents.{game}."), (game, name, part.__module__)


def test_a_missing_bot_part_is_refused_in_one_line_naming_the_bot_the_game_and_the_part(monkeypatch):
    with pytest.raises(ValueError, match=r"^a bot part must be one of \['heuristic', 'rollouts', 'endgame', 'pass"):
        game_parts.has_bot_part("spades", "bidding")
    with pytest.raises(ValueError, match=r"^the search needs the passing part of game 'spades', which has no passing "):
        game_parts.bot_part("spades", "passing", "the search")
    engine = SpadesEngine("hearts")
    state = engine.reset(np.arange(2))
    assert (state.phase == PASS).all()
    context = DecisionContext(engine, state, np.arange(2), state.to_move)
    masks = engine.legal_action_mask(state)
    monkeypatch.setitem(game_parts.BOT_PARTS, "hearts", game_parts.BOT_PARTS["hearts"]._replace(passing=""))
    with pytest.raises(ValueError, match=r"^the search bot's option 'pass_samples' needs the passing part of game "):
        SearchAgent(seed=0, pass_samples=2).act(None, masks, context)
    monkeypatch.delitem(game_parts.BOT_PARTS, "hearts")
    message = r"^the heuristic bot needs the heuristic part of game 'hearts', which has no bot parts \(registered: "
    with pytest.raises(ValueError, match=message + r"\['spades'\]\) \(agents.game_parts\)$"):
        HeuristicAgent().act(None, masks, context)


def test_the_facts_agree_with_the_games_specs():
    """Callers branch on the rules' facts; the engine asks the spec: both say the same of every preset's game."""
    for name in ("partnership", "cutthroat-4", "two-player", "hearts", "hearts-partnership"):
        engine = SpadesEngine(name)
        rules, spec = engine.rules, engine.spec
        assert rules.has_bidding == (spec.max_bid(rules) >= 0) == (engine.layout.bid_end > engine.layout.bid_offset)
        assert rules.has_passing == any(spec.pass_offsets)
        assert rules.points_are_penalties == (spec.card_points(rules) is not None)
        assert not hasattr(rules, "hearts") and not hasattr(engine, "hearts")


def test_the_games_public_names_are_served_through_the_registry():
    import spades_env.observation as observation
    import spades_env.rules as rules_module

    assert rules_module.HeartsRules is games.part("hearts", "rules") and rules_module.Rules is rules_module.SpadesRules
    assert rules_module.BIG_BID_THRESHOLD[4] == 8
    assert observation.ObservationEncoder is observation.SpadesObservationEncoder is games.part("spades", "encoder")
    assert (observation.VERSION, observation.HEARTS_VERSION) == (2, 1)
    for module in (rules_module, observation):
        with pytest.raises(AttributeError, match="has no attribute 'card_points'"):
            module.card_points  # noqa: B018 (a game's name not in the module's list is not served)


def test_an_encoder_names_the_entry_of_each_phase():
    for name, phases in (("partnership", (PLAY,)), ("hearts", (PASS, PLAY))):
        engine = SpadesEngine(name)
        encoder = encoder_for(engine)
        state = engine.reset(np.arange(1))
        row = encoder.encode(state, np.zeros(1, np.int64), np.zeros(1, np.int64))[0]
        phase = int(state.phase[0])
        assert row[encoder.phase_column(phase)] == 1
        assert row[encoder.slices["phase"]].sum() == 1
        for other in phases:
            if other != phase:
                assert row[encoder.phase_column(other)] == 0
    with pytest.raises(ValueError, match=r"^phase must be one of this layout's phases \[7, 2, 3\], got 0$"):
        encoder.phase_column(0)
