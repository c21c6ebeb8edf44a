"""Property-based fuzz of the web API (issue 51): every endpoint of the OpenAPI schema (schemathesis), then
hostile mutations of real records and bodies (hypothesis); no answer is a 5xx, every error is one line of JSON.

Small budgets (the file runs in well under a minute on two cores); ``WEB_FUZZ_EXAMPLES`` raises them."""

from __future__ import annotations

import os
import tempfile

import pytest

schemathesis = pytest.importorskip("schemathesis", reason="the test extra (pip install -e '.[test]')")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.web_helpers import client, game_of, play_hands  # noqa: E402
from train.serve.app import create_app  # noqa: E402

EXAMPLES = int(os.environ.get("WEB_FUZZ_EXAMPLES", "25"))
REPLAYS = tempfile.mkdtemp(prefix="web-fuzz-replays-")  # path replays are on: their checks are fuzzed too
APP = create_app(replay_dir=REPLAYS)
schema = schemathesis.openapi.from_asgi("/api/openapi.json", APP)
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)


def check_answer(response) -> None:
    """Below 500, and an error is ``{"detail": "<one line>"}``."""
    assert response.status_code < 500, response.text[:300]
    if response.status_code >= 400:
        kind = response.headers.get("content-type", "")
        kind = kind[0] if isinstance(kind, list) else kind  # schemathesis keeps a list per header
        assert kind.startswith("application/json"), (response.status_code, response.text[:200])
        detail = response.json()["detail"]
        assert isinstance(detail, str) and "\n" not in detail and len(detail) <= 1000


@schema.parametrize()
@FUZZ
def test_no_endpoint_answers_a_5xx_or_an_error_that_is_not_json(case):
    check_answer(case.call())


@pytest.fixture(scope="module")
def c():
    return client()


@pytest.fixture(scope="module")
def record(c):
    game_id, _ = play_hands(c, {"rules": "partnership", "bots": "random", "seed": 6}, hands=1, seed=6)
    return game_of(c, game_id).records[0]


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=8,
)


@FUZZ
@given(data=st.data())
def test_a_record_with_any_field_replaced_is_refused_in_one_line(c, record, data):
    field = data.draw(st.sampled_from(sorted(record)))
    bad = {**record, field: data.draw(JSON)}
    if data.draw(st.booleans()) and isinstance(record[field], dict):
        inner = data.draw(st.sampled_from(sorted(record[field])))
        bad[field] = {**record[field], inner: data.draw(JSON)}
    check_answer(c.post("/api/replay", json={"record": bad}))


@FUZZ
@given(body=st.dictionaries(st.sampled_from(["rules", "bots", "seat", "seed", "target_score"]), JSON, max_size=5))
def test_any_game_body_is_a_game_or_a_one_line_400(c, body):
    check_answer(c.post("/api/games", json=body))


@FUZZ
@given(action=JSON, hint=st.text(max_size=30))
def test_any_action_or_hint_on_a_live_game_is_legal_or_a_one_line_400(c, action, hint):
    game_id = c.post("/api/games", json={"seed": 3, "bots": "random"}).json()["id"]
    check_answer(c.post(f"/api/games/{game_id}/action", json={"action": action}))
    check_answer(c.get(f"/api/games/{game_id}/hint", params={"bot": hint}))


@FUZZ
@given(header=st.dictionaries(st.sampled_from(["bots", "rules", "boards", "mode", "seed", "chunk", "x"]), JSON))
def test_any_log_header_is_a_report_or_a_one_line_400(c, header):
    import json

    text = json.dumps({"type": "header", "config": header}) + "\n" + json.dumps({"type": "game"})
    check_answer(c.post("/api/replay", json={"jsonl": text}))


@FUZZ
@given(path=st.text(max_size=300) | st.text(alphabet="./a~\\x", max_size=40).map(lambda p: p + ".json"))
def test_any_replay_path_is_a_replay_or_a_one_line_400(path):
    check_answer(FUZZ_CLIENT.post("/api/replay", json={"path": path}))


FUZZ_CLIENT = client(replay_dir=REPLAYS)
