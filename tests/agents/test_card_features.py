"""The card-counting inputs a network derives from its observation (``agents.card_features``), checked against the
game state counted in plain Python with the reference trick winner, and the network that reads them."""

import dataclasses

import numpy as np
import pytest

from tests.paths import ROOT

torch = pytest.importorskip("torch")

from agents.card_features import PER_CARD, CardFeatures, card_feature_spec  # noqa: E402
from agents.neural import NeuralAgent, SpadesPolicy  # noqa: E402
from spades_env.cards import SPADES, card_rank, card_suit, mask_to_cards  # noqa: E402
from spades_env.core.reference_tricks import trick_winner  # noqa: E402
from spades_env.engine import PLAY, SpadesEngine  # noqa: E402
from spades_env.envs.vector import VectorSpades  # noqa: E402
from spades_env.observation import encoder_for  # noqa: E402
from spades_env.rules import resolve_rules  # noqa: E402
from tests.train.ppo.test_training import full_and_resumed  # noqa: E402
from train.ppo.trainer import PPOConfig  # noqa: E402
from train.runs.checkpoint import export_slim  # noqa: E402


def card_play_positions(rules: str, games: int = 24, seed: int = 0, share: float = 0.05):
    """Observation rows and their expected features at random card decisions of random play (a share of them)."""
    engine = SpadesEngine(resolve_rules(rules))
    encoder = encoder_for(engine)
    state = engine.reset(np.arange(games) + 1000 * seed)
    rng = np.random.default_rng(seed)
    rows, expected = [], []
    for _ in range(3 * engine.hand_size * engine.n_players):
        at = np.flatnonzero((state.phase == PLAY) & (rng.random(games) < share))
        if len(at):
            rows.append(encoder.encode(state, at, state.to_move[at]))
            expected += [expected_features(engine, state, g, state.to_move[g]) for g in at]
        engine.step(state, engine.random_actions(state, rng), auto_reset=True)
    return engine, np.concatenate(rows), np.stack(expected)


def expected_features(engine, state, g: int, seat: int) -> np.ndarray:
    """The features of seat ``seat`` in game ``g``, counted from the state."""
    n, c = engine.n_players, engine.layout.n_card_ids
    trump = None if engine.rules.game == "hearts" else SPADES
    hand = set(mask_to_cards(int(state.hands[g, seat])))
    on_trick = [(s, int(state.trick[g, s])) for s in (np.arange(n) + state.leader[g]) % n if state.trick[g, s] >= 0]
    played = {int(k) for k in state.history[g].ravel() if k >= 0} | {k for _, k in on_trick}
    out = [k for k in engine.deck if k not in hand and k not in played]
    higher = np.array(
        [sum(card_suit(k) == card_suit(j) and card_rank(k) > card_rank(j) for k in out) for j in range(c)], float
    )
    beats, boss, winning = np.zeros(c), np.zeros(c), np.zeros(n)
    for j in hand:
        boss[j] = higher[j] == 0
        if on_trick:
            beats[j] = trick_winner([*on_trick, (seat, j)], trump) == seat
    if on_trick:
        winning[(trick_winner(on_trick, trump) - seat) % n] = 1
    out_suit = np.bincount([card_suit(k) for k in out], minlength=4) / 13
    my_suit = np.bincount([card_suit(k) for k in hand], minlength=4) / 13
    return np.concatenate([beats, boss, higher / 13, winning, out_suit, my_suit])


@pytest.mark.parametrize("rules", ["partnership", "jokers", "cutthroat-4", "two-player", "hearts"])
def test_the_features_are_the_counts_of_the_game_state(rules):
    engine, obs, expected = card_play_positions(rules)
    assert len(obs) > 30
    features = CardFeatures(card_feature_spec(engine))
    got = features(torch.as_tensor(obs))[0].numpy()
    assert got.shape == expected.shape == (len(obs), features.size)
    np.testing.assert_allclose(got, expected, atol=1e-6)
    c = engine.layout.n_card_ids
    assert got[:, :c].any() and got[:, c : 2 * c].any()  # some cards take the trick, some are the highest out


def test_a_network_with_them_reads_them_and_round_trips_its_hyperparameters():
    engine = SpadesEngine(resolve_rules("partnership"))
    encoder = encoder_for(engine)
    torch.manual_seed(0)
    net = SpadesPolicy.for_engine(engine, encoder.size, hidden=16, depth=1, card_features=True)
    plain = SpadesPolicy.for_engine(engine, encoder.size, hidden=16, depth=1)
    assert net.input_dim == encoder.size + net.card_features.size
    assert net.torso[0].in_features == net.input_dim and plain.torso[0].in_features == encoder.size
    again = SpadesPolicy(**net.hyperparameters())
    again.load_state_dict(net.state_dict())  # the feature tables are not weights: the same keys as ever
    assert set(net.state_dict()) == set(plain.state_dict())
    obs = torch.as_tensor(card_play_positions("partnership", games=8, seed=1)[1])
    torch.testing.assert_close(again(obs)[0], net(obs)[0])
    # The first layer's weights on the features move the logits: they are read.
    with torch.no_grad():
        net.torso[0].weight[:, encoder.size :] += 1.0
    assert not torch.allclose(again(obs)[0], net(obs)[0])


