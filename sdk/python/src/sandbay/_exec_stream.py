"""Streaming exec: ``GET …/exec/stream``, a WebSocket in Kubernetes' exec channel protocol (one
channel byte per message: 0 stdin, 1 stdout, 2 stderr, 3 the status with the exit code, 4 resize,
255 close). A reader thread hands output to ``on_stdout``/``on_stderr`` as it arrives and queues it
as events for iteration (``for event in stream``, or ``async for`` through the async client)."""
from __future__ import annotations

import codecs
import json
import queue
import socket
import threading
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, Union

from ._types import ExecEvent, ExecStreamResult
from ._websocket import WebSocketError, WebSocketStream
from .errors import SandbayConnectionError, SandbayError, error_of

PROTOCOL = "v5.channel.k8s.io"
STDIN, STDOUT, STDERR, STATUS, RESIZE, CLOSE = 0, 1, 2, 3, 4, 255
# The server pings every 30 s: this long without even a ping, the connection is gone.
QUIET_TIMEOUT = 120.0

OutputCallback = Callable[[str], Any]


def open_exec_stream(
    ws_url: str,
    api_key: str,
    on_stdout: Optional[OutputCallback],
    on_stderr: Optional[OutputCallback],
) -> "ExecStream":
    try:
        ws = WebSocketStream(ws_url, {"Authorization": f"Bearer {api_key}"}, protocols=[PROTOCOL], messages=True)
    except WebSocketError as err:
        if err.status:
            raise error_of(err.status, err.body, err.request_id) from None
        raise SandbayConnectionError(f"exec stream: {err}") from None
    except OSError as err:
        raise SandbayConnectionError(f"exec stream: {err}") from None
    ws.settimeout(QUIET_TIMEOUT)
    return ExecStream(ws, on_stdout, on_stderr)


class ExecStream:
    """A running command. Iterate it for ``{"type": "stdout"|"stderr", "data": str}`` events and a
    last ``{"type": "exit", "exit_code": int, "timed_out": bool}``; ``wait()`` for the result."""

    def __init__(self, ws: WebSocketStream, on_stdout: Optional[OutputCallback], on_stderr: Optional[OutputCallback]) -> None:
        self._ws = ws
        self._callbacks = {STDOUT: on_stdout, STDERR: on_stderr}
        self._decoders = {c: codecs.getincrementaldecoder("utf-8")("replace") for c in (STDOUT, STDERR)}
        self._text: Dict[int, List[str]] = {STDOUT: [], STDERR: []}
        self._events: "queue.Queue[Optional[ExecEvent]]" = queue.Queue()
        self._done = threading.Event()
        self._result: Optional[ExecStreamResult] = None
        self._error: Optional[SandbayError] = None
        threading.Thread(target=self._read, name="sandbay-exec-stream", daemon=True).start()

    # ---- the command's side ----

    def send_stdin(self, data: Union[str, bytes]) -> None:
        """Writes to the command's stdin (opened with ``stdin=True``)."""
        payload = data.encode() if isinstance(data, str) else bytes(data)
        self._ws.send_message(bytes([STDIN]) + payload)

    def close_stdin(self) -> None:
        """Closes the command's stdin: it reads EOF."""
        self._ws.send_message(bytes([CLOSE, STDIN]))

    def resize(self, cols: int, rows: int) -> None:
        """New terminal size (a tty)."""
        self._ws.send_message(bytes([RESIZE]) + json.dumps({"Width": cols, "Height": rows}).encode())

    def kill(self) -> None:
        """Hangs the command up (SIGHUP to its process group, as when a terminal closes)."""
        self._ws.close()

    def wait(self, timeout: Optional[float] = None) -> ExecStreamResult:
        """Blocks until the command exits; its output and exit code."""
        if not self._done.wait(timeout):
            raise SandbayConnectionError(f"exec stream: the command did not exit within {timeout} s")
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result

    def next_event(self) -> Optional[ExecEvent]:
        """The next event (blocking); None after the last one."""
        event = self._events.get()
        if event is None:
            self._events.put(None)  # later callers see the end too
            if self._error is not None:
                raise self._error
        return event

    def __iter__(self) -> Iterator[ExecEvent]:
        while True:
            event = self.next_event()
            if event is None:
                return
            yield event

    # ---- the reader thread ----

    def _read(self) -> None:
        status: Optional[Dict[str, Any]] = None
        try:
            while True:
                message = self._ws.recv_message()
                if message is None:
                    break
                channel, body = message[0], message[1:]
                if channel in (STDOUT, STDERR):
                    self._output(channel, self._decoders[channel].decode(body))
                elif channel == STATUS:
                    status = json.loads(body)
        except (OSError, socket.timeout, ValueError) as err:
            self._error = SandbayConnectionError(f"exec stream: {err}")
        finally:
            for channel in (STDOUT, STDERR):
                self._output(channel, self._decoders[channel].decode(b"", final=True))
            self._finish(status)
            self._ws.close()

    def _output(self, channel: int, text: str) -> None:
        if not text:
            return
        self._text[channel].append(text)
        callback = self._callbacks[channel]
        if callback is not None:
            callback(text)
        self._events.put({"type": "stdout" if channel == STDOUT else "stderr", "data": text})

    def _finish(self, status: Optional[Dict[str, Any]]) -> None:
        exit_code, timed_out = _exit_of(status)
        if self._error is None and exit_code < 0:
            why = f"{self._ws.close_code} {self._ws.close_reason}".strip()
            self._error = SandbayConnectionError(f"exec stream closed before the command's end was seen ({why})")
        if self._error is None:
            self._result = {
                "stdout": "".join(self._text[STDOUT]),
                "stderr": "".join(self._text[STDERR]),
                "exit_code": exit_code,
                "timed_out": timed_out,
            }
            self._events.put({"type": "exit", "exit_code": exit_code, "timed_out": timed_out})
        self._events.put(None)
        self._done.set()


def _exit_of(status: Optional[Dict[str, Any]]) -> Tuple[int, bool]:
    """The exit code of a status frame (kubelet's shape); -1 without one that reports an exit."""
    if status is None:
        return (-1, False)
    if status.get("status") == "Success":
        return (0, False)
    causes = (status.get("details") or {}).get("causes") or []
    codes = [c.get("message") for c in causes if c.get("reason") == "ExitCode"]
    timed_out = any(c.get("reason") == "TimedOut" for c in causes)
    return (int(codes[0]) if codes else -1, timed_out)
