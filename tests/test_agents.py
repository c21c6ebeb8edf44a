"""Baseline bots: legal play in every rule set, and the heuristic's rules on hand-built positions."""

import numpy as np
import pytest

from agents import AGENTS, HeuristicAgent, RandomAgent, SearchAgent, make_agent, parse_spec
from agents.base import DecisionContext
from agents.search import sample_hidden_hands
from spades_env import cards
from spades_env.engine import BEMO, BID, BLIND, DRAW, EXCHANGE, PLAY, SpadesEngine, bits
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


# ------------------------------------------------------------------ variant decisions
def _heuristic_actions(engine, state, agent=None):
    masks = engine.legal_action_mask(state)
    ctx = DecisionContext(engine, state, np.arange(state.batch_size), state.to_move.copy())
    actions = (agent or HeuristicAgent()).act(None, masks, ctx)
    assert masks[np.arange(state.batch_size), actions].all()
    return actions


def _pile(engine, placed: dict[int, str]) -> list[int]:
    """A two-player pile with the given cards at the given positions, the rest in deck order."""
    fixed = {pos: cards.parse_card(c) for pos, c in placed.items()}
    rest = iter(c for c in engine.deck if c not in fixed.values())
    return [fixed.get(pos, None) if pos in fixed else next(rest) for pos in range(len(engine.deck))]


def _two_player_after_blind(pile, blind_seat=None):
    """Two-player hand with dealer 0: seat 1 then seat 0 decide blind nil, then the draw starts."""
    engine = SpadesEngine("two-player")
    lay = engine.layout
    state = engine.reset(0, piles=[pile], dealers=[0])
    for seat in (1, 0):
        assert state.to_move[0] == seat
        engine.step(state, [lay.blind_nil if seat == blind_seat else lay.look])
    return engine, state


@pytest.mark.parametrize(("shown", "keep"), [("AS", True), ("3S", True), ("KD", True), ("2H", False), ("7C", False)])
def test_draw_keeps_likely_tricks_and_discards_low_side_cards(shown, keep):
    engine = SpadesEngine("two-player")
    engine, state = _two_player_after_blind(_pile(engine, {0: shown}))
    assert state.phase[0] == DRAW and state.shown[0] == cards.parse_card(shown)
    lay = engine.layout
    assert _heuristic_actions(engine, state)[0] == (lay.keep if keep else lay.discard)


def test_blind_nil_drawer_keeps_low_cards_and_exchange_gives_up_high_spades_then_aces():
    engine = SpadesEngine("two-player")
    lay = engine.layout
    # With "keep" every time, seat 1 (non-dealer, blind nil) keeps pile positions 2, 6, 10, ...
    kept = "AS KS AH 2C 3C 4C 5C 2D 3D 4D 2H 3H 4H".split()
    pile = _pile(engine, {2 + 4 * k: card for k, card in enumerate(kept)})
    engine, state = _two_player_after_blind(pile, blind_seat=1)
    for _ in range(26):
        engine.step(state, [lay.keep])
    assert state.phase[0] == EXCHANGE and state.to_move[0] == 1
    given = []
    while state.phase[0] == EXCHANGE:
        action = int(_heuristic_actions(engine, state)[0])
        given.append(action)
        engine.step(state, [action])
    assert [cards.card_name(c) for c in given[:3]] == ["AS", "KS", "AH"]

    # While drawing, a blind-nil player keeps a low side card and discards a high spade.
    for shown, expected in (("3H", lay.keep), ("QS", lay.discard)):
        engine2 = SpadesEngine("two-player")
        pile = _pile(engine2, {0: "2C", 1: "3C", 2: shown})
        engine2, state2 = _two_player_after_blind(pile, blind_seat=1)
        engine2.step(state2, [lay.keep])  # the dealer's draw
        assert state2.to_move[0] == 1 and state2.shown[0] == cards.parse_card(shown)
        assert _heuristic_actions(engine2, state2)[0] == expected


def test_never_declares_bemo_with_a_weak_hand_and_never_big_bemo():
    engine = SpadesEngine("partnership-house")
    lay = engine.layout
    state = engine.reset(np.arange(400))
    agent = HeuristicAgent()
    decisions = 0
    for _ in range(12):  # four bids (and redeals), then the Bemo decisions
        actions = _heuristic_actions(engine, state, agent)
        bemo = np.flatnonzero(state.phase == BEMO)
        est = agent.estimate_tricks(engine, state.hands[bemo, state.to_move[bemo]])
        assert (actions[bemo] != lay.big_bemo).all()
        assert (actions[bemo][est < agent.bemo_threshold] == lay.no_bemo).all()
        decisions += len(bemo)
        engine.step(state, actions)
    assert decisions > 0


def test_declares_little_bemo_with_a_very_strong_hand():
    engine = SpadesEngine("partnership-house")
    lay = engine.layout
    strong = _hand("AS KS QS JS TS 9S AH KH QH AD KD AC 3C")  # seat 1: bids first
    partner = _hand("8S 7S 6S JH TH JD TD QC JC 9H 9D 2S 3S")  # seat 3
    rest = [c for c in range(52) if c not in strong + partner]
    deal = [rest[:13], strong, rest[13:], partner]
    state = engine.reset(0, deals=[deal], dealers=[0])
    while state.phase[0] != BEMO:
        assert state.phase[0] in (BLIND, BID)
        engine.step(state, _heuristic_actions(engine, state))
    assert state.bids[0, 1] + state.bids[0, 3] >= 10
    while state.phase[0] == BEMO:
        seat = int(state.to_move[0])
        action = int(_heuristic_actions(engine, state)[0])
        expected = lay.little_bemo if seat == 1 else lay.no_bemo
        if engine.side_of_seat[seat] == 1:
            assert action == expected
        engine.step(state, [action])
    assert state.bemo[0].tolist() == [0, 1]  # side 1 (seats 1 and 3) declared little Bemo


