"""Bots measured against each other on the same seeded deals: duplicate tournaments (``tournament`` and its chunks,
log, play, report and Ray path), their paired statistics (``paired_stats``), the bidding benchmark (``bid_bench`` and
its bidders, play, report and Ray path) and a training network's evaluation against HeuristicAgent
(``network_eval``, which every trainer runs)."""
