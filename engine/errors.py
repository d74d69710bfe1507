"""The engine's errors: one root, each leaf also a builtin."""


class EngineError(Exception):
    """Root of every error the rules engine raises."""


class IllegalEventError(EngineError, ValueError):
    """An event that cannot happen in this state; the message names the event and the state."""


class UnknownGameError(EngineError, KeyError):
    """A game id or alias that the registry does not hold."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown game"


class BadOptionError(EngineError, ValueError):
    """A house-rule option that the game does not have, or a value it cannot take."""
