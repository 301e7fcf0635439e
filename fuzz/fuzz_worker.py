"""Persistent fuzzing workers: a forked process that runs many inputs one after another (AFL's persistent
mode), each under its own limits, and is replaced after a failure or every so many inputs.

A fork per input cost more than most inputs (a fresh process, its pipe, its folder and its limits, and
every cache warmed in it thrown away at its end); a worker pays that once per `recycle` inputs. The
limits stay per input:

- time: `time_limit` seconds of the worker's CPU time from the input's start (a profiling timer, so a
  loaded machine does not make false timeouts); the timer's signal dumps the stack and unwinds the input.
  An input stuck inside one C call (a regular expression, big-number arithmetic) does not see the
  signal: the parent reads the worker's CPU time from /proc and, past the limit and a grace second,
  asks faulthandler for the stack (SIGUSR1, answered even inside C code) and kills the worker. A worker
  that uses (almost) no CPU is stopped at `wall_limit` seconds of wall clock, any at six times that.
- memory: the worker's address space may grow by `memory_limit` bytes during the input (RLIMIT_AS set
  to its size at the input's start plus the limit), so what is measured is the input's own growth, not
  the memory the parent handed down at the fork.

A worker is replaced after any input that timed out, ran out of memory or escaped as an exception, so
no input runs in a process a failure may have left half-changed.
"""

from __future__ import annotations

import faulthandler
import multiprocessing
import os
import re
import resource
import shutil
import signal
import tempfile
import time
from pathlib import Path
from typing import Callable

GRACE = 1.0  # CPU seconds past the limit before the parent kills a worker stuck in C code
WAITING = 0.02  # a worker using less of a core than this past the wall limit waits (on a read, a lock)
STARVED = 6  # times the wall limit after which an input is stopped whatever CPU it had (a machine
# loaded ten times over its cores gives a process a tenth of a core: CPU time, not the wall clock, is
# the measure, and the wall limit alone would make false timeouts)
TIMEOUT, MEMORY = "timeout", "memory"
_TICK = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")

# run(target_name, data, workdir) -> (kind, signature, reason); raises only what the worker classes itself
Runner = Callable[[str, bytes, Path], tuple[str, str, str]]


class OverTime(BaseException):
    """The input's CPU time ran out (a BaseException: `except Exception` in the code under test must not
    swallow it)."""


def _address_space() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[0]) * _PAGE


def cpu_seconds(pid: int) -> float:
    """A process's CPU time (user and system) from /proc, or 0 when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICK  # utime and stime, fields 14 and 15 of stat


_DUMP = None  # the worker's stack file, open: where the timer's handler and faulthandler write


def _over_time(signum, frame):
    faulthandler.dump_traceback(file=_DUMP, all_threads=False)  # where the time ran out
    _DUMP.flush()
    raise OverTime


def _limit_memory(soft: int, hard: int) -> None:
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _serve(conn, run: Runner, folder: Path, time_limit: float, memory_limit: int) -> None:
    """The worker's loop: take an input, run it under the limits, answer `(kind, signature, reason, cpu)`;
    exit on None, or after answering for an input that failed in a way that may have left it damaged."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the campaign (the parent), not the worker
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the parent's `stop_on_sigterm` is not the worker's
    global _DUMP
    signal.signal(signal.SIGPROF, _over_time)
    dump = _DUMP = open(folder / "stack.txt", "w")
    faulthandler.register(signal.SIGUSR1, file=dump, all_threads=False)  # the parent's last look
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    while True:
        job = conn.recv()
        if job is None:
            return
        name, data = job
        dump.seek(0)
        dump.truncate()
        workdir = Path(tempfile.mkdtemp(prefix=f"in-{name}-", dir=folder))
        os.chdir(workdir)
        started = time.process_time()
        damaged = False
        try:
            _limit_memory(_address_space() + memory_limit, hard)
            signal.setitimer(signal.ITIMER_PROF, time_limit)
            try:
                answer = run(name, data, workdir)
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
                resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
        except OverTime:
            answer, damaged = (TIMEOUT, "", ""), True
        except MemoryError:
            resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
            answer, damaged = (MEMORY, "MemoryError", "ran out of memory"), True
        damaged = damaged or answer[0] != "ok"
        os.chdir(folder)
        shutil.rmtree(workdir, ignore_errors=True)
        conn.send((*answer, time.process_time() - started))
        if damaged:
            return


