"""A sandbox handle with the spec's per-sandbox surface: ``sb.mouse.click``, ``sb.exec``, …
``with client.create() as sb:`` deletes an ephemeral sandbox on exit."""
from __future__ import annotations

import base64
import os
import threading
from typing import Any, List, Literal, Optional, Sequence, Union, overload
from urllib.parse import quote

from ._exec_stream import ExecStream, OutputCallback, open_exec_stream
from ._files import PathLike, file_chunks, tar_stream, unpack, write_chunks
from ._http import Transport, new_idempotency_key
from ._types import (
    AccessibilityTree,
    Clipboard,
    DisplayInfo,
    ExecResult,
    ExecStreamResult,
    GradeResult,
    Json,
    Network,
    Ok,
    Position,
    SetupResult,
    SshCredentials,
    ViewerLink,
    WindowTree,
)
from .errors import SandbayError

DEFAULT_EXEC_TIMEOUT = 120
"""The spec's default for exec, exec_ssh and exec_ax, in seconds."""
DEFAULT_KEEPALIVE_INTERVAL = 30.0
"""The idle reaper acts after about 2 minutes: a heartbeat every 30 s keeps well inside that."""
SNAPSHOT_TIMEOUT = 26 * 60.0
FORK_TIMEOUT = 11 * 60.0  # the server waits up to 10 minutes for the forks to run
PAUSE_TIMEOUT = 70.0  # a pause or resume answers within a minute
#: The API's default deadline of a setup or a grading, in seconds.
DEFAULT_EVALUATION_TIMEOUT = 600.0
STREAM_UPLOAD_ABOVE = 64 << 20


class _Group:
    def __init__(self, t: Transport, base: str) -> None:
        self._t = t
        self._base = base


class Mouse(_Group):
    def click(self, x: int, y: int, button: str = "left", double: bool = False) -> Ok:
        return self._t.json("POST", f"{self._base}/mouse/click", json_body={"x": x, "y": y, "button": button, "double": double})

    def double_click(self, x: int, y: int, button: str = "left") -> Ok:
        return self.click(x, y, button=button, double=True)

    def move(self, x: int, y: int) -> Ok:
        return self._t.json("POST", f"{self._base}/mouse/move", json_body={"x": x, "y": y})

    def drag(self, start_x: int, start_y: int, end_x: int, end_y: int, button: str = "left") -> Ok:
        body = {"startX": start_x, "startY": start_y, "endX": end_x, "endY": end_y, "button": button}
        return self._t.json("POST", f"{self._base}/mouse/drag", json_body=body)

    def scroll(self, x: int, y: int, direction: str = "down", amount: int = 3) -> Ok:
        body = {"x": x, "y": y, "direction": direction, "amount": amount}
        return self._t.json("POST", f"{self._base}/mouse/scroll", json_body=body)

    def get_position(self) -> Position:
        return self._t.json("GET", f"{self._base}/mouse/position")


class Keyboard(_Group):
    def type(self, text: str, delay: Optional[int] = None) -> Ok:
        body: Json = {"text": text}
        if delay is not None:
            body["delay"] = delay
        return self._t.json("POST", f"{self._base}/keyboard/type", json_body=body)

    def press(self, key: str, modifiers: Optional[Sequence[str]] = None) -> Ok:
        body: Json = {"key": key}
        if modifiers is not None:
            body["modifiers"] = list(modifiers)
        return self._t.json("POST", f"{self._base}/keyboard/press", json_body=body)

    def hotkey(self, keys: Union[str, Sequence[str]]) -> Ok:
        """``"ctrl+c"`` or ``["ctrl", "c"]``."""
        joined = keys if isinstance(keys, str) else "+".join(keys)
        return self._t.json("POST", f"{self._base}/keyboard/hotkey", json_body={"keys": joined})


class Screenshot(_Group):
    def take_full_screen(self, show_cursor: bool = False) -> bytes:
        """PNG bytes of the whole screen."""
        return self._t.bytes("GET", f"{self._base}/screenshot", query={"show_cursor": show_cursor})

    def take_region(self, x: int, y: int, w: int, h: int) -> bytes:
        return self._t.bytes("GET", f"{self._base}/screenshot/region", query={"x": x, "y": y, "width": w, "height": h})

    def take_compressed(
        self, format: Optional[str] = None, quality: Optional[int] = None, scale: Optional[float] = None
    ) -> bytes:
        """JPEG (default) or PNG, optionally scaled down (``scale`` in (0, 1])."""
        query = {"format": format, "quality": quality, "scale": scale}
        return self._t.bytes("GET", f"{self._base}/screenshot/compressed", query=query)


