"""Baseline bots: legal play in every rule set, and the heuristic's rules on hand-built positions."""

import numpy as np
import pytest

from agents import AGENTS, HeuristicAgent, RandomAgent, SearchAgent, make_agent, parse_spec
from agents.base import DecisionContext
from agents.search import sample_hidden_hands
from spades_env import cards
from spades_env.engine import PLAY, SpadesEngine, bits
from spades_env.rules import Rules, list_presets
from train.evaluation.tournament import play_games

CUTTHROAT = [Rules(name=f"plain-cutthroat-{k}", partnership=False, n_players=k) for k in (3, 4, 5, 6)]
RULE_SETS = [Rules.preset(name) for name in list_presets()] + CUTTHROAT


def _hand(text: str) -> list[int]:
    return [cards.parse_card(t) for t in text.split()]


# ------------------------------------------------------------------ legality
@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.name)
def test_heuristic_and_random_play_only_legal_actions_through_whole_matches(rules):
    engine = SpadesEngine(rules)
    seeds = np.arange(48)
    seat_agents = np.tile(np.arange(rules.n_players) % 2, (len(seeds), 1))
    seat_agents[::2] = 1 - seat_agents[::2]
    # engine.step validates every action: an illegal one raises IllegalActionError.
    tally, winners = play_games(engine, seeds, seat_agents, [HeuristicAgent(), RandomAgent(seed=1)], "match")
    assert (winners >= 0).all()
    assert (tally.hands >= 1).all()


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.name)
def test_search_agent_plays_only_legal_actions(rules):
    engine = SpadesEngine(rules)
    seeds = np.arange(3)
    seat_agents = np.tile(np.arange(rules.n_players) % 2, (len(seeds), 1))
    search = SearchAgent(seed=0, samples=2)
    play_games(engine, seeds, seat_agents, [search, HeuristicAgent()], "hand")
    assert search.decisions > 0


def test_heuristic_is_deterministic_and_vectorized_rows_match_single_rows():
    engine = SpadesEngine("partnership")
    state = engine.reset(np.arange(64))
    agent = HeuristicAgent()
    for _ in range(30):
        masks = engine.legal_action_mask(state)
        ctx = DecisionContext(engine, state, np.arange(64), state.to_move)
        batch = agent.act(None, masks, ctx)
        for g in (0, 17, 63):
            one = agent.act(None, masks[g : g + 1], DecisionContext(engine, state, np.array([g]), state.to_move[[g]]))
            assert one[0] == batch[g]
        engine.step(state, batch)


def test_registry_builds_bots_from_specs():
    assert set(AGENTS) >= {"random", "heuristic", "search"}
    assert parse_spec("search:samples=4,max_rollouts=1000") == ("search", {"samples": 4, "max_rollouts": 1000})
    bot = make_agent("search:samples=3", seed=1)
    assert isinstance(bot, SearchAgent) and bot.samples == 3
    with pytest.raises(ValueError, match="unknown bot"):
        make_agent("nope")


def test_search_presets_are_named_first_and_options_after_them_override():
    assert set(SearchAgent.presets) == {"fast", "strong"}
    for name, options in SearchAgent.presets.items():
        assert parse_spec(f"search:{name}") == ("search", options)
        bot = make_agent(f"search:{name}", seed=0)
        assert all(getattr(bot, key) == value for key, value in options.items())
    name, options = parse_spec("search: strong ,samples=5")
    assert options == {**SearchAgent.presets["strong"], "samples": 5}
    assert make_agent("search:fast,endgame=2", seed=0).endgame == 2
    assert SearchAgent.presets["fast"]["samples"] < SearchAgent.presets["strong"]["samples"]


@pytest.mark.parametrize(
    "spec, message",
    [
        ("search:quick", "bot 'search' has no preset 'quick'; its presets: fast, strong"),
        ("search:samples=4,fast", "must look like key=value \\(or, first, one of its presets: fast, strong\\)"),
        ("search:fast,strong", "'strong' in 'search:fast,strong' must look like key=value"),
        ("heuristic:fast", "bot option 'fast' in 'heuristic:fast' must look like key=value$"),
        ("search:fast,samples=0", "'samples' must be a positive integer, got 0"),
        ("search:samples=0", "'samples' must be a positive integer, got 0"),
        ("search:samples=-3", "'samples' must be a positive integer, got -3"),
        ("search:max_rollouts=0", "'max_rollouts' must be a positive integer"),
        ("search:samples=2.5", "'samples' must be an integer, got '2.5'"),
        (
            "search:sample=4",
            "bot 'search' has no option 'sample'; its options: samples, max_rollouts, bid_samples, endgame, oversample",
        ),
        ("search:rollout_policy=random", "has no option 'rollout_policy'"),
        ("search:samples=4,samples=8", "'samples' is given twice"),
        ("random:seed=3", "'seed' is not a bot option, bots are seeded by their caller"),
        ("random:speed=3", "bot 'random' has no option 'speed'; it takes no options"),
        ("heuristic:nil_threshold=nan", "'nil_threshold' must be a finite number"),
        ("heuristic:bid_bias=high", "'bid_bias' must be a number, got 'high'"),
        ("learned:greedy=maybe", "option 'greedy' must be a boolean"),
        ("learned:path=x.pt", "bot 'learned' has no option 'path'; its options: greedy, device"),
    ],
)
def test_bad_bot_options_are_refused_with_the_option_named(spec, message):
    with pytest.raises(ValueError, match=message):
        make_agent(spec, seed=0)


