"""Expert iteration: the network learns to play what the search bot would play, round after round. The loop
(``trainer``) and its settings (``config``); positions collected by a behaviour policy and labelled by the teacher
(``labelling``), in shards in this process or on Ray actors (``collect_actors``), with the steps both run (``steps``);
and ``spades train --rules``: expert iteration at any table with its game family's generic config (``train_rules``,
the configs in ``family_configs/``, package data)."""
