"""What the client raises: the server's refusals by their stable code, and closed feeds."""

from __future__ import annotations

from typing import Any


class ScorpionError(Exception):
    """Anything this client raises."""


class ApiError(ScorpionError):
    """The server refused a request: ``status``, its stable ``code`` (docs/api.md#errors),
    the translated ``detail``, ``fields`` for a 400, and ``retry_after``: the seconds its
    ``Retry-After`` said to wait (a 429 or 503), else ``None``."""

    def __init__(self, status: int, body: Any, retry_after: float | None = None) -> None:
        body = body if isinstance(body, dict) else {}
        self.status = status
        self.retry_after = retry_after
        self.code: str = str(body.get("code", "unknown"))
        self.detail: str = str(body.get("detail", ""))
        self.fields: dict[str, list[str]] = dict(body.get("fields") or {})
        self.body: dict[str, Any] = body
        super().__init__(f"{status} {self.code}: {self.detail}")


class FeedClosed(ScorpionError):
    """A feed the server closed for good (a refusal such as 4403 or 4404), or that could not
    be reopened within the client's attempts; ``code`` is the last close code, if any."""

    def __init__(self, code: int | None, reason: str = "") -> None:
        self.code = code
        self.reason = reason
        super().__init__(f"feed closed ({code}){': ' + reason if reason else ''}")
