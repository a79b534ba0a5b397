"""A minimal RFC 6455 WebSocket client (binary messages), standard library only.

Used as paramiko's ``sock`` for ``exec_ssh``: it behaves like a socket (``send``, ``recv``,
``settimeout``, ``close``), carrying the bytes of the SSH session in binary messages. Raw bytes are
buffered before frames are parsed, so a socket timeout in the middle of a frame loses nothing.
``exec_stream`` reads it message by message instead (``recv_message``, ``send_message``).
"""
from __future__ import annotations

import base64
import hashlib
import os
import socket
import ssl
import struct
import threading
from typing import Dict, List, Optional
from urllib.parse import urlsplit

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


class WebSocketError(Exception):
    """The upgrade was refused (``status`` and ``body`` of the answer) or the connection failed."""

    def __init__(self, message: str, status: int = 0, body: bytes = b"", request_id: Optional[str] = None) -> None:
        super().__init__(message)
        self.status = status
        self.body = body
        self.request_id = request_id


class WebSocketStream:
    def __init__(
        self,
        url: str,
        headers: Dict[str, str],
        timeout: float = 30.0,
        protocols: Optional[List[str]] = None,
        messages: bool = False,
    ) -> None:
        parts = urlsplit(url)
        secure = parts.scheme == "wss"
        port = parts.port or (443 if secure else 80)
        host = parts.hostname or "localhost"
        sock = socket.create_connection((host, port), timeout=timeout)
        if secure:
            sock = ssl.create_default_context().wrap_socket(sock, server_hostname=host)
        self._sock = sock
        self._raw = b""  # bytes read from the socket, not yet parsed into frames
        self._data = b""  # payload of received binary messages, not yet returned by recv
        self._closed = False
        self._message_mode = messages  # recv_message, not recv: message boundaries are kept
        self._messages: List[bytes] = []  # whole messages, for recv_message
        self._partial = b""  # a fragmented message's payload so far
        self._send_lock = threading.Lock()  # a reader thread answers pings while others send
        self.close_code: Optional[int] = None
        self.close_reason = ""
        self.protocol = ""
        key = base64.b64encode(os.urandom(16)).decode()
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        lines = [
            f"GET {path} HTTP/1.1",
            f"Host: {parts.netloc}",
            "Upgrade: websocket",
            "Connection: Upgrade",
            f"Sec-WebSocket-Key: {key}",
            "Sec-WebSocket-Version: 13",
        ] + [f"{k}: {v}" for k, v in headers.items()]
        if protocols:
            lines.append(f"Sec-WebSocket-Protocol: {', '.join(protocols)}")
        sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        while b"\r\n\r\n" not in self._raw:
            chunk = sock.recv(4096)
            if not chunk:
                raise WebSocketError("the server closed the connection during the upgrade")
            self._raw += chunk
        head, self._raw = self._raw.split(b"\r\n\r\n", 1)
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        got = {k.strip().lower(): v.strip() for k, v in (h.split(":", 1) for h in header_lines if ":" in h)}
        if " 101 " not in f"{status_line} ":
            self._refused(status_line, got)
        expected = base64.b64encode(hashlib.sha1(key.encode() + _GUID).digest()).decode()
        if got.get("sec-websocket-accept") != expected:
            raise WebSocketError("WebSocket upgrade: wrong Sec-WebSocket-Accept")
        self.protocol = got.get("sec-websocket-protocol", "")

    def _refused(self, status_line: str, headers: Dict[str, str]) -> None:
        """Raises the refusal with the answer's status and body (the API's JSON error)."""
        n = int(headers.get("content-length") or 0)
        try:
            while len(self._raw) < n:
                chunk = self._sock.recv(65536)
                if not chunk:
                    break
                self._raw += chunk
        finally:
            self._sock.close()
        parts = status_line.split(" ", 2)
        status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
        raise WebSocketError(
            f"WebSocket upgrade refused: {status_line}", status, self._raw[:n], headers.get("x-request-id")
        )

    # ---- messages (exec_stream) ----

    def send_message(self, data: bytes) -> None:
        """One binary message."""
        self._send_frame(0x2, bytes(data))

    def recv_message(self) -> Optional[bytes]:
        """The next whole message (text or binary), or None once the connection closed."""
        while not self._messages:
            if self._closed:
                return None
            self._read_frame()
        return self._messages.pop(0)

    # ---- the socket interface paramiko uses ----

    def settimeout(self, timeout: Optional[float]) -> None:
        self._sock.settimeout(timeout)

    def gettimeout(self) -> Optional[float]:
        return self._sock.gettimeout()

    def send(self, data: bytes) -> int:
        self._send_frame(0x2, bytes(data))
        return len(data)

    def sendall(self, data: bytes) -> None:
        self.send(data)

    def recv(self, n: int) -> bytes:
        while not self._data:
            if self._closed:
                return b""
            self._read_frame()
        out, self._data = self._data[:n], self._data[n:]
        return out

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            try:
                self._send_frame(0x8, struct.pack("!H", 1000))
            except OSError:
                pass
        self._sock.close()

    # ---- frames ----

    def _send_frame(self, opcode: int, payload: bytes) -> None:
        n = len(payload)
        if n < 126:
            head = struct.pack("!BB", 0x80 | opcode, 0x80 | n)
        elif n < 1 << 16:
            head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, n)
        else:
            head = struct.pack("!BBQ", 0x80 | opcode, 0x80 | 127, n)
        mask = os.urandom(4)
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload)) if n < 64 else _xor(payload, mask)
        with self._send_lock:
            self._sock.sendall(head + mask + body)

    def _need(self, n: int) -> bool:
        """Reads until ``n`` raw bytes are buffered; False at the end of the stream."""
        while len(self._raw) < n:
            chunk = self._sock.recv(max(65536, n - len(self._raw)))  # may raise socket.timeout
            if not chunk:
                return False
            self._raw += chunk
        return True

    def _read_frame(self) -> None:
        if not self._need(2):
            self._closed = True
            return
        b0, b1 = self._raw[0], self._raw[1]
        length, at = b1 & 0x7F, 2
        if length == 126:
            if not self._need(4):
                self._closed = True
                return
            length, at = struct.unpack("!H", self._raw[2:4])[0], 4
        elif length == 127:
            if not self._need(10):
                self._closed = True
                return
            length, at = struct.unpack("!Q", self._raw[2:10])[0], 10
        masked = b1 & 0x80
        mask_at = at
        if masked:
            at += 4
        if not self._need(at + length):
            self._closed = True
            return
        payload = self._raw[at : at + length]
        if masked:
            payload = _xor(payload, self._raw[mask_at : mask_at + 4])
        self._raw = self._raw[at + length :]
        opcode = b0 & 0x0F
        fin = b0 & 0x80
        if opcode in (0x0, 0x1, 0x2):
            if not self._message_mode:
                self._data += payload
                return
            self._partial += payload
            if fin:
                self._messages.append(self._partial)
                self._partial = b""
        elif opcode == 0x8:
            self._closed = True
            if len(payload) >= 2:
                self.close_code = struct.unpack("!H", payload[:2])[0]
                self.close_reason = payload[2:].decode("utf-8", "replace")
            try:
                self._send_frame(0x8, payload[:2])
            except OSError:
                pass
        elif opcode == 0x9:
            self._send_frame(0xA, payload)


def _xor(data: bytes, mask: bytes) -> bytes:
    n = len(data)
    key = int.from_bytes((mask * (n // 4 + 1))[:n], "big")
    return (int.from_bytes(data, "big") ^ key).to_bytes(n, "big")
