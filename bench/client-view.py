"""The outside client of bench/client-view.ts: Python's http.client on one kept-alive connection, as
an agent harness calls sandbay. Times each call (ms) and, for exec, reads the server's
Server-Timing (vm, app). Prints one JSON object: samples per call."""
import http.client
import json
import sys
import time
from urllib.parse import urlsplit

job = json.loads(sys.argv[1])
parts = urlsplit(job["base"])
conn = http.client.HTTPConnection(parts.hostname, parts.port)
auth = {"Authorization": f"Bearer {job['key']}"}
base = f"/v1/sandboxes/{job['sandbox']}"


def call(method, path, body=None):
    headers = dict(auth)
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    t = time.perf_counter()
    conn.request(method, path, body=data, headers=headers)
    res = conn.getresponse()
    payload = res.read()
    ms = (time.perf_counter() - t) * 1000
    if res.status != 200:
        raise SystemExit(f"{method} {path}: {res.status} {payload[:200]!r}")
    return ms, res.getheader("server-timing") or "", payload


def timing(header, name):
    for part in header.split(","):
        fields = [f.strip() for f in part.split(";")]
        if fields[0] == name:
            for f in fields[1:]:
                if f.startswith("dur="):
                    return float(f[4:])
    return float("nan")


CALLS = {
    "get": lambda: call("GET", base),
    "exec": lambda: call("POST", f"{base}/exec", {"command": "echo hi"}),
    "screenshot": lambda: call("GET", f"{base}/screenshot"),
    "act": lambda: call(
        "POST", f"{base}/act", {"action": {"type": "click", "x": 600, "y": 500}, "screenshot_delay_ms": 0}
    ),
}

out = {name: [] for name in job["calls"]}
out["exec_vm"] = []
out["exec_app"] = []
for _ in range(job.get("warmup", 10)):
    for name in job["calls"]:
        CALLS[name]()
for _ in range(job["n"]):
    for name in job["calls"]:
        ms, st, _ = CALLS[name]()
        out[name].append(ms)
        if name == "exec":
            out["exec_vm"].append(timing(st, "vm"))
            out["exec_app"].append(timing(st, "app"))
print(json.dumps(out))
