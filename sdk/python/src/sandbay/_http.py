"""One HTTP call with the SDK's policies (the same as the TypeScript SDK's).

Bearer auth, Idempotency-Key, timeouts, and retries of connection failures and 5xx answers with
exponential backoff. A call is retried only when repeating it is safe: GET/PUT/DELETE, or a
POST/PATCH carrying an Idempotency-Key (the server then replays the first outcome). A keyed 5xx that
is itself a replay (``Idempotent-Replayed: true``) is final. A streamed body is never retried.
Connections are kept alive, one per thread (http.client connections are not thread-safe).
"""
from __future__ import annotations

import http.client
import json
import random
import select
import socket
import threading
import time
import uuid
from typing import Any, Dict, Iterable, Mapping, Optional, Union
from urllib.parse import urlencode, urlsplit

from .errors import SandbayConnectionError, SandbayTimeoutError, error_of

Body = Union[bytes, Iterable[bytes], None]
_IDEMPOTENT = frozenset(("GET", "PUT", "DELETE"))


def new_idempotency_key() -> str:
    return str(uuid.uuid4())


class Response:
    """A 2xx answer whose body has not been read yet (read it, or close it)."""

    def __init__(self, conn: http.client.HTTPConnection, res: http.client.HTTPResponse) -> None:
        self._conn = conn
        self.raw = res
        self.status = res.status
        self.content_type = res.getheader("content-type", "") or ""

    def read(self) -> bytes:
        return self.raw.read()

    def json(self) -> Any:
        return json.loads(self.raw.read())

    def chunks(self, size: int = 1 << 20) -> Iterable[bytes]:
        while True:
            c = self.raw.read(size)
            if not c:
                return
            yield c

    def close(self) -> None:
        self.raw.close()


class Transport:
    def __init__(self, api_key: str, base_url: str, timeout: float, max_retries: int) -> None:
        self.api_key = api_key
        self.base_url = base_url.rstrip("/")
        parts = urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"sandbay: base_url must be http(s)://host[:port], not {base_url!r}")
        self._https = parts.scheme == "https"
        self.host = parts.hostname
        self.port = parts.port or (443 if self._https else 80)
        self._prefix = parts.path.rstrip("/")
        self.timeout = timeout
        self.max_retries = max_retries
        self._local = threading.local()

    def url(self, path: str, query: Optional[Mapping[str, Any]] = None) -> str:
        return self.base_url + self._target(path, query)[len(self._prefix):]

    def _target(self, path: str, query: Optional[Mapping[str, Any]]) -> str:
        target = self._prefix + path
        if query:
            q = {k: _wire(v) for k, v in query.items() if v is not None}
            if q:
                target += "?" + urlencode(q)
        return target

    def _connection(self, timeout: float) -> http.client.HTTPConnection:
        conn: Optional[http.client.HTTPConnection] = getattr(self._local, "conn", None)
        if conn is None:
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            conn = cls(self.host, self.port, timeout=timeout)
            self._local.conn = conn
        conn.timeout = timeout
        if conn.sock is not None:
            # An idle kept-alive connection the server has closed reads as ready (EOF): reconnect
            # now, rather than fail a call that must not be retried (urllib3 does the same).
            if select.select([conn.sock], [], [], 0)[0]:
                conn.close()
            else:
                conn.sock.settimeout(timeout)
        return conn

    def _drop(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def call(
        self,
        method: str,
        path: str,
        *,
        query: Optional[Mapping[str, Any]] = None,
        json_body: Any = None,
        body: Body = None,
        content_type: str = "application/octet-stream",
        content_length: Optional[int] = None,
        idempotency_key: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> Response:
        headers: Dict[str, str] = {"Authorization": f"Bearer {self.api_key}"}
        data: Body = None
        if json_body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(json_body).encode()
        elif body is not None:
            headers["Content-Type"] = content_type
            data = body
        if idempotency_key is not None:
            headers["Idempotency-Key"] = idempotency_key
        streamed = data is not None and not isinstance(data, (bytes, bytearray, memoryview))
        if streamed and content_length is not None:
            headers["Content-Length"] = str(content_length)
        retryable = not streamed and (method in _IDEMPOTENT or idempotency_key is not None)
        target = self._target(path, query)
        limit = self.timeout if timeout is None else timeout
        attempt = 0
        while True:
            last = not retryable or attempt >= self.max_retries
            conn = self._connection(limit)
            try:
                conn.request(
                    method,
                    target,
                    body=data,
                    headers=headers,
                    encode_chunked=streamed and content_length is None,
                )
                res = conn.getresponse()
            except socket.timeout:
                self._drop()
                raise SandbayTimeoutError(f"{method} {path}: no answer within {limit} s", limit) from None
            except (ConnectionError, http.client.HTTPException, OSError) as err:
                self._drop()
                if last:
                    raise SandbayConnectionError(f"{method} {path}: {err!r}") from err
                _backoff(attempt, None)
                attempt += 1
                continue
            if 200 <= res.status < 300:
                return Response(conn, res)
            payload = res.read()
            replayed = res.getheader("idempotent-replayed") == "true"
            if res.status >= 500 and not last and not replayed:
                _backoff(attempt, res.getheader("retry-after"))
                attempt += 1
                continue
            raise error_of(res.status, payload, res.getheader("x-request-id"))

    def json(self, method: str, path: str, **kw: Any) -> Any:
        return self.call(method, path, **kw).json()

    def bytes(self, method: str, path: str, **kw: Any) -> bytes:
        return self.call(method, path, **kw).read()

    def none(self, method: str, path: str, **kw: Any) -> None:
        self.call(method, path, **kw).read()


def _wire(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _backoff(attempt: int, retry_after: Optional[str]) -> None:
    """0.1 s, 0.2 s, 0.4 s … (at most 5 s) with jitter; a Retry-After in seconds wins (at most 30 s)."""
    try:
        delay = min(float(retry_after), 30.0) if retry_after else None
    except ValueError:
        delay = None
    if delay is None:
        delay = min(0.1 * 2**attempt, 5.0) * (0.5 + random.random() / 2)
    time.sleep(delay)