class Display(_Group):
    def get_info(self) -> DisplayInfo:
        return self._t.json("GET", f"{self._base}/display/info")

    def get_windows(self) -> WindowTree:
        """The windows on screen (a list), each with its accessibility elements below it."""
        return self._t.json("GET", f"{self._base}/display/windows")


class Accessibility(_Group):
    def get_tree(self) -> AccessibilityTree:
        """Best effort: ``{"available": True, "tree": <the windows>}``, or ``available`` false with ``error``."""
        return self._t.json("GET", f"{self._base}/display/windows", query={"best_effort": "1"})


class Recording(_Group):
    def start(self, name: Optional[str] = None) -> Json:
        return self._t.json("POST", f"{self._base}/recording/start", json_body={} if name is None else {"name": name})

    def stop(self, id: str) -> Json:
        return self._t.json("POST", f"{self._base}/recording/stop", json_body={"id": id})

    def download(self, id: str, local_path: PathLike) -> None:
        res = self._t.call("GET", f"{self._base}/recordings/{quote(id, safe='')}/download")
        write_chunks(local_path, res.chunks())

    def list_all(self) -> List[Json]:
        return self._t.json("GET", f"{self._base}/recordings")

    def get(self, id: str) -> Json:
        return self._t.json("GET", f"{self._base}/recordings/{quote(id, safe='')}")

    def delete(self, id: str) -> None:
        self._t.none("DELETE", f"{self._base}/recordings/{quote(id, safe='')}")


class ClipboardGroup(_Group):
    def get(self, type: Optional[str] = None) -> Clipboard:
        """What the clipboard holds; ``type="image"`` (or ``"text"``) picks one when it offers both.
        An image comes back as PNG bytes in ``data``."""
        got: Clipboard = self._t.json("GET", f"{self._base}/clipboard", query={"type": type})
        if got.get("type") == "image":
            got["data"] = base64.b64decode(got["data"])
        return got

    def set_text(self, text: str) -> None:
        """Puts text on the clipboard (at most 1 MiB)."""
        self._t.none("PUT", f"{self._base}/clipboard", json_body={"type": "text", "text": text})

    def set_image(self, png: bytes) -> None:
        """Puts a PNG image on the clipboard (at most 8 MiB)."""
        body = {"type": "image", "mime_type": "image/png", "data": base64.b64encode(png).decode()}
        self._t.none("PUT", f"{self._base}/clipboard", json_body=body)


