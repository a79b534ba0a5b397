"""The Python half of bench/sdk.ts: the sandbay SDK next to raw http.client (one kept-alive
connection, the same headers) on the same calls, alternating call by call (the order flipped every pair). Prints JSON samples (ms)."""
import http.client
import json
import os
import sys
import time
from urllib.parse import urlsplit

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "sdk", "python", "src"))
from sandbay import Client  # noqa: E402

url, key, sb_id, n = os.environ["SANDBAY_URL"], os.environ["SANDBAY_API_KEY"], sys.argv[1], int(sys.argv[2])
parts = urlsplit(url)
conn = http.client.HTTPConnection(parts.hostname, parts.port)
auth = {"Authorization": f"Bearer {key}"}
base = f"/v1/sandboxes/{sb_id}"


def raw_position() -> object:
    conn.request("GET", f"{base}/mouse/position", headers=auth)
    res = conn.getresponse()
    body = res.read()
    assert res.status == 200
    return json.loads(body)


def raw_step() -> bytes:
    body = json.dumps({"action": {"type": "click", "x": 600, "y": 500}}).encode()
    conn.request("POST", f"{base}/act", body=body, headers={**auth, "Content-Type": "application/json"})
    res = conn.getresponse()
    png = res.read()
    assert res.status == 200
    return png


sb = Client(api_key=key, base_url=url).get(sb_id)
ops = {
    "position": (raw_position, sb.mouse.get_position),
    "step": (raw_step, lambda: sb.act({"type": "click", "x": 600, "y": 500})),
}
out = {}
for name, (raw, sdk) in ops.items():
    count = n if name == "position" else max(3, n // 5)
    for _ in range(5):
        raw(), sdk()
    raw_ms, sdk_ms = [], []
    for i in range(count):
        # The order flips every pair: what the first call leaves behind weighs on both alike.
        pair = ((raw, raw_ms), (sdk, sdk_ms)) if i % 2 == 0 else ((sdk, sdk_ms), (raw, raw_ms))
        for op, into in pair:
            t = time.perf_counter()
            op()
            into.append((time.perf_counter() - t) * 1000)
    out[name] = {"raw": raw_ms, "sdk": sdk_ms}
print(json.dumps(out))
