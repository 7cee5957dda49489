"""The two ways a request can break the rules; both carry a stable snake_case reason for clients."""


class RuleViolation(Exception):
    def __init__(self, reason: str, message: str):
        super().__init__(message)
        self.reason = reason
        self.message = message


class IllegalMove(RuleViolation):
    """A move that the rules do not allow now (or a move that is not well formed)."""


class InvalidSetup(RuleViolation):
    """Options, seats or a join that cannot make a match."""
