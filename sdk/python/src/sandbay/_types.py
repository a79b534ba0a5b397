"""Shapes of the API's answers (docs/api.md), for type checkers. Answers are plain dicts."""
from __future__ import annotations

from typing import Any, Dict, List, Optional, TypedDict

Json = Dict[str, Any]


class Ok(TypedDict):
    ok: bool


class Position(TypedDict):
    x: int
    y: int


class DisplayInfo(TypedDict):
    width: int
    height: int
    scale: float


WindowTree = List[Json]
"""The windows on screen, each with its accessibility elements below it (``children``)."""


class AccessibilityTree(TypedDict):
    """``display/windows?best_effort=1``: the tree, or (``available`` false) why the VM could not give it."""

    available: bool
    tree: Optional[List[Json]]
    error: str


class ExecResult(TypedDict):
    stdout: str
    stderr: str
    return_code: int
    timed_out: bool


class SshCredentials(TypedDict):
    ssh_url: str
    username: str
    private_key: str


class Egress(TypedDict):
    """An egress policy in force: ``mode`` ``none``, ``all`` or ``allow``, and its rules (docs/api.md, Egress)."""

    mode: str
    allow: List[str]


class Network(TypedDict):
    """The egress policy in force (``None`` until the sandbox runs), and what its Mac enforces."""

    egress: Optional[Egress]
    modes: List[str]
    domains: bool


class ViewerLink(TypedDict):
    vnc_url: str
    token: str
    expires_at: str
    url: str
    websocket_url: str


class ExecStreamResult(TypedDict):
    """A streamed command's end: all its output, its exit code (124 after its timeout)."""

    stdout: str
    stderr: str
    exit_code: int
    timed_out: bool


ExecEvent = Dict[str, Any]
"""``{"type": "stdout"|"stderr", "data": str}``, then ``{"type": "exit", "exit_code": int, "timed_out": bool}``."""

Clipboard = Dict[str, Any]
"""``{"type": "text", "text": str}``, ``{"type": "image", "mime_type": "image/png", "data": bytes}`` or ``{"type": "empty"}``."""
class SetupResult(TypedDict):
    """``POST …/setup``: ``status`` ``completed`` or ``failed``; the step that failed and why."""

    status: str
    failed_step: Optional[int]
    message: str
    duration_ms: int
    steps: List[Json]


class GradeResult(TypedDict):
    """``POST …/grade``: the reward in [0, 1] and each check."""

    reward: float
    combine: str
    duration_ms: int
    checks: List[Json]
