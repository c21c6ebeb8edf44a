"""``card_opponent``: the learner's card positions collected in games against another bot than the heuristic."""

import dataclasses

import numpy as np
import pytest

from tests.paths import ROOT

torch = pytest.importorskip("torch")

from agents.heuristic import HeuristicAgent  # noqa: E402
from agents.random_agent import RandomAgent  # noqa: E402
from spades_env.engine import SpadesEngine  # noqa: E402
from spades_env.observation import encoder_for  # noqa: E402
from spades_env.rules import resolve_rules  # noqa: E402
from train.runs.checkpoint import load_checkpoint  # noqa: E402
from train.values.bid_values import BidLearner, deal_and_bid, play_card_positions  # noqa: E402
from train.values.bid_values_config import BidValuesConfig  # noqa: E402
from train.values.bid_values_network import load_network  # noqa: E402
from train.values.bid_values_round import card_opponent_of  # noqa: E402
from train.values.bid_values_train import train  # noqa: E402

RECIPE = ROOT / "configs" / "train" / "card_values_torso.yaml"


class Recording(RandomAgent):
    """A random bot that counts the decisions it was asked to play."""

    def __init__(self, seed=None):
        super().__init__(seed)
        self.asked = 0

    def act(self, observations, masks, context=None):
        self.asked += len(masks)
        return super().act(observations, masks, context)


def hands(opponent=None, against=None, n: int = 8):
    """The learner's card positions of ``n`` deals at the torso recipe's start, and the played-out final state."""
    recipe = BidValuesConfig.from_yaml(RECIPE)
    engine = SpadesEngine(resolve_rules(recipe.rules))
    encoder = encoder_for(engine)
    learner = BidLearner(load_network(recipe, engine, encoder).eval(), engine, encoder, torch.device("cpu"))
    heuristic = HeuristicAgent()
    _, state = deal_and_bid(engine, np.arange(n), learner, heuristic, 0.0, np.random.default_rng(0))
    rng = np.random.default_rng(0)
    positions = play_card_positions(engine, state, learner, heuristic, 1.0, rng, None, opponent, against)
    return positions, state


def test_the_opponent_plays_only_the_other_sides_cards_in_its_games():
    bot = Recording(seed=3)
    _, final = hands(bot, np.arange(8) < 4)
    assert bot.asked == 4 * 26  # the other side's cards (13 tricks x 2 seats) in its 4 games, none of the learner's
    _, alone = hands()
    assert np.array_equal(final.scores[4:], alone.scores[4:])  # the games without it: as against the heuristic
    assert not np.array_equal(final.scores[:4], alone.scores[:4])  # random cards change the hands it played


def test_no_opponent_game_is_the_heuristic_s_bit_for_bit():
    bot = Recording(seed=3)
    none, final = hands(bot, np.zeros(8, bool))
    alone, final_alone = hands()
    assert bot.asked == 0
    assert np.array_equal(none.obs, alone.obs) and np.array_equal(none.played, alone.played)
    assert np.array_equal(final.scores, final_alone.scores)


def test_a_bad_card_opponent_is_refused_in_one_line():
    engine = SpadesEngine(resolve_rules("partnership"))
    with pytest.raises(ValueError, match="card_opponent 'nobody'") as error:
        card_opponent_of(BidValuesConfig(card_value_hidden=8, card_opponent="nobody"), engine)
    assert "\n" not in str(error.value)
    with pytest.raises(ValueError, match="card_opponent_share"):
        BidValuesConfig(card_opponent_share=1.5)
    bot, against = card_opponent_of(BidValuesConfig(card_value_hidden=8, card_opponent="random", deals=10,
                                                    card_opponent_share=0.3), engine)  # fmt: skip
    assert bot.name == "random" and against.tolist() == [True] * 3 + [False] * 7
    assert card_opponent_of(BidValuesConfig(card_value_hidden=8), engine) == (None, None)


def test_a_run_against_another_bot_resumes_bit_identically(tmp_path):
    recipe = BidValuesConfig.from_yaml(RECIPE)
    small = dataclasses.replace(
        recipe, rounds=2, deals=16, eval_every=0, eval_final=False, card_opponent="random", card_opponent_share=0.5
    )  # a random opponent: the code path of search:fast's, without the search's compile time
    full = load_checkpoint(train(dataclasses.replace(small, run_dir=str(tmp_path / "full")), quiet=True))
    half = train(dataclasses.replace(small, run_dir=str(tmp_path / "half")), stop_at=1, quiet=True)
    resumed = load_checkpoint(train(resume=half, quiet=True))
    assert resumed["update"] == 2
    for key, value in full["model"].items():
        assert torch.equal(resumed["model"][key], value), key
