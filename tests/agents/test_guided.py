"""The guided search (``agents.guided``): seeded, honest values, refused where no learned network plays."""

from __future__ import annotations

import numpy as np
import pytest

from agents import SearchAgent, make_agent
from agents.infoset_probe import sample_decisions
from agents.learned import available_checkpoints
from agents.search_rollouts import side_margin
from spades_env.engine import PLAY, SpadesEngine
from spades_env.envs.context import DecisionContext
from spades_env.games.spades.params import BID
from spades_env.games.spades.scoring import bag_adjusted_points
from spades_env.observation import encoder_for

pytestmark = pytest.mark.skipif("partnership" not in available_checkpoints(), reason="no learned checkpoint")

SMALL = "guided:samples=2,top=2,depth=2"
_DECISIONS: dict[str, tuple] = {}


def _card_decisions(preset: str = "partnership", n: int = 4):
    """The table's engine and a context of ``n`` card decisions with several legal cards (drawn once)."""
    if preset not in _DECISIONS:
        engine = SpadesEngine(preset)
        state, seats = sample_decisions(engine, 24, seed=3)
        masks = engine.legal_action_mask(state)
        rows = np.flatnonzero((state.phase == PLAY) & (masks[:, : engine.layout.n_card_ids].sum(axis=1) > 1))
        _DECISIONS[preset] = (engine, state, rows, seats[rows], masks[rows])
    engine, state, rows, seats, masks = _DECISIONS[preset]
    return engine, DecisionContext(engine, state, rows[:n], seats[:n]), masks[:n]


def real_deal(engine, state, games, seats, samples, rng):
    """A stand-in for ``sample_layouts``: one layout, the real hands (a test may look), no discards."""
    hands = state.hands[games][:, None, :]
    return hands, np.zeros_like(hands)


def _observations(ctx: DecisionContext) -> np.ndarray:
    return encoder_for(ctx.engine).encode(ctx.state, ctx.games, ctx.seats)


def test_the_same_seed_gives_the_same_actions_and_values():
    engine, ctx, masks = _card_decisions()
    runs = []
    for _ in range(2):
        bot = make_agent(SMALL, seed=11)
        bot.check_supports(engine)
        runs.append((bot.act(_observations(ctx), masks, ctx), bot.action_values(_observations(ctx), masks, ctx)))
    assert np.array_equal(runs[0][0], runs[1][0])
    assert np.array_equal(runs[0][1], runs[1][1], equal_nan=True)


@pytest.mark.parametrize("preset", ["partnership-250", "hearts-50"])
def test_a_table_without_a_learned_network_is_refused_in_one_line(preset):
    engine = SpadesEngine(preset)
    reason = make_agent(SMALL, seed=0).unsupported_reason(engine)
    assert reason is not None and "\n" not in reason
    assert reason.startswith("bot 'guided' needs a learned network for the rules")
    with pytest.raises(ValueError, match="bot 'guided' needs a learned network"):
        make_agent(SMALL, seed=0).check_supports(engine)


def test_values_are_finite_for_legal_cards_nan_for_pruned_and_minus_inf_for_illegal():
    engine, ctx, masks = _card_decisions()
    c = engine.layout.n_card_ids
    wide = make_agent("guided:samples=2,top=13,depth=2", seed=1)
    values = wide.action_values(_observations(ctx), masks, ctx)
    assert np.isfinite(values[masks]).all() and np.isneginf(values[~masks]).all()
    narrow = make_agent("guided:samples=2,top=1,depth=2", seed=1)
    values = narrow.action_values(_observations(ctx), masks, ctx)
    own = narrow.network.act(_observations(ctx), masks, ctx)
    assert np.isfinite(values[np.arange(len(own)), own]).all()  # the network's own card is always a candidate
    assert (np.isfinite(values[:, :c]).sum(axis=1) <= 2).all()  # its top card and its own
    assert np.isnan(values[masks & ~np.isfinite(values)]).all() and np.isneginf(values[~masks]).all()


def test_depth_zero_values_equal_the_searchs_heuristic_rollouts():
    """With the network playing no ply, the guided rollouts are the search's (the compiled heuristic) bit for bit."""
    engine, ctx, masks = _card_decisions()
    guided = make_agent("guided:samples=4,top=13,depth=0,oversample=2", seed=7)
    search = SearchAgent(seed=7, samples=4, oversample=2)
    got = guided.action_values(_observations(ctx), masks, ctx)[:, : engine.layout.n_card_ids]
    want = search.action_values(None, masks, ctx)[:, : engine.layout.n_card_ids]
    assert np.array_equal(got, want, equal_nan=True)