@pytest.mark.parametrize(("weak", "expected"), [("AC", "redeal"), ("7C", "nil")])
def test_weak_hand_redeals_unless_it_is_a_nil(weak, expected):
    engine = SpadesEngine("partnership-house")
    hand = _hand(f"{weak} 2C 3C 4C 5C 6C 2D 3D 4D 5D 2H 3H 4H")  # no spade, no J Q K
    rest = [c for c in range(52) if c not in hand]
    state = engine.reset(0, deals=[[rest[:13], hand, rest[13:26], rest[26:]]], dealers=[0])
    assert state.phase[0] == BLIND and state.to_move[0] == 1
    engine.step(state, [engine.layout.look])
    assert state.phase[0] == BID and state.to_move[0] == 1
    action = int(_heuristic_actions(engine, state)[0])
    want = engine.layout.redeal if expected == "redeal" else engine.layout.bid_action(0)
    assert action == want


@pytest.mark.parametrize("preset", ["mirror", "fourteen"])
def test_forced_bids_come_through_the_mask(preset):
    engine = SpadesEngine(preset)
    state = engine.reset(np.arange(64))
    for _ in range(4):
        lo, hi = engine.bid_range(state)
        actions = _heuristic_actions(engine, state) - engine.layout.bid_offset
        assert ((actions >= lo) & (actions <= hi)).all()
        engine.step(state, actions + engine.layout.bid_offset)
    if preset == "mirror":
        assert (state.bids == bits.popcount(state.deal & cards.TRUMP_MASK)).all()
    else:
        assert (state.bids[:, 0::2].sum(axis=1) == 7).all() and (state.bids >= 2).all()


def test_jokers_are_the_top_trumps_for_the_heuristic():
    engine = SpadesEngine("jokers")
    agent = HeuristicAgent()
    with_jokers = np.array([cards.cards_to_mask(_hand("BJ LJ AS 3C 4C 5C 6D 7D 8D 3H 4H 5H 6H"))], dtype=np.uint64)
    without = np.array([cards.cards_to_mask(_hand("4S 5S 6S 3C 4C 5C 6D 7D 8D 3H 4H 5H 6H"))], dtype=np.uint64)
    assert agent.estimate_tricks(engine, with_jokers)[0] >= 2.5
    assert agent.estimate_tricks(engine, without)[0] < 1.0


def _play_to(engine, state, plays: int):
    """Heuristic moves until every game has played ``plays`` cards of the hand (all in PLAY)."""
    agent = HeuristicAgent()
    for _ in range(200):
        done = (state.phase == PLAY) & (state.n_tricks * engine.n_players + state.n_in_trick >= plays)
        if done.all():
            return
        actions = _heuristic_actions(engine, state, agent)
        live = np.flatnonzero(~done)
        sub = state.take(live)
        engine.step(sub, actions[live])
        state.put(live, sub)
    raise AssertionError("did not reach the position")


def test_sampled_hands_two_player_face_up_and_jokers():
    rng = np.random.default_rng(0)
    for preset in ("two-player", "partnership-house", "jokers"):
        engine = SpadesEngine(preset)
        state = engine.reset(np.arange(24))
        _play_to(engine, state, 5)
        games, seats = np.arange(24), state.to_move.copy()
        hands = sample_hidden_hands(engine, state, games, seats, 6, rng)
        assert (bits.popcount(hands) == bits.popcount(state.hands)[:, None, :]).all()
        assert (hands[games, :, seats] == state.hands[games, seats][:, None]).all()
        union = np.bitwise_or.reduce(hands, axis=2)
        played = np.bitwise_or.reduce(state.deal & ~state.hands, axis=1)
        assert not (union & played[:, None]).any()
        voids = state.void_suits()
        assert not (voids[:, None] & (bits.lanes(hands, 4) > 0)).any()
        trump_void = voids[:, None, :, cards.SPADES]
        assert not (trump_void & ((hands & cards.JOKER_MASK) != 0)).any()
        if engine.rules.two_player:
            mine = state.discards[games, seats] | state.exchanged_out[games, seats]
            assert not (union & mine[:, None]).any()  # own discards are out of play (no blind nil here)
            assert not state.blind.any()
        if engine.rules.face_up_deal:
            known = state.face_up & state.hands  # face-up cards still held stay with their holders
            assert ((hands & known[:, None, :]) == known[:, None, :]).all()
            assert known.any()


def test_play_games_refuses_a_bot_that_does_not_support_the_rules():
    class Picky(RandomAgent):
        name = "picky"

        def supports(self, engine):
            return not engine.rules.two_player

    engine = SpadesEngine("two-player")
    with pytest.raises(ValueError, match="'picky' does not support the rules 'two-player'"):
        play_games(engine, np.arange(2), np.zeros((2, 2), dtype=np.int64), [Picky(seed=0)], "hand")
