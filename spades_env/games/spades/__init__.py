"""Spades [RULES 1-6]: partnership, two-player, cutthroat 3-6 and the house variants."""
