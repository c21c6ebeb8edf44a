"""Rules in words for people: the line ``spades presets`` and the web table's preset list show."""


def describe_table(rules) -> str:
    """One line on who plays: ``spades, partnership (2 teams of 2), to 500``."""
    if rules.partnership:
        seats = f"partnership ({rules.n_players // 2} teams of 2)"
    elif rules.n_players == 2:
        seats = "two players"
    else:
        seats = f"cutthroat, {rules.n_players} players"
    end = "lowest score wins" if rules.points_are_penalties else "highest score wins"
    return f"{rules.game}, {seats}, to {rules.target_score} ({end})"
