"""Game records: JSON round trips and replays; tampered records fail clearly."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from spades_env import IllegalActionError, Rules, SpadesEngine
from spades_env.engine import OVER, records
from tests.paths import GOLDEN


def _random_records(rules, seeds, policy_seed=0, nil_bias=0.3) -> list[dict]:
    """Records of every hand of random matches (biased toward nil and blind nil)."""
    engine = SpadesEngine(rules)
    state = engine.reset(seeds)
    rng = np.random.default_rng(policy_seed)
    lay = engine.layout
    out: list[dict] = []
    for _ in range(20_000):
        if np.all(state.phase == OVER):
            break
        mask = engine.legal_action_mask(state)
        actions = np.argmax(rng.random(mask.shape) * mask, axis=1)
        nil = mask[:, lay.bid_offset] & (rng.random(len(actions)) < nil_bias)
        actions = np.where(nil, lay.bid_offset, actions)
        blind = mask[:, lay.blind_nil] & (rng.random(len(actions)) < nil_bias)
        actions = np.where(blind, lay.blind_nil, actions)
        result = engine.step(state, actions, validate=False)
        for fin in result.finished:
            out += records.hand_records(engine, fin)
    return out


RULES = [
    Rules.preset("partnership"),
    Rules.preset("partnership-tournament"),
    Rules(n_players=3, partnership=False, exact_small_bid_bonus=True, big_bid_bonus=True),
    Rules(n_players=6, partnership=False, set_penalty="short"),
]


@pytest.fixture(scope="module")
def some_records() -> list[dict]:
    return _random_records(RULES[0], list(range(4)))


@pytest.mark.parametrize("rules", RULES, ids=[r.name + str(r.n_players) for r in RULES])
def test_records_round_trip_through_json_and_verify(rules):
    recs = _random_records(rules, [7, 8, 9])
    assert len(recs) >= 3
    for rec in recs:
        text = records.dumps(rec)
        assert "\n" not in text
        back = json.loads(text)
        assert back == rec
        records.verify(back)
        assert records.replay(back) == rec


def test_record_contents(some_records):
    rec = some_records[0]
    n = len(rec["bids"])
    assert sum(rec["tricks_won"]) == len(rec["tricks"]) == len(rec["hands"][0])
    assert [t["winner"] for t in rec["tricks"]].count(0) == rec["tricks_won"][0]
    assert [a - b for a, b in zip(rec["scores"], rec["start_scores"], strict=True)] == rec["points"]
    assert sum(1 for a in rec["actions"] if a["name"].startswith("play")) == n * len(rec["tricks"])
    assert rec["actions"][0]["seat"] == (rec["dealer"] + 1) % n


def test_some_records_hold_nil_and_blind_nil(some_records):
    assert any(any(r["blind_nil"]) for r in some_records)
    assert any(0 in r["bids"] for r in some_records)


def test_changed_points_fail_verify(some_records):
    rec = copy.deepcopy(some_records[0])
    rec["points"][0] += 10
    with pytest.raises(ValueError, match="'points' differs"):
        records.verify(rec)


def test_changed_scores_fail_verify(some_records):
    rec = copy.deepcopy(some_records[1])
    rec["scores"][1] -= 1
    with pytest.raises(ValueError, match="'scores' differs"):
        records.verify(rec)


def test_changed_trick_winner_fails_verify(some_records):
    rec = copy.deepcopy(some_records[0])
    rec["tricks"][0]["winner"] = (rec["tricks"][0]["winner"] + 1) % len(rec["bids"])
    with pytest.raises(ValueError, match="'tricks' differs"):
        records.verify(rec)


def test_illegal_action_fails_replay(some_records):
    rec = copy.deepcopy(some_records[0])
    bids = [k for k, a in enumerate(rec["actions"]) if a["name"].startswith("bid")]
    rec["actions"][bids[0]]["action"] = 0  # a card instead of a bid
    with pytest.raises(IllegalActionError, match="illegal action 0"):
        records.verify(rec)


def test_card_not_held_fails_replay(some_records):
    rec = copy.deepcopy(some_records[0])
    plays = [k for k, a in enumerate(rec["actions"]) if a["name"].startswith("play")]
    first = rec["actions"][plays[0]]
    first["action"] = rec["actions"][plays[1]]["action"]  # the next seat's card
    with pytest.raises(IllegalActionError):
        records.verify(rec)


def test_wrong_seat_fails_replay(some_records):
    rec = copy.deepcopy(some_records[0])
    rec["actions"][0]["seat"] = (rec["actions"][0]["seat"] + 1) % len(rec["bids"])
    with pytest.raises(ValueError, match="not that seat's turn"):
        records.verify(rec)


def test_truncated_record_fails_replay(some_records):
    rec = copy.deepcopy(some_records[0])
    rec["actions"] = rec["actions"][:-1]
    with pytest.raises(ValueError, match="before the hand is over"):
        records.verify(rec)


def test_two_player_records_with_blind_nil_exchanges_replay_in_later_hands():
    """Exchange draws are seeded by (key, hand number): a record must carry both."""
    import json

    from spades_env import SpadesEngine
    from spades_env.engine import OVER, records

    engine = SpadesEngine("two-player")
    rng = np.random.default_rng(3)
    state = engine.reset(np.arange(16))
    checked = later = 0
    for _ in range(1500):
        over = np.flatnonzero(state.phase == OVER)
        if len(over):
            engine.start_matches(state, over, state.key[over] + np.uint64(7))
        weights = rng.random((16, engine.layout.n_actions)) * engine.legal_action_mask(state)
        weights[:, engine.layout.blind_nil] *= 3  # exchanges happen after a blind nil
        for finished in engine.step(state, weights.argmax(axis=1)).finished:
            for record in records.hand_records(engine, finished):
                records.verify(json.loads(records.dumps(record)))
                checked += 1
                later += record["hand_number"] > 0 and any(record["blind_nil"])
    assert checked > 20 and later > 0


def _two_player_record() -> dict:
    return _random_records(Rules.preset("two-player"), [3])[0]


@pytest.mark.parametrize("kind", ["partnership", "two-player", "hearts", "house"])
def test_deleting_any_field_of_a_valid_record_fails_verify_naming_it(some_records, kind):
    if kind == "partnership":
        rec = some_records[0]
    elif kind == "two-player":
        rec = _two_player_record()
    else:
        preset = "hearts" if kind == "hearts" else "partnership-house"
        engine = SpadesEngine(preset)
        state = engine.reset(np.arange(4))
        rng = np.random.default_rng(0)
        rec = None
        while rec is None:
            mask = engine.legal_action_mask(state)
            result = engine.step(state, np.argmax(rng.random(mask.shape) * mask, axis=1))
            if result.finished:
                rec = records.hand_records(engine, result.finished[0])[0]
    records.verify(rec)
    for field in rec:
        broken = {k: v for k, v in rec.items() if k != field}
        with pytest.raises(records.RecordError, match=f"'{field}'"):
            records.verify(broken)


def test_an_unknown_field_fails_verify(some_records):
    rec = {**some_records[0], "comment": "mine"}
    with pytest.raises(records.RecordError, match=r"\['comment'\] are not fields of a hand record"):
        records.verify(rec)


@pytest.mark.parametrize("value", [66.7, 66.0, "66", True, None])
def test_a_non_integer_action_id_fails_replay(some_records, value):
    rec = copy.deepcopy(some_records[0])
    plays = [k for k, a in enumerate(rec["actions"]) if a["name"].startswith("play")]
    rec["actions"][plays[0]]["action"] = value if value != 66.0 else float(rec["actions"][plays[0]]["action"])
    with pytest.raises(records.RecordError, match=rf"'actions' \[{plays[0]}\] 'action' must be an integer"):
        records.verify(rec)


def test_a_result_field_of_another_type_fails_verify(some_records):
    rec = copy.deepcopy(some_records[0])
    rec["points"] = [float(p) for p in rec["points"]]  # equal as numbers, but not what the engine writes
    with pytest.raises(records.RecordError, match="'points' differs"):
        records.verify(rec)


def test_a_record_with_a_bad_card_name_or_key_fails_naming_the_field(some_records):
    rec = copy.deepcopy(some_records[0])
    rec["hands"][2][0] = "1X"
    with pytest.raises(records.RecordError, match=r"record field 'hands' \[2\]: cannot parse card '1X'"):
        records.verify(rec)
    rec = {**some_records[0], "hand_key": 1.5}
    with pytest.raises(records.RecordError, match="record field 'hand_key' must be an integer"):
        records.verify(rec)
    with pytest.raises(records.RecordError, match=r"record field 'version' must be one of \[1, 2\], got 3"):
        records.verify({**some_records[0], "version": 3})


def test_a_record_names_its_hand_by_its_hand_key_which_the_match_key_checks():
    engine = SpadesEngine(Rules.preset("partnership").replace(name="no-mercy", lose_score=None))
    match_key = int(engine.reset(2**40 + 11).key[0])
    recs = _random_records(engine.rules, [2**40 + 11])
    assert len(recs) >= 2 and all("key" not in r for r in recs)
    assert [r["hand_key"] for r in recs] == [records.hand_key(match_key, r["hand_number"]) for r in recs]
    assert len({r["hand_key"] for r in recs}) == len(recs) and match_key not in {r["hand_key"] for r in recs}
    for rec in recs:
        records.verify(rec, match_key=match_key)
        with pytest.raises(records.RecordError, match="'hand_key' is not that of hand"):
            records.verify(rec, match_key=match_key ^ 1)
    swapped = {**recs[1], "hand_key": recs[0]["hand_key"]}  # replays (nothing seeds it): only the key tells
    records.verify(swapped)
    with pytest.raises(records.RecordError, match="'hand_key'"):
        records.verify(swapped, match_key=match_key)


def _records_with(preset: str, seeds, has, blind_bias: float = 1.0) -> list[dict]:
    """Records of random hands of ``preset`` (blind nil ``blind_bias`` times as likely) for which ``has(record)``."""
    engine = SpadesEngine(preset)
    state = engine.reset(seeds)
    rng = np.random.default_rng(11)
    found = []
    for _ in range(20_000):
        weights = rng.random((len(seeds), engine.layout.n_actions)) * engine.legal_action_mask(state)
        weights[:, engine.layout.blind_nil] *= blind_bias  # (presets with blind nil)
        for finished in engine.step(state, weights.argmax(axis=1), auto_reset=True).finished:
            found += [r for r in records.hand_records(engine, finished) if has(r)]
        if len(found) >= 3:
            return found
    raise AssertionError(f"no such {preset} record")


def _exchanges(rec: dict) -> int:
    """Cards given up in a two-player record's blind-nil exchanges (card actions beyond the plays)."""
    return sum(a["name"].startswith("play") for a in rec["actions"]) - 2 * len(rec["tricks"])


