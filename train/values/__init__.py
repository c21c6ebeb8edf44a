"""Values learned from rollouts on the real deal: the ``bid_values`` trainer (each candidate bid and card of the
learner valued by the compiled heuristic playing the hand out: ``bid_values``, ``card_values``, one round's collection
in ``bid_values_round``, the loop in ``bid_values_train``, its settings in ``bid_values_config``) and the position
value network of the guided bot, trained on the learned bot's self-play (``position_value``)."""
