"""The transport's kept-alive connection against a local HTTP server (no sandbay needed)."""

from __future__ import annotations

import http.server
import threading
import unittest
from typing import Any

from sandbay._http import Transport

DATA = b"tar-like payload that a reader consumes exactly"


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Set by the test once it has read DATA: only then does the last chunk go out, as when it
    # arrives in a later TCP segment than the data.
    data_read: threading.Event

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if self.path == "/archive":
            self.send_response(200)
            self.send_header("Content-Type", "application/x-tar")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(DATA), DATA))
            self.wfile.flush()
            self.data_read.wait(10)
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
            return
        body = b'{"ok": true}'
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class KeptAliveConnection(unittest.TestCase):
    def test_a_body_read_short_of_its_last_chunk_does_not_corrupt_the_next_answer(self) -> None:
        data_read = threading.Event()
        handler = type("Handler", (_Handler,), {"data_read": data_read})
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            t = Transport("sbk_test", f"http://127.0.0.1:{server.server_address[1]}", 10, 0)
            res = t.call("GET", "/archive")
            self.assertEqual(res.raw.read(len(DATA)), DATA)  # a tar reader stops here
            data_read.set()
            res.close()
            self.assertEqual(t.json("GET", "/next"), {"ok": True})
        finally:
            server.shutdown()
            server.server_close()


if __name__ == "__main__":
    unittest.main()
