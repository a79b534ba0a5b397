"""The asyncio client: the same methods as the sync one, awaited. Each call runs the sync SDK in a
worker thread (``asyncio.to_thread``), so it stays standard-library only; every thread keeps its own
kept-alive connection."""
from __future__ import annotations

import asyncio
import functools
from typing import Any, List, Optional, Tuple, Union

from ._exec_stream import ExecStream, OutputCallback
from ._types import ExecEvent, ExecStreamResult
from .client import Client
from .sandbox import Sandbox


class _Async:
    """Wraps an object: its methods become coroutines, its method groups (``mouse``…) wrapped too."""

    _GROUPS: Tuple[str, ...] = ()

    def __init__(self, target: Any) -> None:
        self._target = target
        for name in self._GROUPS:
            setattr(self, name, _Async(getattr(target, name)))

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._target, name)
        if not callable(attr):
            return attr

        @functools.wraps(attr)
        async def call(*args: Any, **kw: Any) -> Any:
            return await asyncio.to_thread(attr, *args, **kw)

        return call


class AsyncExecStream:
    """A running command for asyncio: ``async for event in stream``, ``await stream.wait()``."""

    def __init__(self, stream: ExecStream) -> None:
        self._stream = stream

    def send_stdin(self, data: Union[str, bytes]) -> None:
        self._stream.send_stdin(data)

    def close_stdin(self) -> None:
        self._stream.close_stdin()

    def resize(self, cols: int, rows: int) -> None:
        self._stream.resize(cols, rows)

    def kill(self) -> None:
        self._stream.kill()

    async def wait(self) -> ExecStreamResult:
        return await asyncio.to_thread(self._stream.wait)

    def __aiter__(self) -> "AsyncExecStream":
        return self

    async def __anext__(self) -> ExecEvent:
        event = await asyncio.to_thread(self._stream.next_event)
        if event is None:
            raise StopAsyncIteration
        return event


class AsyncSandbox(_Async):
    _GROUPS = ("mouse", "keyboard", "screenshot", "display", "accessibility", "recording", "clipboard")
    mouse: _Async
    keyboard: _Async
    screenshot: _Async
    display: _Async
    accessibility: _Async
    recording: _Async
    clipboard: _Async

    def __init__(self, sandbox: Sandbox) -> None:
        super().__init__(sandbox)
        self.id = sandbox.id
        self.ephemeral = sandbox.ephemeral

    async def exec_stream(
        self,
        cmd: str,
        on_stdout: Optional[OutputCallback] = None,
        on_stderr: Optional[OutputCallback] = None,
        **kw: Any,
    ) -> Union[ExecStreamResult, AsyncExecStream]:
        """``Sandbox.exec_stream``; with ``background=True`` an ``AsyncExecStream`` to ``async for`` over.
        The callbacks run on the stream's reader thread."""
        background = bool(kw.pop("background", False))
        target: Sandbox = self._target
        stream = await asyncio.to_thread(
            lambda: target.exec_stream(cmd, on_stdout, on_stderr, background=True, **kw)
        )
        if background:
            return AsyncExecStream(stream)
        return await asyncio.to_thread(stream.wait)

    def start_keepalive(self, interval: float = 30.0) -> None:
        self._target.start_keepalive(interval)

    def stop_keepalive(self) -> None:
        self._target.stop_keepalive()

    async def fork(self, count: int = 1, idempotency_key: Optional[str] = None) -> "List[AsyncSandbox]":
        forks = await asyncio.to_thread(self._target.fork, count, idempotency_key)
        return [AsyncSandbox(f) for f in forks]

    async def __aenter__(self) -> "AsyncSandbox":
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await asyncio.to_thread(self._target.close)


class AsyncClient(_Async):
    _GROUPS = ("tasks", "evaluation_runs")
    tasks: _Async
    evaluation_runs: _Async

    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        timeout: float = 60.0,
        max_retries: int = 3,
    ) -> None:
        super().__init__(Client(api_key=api_key, base_url=base_url, timeout=timeout, max_retries=max_retries))

    async def create(self, **kw: Any) -> AsyncSandbox:
        return AsyncSandbox(await asyncio.to_thread(self._target.create, **kw))

    async def restore(self, version: str, **kw: Any) -> AsyncSandbox:
        return AsyncSandbox(await asyncio.to_thread(self._target.restore, version, **kw))

    async def get(self, id: str) -> AsyncSandbox:
        return AsyncSandbox(await asyncio.to_thread(self._target.get, id))
