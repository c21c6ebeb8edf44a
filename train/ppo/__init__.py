"""PPO self-play, in the CleanRL style: the loop (``trainer``, which reads top to bottom) and its pieces beside it:
settings (``config``), masked distribution, GAE, loss and rollout buffer (``core``), rollout collection
(``rollout``) against the opponents of each game (``opponents``), the update (``update``), bidding statistics
(``stats``), the all-seeing critic (``critic``), duplicate-paired twin games (``pairing``), bids learned in hindsight
(``hindsight_bids``) and behaviour cloning of HeuristicAgent as a warm start (``imitation``)."""
