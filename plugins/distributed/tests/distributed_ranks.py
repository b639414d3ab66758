"""A pool of worker processes joined in one gloo process group, for the multi-process tests.

``Ranks(2)`` spawns two processes (``torch.multiprocessing``'s spawn context) that join a
gloo process group (a ``FileStore`` in a temporary directory) and then wait for work.
``ranks.run(fn, *args, timeout=...)`` runs ``fn(*args)`` (a module-level function of a file,
found again by its file and name) on every rank at once and returns the results in rank
order. It fails, naming the rank and with its traceback, as soon as one rank raises or dies;
when the ranks do not all answer within ``timeout`` seconds (a rank waiting for a
collective its peer never makes) it fails too. After a failure the pool is killed: the next
``run`` needs a new pool (the ``ranks`` fixture makes one). Starting the processes (imports
of torch and thunder_core) takes seconds, so one pool serves every test of a session.
"""

from __future__ import annotations

import importlib.util
import os
import queue
import shutil
import sys
import tempfile
import time
import traceback

import torch.multiprocessing as mp


class RankFailed(AssertionError):
    """A rank raised, died or did not answer in time."""


def _load(path):
    name = "_ranks_" + os.path.splitext(os.path.basename(path))[0]
    module = sys.modules.get(name)
    if module is None or getattr(module, "__file__", None) != path:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return module


def _worker(rank, world_size, store, tasks, results):
    import torch.distributed as dist

    try:
        dist.init_process_group("gloo", init_method=f"file://{store}", rank=rank, world_size=world_size)
    except BaseException:  # noqa: BLE001 - reported to the parent, which fails the test
        results.put((rank, False, traceback.format_exc()))
        return
    while True:
        task = tasks.get()
        if task is None:
            break
        path, name, args = task
        try:
            results.put((rank, True, getattr(_load(path), name)(*args)))
        except BaseException:  # noqa: BLE001
            results.put((rank, False, traceback.format_exc()))
    dist.destroy_process_group()


class Ranks:
    """``world_size`` processes in one gloo group; see the module docstring."""

    def __init__(self, world_size: int = 2):
        self.world_size = world_size
        ctx = mp.get_context("spawn")
        self._dir = tempfile.mkdtemp(prefix="thunder_ranks_")
        store = os.path.join(self._dir, "store")
        self._results = ctx.Queue()
        self._tasks = [ctx.Queue() for _ in range(world_size)]
        self._procs = [ctx.Process(target=_worker, args=(r, world_size, store, self._tasks[r], self._results),
                                   daemon=True) for r in range(world_size)]
        for p in self._procs:
            p.start()
        self.alive = True

    def run(self, fn, *args, timeout: float = 120.0):
        """``[fn(*args) on rank 0, on rank 1, ...]``; raises RankFailed (see the module docstring)."""
        if not self.alive:
            raise RankFailed("this pool of ranks was killed after an earlier failure")
        path = os.path.abspath(fn.__code__.co_filename)
        for q in self._tasks:
            q.put((path, fn.__name__, args))
        got, deadline = {}, time.monotonic() + timeout
        while len(got) < self.world_size:
            left = deadline - time.monotonic()
            if left <= 0:
                self.kill()
                raise RankFailed(f"{fn.__name__}: ranks {sorted(set(range(self.world_size)) - set(got))} did not "
                                 f"answer within {timeout:.0f} s (a collective one rank never made?)")
            try:
                rank, ok, out = self._results.get(timeout=min(left, 0.5))
            except queue.Empty:
                dead = [r for r, p in enumerate(self._procs) if not p.is_alive()]
                if dead:
                    self.kill()
                    raise RankFailed(f"{fn.__name__}: rank(s) {dead} died (exit codes "
                                     f"{[self._procs[r].exitcode for r in dead]})") from None
                continue
            if not ok:
                self.kill()
                raise RankFailed(f"{fn.__name__} failed on rank {rank}:\n{out}")
            got[rank] = out
        return [got[r] for r in range(self.world_size)]

    def close(self):
        if self.alive:
            for q in self._tasks:
                q.put(None)
            for p in self._procs:
                p.join(timeout=10)
        self.kill()

    def kill(self):
        self.alive = False
        for p in self._procs:
            if p.is_alive():
                p.kill()
            p.join(timeout=5)
        shutil.rmtree(self._dir, ignore_errors=True)
