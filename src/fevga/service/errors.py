"""The error the HTTP API answers with: a status, a code and a message (docs/http.md)."""

from __future__ import annotations


class ApiError(Exception):
    """An error answered as it is: a status, a code and a message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
