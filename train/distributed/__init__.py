"""Work run as Ray tasks or actors, on this machine or a cluster: ``ray_shards`` runs pure shards of work (a
tournament's chunks, a bidding benchmark's, expert iteration's labelling), retries those whose worker died and hands
each result back once. Ray is imported only when a run asks for it; the parts that shard their work (``evaluation``,
``expert_iteration``) keep their own shards beside them and import this package."""
