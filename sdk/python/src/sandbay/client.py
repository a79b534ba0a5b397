"""The entry point: ``Client(api_key=..., base_url=...)`` (defaults: SANDBAY_API_KEY, SANDBAY_URL)."""
from __future__ import annotations

import os
import time
from typing import Any, List, Optional, Union
from urllib.parse import quote

from ._http import Transport, new_idempotency_key
from ._types import Json
from .sandbox import Sandbox

CREATE_TIMEOUT = 11 * 60.0  # the server waits up to 10 minutes for the VM (spec: attempt deadline)
RESTORE_TIMEOUT = 26 * 60.0  # 25 minutes for a restore


class Tasks:
    """Trajectories (recorded tasks) and their replays; account key only."""

    def __init__(self, t: Transport) -> None:
        self._t = t

    def list(self) -> List[Json]:
        return self._t.json("GET", "/v1/me/tasks")

    def get(self, id: str) -> Json:
        return self._t.json("GET", f"/v1/me/tasks/{quote(id, safe='')}")

    def create(
        self,
        instruction: Optional[str] = None,
        category: Optional[str] = None,
        setup_script: Optional[str] = None,
        grader: Optional[str] = None,
        id: Optional[str] = None,
        trajectory: Optional[Json] = None,
    ) -> Json:
        """Creates a task to collect; with ``trajectory`` (ATIF or ``sandbay-atif/1``) its actions become the steps."""
        fields = {
            "instruction": instruction,
            "category": category,
            "setup_script": setup_script,
            "grader": grader,
            "id": id,
            "trajectory": trajectory,
        }
        body = {k: v for k, v in fields.items() if v is not None}
        return self._t.json("POST", "/v1/me/tasks", json_body=body)

    def update(self, id: str, **fields: Optional[str]) -> Json:
        """Edits ``instruction``, ``category``, ``setup_script`` or ``grader``; ``None`` removes an optional one."""
        return self._t.json("PATCH", f"/v1/me/tasks/{quote(id, safe='')}", json_body=fields)

    def delete(self, id: str) -> None:
        """Deletes the task with its screenshots and recording."""
        self._t.none("DELETE", f"/v1/me/tasks/{quote(id, safe='')}")

    def start_collection(self, sandbox_id: str, task_id: str, run_setup: bool = True) -> Json:
        """Collects the task on a running sandbox: setup script first (unrecorded), then input and API calls are recorded."""
        body = {"task_id": task_id, "run_setup": run_setup}
        return self._t.json("POST", f"/v1/sandboxes/{quote(sandbox_id, safe='')}/collection", json_body=body)

    def get_collection(self, sandbox_id: str) -> Json:
        return self._t.json("GET", f"/v1/sandboxes/{quote(sandbox_id, safe='')}/collection")

    def stop_collection(self, sandbox_id: str) -> Json:
        """Stops collecting: the saved task (phase ``finalizing`` until its MP4 is stored)."""
        return self._t.json("POST", f"/v1/sandboxes/{quote(sandbox_id, safe='')}/collection/stop")

    def trajectory(self, id: str) -> Json:
        """The task as an ATIF document."""
        return self._t.json("GET", f"/v1/me/tasks/{quote(id, safe='')}/trajectory")

    def download(self, id: str) -> bytes:
        """The ZIP archive (trajectory.json, task.json, setup.sh, images)."""
        return self._t.bytes("GET", f"/v1/me/tasks/{quote(id, safe='')}/download")

    def recording(self, id: str) -> bytes:
        return self._t.bytes("GET", f"/v1/me/tasks/{quote(id, safe='')}/recording")

    def step_screenshot(self, id: str, index: int) -> bytes:
        return self._t.bytes("GET", f"/v1/me/tasks/{quote(id, safe='')}/steps/{int(index)}/screenshot")

    def replay(self, id: str, reservation_id: Optional[str] = None) -> Json:
        body = {} if reservation_id is None else {"reservation_id": reservation_id}
        return self._t.json("POST", f"/v1/me/tasks/{quote(id, safe='')}/replay", json_body=body)

    def import_task(
        self,
        format: str,
        task: Json,
        id: Optional[str] = None,
        category: Optional[str] = None,
        options: Optional[Json] = None,
        dry_run: bool = False,
    ) -> Json:
        """Makes a task of an OSWorld or macOSWorld task file (``format``: ``osworld`` or ``macosworld``):
        its setup steps and grader. ``dry_run``: answers what it would make and makes nothing."""
        body = _present(format=format, task=task, id=id, category=category, options=options)
        if dry_run:
            body["dry_run"] = True
        return self._t.json("POST", "/v1/me/tasks/import", json_body=body)

    def harbor(self, id: str) -> bytes:
        """The task as a Harbor task directory, a .tar.gz (docs/trajectories.md, "Harbor")."""
        return self._t.bytes("GET", f"/v1/me/tasks/{quote(id, safe='')}/harbor")

    def get_replay(self, replay_id: str) -> Json:
        return self._t.json("GET", f"/v1/me/tasks/replays/{quote(replay_id, safe='')}")

    def wait_for_replay(self, replay_id: str, timeout: float = 1800.0, poll: float = 1.0) -> Json:
        """Polls a replay until it is ``completed`` or ``failed``."""
        deadline = time.monotonic() + timeout
        while True:
            r = self.get_replay(replay_id)
            if r["status"] in ("completed", "failed"):
                return r
            if time.monotonic() > deadline:
                raise TimeoutError(f"replay {replay_id} is still {r['status']}")
            time.sleep(poll)


