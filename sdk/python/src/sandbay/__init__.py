"""sandbay: computer-use sandboxes over the sandbay HTTP API.

    from sandbay import Client
    client = Client(api_key=..., base_url=...)   # or SANDBAY_API_KEY / SANDBAY_URL
    with client.create() as sb:                   # ephemeral by default: deleted on exit
        sb.mouse.click(100, 200)
        png = sb.screenshot.take_full_screen()
"""
from ._exec_stream import ExecStream
from .aio import AsyncClient, AsyncExecStream, AsyncSandbox
from .client import Client, EvaluationRuns, Tasks
from .errors import SandbayConnectionError, SandbayError, SandbayTimeoutError
from .sandbox import (
    DEFAULT_EXEC_TIMEOUT,
    DEFAULT_KEEPALIVE_INTERVAL,
    Accessibility,
    ClipboardGroup,
    Display,
    Keyboard,
    Mouse,
    Recording,
    Sandbox,
    Screenshot,
)

__all__ = [
    "AsyncClient",
    "AsyncSandbox",
    "AsyncExecStream",
    "ExecStream",
    "ClipboardGroup",
    "Client",
    "EvaluationRuns",
    "Tasks",
    "Sandbox",
    "Mouse",
    "Keyboard",
    "Screenshot",
    "Display",
    "Accessibility",
    "Recording",
    "SandbayError",
    "SandbayTimeoutError",
    "SandbayConnectionError",
    "DEFAULT_EXEC_TIMEOUT",
    "DEFAULT_KEEPALIVE_INTERVAL",
]
__version__ = "0.1.0"
