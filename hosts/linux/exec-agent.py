# The exec agent: runs the API's exec commands inside a VM, as the VM's user, over one long-lived SSH
# channel (hosts/linux/exec-agent.ts starts it as `python3 -c`). Each command gets a bash of its own,
# started ahead of time so that a call pays neither an SSH channel's open nor a shell's start:
#
#   bash -c 'IFS= read -r -d "" c <&3; exec 3<&-; eval "unset c; $c"'
#
# in a new session (its PID is its process group, which a timeout kills whole), stdin /dev/null,
# stdout and stderr pipes of their own, the command text arriving on fd 3 when a call comes. A call
# is done when its bash exits: what it wrote until then is its output (read as it comes, drained
# after the exit); what its background processes write later is read and dropped, so they never
# write into a closed pipe. The VM is the tenant's, and so is this process: the control plane
# trusts nothing it says beyond the call it answers, bounds every line it reads, and falls back to a
# plain SSH exec when the agent is gone.
#
# Requests, one JSON object per line on stdin:
#   {"id": 7, "op": "run", "cmd": "echo hi"}
#   {"id": 7, "op": "kill", "sig": 15}
# Events, one JSON object per line on stdout:
#   {"ev": "ready"}
#   {"id": 7, "ev": "started", "pid": 1234}
#   {"id": 7, "ev": "out" | "err", "data": "<base64>"}
#   {"id": 7, "ev": "exit", "code": 0}
#   {"id": 7, "ev": "failed", "error": "…"}
import base64
import errno
import fcntl
import json
import os
import select
import signal
import sys

SPARE = 2
CHUNK = 65536
BOOT = 'IFS= read -r -d "" __sandbay_c <&{fd}; exec {fd}<&-; eval "unset __sandbay_c BASH_EXECUTION_STRING; $__sandbay_c"'

devnull = os.open(os.devnull, os.O_RDONLY)
wake_r, wake_w = os.pipe()
for fd in (wake_r, wake_w):
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
signal.set_wakeup_fd(wake_w)
signal.signal(signal.SIGCHLD, lambda *_: None)
signal.signal(signal.SIGPIPE, signal.SIG_IGN)

out_fd = sys.stdout.fileno()


def emit(event):
    # Written whole: stdout is raw here (`python3 -u`), and a write into the full pipe to sshd that a
    # signal interrupts (SIGCHLD, as a shell exits) returns having written part of the line. Its
    # return was ignored: the rest of that line was lost, and the next line with it (a big output came
    # back short by exactly its last reads, once in a full run).
    line = memoryview(json.dumps(event, separators=(",", ":")).encode() + b"\n")
    while line:
        line = line[os.write(out_fd, line):]


def nonblocking(fd):
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)


class Shell:
    """A bash waiting for its command on fd `cmd_w`'s other end."""

    def __init__(self):
        cmd_r, self.cmd_w = os.pipe()
        self.out_r, out_w = os.pipe()
        self.err_r, err_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.setsid()
                os.dup2(devnull, 0)
                os.dup2(out_w, 1)
                os.dup2(err_w, 2)
                os.dup2(cmd_r, 3)
                os.closerange(4, 65536)
                signal.signal(signal.SIGPIPE, signal.SIG_DFL)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                os.execv("/bin/bash", ["bash", "-c", BOOT.format(fd=3)])
            finally:
                os._exit(127)
        self.pid = pid
        for fd in (cmd_r, out_w, err_w):
            os.close(fd)
        nonblocking(self.out_r)
        nonblocking(self.err_r)


class Job:
    def __init__(self, call_id, shell):
        self.id = call_id
        self.shell = shell
        self.done = False


spares = []
jobs = {}  # pid -> Job (until reaped)
readers = {}  # fd -> (Job, "out" | "err")
pending = b""


def refill():
    while len(spares) < SPARE:
        try:
            spares.append(Shell())
        except OSError:
            return


def read_fd(fd):
    job, name = readers[fd]
    while True:
        try:
            data = os.read(fd, CHUNK)
        except OSError as e:
            if e.errno in (errno.EAGAIN, errno.EWOULDBLOCK):
                return
            data = b""
        if not data:
            del readers[fd]
            os.close(fd)
            return
        if not job.done:
            emit({"id": job.id, "ev": name, "data": base64.b64encode(data).decode()})


def reap():
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        job = jobs.pop(pid, None)
        if job is None:
            # A spare that died before it was used (the tenant killed it): replaced.
            for s in list(spares):
                if s.pid == pid:
                    spares.remove(s)
                    for fd in (s.cmd_w, s.out_r, s.err_r):
                        os.close(fd)
            continue
        # What the shell wrote before it exited is in its pipes now: drained, then the exit.
        for fd in (job.shell.out_r, job.shell.err_r):
            if fd in readers:
                read_fd(fd)
        code = os.waitstatus_to_exitcode(status)
        emit({"id": job.id, "ev": "exit", "code": code if code >= 0 else 128 - code})
        job.done = True


def handle(request):
    call_id = request.get("id")
    op = request.get("op")
    if op == "run":
        if not spares:
            refill()
        if not spares:
            emit({"id": call_id, "ev": "failed", "error": "no shell could be started"})
            return
        shell = spares.pop(0)
        job = Job(call_id, shell)
        jobs[shell.pid] = job
        readers[shell.out_r] = (job, "out")
        readers[shell.err_r] = (job, "err")
        emit({"id": call_id, "ev": "started", "pid": shell.pid})
        try:
            os.write(shell.cmd_w, request["cmd"].encode())
        except OSError:
            pass
        os.close(shell.cmd_w)
    elif op == "kill":
        # The shell's whole process group (its session: everything the command started).
        for pid, job in list(jobs.items()):
            if job.id == call_id:
                try:
                    os.killpg(pid, int(request.get("sig", signal.SIGTERM)))
                except OSError:
                    pass


stdin_fd = sys.stdin.fileno()
nonblocking(stdin_fd)
refill()
emit({"ev": "ready"})
while True:
    fds = [stdin_fd, wake_r] + list(readers)
    try:
        ready, _, _ = select.select(fds, [], [], 5.0)
    except InterruptedError:
        ready = []
    if wake_r in ready:
        try:
            while os.read(wake_r, 512):
                pass
        except OSError:
            pass
    for fd in ready:
        if fd in readers:
            read_fd(fd)
    reap()
    if stdin_fd in ready:
        try:
            chunk = os.read(stdin_fd, CHUNK)
        except OSError as e:
            chunk = None if e.errno in (errno.EAGAIN, errno.EWOULDBLOCK) else b""
        if chunk == b"":
            break  # the control plane went away: running commands go on, spares see EOF and exit
        if chunk:
            pending += chunk
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                try:
                    handle(json.loads(line))
                except (ValueError, KeyError, TypeError):
                    emit({"ev": "failed", "error": "bad request"})
    refill()