class EvaluationRuns:
    """N tasks × an agent endpoint (or a replay) × K attempts, with their results; account key only
    (docs/evaluation.md, "Evaluation runs")."""

    def __init__(self, t: Transport) -> None:
        self._t = t

    def create(
        self,
        tasks: List[str],
        mode: str,
        attempts: Optional[int] = None,
        agent: Optional[Json] = None,
        reservation_id: Optional[str] = None,
        **fields: Any,
    ) -> Json:
        """Starts a run. ``mode``: ``agent`` (``agent={"url": ..., "timeout_s": ...}`` acts on each
        attempt) or ``replay`` (each task's recorded actions). Other fields of the API pass as they are."""
        body = _present(
            tasks=tasks, mode=mode, attempts=attempts, agent=agent, reservation_id=reservation_id, **fields
        )
        return self._t.json("POST", "/v1/me/evaluation-runs", json_body=body)

    def list(self) -> List[Json]:
        return self._t.json("GET", "/v1/me/evaluation-runs")

    def get(self, id: str) -> Json:
        return self._t.json("GET", f"/v1/me/evaluation-runs/{quote(id, safe='')}")

    def results(self, id: str) -> Json:
        """Each attempt's outcome, reward and why, with pass rates per task and per category."""
        return self._t.json("GET", f"/v1/me/evaluation-runs/{quote(id, safe='')}/results")

    def results_csv(self, id: str) -> str:
        """The results table as CSV text (one line per attempt)."""
        return self._t.bytes("GET", f"/v1/me/evaluation-runs/{quote(id, safe='')}/results.csv").decode()

    def wait(self, id: str, timeout: float = 6 * 3600.0, poll: float = 2.0) -> Json:
        """Polls a run until it has ended: ``completed`` (every attempt finished) or ``cancelled``."""
        deadline = time.monotonic() + timeout
        while True:
            run = self.get(id)
            if run["status"] in ("completed", "cancelled"):
                return run
            if time.monotonic() > deadline:
                raise TimeoutError(f"evaluation run {id} is still {run['status']}")
            time.sleep(poll)

    def cancel(self, id: str) -> Json:
        """Stops the run: no attempt starts any more, the running ones stop; the results stay."""
        return self._t.json("POST", f"/v1/me/evaluation-runs/{quote(id, safe='')}/cancel")

    def delete(self, id: str) -> None:
        """Deletes the run with its attempts, their sandboxes and trajectories."""
        self._t.none("DELETE", f"/v1/me/evaluation-runs/{quote(id, safe='')}")


