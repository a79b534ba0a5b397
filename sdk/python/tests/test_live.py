"""The Python SDK against a live sandbay (started by sdk/python/python-sdk.test.ts, which passes
SANDBAY_URL, SANDBAY_API_KEY and SANDBAY_TEST_TASK): every method, checked by its effect."""
from __future__ import annotations

import asyncio
import http.client
import http.server
import json
import os
import shutil
import socket
import socketserver
import struct
import tempfile
import threading
import time
import unittest
import urllib.parse
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

from sandbay import AsyncClient, Client, SandbayConnectionError, SandbayError, SandbayTimeoutError, Sandbox

TASK = os.environ.get("SANDBAY_TEST_TASK", "")


def wait_for(probe: Callable[[], Any], what: str, timeout: float = 30.0) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def png_size(data: bytes) -> Tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:8]
    width, height = struct.unpack(">II", data[16:24])
    return (width, height)


def wait_for_warm_vm(client: Client) -> None:
    wait_for(
        lambda: (client.platforms().get("reservation") or {}).get("minis")
        and any(m["warm_vms"] for m in client.platforms()["reservation"]["minis"]),
        "a warm VM",
        120,
    )



def upgrade_status(websocket_url: str) -> Tuple[int, str]:
    """The answer to a WebSocket upgrade at ``websocket_url``: its status and, for an error, its code."""
    url = urllib.parse.urlsplit(websocket_url)
    conn = http.client.HTTPConnection(url.hostname or "", url.port, timeout=10)
    try:
        conn.request(
            "GET",
            f"{url.path}?{url.query}",
            headers={
                "Connection": "Upgrade",
                "Upgrade": "websocket",
                "Sec-WebSocket-Version": "13",
                "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
            },
        )
        res = conn.getresponse()
        if res.status == 101:
            return 101, ""
        return res.status, str(json.loads(res.read())["error"])
    finally:
        conn.close()