def test_bot_options_are_typed_from_the_bot():
    name, options = parse_spec("heuristic:nil_threshold=2,bid_bias=0.5")
    assert name == "heuristic" and options == {"nil_threshold": 2.0, "bid_bias": 0.5}
    assert isinstance(options["nil_threshold"], float)
    assert make_agent("search:samples=2", seed=0).samples == 2
    for word, greedy in [("false", False), ("No", False), ("0", False), ("true", True), ("yes", True), ("1", True)]:
        assert make_agent(f"learned:greedy={word}", seed=0).greedy is greedy
    with pytest.raises(ValueError, match="positive integer"):
        SearchAgent(samples=0)


def test_a_factory_taking_any_options_gets_them_parsed(monkeypatch):
    seen = {}

    def custom(seed=None, **options):
        seen.update(options, seed=seed)
        return RandomAgent(seed=seed)

    monkeypatch.setitem(AGENTS, "custom", custom)
    make_agent("custom:depth=3,rate=0.5,style=calm", seed=4)
    assert seen == {"depth": 3, "rate": 0.5, "style": "calm", "seed": 4}
    with pytest.raises(ValueError, match="'seed' is not a bot option"):
        make_agent("custom:seed=1")


# ------------------------------------------------------------------ positions
# Dealer 0, so seat 1 bids first and leads. Clubs are split so that every seat holds some.
DEAL = [
    _hand("AC QC 7C 2D 3D 4D 5D 6D 7D 8D 9D TD JD"),
    _hand("2C 3C 4C QD KD AD 2H 3H 4H 5H 6H 7H 8H"),
    _hand("KC 5C 9H TH JH QH KH AH 2S 3S 4S 5S 6S"),
    _hand("6C 8C 9C TC JC 7S 8S 9S TS JS QS KS AS"),
]
C = cards.parse_card


def _position(bids, plays, **agent_options):
    """Bid (seats 1, 2, 3, 0), play the given cards, return the heuristic's next card."""
    engine = SpadesEngine(Rules.preset("partnership-no-blind-nil"))
    state = engine.reset(0, deals=[DEAL], dealers=[0])
    for seat in (1, 2, 3, 0):
        assert state.to_move[0] == seat
        engine.step(state, [engine.layout.bid_action(bids[seat])])
    for card in plays:
        engine.step(state, [C(card)])
    assert state.phase[0] == PLAY
    masks = engine.legal_action_mask(state)
    ctx = DecisionContext(engine, state, np.array([0]), state.to_move.copy())
    return cards.card_name(int(HeuristicAgent(**agent_options).act(None, masks, ctx)[0]))


def test_second_hand_plays_low():
    assert _position([3, 3, 3, 3], ["2C"]) == "5C"  # K-5 behind a low lead, ace unseen


def test_third_hand_plays_high_over_partners_low_card():
    assert _position([3, 3, 3, 3], ["4C", "5C"]) == "JC"


def test_does_not_overtake_partners_winner():
    assert _position([3, 3, 3, 3], ["4C", "KC", "6C"]) == "7C"


def test_fourth_hand_wins_as_cheaply_as_possible():
    assert _position([3, 3, 3, 3], ["4C", "5C", "8C"]) == "QC"


def test_nil_bidder_ducks_under_the_winner():
    assert _position([0, 3, 3, 3], ["4C", "KC", "6C"]) == "QC"


def test_overtakes_a_nil_partner_who_is_winning():
    assert _position([3, 3, 0, 3], ["2C", "KC", "6C"]) == "AC"


def test_ducks_under_an_opponents_nil():
    assert _position([3, 3, 3, 0], ["4C", "5C", "8C"]) == "7C"