class Sandbox:
    def __init__(self, transport: Transport, id: str, ephemeral: bool) -> None:
        self._t = transport
        self.id = id
        self.ephemeral = ephemeral
        #: The create response, when this handle came from a create or a fork.
        self.created: Optional[Json] = None
        self._base = f"/v1/sandboxes/{quote(id, safe='')}"
        self.mouse = Mouse(transport, self._base)
        self.keyboard = Keyboard(transport, self._base)
        self.screenshot = Screenshot(transport, self._base)
        self.display = Display(transport, self._base)
        self.accessibility = Accessibility(transport, self._base)
        self.recording = Recording(transport, self._base)
        self.clipboard = ClipboardGroup(transport, self._base)
        self._keepalive_stop: Optional[threading.Event] = None

    def __repr__(self) -> str:
        return f"Sandbox({self.id!r}, ephemeral={self.ephemeral})"

    def info(self) -> Json:
        return self._t.json("GET", self._base)

    # ---- shell ----

    def exec(self, cmd: str, timeout: int = DEFAULT_EXEC_TIMEOUT) -> ExecResult:
        """A shell command over the VM's SSH; a non-zero exit is a result, not an error."""
        return self._exec(cmd, timeout, False)

    def exec_ax(self, cmd: str, timeout: int = DEFAULT_EXEC_TIMEOUT) -> ExecResult:
        """A command under the in-VM control agent's session (needed for accessibility APIs)."""
        return self._exec(cmd, timeout, True)

    def exec_ssh(self, cmd: str, timeout: int = DEFAULT_EXEC_TIMEOUT) -> ExecResult:
        """A command in a real SSH session through the SSH WebSocket (``sandbay[ssh]``: paramiko)."""
        from ._ssh import exec_over_ssh

        creds = self.ssh_credentials()
        ws = self._t.url(creds["ssh_url"]).replace("http", "ws", 1)
        return exec_over_ssh(ws, self._t.api_key, dict(creds), cmd, timeout)  # type: ignore[return-value]

    @overload
    def exec_stream(
        self,
        cmd: str,
        on_stdout: Optional[OutputCallback] = ...,
        on_stderr: Optional[OutputCallback] = ...,
        *,
        stdin: bool = ...,
        tty: bool = ...,
        cols: Optional[int] = ...,
        rows: Optional[int] = ...,
        timeout: Optional[int] = ...,
        background: Literal[False] = ...,
    ) -> ExecStreamResult: ...

    @overload
    def exec_stream(
        self,
        cmd: str,
        on_stdout: Optional[OutputCallback] = ...,
        on_stderr: Optional[OutputCallback] = ...,
        *,
        stdin: bool = ...,
        tty: bool = ...,
        cols: Optional[int] = ...,
        rows: Optional[int] = ...,
        timeout: Optional[int] = ...,
        background: Literal[True],
    ) -> ExecStream: ...

    def exec_stream(
        self,
        cmd: str,
        on_stdout: Optional[OutputCallback] = None,
        on_stderr: Optional[OutputCallback] = None,
        *,
        stdin: bool = False,
        tty: bool = False,
        cols: Optional[int] = None,
        rows: Optional[int] = None,
        timeout: Optional[int] = None,
        background: bool = False,
    ) -> Union[ExecStreamResult, ExecStream]:
        """A command whose output reaches ``on_stdout``/``on_stderr`` as it is written (a WebSocket,
        docs/api.md). Returns ``{stdout, stderr, exit_code, timed_out}`` once it exits; with
        ``background=True``, the running ``ExecStream`` at once (iterate it, ``send_stdin``,
        ``resize``, ``kill``, ``wait``). ``stdin=True`` keeps its stdin open; ``tty=True`` gives it a
        terminal of ``cols`` x ``rows``; ``timeout`` (seconds) kills it with exit code 124."""
        query = {"command": cmd, "stdin": stdin or None, "tty": tty or None, "cols": cols, "rows": rows, "timeout": timeout}
        url = self._t.url(f"{self._base}/exec/stream", query).replace("http", "ws", 1)
        stream = open_exec_stream(url, self._t.api_key, on_stdout, on_stderr)
        return stream if background else stream.wait()

    def port_url(self, port: int, path: str = "/") -> str:
        """The URL of a port of the sandbox (HTTP and WebSocket to 127.0.0.1:``port`` inside it), with
        a fresh viewer token: opens in a browser as is (E2B's ``get_host``)."""
        token: Json = self._t.json("POST", f"{self._base}/viewer-token")
        path = path if path.startswith("/") else f"/{path}"
        sep = "&" if "?" in path else "?"
        return f"{self._t.base_url}{self._base}/ports/{port}{path}{sep}sandbay_token={quote(token['token'], safe='')}"

    def _exec(self, cmd: str, timeout: int, ax: bool) -> ExecResult:
        body: Json = {"command": cmd, "timeout": timeout}
        if ax:
            body["ax"] = True
        return self._t.json("POST", f"{self._base}/exec", json_body=body, timeout=timeout + 30)

    def act(self, action: Json, screenshot_after: bool = True, screenshot_delay_ms: Optional[int] = None) -> Union[bytes, Json]:
        """One action (``{"type": "click", "x": 1, "y": 2}``), then PNG bytes; JSON without the screenshot."""
        body: Json = {"action": action, "screenshot_after": screenshot_after}
        if screenshot_delay_ms is not None:
            body["screenshot_delay_ms"] = screenshot_delay_ms
        res = self._t.call("POST", f"{self._base}/act", json_body=body)
        return res.json() if res.content_type.startswith("application/json") else res.read()

    def act_anthropic(self, tool_input: Json) -> Json:
        """Anthropic's computer tool input, unchanged; returns ``{"content": [...]}`` for its tool_result."""
        return self._t.json("POST", f"{self._base}/act", json_body=tool_input)

    def act_openai(self, action: Json) -> Json:
        """OpenAI's computer_call action, unchanged; returns the ``output`` of its computer_call_output."""
        return self._t.json("POST", f"{self._base}/act", json_body=action)

    # ---- files ----

    def upload(self, local: PathLike, remote: str) -> None:
        size = os.path.getsize(local)
        with open(local, "rb") as f:
            if size <= STREAM_UPLOAD_ABOVE:
                self._t.none("PUT", f"{self._base}/files", query={"path": remote}, body=f.read())
            else:
                self._t.none("PUT", f"{self._base}/files", query={"path": remote}, body=file_chunks(f), content_length=size)

    def upload_bytes(self, data: Union[bytes, str], p: str) -> None:
        body = data.encode() if isinstance(data, str) else bytes(data)
        self._t.none("PUT", f"{self._base}/files", query={"path": p}, body=body)

    def download_bytes(self, remote: str) -> bytes:
        return self._t.bytes("GET", f"{self._base}/files", query={"path": remote})

    def download_file(self, remote: str, local: PathLike) -> None:
        res = self._t.call("GET", f"{self._base}/files", query={"path": remote})
        write_chunks(local, res.chunks())

    def upload_dir(self, local: PathLike, remote: str) -> None:
        """Streams a local directory as a tar archive, unpacked into ``remote``."""
        self._t.none(
            "PUT",
            f"{self._base}/files/archive",
            query={"path": remote},
            body=tar_stream(local),
            content_type="application/x-tar",
        )

    def download_dir(self, remote: str, local: PathLike) -> List[str]:
        """Streams the directory ``remote`` as a tar archive into ``local``; returns the files written."""
        res = self._t.call("GET", f"{self._base}/files/archive", query={"path": remote})
        try:
            return unpack(res.raw, local)
        finally:
            res.close()

    # ---- access ----

    def viewer_link(self) -> ViewerLink:
        """A fresh viewer link (valid at most an hour): the live-view page and its VNC WebSocket."""
        token: Json = self._t.json("POST", f"{self._base}/viewer-token")
        return {
            "vnc_url": token["vnc_url"],
            "token": token["token"],
            "expires_at": token["expires_at"],
            "url": f"{self._t.base_url}/view/{quote(self.id, safe='')}?token={quote(token['token'], safe='')}",
            "websocket_url": self._t.url(token["vnc_url"]).replace("http", "ws", 1),
        }

    def revoke_viewer_links(self) -> None:
        """Revokes every viewer link of this sandbox minted so far: they answer 401 from now on and
        live views opened with one close (4003) within a second. The next ``viewer_link()`` mints a new one."""
        self._t.none("DELETE", f"{self._base}/viewer-token")

    def ssh_credentials(self) -> SshCredentials:
        return self._t.json("GET", f"{self._base}/ssh/credentials")

    # ---- network ----

    def network(self) -> Network:
        """The egress policy in force, and the modes the sandbox's Mac enforces."""
        return self._t.json("GET", f"{self._base}/network")

    def set_egress(self, mode: str, allow: Optional[Sequence[str]] = None) -> Network:
        """Changes the egress policy of the running sandbox; returns once it is in force. ``mode``:
        ``none``, ``all`` or ``allow`` (then ``allow``: IPv4 addresses or CIDRs and domains,
        ``*.example.com`` for subdomains)."""
        egress: Json = {"mode": mode} if allow is None else {"mode": mode, "allow": list(allow)}
        return self._t.json("PATCH", f"{self._base}/network", json_body={"egress": egress}, timeout=90.0)

    # ---- snapshots ----

    def snapshot(self, name: str, idempotency_key: Optional[str] = None) -> Json:
        """Captures the disk as a snapshot (retried safely with one Idempotency-Key)."""
        return self._t.json(
            "POST",
            f"{self._base}/snapshots",
            json_body={"name": name},
            idempotency_key=idempotency_key or new_idempotency_key(),
            timeout=SNAPSHOT_TIMEOUT,
        )

    def snapshots(self) -> List[Json]:
        return self._t.json("GET", f"{self._base}/snapshots")

    # ---- fork, pause ----

    def fork(self, count: int = 1, idempotency_key: Optional[str] = None) -> List["Sandbox"]:
        """``count`` new sandboxes started from a copy of this one's disk, all running (all fit, or
        none is made); retried safely with one Idempotency-Key. Each fork's create response is its
        ``created`` attribute."""
        result = self._t.json(
            "POST",
            f"{self._base}/fork",
            json_body={"count": count},
            idempotency_key=idempotency_key or new_idempotency_key(),
            timeout=FORK_TIMEOUT,
        )
        forks = []
        for created in result["sandboxes"]:
            fork = Sandbox(self._t, created["sandbox_id"], created["ephemeral"])
            fork.created = created
            forks.append(fork)
        return forks

    def pause(self) -> Json:
        """Freezes the sandbox where it is (memory kept, no CPU used); every other call answers 409
        ``sandbox_paused`` until resume()."""
        return self._t.json("POST", f"{self._base}/pause", idempotency_key=new_idempotency_key(), timeout=PAUSE_TIMEOUT)

    def resume(self) -> Json:
        """Lets a paused sandbox run on from where it was."""
        return self._t.json("POST", f"{self._base}/resume", idempotency_key=new_idempotency_key(), timeout=PAUSE_TIMEOUT)

    # ---- setup and grading (docs/evaluation.md) ----

    def setup(
        self,
        steps: Sequence[Json],
        timeout: Optional[float] = None,
        idempotency_key: Optional[str] = None,
    ) -> SetupResult:
        """Runs setup steps (``download``, ``launch``, ``open``, ``command``, ``sleep``) in order.

        A failed step is a result (``status == "failed"``, ``failed_step``, ``message``), not an
        error; a step of an unknown kind raises ``SandbayError`` (400 ``invalid_setup_step``).
        """
        return self._evaluate("setup", {"steps": list(steps)}, timeout, idempotency_key)

    def setup_task(
        self, task_id: str, timeout: Optional[float] = None, idempotency_key: Optional[str] = None
    ) -> SetupResult:
        """Runs a task's setup (its setup script, then its steps)."""
        return self._evaluate("setup", {"task_id": task_id}, timeout, idempotency_key)

    def grade(self, grader: Union[Json, str], timeout: Optional[float] = None) -> GradeResult:
        """Grades the sandbox: ``{"combine"?, "checks": [...]}`` (or a shell script) → a reward in [0, 1]."""
        return self._evaluate("grade", {"grader": grader}, timeout, None)

    def grade_task(self, task_id: str, timeout: Optional[float] = None) -> GradeResult:
        """Grades the sandbox with a task's grader."""
        return self._evaluate("grade", {"task_id": task_id}, timeout, None)

    def _evaluate(self, what: str, body: Json, timeout: Optional[float], key: Optional[str]) -> Any:
        if timeout is not None:
            body["timeout_s"] = timeout
        limit = (timeout if timeout is not None else DEFAULT_EVALUATION_TIMEOUT) + 90
        return self._t.json(
            "POST",
            f"{self._base}/{what}",
            json_body=body,
            idempotency_key=key or new_idempotency_key(),
            timeout=limit,
        )

    def done(self, outcome: Optional[str] = None, message: Optional[str] = None) -> Json:
        """An evaluation attempt's agent says it has finished (``outcome`` ``done``, the default) or
        gave up (``gave_up``): the attempt is graded now. Called with the attempt's agent key."""
        body: Json = {}
        if outcome is not None:
            body["outcome"] = outcome
        if message is not None:
            body["message"] = message
        return self._t.json("POST", f"{self._base}/done", json_body=body)

    # ---- lifetime ----

    def keepalive(self) -> Json:
        return self._t.json("POST", f"{self._base}/keepalive")

    def start_keepalive(self, interval: float = DEFAULT_KEEPALIVE_INTERVAL) -> None:
        """Sends a heartbeat every ``interval`` seconds (a daemon thread) until stop_keepalive()."""
        self.stop_keepalive()
        stop = threading.Event()
        self._keepalive_stop = stop

        def beat() -> None:
            while not stop.wait(interval):
                try:
                    self.keepalive()
                except SandbayError:
                    pass  # the next heartbeat tries again

        threading.Thread(target=beat, name=f"sandbay-keepalive-{self.id}", daemon=True).start()

    def stop_keepalive(self) -> None:
        if self._keepalive_stop is not None:
            self._keepalive_stop.set()
            self._keepalive_stop = None

    def delete(self) -> None:
        self.stop_keepalive()
        self._t.none("DELETE", self._base)

    def close(self) -> None:
        """Deletes an ephemeral sandbox (one already gone is fine); keeps a non-ephemeral one."""
        self.stop_keepalive()
        if not self.ephemeral:
            return
        try:
            self.delete()
        except SandbayError as err:
            if err.status != 404:
                raise

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