SELFPLAY = ROOT / "configs" / "train" / "selfplay_hindsight.yaml"
FEATURES = ROOT / "configs" / "train" / "selfplay_features.yaml"
SMALL = dict(num_envs=8, num_steps=64, total_updates=2, hidden=32, depth=1, eval_every=0, eval_deals=8)


def test_the_features_recipe_is_the_selfplay_recipe_with_only_the_features_added():
    plain, features = PPOConfig.from_yaml(SELFPLAY).to_dict(), PPOConfig.from_yaml(FEATURES).to_dict()
    assert {k for k in plain if plain[k] != features[k]} == {"exp_name", "card_features", "card_feature_logits"}
    assert features["card_features"] and features["card_feature_logits"] and not plain["card_features"]


def features_run(path):
    return dataclasses.replace(PPOConfig.from_yaml(FEATURES), run_dir=str(path), **SMALL)


def test_a_features_run_resumes_exactly_and_its_export_plays_in_float32_and_int8(tmp_path):
    a, _ = full_and_resumed(features_run, tmp_path)
    assert a["model_hparams"]["card_features"]["n_cards"] == 52
    latest = next((tmp_path / "full").rglob("latest.pt"))
    slim = export_slim(latest, tmp_path / "features.pt")
    env = VectorSpades("partnership", num_envs=8, seed=3)
    for precision in ("float32", "int8"):
        agent = NeuralAgent.from_checkpoint(slim, precision=precision)
        assert agent.policy.card_features is not None
        obs, info = env.reset(seed=3)
        for _ in range(70):  # bids and cards, past the first hand's end
            actions = agent.act(obs, info["action_mask"])
            assert info["action_mask"][np.arange(8), actions].all()
            obs, _, _, _, info = env.step(actions)


def test_with_card_feature_logits_each_card_adds_its_own_features_under_one_shared_gate():
    engine = SpadesEngine(resolve_rules("partnership"))
    encoder = encoder_for(engine)
    torch.manual_seed(0)
    net = SpadesPolicy.for_engine(
        engine, encoder.size, hidden=16, depth=1, card_features=True, card_feature_logits=True
    )
    assert SpadesPolicy(**net.hyperparameters()).card_feature_gate is not None
    obs = torch.as_tensor(card_play_positions("partnership", games=8, seed=2)[1])
    x, per_card = net._inputs(obs)
    assert per_card.shape == (len(obs), PER_CARD, 52)
    h = net.torso(x)
    gate = net.card_feature_gate(h)
    expected = net.card_head(h) + (per_card * gate[:, :, None]).sum(1)
    torch.testing.assert_close(net(obs)[0][:, :52], expected)
    torch.testing.assert_close(net.action_logits(obs, bids=False)[:, :52], expected)
    # A card's own features: its rank, trump, and my lowest / highest of its suit, as the hand says.
    hand = obs[:, encoder.slices["hand"]]
    assert (per_card[:, 8] <= hand).all() and (per_card[:, 9] <= hand).all()
    assert torch.equal(per_card[0, 4], (torch.arange(52) >= 39).float())  # the spades are the trumps
    assert per_card[0, 3, 51] == 1.0 and per_card[0, 3, 39] == pytest.approx(1 / 13)  # ace high, two low
    with pytest.raises(ValueError, match="card_feature_logits needs card_features"):
        SpadesPolicy(encoder.size, 60, 52, card_feature_logits=True)
    with pytest.raises(ValueError, match=r"card_feature_logits=True \(false unless card_features: true\)"):
        PPOConfig(card_feature_logits=True)


def test_the_committed_features_selfplay_bot_is_the_recipes_network():
    from tests.checkpoint_compare import committed_checkpoint

    recipe = PPOConfig.from_yaml(FEATURES)
    keys = ("card_features", "card_feature_logits", "bid_learning", "critic", "paired", "total_updates", "seed")
    data = committed_checkpoint(ROOT / "checkpoints" / "partnership_selfplay_features.pt", recipe, "partnership", keys)
    engine = SpadesEngine(resolve_rules("partnership"))
    assert data["model_hparams"]["card_features"] == card_feature_spec(engine)
    assert data["model_hparams"]["card_feature_logits"]
    assert data["config"]["init_from"] is None and data["config"]["imitation_updates"] == 0  # from scratch