class Worker:
    """The parent's handle on one worker process: give it an input, then `check` it until it answers."""

    def __init__(self, run: Runner, *, time_limit: float, memory_limit: int, wall_limit: float):
        self.time_limit, self.wall_limit = time_limit, wall_limit
        self.folder = Path(tempfile.mkdtemp(prefix="fuzz-worker-"))
        context = multiprocessing.get_context("fork")
        self.conn, child_end = context.Pipe()
        self.process = context.Process(target=_serve, args=(child_end, run, self.folder, time_limit,
                                                             memory_limit), daemon=True)
        self.process.start()
        child_end.close()
        self.done = 0  # inputs answered
        self.job = None  # (name, data, wall start, CPU start) of the input in hand
        self.alive = True

    def give(self, name: str, data: bytes) -> None:
        """Start one input (the worker must be idle)."""
        self.job = (name, data, time.monotonic(), cpu_seconds(self.process.pid))
        self.conn.send((name, data))

    def check(self, now: float) -> tuple[str, str, str, float, float] | None:
        """The answer to the input in hand, `(kind, signature, reason, cpu, wall)`, once there is one:
        the worker's own, or a timeout or a death seen from here. None while it is still working."""
        name, data, started, cpu_start = self.job
        wall = now - started
        if self.conn.poll(0):
            self.job = None
            try:
                kind, signature, reason, cpu = self.conn.recv()
            except (EOFError, OSError):
                return self._died(wall)
            self.done += 1
            if kind != "ok":
                self._retire()  # it left after failing; reap it
            if kind == TIMEOUT:
                return TIMEOUT, *self._stack(), cpu, wall
            return kind, signature, reason, cpu, wall
        cpu = cpu_seconds(self.process.pid) - cpu_start
        waiting = wall > self.wall_limit and cpu < wall * WAITING  # blocked, not starved by the machine's load
        if cpu > self.time_limit + GRACE or waiting or wall > self.wall_limit * STARVED:
            self.job = None
            self._look_and_kill()
            return TIMEOUT, *self._stack(), cpu, wall
        return None

    def _died(self, wall: float):
        self.process.join(1)
        code = self.process.exitcode
        cpu = cpu_seconds(self.process.pid)
        self._retire()
        if (self.folder / "stack.txt").exists() and (self.folder / "stack.txt").stat().st_size:
            return TIMEOUT, *self._stack(), cpu, wall
        kind = MEMORY if code in (-9, -6) else "internal error"
        return kind, f"worker died ({code})", f"the worker process died with {code}", cpu, wall

    def _look_and_kill(self) -> None:
        try:
            os.kill(self.process.pid, signal.SIGUSR1)  # faulthandler writes the stack, even inside C code
            time.sleep(0.2)
        except OSError:
            pass
        self._retire()

    def _stack(self) -> tuple[str, str]:
        where = stack_signature(self.folder / "stack.txt")
        return f"timeout at {where}", f"over {self.time_limit:g} s, last in {where}"

    def _retire(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.alive = False

    def stop(self) -> None:
        """End the worker and remove its folder."""
        if self.alive and self.job is None:
            try:
                self.conn.send(None)
                self.process.join(2)
            except OSError:
                pass
        self._retire()
        self.conn.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def stack_signature(path: Path) -> str:
    """The innermost ruleslang frame of a stack faulthandler dumped."""
    try:
        text = path.read_text(errors="replace")
    except OSError:
        return "?"
    # the timer's handler (this file) is the innermost frame of its own dump
    frames = [f for f in re.findall(r'File "([^"]+)", line \d+ in (\S+)', text) if Path(f[0]).name != Path(__file__).name]
    for filename, function in frames:  # faulthandler lists the innermost frame first
        if f"{os.sep}ruleslang{os.sep}" in filename:
            return f"{filename.split(os.sep + 'ruleslang' + os.sep)[-1]}:{function}"
    # faulthandler shows the innermost 100 frames only: a deep recursion may show none of ruleslang's
    return f"{Path(frames[0][0]).name}:{frames[0][1]}" if frames else "?"