def test_ruffs_while_the_contract_needs_tricks_and_ducks_once_it_is_made():
    tricks = ["2C", "KC", "6C", "AC", "QC", "3C", "5C", "8C", "2D", "QD"]  # seat 0 wins two tricks
    assert _position([4, 3, 4, 3], tricks) == "2S"
    assert _position([1, 3, 1, 3], tricks) == "AH"


def test_bids_nil_with_a_weak_hand_and_many_tricks_with_a_strong_one():
    engine = SpadesEngine(Rules.preset("partnership-no-blind-nil"))
    weak = _hand("2C 3C 4C 5C 2D 3D 4D 2H 3H 4H 5H 2S 3S")
    strong = _hand("AS KS QS JS AH KH QH AD KD QD AC KC 6C")
    rest = sorted(set(range(52)) - set(weak) - set(strong))
    deal = [weak, strong, rest[:13], rest[13:26]]
    state = engine.reset(0, deals=[deal], dealers=[3])  # seat 0 bids first
    agent = HeuristicAgent()

    def bid():
        masks = engine.legal_action_mask(state)
        ctx = DecisionContext(engine, state, np.array([0]), state.to_move.copy())
        return int(agent.act(None, masks, ctx)[0]) - engine.layout.bid_offset

    assert bid() == 0
    engine.step(state, [engine.layout.bid_action(0)])
    assert bid() >= 9


def test_bid_respects_min_team_bid():
    engine = SpadesEngine(Rules.preset("partnership-tournament"))
    state = engine.reset(np.arange(200))
    agent = HeuristicAgent()
    for _ in range(8):  # the blind decisions and four bids
        masks = engine.legal_action_mask(state)
        actions = agent.act(None, masks, DecisionContext(engine, state, np.arange(200), state.to_move))
        assert masks[np.arange(200), actions].all()
        engine.step(state, actions)
    team = state.bids[:, 0::2].sum(axis=1), state.bids[:, 1::2].sum(axis=1)
    both_set = (state.bids >= 0).all(axis=1)
    assert (team[0][both_set] >= 4).all() and (team[1][both_set] >= 4).all()


# ------------------------------------------------------------------ search
def test_sampled_hands_respect_what_the_seat_has_seen():
    engine = SpadesEngine("partnership")
    state = engine.reset(np.arange(32))
    agent = HeuristicAgent()
    for _ in range(30):
        engine.step(
            state,
            agent.act(
                None, engine.legal_action_mask(state), DecisionContext(engine, state, np.arange(32), state.to_move)
            ),
        )
    games, seats = np.arange(32), state.to_move.copy()
    hands = sample_hidden_hands(engine, state, games, seats, 5, np.random.default_rng(0))
    assert (bits.popcount(hands) == bits.popcount(state.hands)[:, None, :]).all()
    assert (hands[games, :, seats] == state.hands[games, seats][:, None]).all()
    held = np.bitwise_or.reduce(state.hands, axis=1)
    assert (np.bitwise_or.reduce(hands, axis=2) == held[:, None]).all()
    voids = state.void_suits()
    assert not (voids[:, None] & (bits.lanes(hands, 4) > 0)).any()


def test_search_never_reads_hidden_hands():
    engine = SpadesEngine("partnership")
    state = engine.reset(np.arange(4))
    heur = HeuristicAgent()
    for _ in range(20):
        engine.step(
            state,
            heur.act(
                None, engine.legal_action_mask(state), DecisionContext(engine, state, np.arange(4), state.to_move)
            ),
        )
    masks = engine.legal_action_mask(state)
    seats = state.to_move.copy()
    ctx = DecisionContext(engine, state, np.arange(4), seats)
    before = SearchAgent(seed=3, samples=4).act(None, masks, ctx)
    # Swap the hidden hands of the two seats after the mover: same information, same choice.
    other = state.copy()
    a, b = (seats + 1) % 4, (seats + 3) % 4
    rows = np.arange(4)
    same = (bits.popcount(other.hands[rows, a]) == bits.popcount(other.hands[rows, b])) & (other.voids == 0)
    ha, hb = other.hands[rows, a].copy(), other.hands[rows, b].copy()
    other.hands[rows, a], other.hands[rows, b] = np.where(same, hb, ha), np.where(same, ha, hb)
    pa, pb = other.deal[rows, a] & ~ha, other.deal[rows, b] & ~hb
    other.deal[rows, a] = other.hands[rows, a] | pa
    other.deal[rows, b] = other.hands[rows, b] | pb
    after = SearchAgent(seed=3, samples=4).act(None, masks, DecisionContext(engine, other, np.arange(4), seats))
    assert (before[same] == after[same]).all()