class LiveSandbay(unittest.TestCase):
    client: Client
    sb: Sandbox
    local: Path
    reservation: Dict[str, Any]

    @classmethod
    def setUpClass(cls) -> None:
        cls.client = Client()  # SANDBAY_API_KEY, SANDBAY_URL
        cls.local = Path(tempfile.mkdtemp(prefix="sandbay-py-"))

    @classmethod
    def tearDownClass(cls) -> None:
        shutil.rmtree(cls.local, ignore_errors=True)

    def test_01_reservations(self) -> None:
        c = self.client
        self.assertEqual(c.health()["status"], "ok")
        r = c.reserve(24)
        type(self).reservation = r
        self.assertEqual((r["status"], r["hours"], r["mac_model"]), ("active", 24, "m4"))
        self.assertEqual(c.get_reservation(r["id"])["id"], r["id"])
        self.assertEqual([x["id"] for x in c.list_reservations()], [r["id"]])
        self.assertEqual(c.edit_reservation(r["id"], hours=48)["hours"], 48)
        self.assertEqual(Client(api_key=r["key"]).my_reservation()["id"], r["id"])
        self.assertEqual(c.platforms(reservation_id=r["id"])["reservation"]["id"], r["id"])
        with self.assertRaises(SandbayError) as refused:
            c.reserve(24)
        self.assertEqual((refused.exception.status, refused.exception.code), (409, "minis_unavailable"))
        wait_for_warm_vm(c)

    def test_02_create(self) -> None:
        sb = self.client.create(host="127.0.0.1")
        type(self).sb = sb
        self.assertTrue(sb.ephemeral)
        self.assertEqual(sb.info()["state"], "running")
        self.assertEqual((sb.info()["type"], sb.info()["host"]), ("macos", "local"))
        self.assertEqual(self.client.get(sb.id).id, sb.id)
        self.assertIn(sb.id, [s["sandbox_id"] for s in self.client.list()])
        with self.assertRaises(SandbayError) as missing:
            self.client.get("sb-" + "0" * 32)
        self.assertEqual(missing.exception.code, "sandbox_not_found")

    def test_03_keepalive(self) -> None:
        self.assertEqual(self.sb.keepalive()["sandbox_id"], self.sb.id)
        # Heartbeats counted where they reach the server: through a proxy in front of it.
        proxy = FlakyProxy(self.client.base_url)
        try:
            via = Client(api_key=os.environ["SANDBAY_API_KEY"], base_url=proxy.url).get(self.sb.id)
            beat = f"POST /v1/sandboxes/{self.sb.id}/keepalive"
            via.start_keepalive(interval=0.05)
            wait_for(lambda: proxy.forwarded.count(beat) >= 3, "three heartbeats")
            via.stop_keepalive()
            name = f"sandbay-keepalive-{self.sb.id}"
            wait_for(lambda: not any(t.name == name for t in threading.enumerate()), "the heartbeat thread to end")
            # Its thread is gone: no heartbeat can come any more.
            stopped = proxy.forwarded.count(beat)
            self.sb.display.get_info()
            self.assertEqual(proxy.forwarded.count(beat), stopped)
        finally:
            proxy.close()
        self.sb.start_keepalive()  # the default interval for the rest of the run

    def test_04_screenshot(self) -> None:
        s = self.sb.screenshot
        self.assertEqual(png_size(s.take_full_screen()), (1280, 800))
        self.assertEqual(png_size(s.take_full_screen(show_cursor=True)), (1280, 800))
        self.assertEqual(png_size(s.take_region(10, 20, 300, 200)), (300, 200))
        self.assertEqual(s.take_compressed(quality=50, scale=0.5)[:2], b"\xff\xd8")
        self.assertEqual(png_size(s.take_compressed(format="png")), (1280, 800))

    def test_05_mouse(self) -> None:
        m = self.sb.mouse

        # After a click the window manager may hold the pointer a moment (click-to-focus grabs it
        # synchronously): the X server moves it once released, so the position is awaited.
        def pointer_at(x: int, y: int) -> None:
            wait_for(lambda: m.get_position() == {"x": x, "y": y}, f"the pointer at {x},{y}")

        self.assertEqual(m.move(321, 123), {"ok": True})
        pointer_at(321, 123)
        # On the wallpaper, away from the panel at the top (its Applications menu would take the focus).
        m.click(600, 500)
        pointer_at(600, 500)
        m.double_click(610, 510)
        pointer_at(610, 510)
        m.drag(600, 300, 640, 350)
        pointer_at(640, 350)
        self.assertEqual(m.scroll(600, 300, direction="down", amount=2), {"ok": True})
        pointer_at(600, 300)

    def test_06_keyboard_display_accessibility(self) -> None:
        sb = self.sb
        sb.exec("(setsid xterm -T pytyper -e sh -c 'read line; echo \"$line\" > ~/pytyped.txt' >/dev/null 2>&1 &)")

        def typer() -> Optional[Dict[str, Any]]:
            return next((w for w in sb.display.get_windows() if w["name"] == "pytyper"), None)

        win = wait_for(typer, "the xterm window")
        tree = sb.accessibility.get_tree()
        self.assertTrue(tree["available"])
        self.assertTrue(any(w["name"] == "pytyper" for w in tree["tree"] or []))
        sb.mouse.click(win["x"] + win["width"] // 2, win["y"] + win["height"] // 2)
        wait_for(lambda: (typer() or {}).get("focused"), "the xterm focused")
        self.assertEqual(sb.keyboard.type("hello", delay=5), {"ok": True})
        self.assertEqual(sb.keyboard.hotkey(["shift", "b"]), {"ok": True})
        self.assertEqual(sb.keyboard.press("return"), {"ok": True})

        def typed() -> Optional[bytes]:
            try:
                return sb.download_bytes("pytyped.txt")
            except SandbayError:
                return None

        self.assertEqual(wait_for(typed, "the typed line"), b"helloB\n")
        self.assertEqual(sb.keyboard.press("a", modifiers=["ctrl"]), {"ok": True})
        self.assertEqual(sb.keyboard.hotkey("ctrl+a"), {"ok": True})
        self.assertEqual(sb.display.get_info(), {"width": 1280, "height": 800, "scale": 1, "platform": "macos"})

    def test_07_act(self) -> None:
        sb = self.sb
        png = sb.act({"type": "move", "x": 77, "y": 88})
        self.assertIsInstance(png, bytes)
        self.assertEqual(png_size(png), (1280, 800))  # type: ignore[arg-type]
        self.assertEqual(sb.mouse.get_position(), {"x": 77, "y": 88})
        self.assertEqual(sb.act({"type": "click", "x": 600, "y": 500}, screenshot_after=False), {"ok": True, "action": "click"})
        with self.assertRaises(SandbayError) as bad:
            sb.act({"type": "nope"})
        self.assertEqual((bad.exception.status, bad.exception.code), (400, "invalid_request"))

    def test_08_exec(self) -> None:
        sb = self.sb
        self.assertEqual(sb.exec("echo hi; echo err >&2"), {"stdout": "hi\n", "stderr": "err\n", "return_code": 0, "timed_out": False})
        self.assertEqual(sb.exec("exit 3")["return_code"], 3)
        slow = sb.exec("sleep 30", timeout=1)
        self.assertEqual((slow["timed_out"], slow["return_code"]), (True, 124))
        self.assertEqual(sb.exec_ax("echo ax")["stdout"], "ax\n")
        creds = sb.ssh_credentials()
        self.assertEqual(creds["ssh_url"], f"/v1/sandboxes/{sb.id}/ssh")
        ssh = sb.exec_ssh("whoami; echo e >&2; exit 4")
        self.assertEqual(ssh, {"stdout": creds["username"] + "\n", "stderr": "e\n", "return_code": 4, "timed_out": False})
        self.assertTrue(sb.exec_ssh("sleep 30", timeout=1)["timed_out"])

    def test_09_files(self) -> None:
        sb, local = self.sb, self.local
        data = os.urandom(50_000)
        (local / "blob.bin").write_bytes(data)
        sb.upload(str(local / "blob.bin"), "pyup/blob.bin")
        self.assertEqual(sb.download_bytes("pyup/blob.bin"), data)
        sb.upload_bytes("text ✓", "pyup/text.txt")
        sb.download_file("pyup/text.txt", local / "got" / "text.txt")
        self.assertEqual((local / "got" / "text.txt").read_text(), "text ✓")
        with self.assertRaises(SandbayError) as missing:
            sb.download_bytes("nope/none")
        self.assertEqual((missing.exception.status, missing.exception.code), (404, "file_not_found"))

    def test_10_dirs(self) -> None:
        sb, local = self.sb, self.local
        long = "deep/" * 25 + "name-" + "x" * 120 + ".txt"
        src = local / "tree"
        (src / long).parent.mkdir(parents=True)
        (src / "empty").mkdir()
        (src / "a.txt").write_text("alpha")
        (src / long).write_text("long")
        sb.upload_dir(src, "pytree")
        self.assertEqual(sb.exec("cat ~/pytree/a.txt; test -d ~/pytree/empty && echo dir")["stdout"], "alphadir\n")
        written = sb.download_dir("pytree", local / "back")
        self.assertEqual(sorted(written), sorted(["a.txt", long]))
        self.assertEqual((local / "back" / long).read_text(), "long")

    def test_11_recording(self) -> None:
        r = self.sb.recording
        started = r.start(name="pydemo")
        self.assertEqual((started["name"], started["state"]), ("pydemo", "recording"))
        self.sb.mouse.move(400, 300)
        self.assertEqual(r.stop(started["id"])["state"], "stopped")
        self.assertIn(started["id"], [x["id"] for x in r.list_all()])
        self.assertEqual(r.get(started["id"])["state"], "stopped")
        r.download(started["id"], self.local / "demo.mp4")
        self.assertEqual((self.local / "demo.mp4").read_bytes()[4:8], b"ftyp")
        r.delete(started["id"])
        with self.assertRaises(SandbayError) as gone:
            r.get(started["id"])
        self.assertEqual(gone.exception.code, "recording_not_found")
        self.assertIsNotNone(r.start())  # name is optional
        self.assertEqual(r.stop(r.list_all()[-1]["id"])["state"], "stopped")

    def test_12_viewer_link(self) -> None:
        link = self.sb.viewer_link()
        self.assertTrue(link["url"].startswith(f"{self.client.base_url}/view/{self.sb.id}?token="))
        self.assertEqual(link["websocket_url"], self.client.base_url.replace("http", "ws") + link["vnc_url"])
        self.assertEqual(upgrade_status(link["websocket_url"]), (101, ""))
        self.sb.revoke_viewer_links()
        self.assertEqual(upgrade_status(link["websocket_url"]), (401, "invalid_viewer_token"))
        self.assertEqual(upgrade_status(self.sb.viewer_link()["websocket_url"]), (101, ""))

    def test_13_policies(self) -> None:
        proxy = FlakyProxy(self.client.base_url)
        try:
            via = Client(api_key=os.environ["SANDBAY_API_KEY"], base_url=proxy.url).get(self.sb.id)
            proxy.forwarded.clear()
            proxy.fail_next(1, "reset")
            self.assertEqual(via.display.get_info()["width"], 1280)
            proxy.fail_next(2, "503")
            self.assertIn("x", via.mouse.get_position())
            self.assertEqual(
                proxy.forwarded,
                [f"GET /v1/sandboxes/{self.sb.id}/display/info", f"GET /v1/sandboxes/{self.sb.id}/mouse/position"],
            )
            proxy.fail_next(1, "reset")
            with self.assertRaises(SandbayConnectionError):
                via.mouse.click(5, 5)
            proxy.fail_next(1, "503")
            with self.assertRaises(SandbayError) as unavailable:
                via.mouse.move(6, 6)
            self.assertEqual(unavailable.exception.status, 503)
            self.assertEqual(len(proxy.forwarded), 2)  # neither POST reached the server
        finally:
            proxy.close()
        # A listener that accepts and never answers: the call can only end by its timeout.
        silent = socket.create_server(("127.0.0.1", 0))
        try:
            mute = Client(base_url=f"http://127.0.0.1:{silent.getsockname()[1]}", timeout=0.2)
            with self.assertRaises(SandbayTimeoutError) as timed_out:
                mute.get(self.sb.id)
            self.assertEqual(timed_out.exception.code, "timeout")
        finally:
            silent.close()

    def test_14_async_client(self) -> None:
        async def run() -> None:
            ac = AsyncClient()
            sb = await ac.get(self.sb.id)
            self.assertEqual(sb.id, self.sb.id)
            info, pos, png = await asyncio.gather(
                sb.display.get_info(), sb.mouse.get_position(), sb.screenshot.take_full_screen()
            )
            self.assertEqual(info["width"], 1280)
            self.assertIn("x", pos)
            self.assertEqual(png_size(png), (1280, 800))
            self.assertEqual((await sb.exec("echo async"))["stdout"], "async\n")
            self.assertEqual(len(await ac.list()), 1)

        asyncio.run(run())

    def test_15_snapshots_restore_dispose(self) -> None:
        c, sb = self.client, self.sb
        sb.upload_bytes("kept", "state.txt")
        snap = sb.snapshot("pyv1")
        self.assertEqual((snap["name"], snap["status"]), ("pyv1", "ready"))
        self.assertEqual([s["version"] for s in sb.snapshots()], [snap["version"]])
        self.assertIn(snap["version"], [s["version"] for s in c.snapshots()])
        self.assertEqual([s["version"] for s in c.snapshots(sandbox_id=sb.id)], [snap["version"]])
        self.assertEqual(c.get_snapshot(snap["version"])["status"], "ready")
        # A restore takes a free VM: the pool may still be cloning one after an earlier test's delete.
        wait_for_warm_vm(c)
        with c.restore(snap["version"]) as restored:
            self.assertEqual(restored.download_bytes("state.txt"), b"kept")
        with self.assertRaises(SandbayError) as gone:
            c.get(restored.id)
        self.assertEqual(gone.exception.status, 404)
        c.delete_snapshot(snap["version"])
        with self.assertRaises(SandbayError) as deleted:
            c.get_snapshot(snap["version"])
        self.assertEqual(deleted.exception.code, "snapshot_not_found")

    def test_16_idempotent_create_and_non_ephemeral(self) -> None:
        wait_for_warm_vm(self.client)
        a = self.client.create(ephemeral=False, idempotency_key="py-test-create")
        b = self.client.create(ephemeral=False, idempotency_key="py-test-create")
        self.assertEqual(a.id, b.id)
        a.close()  # not ephemeral: kept
        self.assertEqual(a.info()["state"], "running")
        a.delete()
        with self.assertRaises(SandbayError):
            a.info()

    def test_16a_fork_and_pause(self) -> None:
        c, sb = self.client, self.sb
        sb.upload_bytes("before the fork", "fork.txt")
        wait_for_warm_vm(c)
        forks = sb.fork(1)
        self.assertEqual(len(forks), 1)
        fork = forks[0]
        assert fork.created is not None
        self.assertEqual((fork.created["fork_of"], fork.created["boot"]), (sb.id, "cold"))
        self.assertEqual(fork.info()["state"], "running")
        self.assertEqual(fork.download_bytes("fork.txt"), b"before the fork")
        self.assertEqual(fork.exec("echo from the fork")["stdout"], "from the fork\n")
        # The local Mac runs two sandboxes: a second fork does not fit, and none is made.
        with self.assertRaises(SandbayError) as full:
            sb.fork(1)
        self.assertEqual((full.exception.status, full.exception.code), (409, "sandbox_limit_reached"))
        fork.delete()

        paused = sb.pause()
        self.assertEqual(paused["state"], "paused")
        self.assertIsNotNone(paused["paused_at"])
        with self.assertRaises(SandbayError) as refused:
            sb.exec("true")
        self.assertEqual((refused.exception.status, refused.exception.code), (409, "sandbox_paused"))
        with self.assertRaises(SandbayError) as again:
            sb.pause()
        self.assertEqual(again.exception.code, "sandbox_paused")
        self.assertEqual(sb.resume()["state"], "running")
        self.assertEqual(sb.exec("echo awake")["stdout"], "awake\n")
        with self.assertRaises(SandbayError) as running:
            sb.resume()
        self.assertEqual(running.exception.code, "sandbox_not_paused")

    def test_16b_egress(self) -> None:
        sb = self.sb
        # The local Mac keeps its VMs offline (no --vm-outbound-nat): it enforces `none` alone.
        net = sb.network()
        self.assertEqual((net["egress"], net["modes"]), ({"mode": "none", "allow": []}, ["none"]))
        self.assertEqual(sb.set_egress("none")["egress"], {"mode": "none", "allow": []})
        with self.assertRaises(SandbayError) as wider:
            sb.set_egress("all")
        self.assertEqual((wider.exception.status, wider.exception.code), (422, "egress_not_allowed"))
        # A rule that does not parse, and a range no sandbox reaches, are bad input.
        for rules in (["not a rule!"], ["10.0.0.0/8"]):
            with self.assertRaises(SandbayError) as bad:
                sb.set_egress("allow", rules)
            self.assertEqual((bad.exception.status, bad.exception.code), (400, "invalid_egress"))
        self.assertEqual(sb.network()["egress"], {"mode": "none", "allow": []})

    @unittest.skipUnless(TASK, "SANDBAY_TEST_TASK names a seeded task")
    def test_17_tasks(self) -> None:
        t = self.client.tasks
        self.assertEqual([x["id"] for x in t.list()], [TASK])
        self.assertEqual(len(t.get(TASK)["steps"]), 1)
        # ATIF: the instruction as a user step, then the one recorded action.
        self.assertEqual([s["source"] for s in t.trajectory(TASK)["steps"]], ["user", "agent"])
        self.assertEqual(t.download(TASK)[:2], b"PK")
        self.assertEqual(t.recording(TASK)[4:8], b"ftyp")
        self.assertEqual(t.step_screenshot(TASK, 0)[:4], b"\x89PNG")
        wait_for_warm_vm(self.client)
        replay = t.replay(TASK)
        self.assertEqual(replay["task_id"], TASK)
        done = t.wait_for_replay(replay["id"], timeout=300, poll=0.2)
        self.assertEqual((done["status"], done["reward"], done["steps_done"]), ("completed", 1, 1))
        # The collector, driven by API calls: create, edit, collect, stop, delete.
        made = t.create(instruction="Leave a mark", category="draft", id="pycollect")
        self.assertEqual((made["id"], made["step_count"]), ("pycollect", 0))
        self.assertEqual(t.update("pycollect", category=None)["category"], None)
        started = t.start_collection(self.sb.id, "pycollect")
        self.assertEqual(started["phase"], "recording")
        self.sb.exec("echo mark > ~/mark.txt")
        self.assertEqual(t.get_collection(self.sb.id)["step_count"], 1)
        saved = t.stop_collection(self.sb.id)
        self.assertEqual([s["function"] for s in saved["steps"]], ["exec"])
        t.delete("pycollect")
        with self.assertRaises(SandbayError):
            t.get("pycollect")

    @unittest.skipUnless(TASK, "SANDBAY_TEST_TASK names a seeded task")
    def test_17b_evaluation_runs_imports_and_harbor(self) -> None:
        runs, tasks = self.client.evaluation_runs, self.client.tasks
        with self.assertRaises(SandbayError) as bad:
            runs.create(tasks=[TASK], mode="teleport")
        self.assertEqual(bad.exception.status, 400)
        wait_for_warm_vm(self.client)
        run = runs.create(tasks=[TASK], mode="replay", attempts=1)
        self.assertIn(run["id"], [r["id"] for r in runs.list()])
        done = runs.wait(run["id"], timeout=300, poll=0.2)
        self.assertEqual(done["status"], "completed")
        results = runs.results(run["id"])
        self.assertEqual([(r["task"], r["outcome"]) for r in results["rows"]], [(TASK, "passed")])
        csv = runs.results_csv(run["id"]).splitlines()
        self.assertEqual((csv[0].split(",")[:4], len(csv)), (["task", "category", "attempt", "outcome"], 2))
        runs.delete(run["id"])
        with self.assertRaises(SandbayError):
            runs.get(run["id"])
        # An OSWorld task file, as it would be imported (dry run: nothing made), and a Harbor export.
        fixture = Path(__file__).parents[3] / "test/fixtures/osworld/os/94d95f96-9699-4208-98ba-3c3119edf9c2.json"
        preview = tasks.import_task("osworld", json.loads(fixture.read_text()), dry_run=True)
        self.assertEqual((preview["id"], preview["category"]), ("94d95f96-9699-4208-98ba-3c3119edf9c2", "os"))
        with self.assertRaises(SandbayError):
            tasks.get(preview["id"])
        self.assertEqual(tasks.harbor(TASK)[:2], b"\x1f\x8b")

    def test_17a_setup_and_grade(self) -> None:
        sb, c = self.sb, self.client
        blob = c.upload_blob("py blob\n", filename="py.txt")
        self.assertTrue(blob["blob_id"].startswith("sha256-"))
        self.assertIn(blob["blob_id"], [b["blob_id"] for b in c.blobs()])
        self.assertEqual(c.get_blob(blob["blob_id"])["filename"], "py.txt")
        done = sb.setup(
            [
                {"type": "download", "blob": blob["blob_id"], "path": "pyblob.txt"},
                {"type": "launch", "command": ["xterm", "-T", "pyeval", "-e", "sh"], "wait_for": {"name": "pyeval"}},
                {"type": "command", "command": "cat ~/pyblob.txt", "expect": {"stdout_equals": "py blob"}},
            ],
            timeout=120,
        )
        self.assertEqual((done["status"], [s["status"] for s in done["steps"]]), ("completed", ["ok"] * 3))
        failed = sb.setup([{"type": "command", "command": "exit 4"}, {"type": "sleep", "seconds": 1}])
        self.assertEqual((failed["status"], failed["failed_step"]), ("failed", 0))
        self.assertEqual(failed["message"], "step 0 (command) failed: exited with 4, expected 0")
        with self.assertRaises(SandbayError) as bad:
            sb.setup([{"type": "warp"}])
        self.assertEqual((bad.exception.status, bad.exception.code), (400, "invalid_setup_step"))
        graded = sb.grade(
            {
                "combine": "all",
                "checks": [
                    {"type": "window", "match": {"name": "pyeval"}},
                    {"type": "file", "path": "pyblob.txt", "contains": "py blob"},
                ],
            }
        )
        self.assertEqual((graded["reward"], [x["passed"] for x in graded["checks"]]), (1, [True, True]))
        self.assertEqual(sb.grade("test -f ~/nope")["reward"], 0)
        if TASK:
            # The seeded task: setup script `echo set > ~/setup.txt`, grader `test -f ~/setup.txt`.
            self.assertEqual(sb.setup_task(TASK)["status"], "completed")
            self.assertEqual(sb.grade_task(TASK)["reward"], 1)

        async def run() -> None:
            asb = await AsyncClient().get(sb.id)
            self.assertEqual((await asb.grade("true"))["reward"], 1)
            self.assertEqual((await asb.setup([{"type": "sleep", "seconds": 0}]))["status"], "completed")

        asyncio.run(run())
        c.delete_blob(blob["blob_id"])
        with self.assertRaises(SandbayError) as gone:
            c.get_blob(blob["blob_id"])
        self.assertEqual((gone.exception.status, gone.exception.code), (404, "blob_not_found"))

    def test_18_context_manager_deletes_ephemeral(self) -> None:
        with self.sb as sb:
            self.assertTrue(sb.ephemeral)
        with self.assertRaises(SandbayError) as gone:
            self.client.get(self.sb.id)
        self.assertEqual(gone.exception.code, "sandbox_not_found")


class FlakyProxy:
    """A real HTTP proxy that can reset a connection or answer 503 before forwarding."""

    def __init__(self, upstream: str) -> None:
        self.forwarded: List[str] = []
        self._failing = 0
        self._mode = "reset"
        host, port = upstream.split("//", 1)[1].split(":")
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def _any(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else None
                if outer._failing > 0:
                    outer._failing -= 1
                    if outer._mode == "reset":
                        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                        self.connection.close()
                        self.close_connection = True
                        return
                    payload = b'{"error":"server_shutting_down","message":"test"}'
                    self.send_response(503)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                    return
                outer.forwarded.append(f"{self.command} {self.path.split('?')[0]}")
                import http.client as hc

                up = hc.HTTPConnection(host, int(port))
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
                up.request(self.command, self.path, body=body, headers=headers)
                res = up.getresponse()
                data = res.read()
                self.send_response(res.status)
                for k, v in res.getheaders():
                    if k.lower() not in ("transfer-encoding", "connection", "content-length", "keep-alive"):
                        self.send_header(k, v)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                up.close()

            do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = _any

        class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
            daemon_threads = True

        self._server = Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def fail_next(self, n: int, mode: str) -> None:
        self._failing, self._mode = n, mode

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


if __name__ == "__main__":
    unittest.main()
