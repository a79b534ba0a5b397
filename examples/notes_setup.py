"""Shared by the Python agent examples: opens a terminal whose first typed line is saved to
~/answer.txt, focuses it, and reads the answer back. The agent's own work is in the examples."""
from __future__ import annotations

import time
from typing import Any, Callable, Dict, Optional, Tuple

from sandbay import Sandbox


def until(probe: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        time.sleep(0.05)


def open_notes(sb: Sandbox) -> Tuple[int, int]:
    """Opens the `notes` terminal and focuses it; returns its centre, where the agent will click."""
    sb.exec("(setsid xterm -T notes -e sh -c 'read line; echo \"$line\" > ~/answer.txt' >/dev/null 2>&1 &)")

    def notes() -> Optional[Dict[str, Any]]:
        return next((w for w in sb.display.get_windows() if w["name"] == "notes"), None)

    w = until(notes, "the notes window")
    centre = (w["x"] + w["width"] // 2, w["y"] + w["height"] // 2)
    sb.mouse.click(*centre)
    until(lambda: (notes() or {}).get("focused"), "the notes window focused")
    return centre


def read_answer(sb: Sandbox) -> str:
    def probe() -> Optional[str]:
        try:
            return sb.download_bytes("answer.txt").decode().strip()
        except Exception:
            return None

    return str(until(probe, "the answer"))