def test_two_player_exchange_draws_are_in_the_record_and_replay_without_any_key():
    recs = _records_with("two-player", list(range(16)), lambda r: r["hand_number"] > 0 and _exchanges(r), 50)
    for rec in recs:
        drawn = sum(len(d) for d in rec["exchange_draws"])
        assert drawn == _exchanges(rec) > 0 and "key" not in rec
        assert records.replay(json.loads(records.dumps(rec))) == rec
        records.verify(rec)
        seat = next(s for s, d in enumerate(rec["exchange_draws"]) if d)
        other = copy.deepcopy(rec)
        kept = [c for c in rec["hands"][1 - seat] if c not in rec["exchange_draws"][1 - seat]]
        other["exchange_draws"][seat][0] = kept[0]  # kept from the pile by the other seat: never drawable
        with pytest.raises(records.RecordError, match=rf"'exchange_draws': seat {seat} cannot draw"):
            records.verify(other)
        fewer = copy.deepcopy(rec)
        fewer["exchange_draws"][seat].pop()
        with pytest.raises(records.RecordError, match="'exchange_draws': seat .* exchanges more cards"):
            records.verify(fewer)


def test_face_up_cards_are_in_the_record_and_replay_without_any_key():
    recs = _records_with("partnership-house", [5, 6], lambda r: r["hand_number"] > 0)
    for rec in recs:
        assert all(len(f) == 4 and set(f) <= set(h) for f, h in zip(rec["face_up"], rec["hands"], strict=True))
        assert records.replay(rec) == rec
        other = copy.deepcopy(rec)
        other["face_up"][0][0] = rec["hands"][1][0]
        with pytest.raises(ValueError, match=r"face_ups\[0\]\[0\] must be 4 cards of that seat's hand"):
            records.verify(other)


def test_version_1_records_named_by_the_match_key_still_replay_and_verify():
    """Records the code before hand keys wrote (tests/golden/records_v1.jsonl): partnership, Hearts, face-up
    cards (partnership-house) and two-player blind-nil exchanges, all after the first hand."""
    with open(GOLDEN / "records_v1.jsonl") as file:
        old = [json.loads(line) for line in file]
    kinds = {(r["rules"]["name"], r["rules"].get("face_up_deal", False)) for r in old}
    assert len(kinds) == 4 and any(_exchanges(r) for r in old if r["rules"].get("n_players") == 2)
    for rec in old:
        assert rec["version"] == 1 and "hand_key" not in rec
        assert records.replay(rec) == rec
        records.verify(rec, match_key=rec["key"])
        with pytest.raises(records.RecordError, match="'key' is not that of hand"):
            records.verify(rec, match_key=rec["key"] + 1)
        with pytest.raises(records.RecordError, match="record field 'hand_key' is missing"):
            records.verify({**rec, "version": 2})
