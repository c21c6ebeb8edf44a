"""Training, tournaments, ratings, benchmarks and the ``spades`` command line."""
