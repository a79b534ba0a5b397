"""One agent of bench/agents.ts: Python's http.client on one kept-alive connection, looping act
(click + PNG screenshot, no delay) on its sandbox as fast as the server answers, from a start time
shared by every agent until its end. Prints one JSON object: each step's milliseconds."""
import http.client
import json
import sys
import time
from urllib.parse import urlsplit

job = json.loads(sys.argv[1])
parts = urlsplit(job["base"])
conn = http.client.HTTPConnection(parts.hostname, parts.port)
headers = {"Authorization": f"Bearer {job['key']}", "Content-Type": "application/json"}
path = f"/v1/sandboxes/{job['sandbox']}/act"
step = 0


def act():
    global step
    step += 1
    # Clicks walk a small square so that every step changes where the pointer is.
    x, y = 400 + (step % 20) * 10, 300 + (step % 7) * 10
    body = json.dumps({"action": {"type": "click", "x": x, "y": y}, "screenshot_delay_ms": 0})
    t = time.perf_counter()
    conn.request("POST", path, body=body, headers=headers)
    res = conn.getresponse()
    payload = res.read()
    ms = (time.perf_counter() - t) * 1000
    if res.status != 200:
        raise SystemExit(f"act: {res.status} {payload[:200]!r}")
    return ms


for _ in range(job.get("warmup", 5)):
    act()
time.sleep(max(0.0, job["start_at"] - time.time()))
end = job["start_at"] + job["seconds"]
samples = []
while time.time() < end:
    samples.append(act())
print(json.dumps({"ms": samples}))
