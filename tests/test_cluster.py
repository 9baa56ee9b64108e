"""Campaigns on a Dask cluster (``--scheduler``): the same cases and the
same summary as ``--jobs`` (every line but the time and rate), on a
``LocalCluster`` and on a real ``dask scheduler`` with two ``dask worker``
processes on loopback; a worker lost in the middle of a batch (it kills
itself) has its batch run again and the campaign's report is that of the
campaign run in one process; Ctrl-C stops cleanly (exit code 130, no
traceback, no process left); bad ``--scheduler`` values and a missing
``dask.distributed`` are one-line errors with exit code 2."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENV = dict(os.environ, PYTHONPATH=str(ROOT / "pytools"))


def cli(*args, timeout=900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "revhandlers", *args], cwd=ROOT, env=ENV, capture_output=True,
                          text=True, timeout=timeout)


def summary(p: subprocess.CompletedProcess) -> tuple[str, list[str]]:
    """The first line without its time and rate, and the other lines."""
    assert "Traceback" not in p.stderr, p.stderr
    lines = p.stdout.splitlines()
    first = re.sub(r" in [\d.]+ s \([\d.]+ (\w+)/s,", r" (\1/s,", lines[0])
    return first, lines[1:]


def same_as_jobs(command: list[str], scheduler: str, jobs: int = 2) -> None:
    a = cli(*command, "--jobs", str(jobs))
    b = cli(*command, "--scheduler", scheduler, *([] if scheduler.startswith("local:") else ["--jobs", str(jobs)]))
    assert a.returncode == b.returncode == 0, (a.stdout[-2000:], a.stderr[-2000:], b.stdout[-2000:], b.stderr[-2000:])
    assert summary(a) == summary(b), (a.stdout, b.stdout)
    assert f"{jobs} job(s)" in a.stdout.splitlines()[0]
    assert "Dask worker(s)" in b.stderr and "(dask) [" in b.stderr      # progress as results arrive


def test_fuzz_on_a_local_cluster_is_fuzz_with_jobs(tmp_path):
    same_as_jobs(["fuzz", "--n", "600", "--seed", "5", "--corpus", str(tmp_path)], "local:2")


def test_pullback_fuzz_on_a_local_cluster(tmp_path):
    same_as_jobs(["pullback", "fuzz", "--n", "40", "--seed", "3", "--allow-checker-gap", "--allow-stuck",
                  "--corpus", str(tmp_path)],
                 "local:2")


def test_dbr_fuzz_on_a_local_cluster(tmp_path):
    same_as_jobs(["dbr", "fuzz", "--n", "40", "--seed", "2", "--corpus", str(tmp_path)], "local:2")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def dask_cluster(tmp_path):
    """``dask scheduler`` and two ``dask worker`` processes on 127.0.0.1,
    stopped (by their process ids) afterwards."""
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    exe = Path(sys.executable).parent / "dask"
    if not exe.exists():
        pytest.fail(f"the dask command is not installed beside {sys.executable}: pip install 'revhandlers[cluster]'")
    dask = [str(exe)]
    procs = [subprocess.Popen([*dask, "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                              env=ENV, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)]
    try:
        for _ in range(2):
            procs.append(subprocess.Popen([*dask, "worker", address, "--nthreads", "1", "--host", "127.0.0.1",
                                           "--no-dashboard", "--nworkers", "1"], env=ENV, cwd=tmp_path,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        from distributed import Client
        with Client(address, timeout=120) as c:
            c.wait_for_workers(2, timeout=300)
        yield address, procs
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in reversed(procs):
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def test_fuzz_on_a_scheduler_and_two_workers(dask_cluster, tmp_path):
    address, _ = dask_cluster
    same_as_jobs(["fuzz", "--n", "600", "--seed", "7", "--corpus", str(tmp_path)], address)


# ------------------------------------------------------------ a lost worker

def dying_batch(args):
    """Kills its worker process the first time it runs the batch at 1000
    (a marker file says so), then runs batches as the campaign does."""
    from revhandlers.rh import campaign as fuzz
    *task, mark = args
    if task[1] == 1000 and not os.path.exists(mark):
        Path(mark).write_text(str(os.getpid()))
        os._exit(1)
    return fuzz._batch_job(tuple(task))


def test_a_lost_workers_batch_runs_again(tmp_path):
    import cloudpickle

    from revhandlers.rh import campaign as fuzz
    from revhandlers.cluster import run_on_cluster
    cloudpickle.register_pickle_by_value(sys.modules[__name__])     # the workers cannot import this test file
    mark = tmp_path / "died"
    reports = run_on_cluster(None, 1500, 5, 1, (10, "", fuzz.TIMEOUT, str(mark)), "fuzz", "local:2",
                             batch_job=dying_batch)
    assert mark.exists() and int(mark.read_text()) != os.getpid()     # a worker process died in batch 1000
    alone = fuzz.campaign(1500, 5)
    (r,) = reports
    assert (r.programs, r.skipped, r.divergence) == (alone.programs, alone.skipped, alone.divergence)
    assert (r.programs, r.divergence) == (1500, None)
    assert r.outcomes == alone.outcomes and r.coverage == alone.coverage


# ------------------------------------------------------------ Ctrl-C, errors

def test_ctrl_c_stops_cleanly(tmp_path):
    p = subprocess.Popen([sys.executable, "-m", "revhandlers", "fuzz", "--n", "1000000", "--seed", "1",
                          "--scheduler", "local:1", "--corpus", str(tmp_path)], cwd=ROOT, env=ENV,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    err: list[str] = []
    started = threading.Event()

    def read():
        for line in p.stderr:
            err.append(line)
            if "(dask) [" in line:
                started.set()
    t = threading.Thread(target=read, daemon=True)
    t.start()
    assert started.wait(600), "".join(err)
    p.send_signal(signal.SIGINT)
    out = p.stdout.read()
    code = p.wait(timeout=300)
    t.join(timeout=60)
    stderr = "".join(err)
    assert code == 130, (code, out, stderr)
    assert "Traceback" not in stderr, stderr
    assert "interrupted; the cluster's tasks were cancelled" in stderr, stderr
    # no process of the campaign (the local cluster's workers included) is left
    for _ in range(600):
        try:
            os.killpg(p.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail("processes of the interrupted campaign are still running")


@pytest.mark.parametrize("value", ["local:0", "local:x", "local"])
def test_bad_scheduler(value, tmp_path):
    p = cli("fuzz", "--n", "5", "--scheduler", value, "--corpus", str(tmp_path), timeout=120)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert len(p.stderr.strip().splitlines()) == 1 and "--scheduler" in p.stderr, p.stderr


def test_unreachable_scheduler(tmp_path):
    p = cli("fuzz", "--n", "5", "--scheduler", f"tcp://127.0.0.1:{_free_port()}", "--corpus", str(tmp_path),
            timeout=300)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    assert "cannot reach the Dask scheduler" in p.stderr.strip().splitlines()[-1], p.stderr


@pytest.mark.parametrize("command", [["fuzz"], ["pullback", "fuzz"], ["dbr", "fuzz"]])
def test_without_dask(command, tmp_path):
    code = ("import sys\n"
            "for m in ('distributed', 'dask'): sys.modules[m] = None\n"
            "from revhandlers.cli import main\n"
            "sys.exit(main(sys.argv[1:]))")
    p = subprocess.run([sys.executable, "-c", code, *command, "--n", "2", "--scheduler", "local:1", "--corpus",
                        str(tmp_path)], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=120)
    assert p.returncode == 2, (p.stdout, p.stderr)
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in p.stderr, p.stderr
    assert "--scheduler needs dask.distributed" in lines[0] and "pip install 'revhandlers[cluster]'" in lines[0], lines
