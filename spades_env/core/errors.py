"""The engine's argument errors, at the bottom of the layers so that every layer raises the same classes
(``spades_env.engine.inputs`` checks the arguments and re-exports them)."""


class EngineInputError(ValueError):
    """An argument of an engine call is out of what it allows; the message names it."""


class EngineInputTypeError(EngineInputError, TypeError):
    """An argument of an engine call is not the kind of value it takes (e.g. a float action)."""