class Client:
    def __init__(
        self,
        api_key: Optional[str] = None,
        base_url: Optional[str] = None,
        timeout: float = 60.0,
        max_retries: int = 3,
    ) -> None:
        key = api_key or os.environ.get("SANDBAY_API_KEY")
        if not key:
            raise ValueError("sandbay: pass api_key or set SANDBAY_API_KEY")
        url = base_url or os.environ.get("SANDBAY_URL") or "http://127.0.0.1:8080"
        self._t = Transport(key, url, timeout, max_retries)
        self.tasks = Tasks(self._t)
        self.evaluation_runs = EvaluationRuns(self._t)

    @property
    def base_url(self) -> str:
        return self._t.base_url

    # ---- reservations ----

    def reserve(
        self,
        hours: int,
        mini_count: Optional[int] = None,
        mac_model: Optional[str] = None,
        vm_layout: Optional[str] = None,
    ) -> Json:
        """Buys a reservation (account key); the answer carries its key once."""
        body = _present(hours=hours, mini_count=mini_count, mac_model=mac_model, vm_layout=vm_layout)
        return self._t.json("POST", "/v1/reservations", json_body=body, timeout=120.0)

    def get_reservation(self, id: str) -> Json:
        return self._t.json("GET", f"/v1/reservations/{quote(id, safe='')}")

    def list_reservations(self) -> List[Json]:
        return self._t.json("GET", "/v1/reservations")

    def my_reservation(self) -> Json:
        """The reservation of the reservation key this client uses."""
        return self._t.json("GET", "/v1/reservations/me")

    def edit_reservation(self, id: str, hours: Optional[int] = None, vm_layout: Optional[str] = None) -> Json:
        body = _present(hours=hours, vm_layout=vm_layout)
        return self._t.json("PATCH", f"/v1/reservations/{quote(id, safe='')}", json_body=body)

    def platforms(self, reservation_id: Optional[str] = None) -> Json:
        return self._t.json("GET", "/v1/platforms", query={"reservation_id": reservation_id})

    def health(self) -> Json:
        return self._t.json("GET", "/health")

    # ---- sandboxes ----

    def create(
        self,
        cpu: Optional[int] = None,
        memory_gib: Optional[int] = None,
        reservation_id: Optional[str] = None,
        snapshot: Optional[str] = None,
        ephemeral: bool = True,
        disk_gib: Optional[int] = None,
        idempotency_key: Optional[str] = None,
        pool: Optional[bool] = None,
        mac_model: Optional[str] = None,
        host: Optional[str] = None,
        egress: Optional[Json] = None,
    ) -> Sandbox:
        """Creates a sandbox: ephemeral unless ``ephemeral=False`` (the spec's SDK default), retried
        safely with one Idempotency-Key. ``pool=True``: a pool sandbox outside reservations (account
        key only), paid per started hour, deleted after 24 hours; ``mac_model`` narrows it. ``host``
        pins it to one Mac of the reservation, by Mini name or IP. ``egress``: where its VM may connect
        to, ``{"mode": "none" | "all" | "allow", "allow": [...]}`` (default: its Mac's)."""
        body = _present(
            cpu=cpu,
            memory_gib=memory_gib,
            reservation_id=reservation_id,
            snapshot=snapshot,
            ephemeral=ephemeral,
            disk_gib=disk_gib,
            pool=pool,
            mac_model=mac_model,
            host=host,
            egress=egress,
        )
        created = self._t.json(
            "POST",
            "/v1/sandboxes",
            json_body=body,
            idempotency_key=idempotency_key or new_idempotency_key(),
            timeout=CREATE_TIMEOUT if snapshot is None else RESTORE_TIMEOUT,
        )
        return Sandbox(self._t, created["sandbox_id"], created["ephemeral"])

    def restore(self, version: str, **kw: Any) -> Sandbox:
        """Restores a snapshot into a new sandbox (a create with ``snapshot``)."""
        return self.create(snapshot=version, **kw)

    def get(self, id: str) -> Sandbox:
        """A handle on an existing sandbox (404 if it is not the caller's)."""
        info = self._t.json("GET", f"/v1/sandboxes/{quote(id, safe='')}")
        return Sandbox(self._t, info["sandbox_id"], info["ephemeral"])

    def list(self, reservation_id: Optional[str] = None) -> List[Json]:
        return self._t.json("GET", "/v1/sandboxes", query={"reservation_id": reservation_id})

    # ---- snapshots ----

    def snapshots(self, sandbox_id: Optional[str] = None) -> List[Json]:
        return self._t.json("GET", "/v1/snapshots", query={"sandbox_id": sandbox_id})

    def get_snapshot(self, version: str) -> Json:
        return self._t.json("GET", f"/v1/snapshots/{quote(version, safe='')}")

    def delete_snapshot(self, version: str) -> None:
        self._t.none("DELETE", f"/v1/snapshots/{quote(version, safe='')}")

    # ---- uploaded blobs (for `download` setup steps) ----

    def upload_blob(self, data: Union[bytes, str], filename: Optional[str] = None) -> Json:
        """Uploads bytes (a str as UTF-8); the answer's ``blob_id`` is what a ``download`` step names."""
        body = data.encode() if isinstance(data, str) else data
        return self._t.json("POST", "/v1/blobs", query={"filename": filename}, body=body)

    def blobs(self) -> List[Json]:
        return self._t.json("GET", "/v1/blobs")

    def get_blob(self, blob_id: str) -> Json:
        return self._t.json("GET", f"/v1/blobs/{quote(blob_id, safe='')}")

    def delete_blob(self, blob_id: str) -> None:
        self._t.none("DELETE", f"/v1/blobs/{quote(blob_id, safe='')}")


def _present(**fields: Any) -> Json:
    return {k: v for k, v in fields.items() if v is not None}
