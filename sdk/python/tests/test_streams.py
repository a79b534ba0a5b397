"""The Python SDK's streaming exec, forwarded ports and clipboard against a live sandbay (started by
sdk/python/python-sdk-streams.test.ts with SANDBAY_URL, SANDBAY_API_KEY and SANDBAY_ECHO_SERVER), each
checked by its effect; and the Kubernetes Python client's own exec WebSocket client on the same
endpoint."""
from __future__ import annotations

import asyncio
import os
import struct
import time
import unittest
import urllib.request
import zlib
from typing import Any, Callable, List

from sandbay import AsyncClient, AsyncExecStream, Client, SandbayConnectionError, SandbayError, Sandbox

PORT = 8767


def wait_for(probe: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    """test_live.py's: the test modules are not a package, so each keeps its own."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def tiny_png(width: int, height: int) -> bytes:
    """A solid grey PNG, built with zlib (the standard library has no image module)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"".join(b"\0" + b"\x80" * width for _ in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


class StreamsTest(unittest.TestCase):
    client: Client
    sb: Sandbox

    @classmethod
    def setUpClass(cls) -> None:
        cls.client = Client()
        cls.sb = cls.client.create(ephemeral=False)

    def test_exec_stream_hands_output_on_as_written_and_ends_with_the_exit_code(self) -> None:
        seen: List[str] = []
        stream = self.sb.exec_stream(
            'echo ready; read x; echo "after $x"; echo oops >&2; exit 6',
            on_stdout=seen.append,
            on_stderr=lambda d: seen.append(f"err:{d}"),
            stdin=True,
            background=True,
        )
        # The command waits on its stdin: what came so far came before its end.
        wait_for(lambda: "".join(seen) == "ready\n", "the first line")
        stream.send_stdin("go\n")
        stream.close_stdin()
        self.assertEqual(
            stream.wait(30), {"stdout": "ready\nafter go\n", "stderr": "oops\n", "exit_code": 6, "timed_out": False}
        )
        self.assertEqual("".join(seen), "ready\nafter go\nerr:oops\n")

    def test_exec_stream_waits_by_default_and_iterates_events(self) -> None:
        self.assertEqual(self.sb.exec_stream("echo hi")["stdout"], "hi\n")
        events = list(self.sb.exec_stream("echo a; exit 2", background=True))
        self.assertEqual(events, [{"type": "stdout", "data": "a\n"}, {"type": "exit", "exit_code": 2, "timed_out": False}])

    def test_exec_stream_pty_resize_timeout_and_kill(self) -> None:
        out: List[str] = []
        stream = self.sb.exec_stream(
            "stty size; read x; stty size", out.append, tty=True, stdin=True, cols=60, rows=15, background=True
        )
        wait_for(lambda: "15 60" in "".join(out), "the first size")
        stream.resize(111, 22)
        stream.send_stdin("\r")
        self.assertEqual(stream.wait(30)["exit_code"], 0)
        self.assertTrue("".join(out).endswith("22 111\r\n"), "".join(out))
        self.assertEqual(self.sb.exec_stream("sleep 3730", timeout=1)["exit_code"], 124)
        running = self.sb.exec_stream("echo up; sleep 3731", background=True)
        self.assertEqual(running.next_event(), {"type": "stdout", "data": "up\n"})
        running.kill()
        with self.assertRaises(SandbayConnectionError):
            running.wait(30)
        wait_for(lambda: self.sb.exec("pgrep -f 'sleep 373[1]'")["return_code"] == 1, "the sleep hung up")

    def test_exec_stream_refusals_carry_the_api_code(self) -> None:
        with self.assertRaises(SandbayError) as ctx:
            self.client.get(self.sb.id).exec_stream("true", timeout=0)
        self.assertEqual((ctx.exception.status, ctx.exception.code), (400, "invalid_request"))
        other = Sandbox(self.client._t, f"sb-{'0' * 32}", False)
        with self.assertRaises(SandbayError) as ctx:
            other.exec_stream("true")
        self.assertEqual((ctx.exception.status, ctx.exception.code), (404, "sandbox_not_found"))

    def test_async_exec_stream_is_an_async_iterator(self) -> None:
        async def main() -> List[Any]:
            sb = await AsyncClient().get(self.sb.id)
            stream = await sb.exec_stream("echo one; echo two >&2", background=True)
            assert isinstance(stream, AsyncExecStream)
            return [e async for e in stream]

        events = asyncio.run(main())
        self.assertIn({"type": "stdout", "data": "one\n"}, events)
        self.assertIn({"type": "stderr", "data": "two\n"}, events)
        self.assertEqual(events[-1], {"type": "exit", "exit_code": 0, "timed_out": False})

    def test_port_url_opens_a_server_inside_the_sandbox(self) -> None:
        with open(os.environ["SANDBAY_ECHO_SERVER"], "rb") as f:
            self.sb.upload_bytes(f.read(), "port-echo-server.py")
        self.sb.exec(f"nohup /usr/bin/python3 port-echo-server.py {PORT} >/dev/null 2>&1 &")
        url = self.sb.port_url(PORT, "/echo?y=2")

        def get() -> Any:
            try:
                with urllib.request.urlopen(url, timeout=10) as res:
                    return res.read()
            except OSError:
                return None

        self.assertIn(b'"path": "/echo?y=2"', wait_for(get, "the server"))

    def test_clipboard_text_and_image(self) -> None:
        self.sb.clipboard.set_text("py ✓")
        self.assertEqual(self.sb.clipboard.get(), {"type": "text", "text": "py ✓"})
        png = tiny_png(6, 2)
        self.sb.clipboard.set_image(png)
        got = self.sb.clipboard.get(type="image")
        self.assertEqual(got["type"], "image")
        self.assertEqual(struct.unpack(">II", got["data"][16:24]), (6, 2))
        with self.assertRaises(SandbayError) as ctx:
            self.sb.clipboard.set_image(b"GIF89a")
        self.assertEqual((ctx.exception.status, ctx.exception.code), (400, "invalid_argument"))

    def test_the_kubernetes_clients_ws_client_runs_a_command(self) -> None:
        from kubernetes.client import Configuration  # type: ignore[import]
        from kubernetes.stream.ws_client import WSClient  # type: ignore[import]

        base = os.environ["SANDBAY_URL"].replace("http", "ws", 1)
        url = f"{base}/v1/sandboxes/{self.sb.id}/exec/stream?command=sh&command=-c&command=echo+k8s%3B+exit+9"
        ws = WSClient(Configuration(), url, {"authorization": f"Bearer {os.environ['SANDBAY_API_KEY']}"}, True)
        ws.run_forever(timeout=30)
        # returncode first: this client's read_all() empties every channel, the status's too.
        self.assertEqual(ws.returncode, 9)
        self.assertEqual(ws.read_all(), "k8s\n")


if __name__ == "__main__":
    unittest.main()
