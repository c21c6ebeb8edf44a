"""Hearts ("La reina de picas") [RULES 7]: the pass, no bidding, the lowest score wins."""
