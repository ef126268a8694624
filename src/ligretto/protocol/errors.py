"""The one error of the protocol: a message that cannot be accepted."""

from __future__ import annotations


class ProtocolError(ValueError):
    """A client message that cannot be accepted; ``code`` is machine-readable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
