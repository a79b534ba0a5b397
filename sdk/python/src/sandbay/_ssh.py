"""exec_ssh: a command in a real SSH session through the API's SSH WebSocket, logged in with the
VM's own credentials. Needs paramiko (``pip install sandbay[ssh]``; Debian: python3-paramiko)."""
from __future__ import annotations

import io
import socket
import time
from typing import Any, Dict

from ._websocket import WebSocketStream


def exec_over_ssh(ws_url: str, api_key: str, creds: Dict[str, Any], command: str, timeout: float) -> Dict[str, Any]:
    try:
        import paramiko
    except ImportError as err:  # the optional extra is not installed
        raise ImportError("exec_ssh needs paramiko: pip install 'sandbay[ssh]'") from err
    key = _private_key(paramiko, creds["private_key"])
    stream = WebSocketStream(ws_url, {"Authorization": f"Bearer {api_key}"})
    client = paramiko.SSHClient()
    # The host is reached only through the authenticated API: the WebSocket is the trust anchor.
    client.set_missing_host_key_policy(paramiko.AutoAddPolicy())
    try:
        client.connect(
            "sandbox",
            username=creds["username"],
            pkey=key,
            sock=stream,
            look_for_keys=False,
            allow_agent=False,
            timeout=30,
            banner_timeout=30,
            auth_timeout=30,
        )
        chan = client.get_transport().open_session()
        chan.settimeout(0.2)
        chan.exec_command(command)
        out, errs = bytearray(), bytearray()
        deadline = time.monotonic() + timeout
        while True:
            got = False
            for recv, buf in ((chan.recv, out), (chan.recv_stderr, errs)):
                try:
                    data = recv(65536)
                except socket.timeout:
                    continue
                if data:
                    buf += data
                    got = True
            if chan.exit_status_ready() and not chan.recv_ready() and not chan.recv_stderr_ready():
                break
            if time.monotonic() > deadline:
                return {"stdout": out.decode(), "stderr": errs.decode(), "return_code": 124, "timed_out": True}
            if not got and chan.closed:
                break
        return {
            "stdout": out.decode("utf-8", "replace"),
            "stderr": errs.decode("utf-8", "replace"),
            "return_code": chan.recv_exit_status(),
            "timed_out": False,
        }
    finally:
        client.close()
        stream.close()


def _private_key(paramiko: Any, text: str) -> Any:
    for cls in (paramiko.Ed25519Key, paramiko.ECDSAKey, paramiko.RSAKey):
        try:
            return cls.from_private_key(io.StringIO(text))
        except Exception:  # noqa: BLE001 - wrong key type: try the next
            continue
    raise ValueError("exec_ssh: unsupported private key type")
