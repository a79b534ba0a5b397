# Prints the AT-SPI accessibility tree of the desktop as JSON on stdout: one entry per application,
# its top-level windows and their descendants with screen extents. Run inside the VM's session as
# the VM user (`/usr/bin/python3 -`, fed on stdin) by hosts/linux/windows-atspi.ts. Only toolkits that
# speak AT-SPI (GTK, Qt, Firefox, LibreOffice) appear; bounded in depth and node count so that a huge
# document cannot stall the call.
import json
import signal
import sys

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

MAX_DEPTH = 25
MAX_NODES = 3000
count = 0


def node(acc, path, depth):
    global count
    count += 1
    try:
        role = acc.get_role_name() or "unknown"
        name = acc.get_name() or ""
    except Exception:
        return None
    try:
        states = acc.get_state_set()
    except Exception:
        states = None
    # Hidden widgets (a scroll bar not needed yet) report nonsense extents; leave them out.
    if depth > 0 and states is not None and not states.contains(Atspi.StateType.SHOWING):
        return None
    out = {"role": role, "name": name, "id": "atspi:" + path}
    try:
        ext = acc.get_extents(Atspi.CoordType.SCREEN)
        out.update(x=ext.x, y=ext.y, width=ext.width, height=ext.height)
    except Exception:
        out.update(x=0, y=0, width=0, height=0)
    if states is not None and (states.contains(Atspi.StateType.FOCUSED) or states.contains(Atspi.StateType.ACTIVE)):
        out["focused"] = True
    if depth < MAX_DEPTH:
        children = []
        try:
            n = acc.get_child_count()
        except Exception:
            n = 0
        for i in range(n):
            if count >= MAX_NODES:
                break
            try:
                child = acc.get_child_at_index(i)
            except Exception:
                continue
            if child is None:
                continue
            c = node(child, path + "/" + str(i), depth + 1)
            if c is not None:
                children.append(c)
        if children:
            out["children"] = children
    return out


def main():
    desktop = Atspi.get_desktop(0)
    apps = []
    for a in range(desktop.get_child_count()):
        app = desktop.get_child_at_index(a)
        if app is None:
            continue
        try:
            pid = app.get_process_id()
        except Exception:
            pid = 0
        windows = []
        for w in range(app.get_child_count()):
            if count >= MAX_NODES:
                break
            win = app.get_child_at_index(w)
            if win is None:
                continue
            n = node(win, "%d/%d/%d" % (pid, a, w), 0)
            if n is not None:
                windows.append(n)
        apps.append({"app": app.get_name() or "", "pid": pid, "windows": windows})
    json.dump({"apps": apps, "truncated": count >= MAX_NODES}, sys.stdout)


# An application that stops answering would block a D-Bus call for 25 s; give up well before.
signal.alarm(4)
main()