def test_depth_zero_plays_its_rollouts_compiled_with_the_engines_values():
    """``depth=0``: the compiled heuristic rollouts (the fast path) give the batched engine's values bit for bit."""
    engine, ctx, masks = _card_decisions()
    compiled = make_agent("guided:samples=4,top=3,depth=0", seed=9)
    reference = make_agent("guided:samples=4,top=3,depth=0", seed=9)
    reference.compiled_rollouts = False
    assert compiled.compiled_policy() is not None and make_agent(SMALL, seed=0).compiled_policy() is None
    got = compiled.action_values(_observations(ctx), masks, ctx)
    assert np.array_equal(got, reference.action_values(_observations(ctx), masks, ctx), equal_nan=True)


def test_on_the_real_deal_the_networks_card_is_worth_the_hands_result_under_the_network(monkeypatch):
    """One layout equal to the real deal, the network to the hand's end: the value of its own card is the
    side's bag-adjusted margin when every seat plays the network from the decision on."""
    engine, ctx, masks = _card_decisions(n=3)
    bot = make_agent("guided:samples=1,top=2,depth=-1,oversample=1", seed=0)

    monkeypatch.setattr("agents.search.sample_layouts", real_deal)
    values = bot.action_values(_observations(ctx), masks, ctx)
    own = bot.network.act(_observations(ctx), masks, ctx)
    encoder = encoder_for(engine)
    for k, g in enumerate(ctx.games):
        game = ctx.state.take(np.array([g]))
        while True:
            seat = game.to_move
            obs = encoder.encode(game, np.array([0]), seat)
            legal = engine.legal_action_mask(game)
            action = bot.network.act(obs, legal, DecisionContext(engine, game, np.array([0]), seat))
            finished = engine.step(game, action, validate=False).finished
            if finished:
                break
        f = finished[0]
        points = bag_adjusted_points(engine.rules, f.delta, f.bags_added, f.bag_penalties)
        result = side_margin(points, engine.side_of_seat[ctx.seats[k : k + 1]])[0]
        assert values[k, own[k]] == pytest.approx(result)


def test_the_speed_bench_plays_every_spec_on_the_same_decisions(capsys):
    from bench.guided_speed import main

    rates = main(["--decisions", "4", SMALL, "guided:fast"])
    assert set(rates) == {SMALL, "guided:fast"} and all(rate > 0 for rate in rates.values())
    assert "guided:fast: the card of" in capsys.readouterr().out


def test_the_presets_name_depth_zero_searches_and_take_overrides():
    fast, strong = make_agent("guided:fast", seed=0), make_agent("guided:strong", seed=0)
    assert (fast.samples, fast.top, fast.depth) == (16, 3, 0) and (strong.samples, strong.depth) == (64, 0)
    assert fast.compiled_policy() is not None
    assert make_agent("guided:fast,samples=8", seed=0).samples == 8
    with pytest.raises(ValueError, match="guided"):
        make_agent("guided:fastest", seed=0)


OTHER_TABLES = [
    pytest.param(preset, marks=pytest.mark.skipif(preset not in available_checkpoints(), reason="no checkpoint"))
    for preset in ("cutthroat-4", "hearts")
]


@pytest.mark.parametrize("preset", OTHER_TABLES)
@pytest.mark.parametrize("spec", [SMALL, "guided:fast,samples=4"])
def test_at_cutthroat_and_hearts_it_plays_legal_cards_it_valued(preset, spec):
    """Cutthroat-4 and Hearts have learned networks: the guided search plays there (network plies and the compiled
    heuristic rollouts), each card legal and one of its finitely valued candidates."""
    engine, ctx, masks = _card_decisions(preset)
    bot = make_agent(spec, seed=5)
    assert bot.unsupported_reason(engine) is None
    actions = bot.act(_observations(ctx), masks, ctx)
    assert masks[np.arange(len(actions)), actions].all()
    values = make_agent(spec, seed=5).action_values(_observations(ctx), masks, ctx)
    assert np.isfinite(values[np.arange(len(actions)), actions]).all()
    assert np.isneginf(values[~masks]).all()


@pytest.mark.parametrize("preset", OTHER_TABLES)
def test_at_cutthroat_and_hearts_depth_zero_values_equal_the_searchs(preset):
    """The guided rollouts at depth 0 are the search's heuristic rollouts at the other tables too (Hearts' side
    value, cutthroat's margin over the others' mean), bit for bit."""
    engine, ctx, masks = _card_decisions(preset)
    guided = make_agent("guided:samples=4,top=13,depth=0,oversample=2", seed=7)
    search = SearchAgent(seed=7, samples=4, oversample=2)
    got = guided.action_values(_observations(ctx), masks, ctx)[:, : engine.layout.n_card_ids]
    want = search.action_values(None, masks, ctx)[:, : engine.layout.n_card_ids]
    assert np.array_equal(got, want, equal_nan=True)


