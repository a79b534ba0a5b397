"""Typed errors. Every API error is JSON ``{error, message}``: SandbayError carries that code."""
from __future__ import annotations

import json
from typing import Optional


class SandbayError(Exception):
    """An error answer of the API (status >= 400); ``code`` is the API's error code."""

    def __init__(self, status: int, code: str, message: str, request_id: Optional[str] = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.request_id = request_id


class SandbayTimeoutError(SandbayError):
    """The call did not finish within its timeout."""

    def __init__(self, message: str, timeout: float) -> None:
        super().__init__(0, "timeout", message)
        self.timeout = timeout


class SandbayConnectionError(SandbayError):
    """No answer: the connection failed or was reset (after the retries the call allowed)."""

    def __init__(self, message: str) -> None:
        super().__init__(0, "connection_failed", message)


def error_of(status: int, body: bytes, request_id: Optional[str]) -> SandbayError:
    code = f"http_{status}"
    message = body.decode("utf-8", "replace")
    try:
        parsed = json.loads(body)
        if isinstance(parsed, dict):
            code = str(parsed.get("error", code))
            message = str(parsed.get("message", message))
    except ValueError:
        pass  # not JSON (a proxy's page): the status and the raw text say what happened
    return SandbayError(status, code, message, request_id)
