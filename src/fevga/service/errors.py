"""The error the HTTP API answers with: a status, a code and a message (docs/http.md)."""

from __future__ import annotations

from fevga.errors import FevgaError


class ApiError(FevgaError):
    """An error answered as it is: a status, a code and a message (a FevgaError, as every error
    of the package is)."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