@pytest.mark.parametrize("preset", OTHER_TABLES)
def test_at_cutthroat_and_hearts_the_value_leaf_is_refused_in_one_line(preset):
    """The position value network exists for partnership only: ``leaf=value`` elsewhere names what it lacks."""
    engine = SpadesEngine(preset)
    reason = make_agent("guided:depth=2,leaf=value", seed=0).unsupported_reason(engine)
    assert reason is not None and "\n" not in reason
    assert reason.startswith(f"bot 'guided' with leaf=value needs a position value network for the rules {preset!r}")


def _bid_decisions(n: int = 3):
    """The partnership engine and a context of ``n`` BID decisions with several legal bids."""
    engine = SpadesEngine("partnership")
    state, seats = sample_decisions(engine, 48, seed=4)
    masks = engine.legal_action_mask(state)
    rows = np.flatnonzero((state.phase == BID) & (masks.sum(axis=1) > 1))[:n]
    return engine, DecisionContext(engine, state, rows, seats[rows]), masks[rows]


@pytest.mark.parametrize("rollout_values", [True, False])
def test_bid_samples_values_each_bid_by_the_hands_result_when_the_network_plays_it_out(monkeypatch, rollout_values):
    """``bid_samples``: on one layout equal to the real deal, a bid's value is the side's margin when the seat bids it
    and the network bids and plays every seat from there (its rollouts are the network's, not the heuristic's; with
    ``rollout_values=false`` its cards are the card head's, its bids still the learned bot's)."""
    from agents.guided import card_head_actions

    engine, ctx, masks = _bid_decisions()
    assert len(ctx.games) == 3
    bot = make_agent(f"guided:depth=0,bid_samples=1,oversample=1,rollout_values={rollout_values}", seed=0)
    monkeypatch.setattr("agents.search_bidding.sample_layouts", real_deal)
    values = bot.action_values(_observations(ctx), masks, ctx)
    assert np.isfinite(values[masks]).all() and np.isneginf(values[~masks]).all()
    assert (masks[:, engine.layout.bid_offset] & np.isfinite(values[:, engine.layout.bid_offset])).all()  # nil
    encoder = encoder_for(engine)
    for k, g in enumerate(ctx.games):
        bid = int(np.flatnonzero(masks[k])[k % int(masks[k].sum())])  # a different bid in each decision
        game, action = ctx.state.take(np.array([g])), np.array([bid])
        while not (finished := engine.step(game, action, validate=False).finished):
            seat = game.to_move
            obs = encoder.encode(game, np.array([0]), seat)
            legal = engine.legal_action_mask(game)
            if game.phase[0] == PLAY and not rollout_values:
                action = card_head_actions(bot.network, obs, legal) if legal.sum() > 1 else np.argmax(legal, axis=1)
            else:
                action = bot.network.act(obs, legal, DecisionContext(engine, game, np.array([0]), seat))
        f = finished[0]
        points = bag_adjusted_points(engine.rules, f.delta, f.bags_added, f.bag_penalties)
        assert values[k, bid] == pytest.approx(side_margin(points, engine.side_of_seat[ctx.seats[k : k + 1]])[0])


def test_bid_samples_bids_the_best_valued_bid_and_leaves_card_play_alone():
    engine, ctx, masks = _bid_decisions()
    bot = make_agent("guided:depth=0,samples=2,bid_samples=2", seed=3)
    values = make_agent("guided:depth=0,samples=2,bid_samples=2", seed=3).action_values(_observations(ctx), masks, ctx)
    actions = bot.act(_observations(ctx), masks, ctx)
    assert np.array_equal(values[np.arange(len(actions)), actions], values.max(axis=1))
    assert bot.bid_decisions == len(ctx.games)
    engine, card_ctx, card_masks = _card_decisions()
    plain, bidding = (
        make_agent("guided:samples=2,depth=0", seed=2),
        make_agent("guided:samples=2,depth=0,bid_samples=2", seed=2),
    )
    obs = _observations(card_ctx)
    assert np.array_equal(plain.act(obs, card_masks, card_ctx), bidding.act(obs, card_masks, card_ctx))


def test_it_plays_exactly_the_tables_learned_plays_and_refuses_the_others_in_one_line():
    """Every preset: the guided search plays where the ``learned`` bot has a network, and elsewhere its one-line
    refusal names the rules and what it lacks (the learned bot's own reason)."""
    from spades_env.rules import list_presets

    guided, learned = make_agent("guided:fast", seed=0), make_agent("learned", seed=0)
    played = set()
    for preset in list_presets():
        engine = SpadesEngine(preset)
        reason, lacks = guided.unsupported_reason(engine), learned.unsupported_reason(engine)
        assert (reason is None) == (lacks is None), preset
        if reason is None:
            played.add(preset)
        else:
            assert "\n" not in reason and reason.endswith(lacks)
            assert reason.startswith(f"bot 'guided' needs a learned network for the rules {engine.rules.name!r}")
    assert {"partnership", "cutthroat-4", "hearts"} <= played


# ------------------------------------------------------------------ path=CHECKPOINT: any network in the search
@pytest.fixture(scope="module")
def two_player_checkpoint(tmp_path_factory):
    """A tiny untrained two-player network, as a training checkpoint."""
    from tests.checkpoint_compare import tiny_checkpoint

    return tiny_checkpoint(tmp_path_factory.mktemp("guided") / "two_player.pt", "two-player")


@pytest.mark.parametrize("spec", [SMALL, "guided:fast,samples=4", "guided:samples=2,depth=1,rollout_values=false"])
def test_path_to_the_learned_checkpoint_decides_exactly_as_the_default(spec):
    """``path`` naming the committed partnership checkpoint puts the same network in every role (bids, prior,
    rollouts, card head): the same actions and values as the default bot, seed for seed, cards and bids alike."""
    from agents.learned import LEARNED_CHECKPOINTS

    with_path = f"{spec},path={LEARNED_CHECKPOINTS['partnership']}"
    assert make_agent(with_path, seed=0).path == str(LEARNED_CHECKPOINTS["partnership"])
    for engine, ctx, masks in (_card_decisions(), _bid_decisions()):
        obs = _observations(ctx)
        default, given = make_agent(spec, seed=9), make_agent(with_path, seed=9)
        assert given.unsupported_reason(engine) is None
        assert np.array_equal(given.act(obs, masks, ctx), default.act(obs, masks, ctx))
        values = make_agent(with_path, seed=4).action_values(obs, masks, ctx)
        assert np.array_equal(values, make_agent(spec, seed=4).action_values(obs, masks, ctx), equal_nan=True)


def test_path_to_a_two_player_checkpoint_plays_legal_moves_at_two_player(two_player_checkpoint):
    """With a two-player checkpoint of one's own (the default guided bot plays learned's there) the search plays
    that table: legal actions in every phase (the draw and the bids by the network), its cards valued."""
    engine = SpadesEngine("two-player")
    assert make_agent(SMALL, seed=0).unsupported_reason(engine) is None  # learned's two_player_expit.pt
    bot = make_agent(f"{SMALL},path={two_player_checkpoint}", seed=3)
    bot.check_supports(engine)
    state, seats = sample_decisions(engine, 24, seed=5)
    games = np.arange(len(seats))
    masks = engine.legal_action_mask(state)
    assert len(set(state.phase.tolist())) >= 3  # the draw, the bids and the tricks
    ctx = DecisionContext(engine, state, games, seats)
    actions = bot.act(_observations(ctx), masks, ctx)
    assert masks[games, actions].all()
    assert bot.decisions == int(((state.phase == PLAY) & (masks[:, : engine.layout.n_card_ids].sum(axis=1) > 1)).sum())
    assert bot.decisions > 0


def test_a_checkpoint_of_other_rules_is_refused_in_one_line_naming_both(two_player_checkpoint):
    bot = make_agent(f"guided:fast,path={two_player_checkpoint}", seed=0)
    reason = bot.unsupported_reason(SpadesEngine("partnership"))
    assert reason is not None and "\n" not in reason
    assert reason.startswith(f"bot 'guided' with path={two_player_checkpoint} cannot play the rules 'partnership'")
    assert "trained on the rules 'two-player'" in reason
    with pytest.raises(ValueError, match="bot 'guided' with path="):
        bot.check_supports(SpadesEngine("partnership"))


def test_a_path_that_is_not_a_checkpoint_is_one_line_naming_the_option(tmp_path):
    (tmp_path / "notes.pt").write_text("not a network")
    for path, words in ((tmp_path / "absent.pt", "does not exist"), (tmp_path / "notes.pt", "notes.pt")):
        with pytest.raises(ValueError, match=f"^guided bot option 'path': checkpoint .*{words}") as error:
            make_agent(f"guided:fast,path={path}", seed=0)
        assert "\n" not in str(error.value)
    with pytest.raises(ValueError, match="bot 'guided': option 'precision'"):
        make_agent(f"guided:path={tmp_path / 'absent.pt'},precision=int4", seed=0)
