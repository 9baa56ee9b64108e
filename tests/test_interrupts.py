"""Interrupted, nothing lost (docs/interrupts.md): SIGINT and SIGTERM end
``train``, the three campaigns and ``scripts/input-fuzz.py`` with no
traceback, exit code 130 or 143 and one line saying what was kept; the
checkpoint or journal is readable; ``train --resume`` after two interrupts,
and ``train`` whose rh-eval is killed (SIGKILL) mid-epoch, reach the
uninterrupted run's weights bit for bit; a 3,000-program campaign
interrupted and resumed ends with the uninterrupted run's summary.

The moments are fixed: a signal is sent when the command has printed a
given progress line (its output, not a clock, says how far it got)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import revhandlers as rh
from revhandlers import interrupt
from revhandlers.errors import BadInput
from revhandlers.journal import Journal, read
from revhandlers.rh.session import Session
from revhandlers.rh.train import Checkpoint, train

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "pytools")}
RH = [sys.executable, "-m", "revhandlers"]
MLP = str(ROOT / "examples" / "mlp.rh")


def interrupted(cmd, marker: str, count: int, sig, cwd, kill_child: bool = False):
    """Run ``cmd``; when its stderr has shown ``count`` lines containing
    ``marker``, send ``sig`` (to the command, or with ``kill_child`` to its
    evaluator process); the exit code, stdout and the whole stderr."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV, cwd=cwd)
    seen, err = 0, []
    for line in p.stderr:
        err.append(line)
        if marker in line:
            seen += 1
            if seen == count:
                if kill_child:
                    for pid in Path(f"/proc/{p.pid}/task/{p.pid}/children").read_text().split():
                        os.kill(int(pid), signal.SIGKILL)
                else:
                    p.send_signal(sig)
                break
    out, rest = p.communicate(timeout=300)
    return p.returncode, out, "".join(err) + rest


def clean_stop(code, err, sig) -> str:
    assert "Traceback" not in err, err
    assert code == 128 + sig, (code, err)
    last = err.strip().splitlines()[-1]
    assert "interrupted by " + signal.Signals(sig).name in last, last
    return last


def summary(out: str) -> list[str]:
    """The summary without its timing (the first line's ``in … s (…/s``)."""
    lines = out.strip().splitlines()
    return [lines[0].split(" in ")[0]] + lines[1:]


# ------------------------------------------------------------------ train

TRAIN = ["--hidden", "4", "--epochs", "2", "--train-size", "120", "--seed", "5"]


def test_train_interrupted_twice_resumes_bit_for_bit(tmp_path):
    ckpt, w = tmp_path / "c.npz", tmp_path / "w.npz"
    cmd = RH + ["train", MLP, *TRAIN, "--checkpoint", str(ckpt), "--save", str(w), "--plot", str(tmp_path / "p.png")]
    # SIGINT in epoch 1 (after 3 tenths), SIGTERM in epoch 2 (after 5 tenths of the resumed run)
    code, _, err = interrupted(cmd, "epoch 1/2 [", 4, signal.SIGINT, tmp_path)
    last = clean_stop(code, err, signal.SIGINT)
    assert f"checkpoint {ckpt}" in last and "--resume" in last
    first = Checkpoint.read(ckpt)
    assert first.epoch == 1 and 0 < first.position < 120 and not w.exists()
    code, out, err = interrupted(cmd + ["--resume", str(ckpt)], "epoch 2/2 [", 6, signal.SIGTERM, tmp_path)
    clean_stop(code, err, signal.SIGTERM)
    second = Checkpoint.read(ckpt)
    assert second.epoch == 2 and 0 < second.position < 120
    done = subprocess.run(cmd + ["--resume", str(ckpt)], capture_output=True, text=True, env=ENV, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    _, want = train(rh.load(MLP, params={"hidden": 4}), epochs=2, seed=5, train_size=120, quiet=True)
    with np.load(w) as got:
        assert sorted(got.files) == sorted(want)
        for k in want:
            assert got[k].tobytes() == np.asarray(want[k], dtype=float).tobytes(), k


def test_train_survives_a_killed_evaluator(tmp_path):
    w = tmp_path / "w.npz"
    cmd = RH + ["train", MLP, *TRAIN, "--checkpoint-every", "30", "--save", str(w), "--plot", str(tmp_path / "p.png")]
    code, out, err = interrupted(cmd, "epoch 2/2 [", 5, None, tmp_path, kill_child=True)
    assert code == 0 and "Traceback" not in err, err
    # the death is seen during a request ("killed by signal 9") or at the next one
    assert "starting again from the last checkpoint (epoch 2 of 2" in err, err
    assert "killed by signal 9" in err or "stopped between two requests" in err, err
    _, want = train(rh.load(MLP, params={"hidden": 4}), epochs=2, seed=5, train_size=120, quiet=True)
    with np.load(w) as got:
        for k in want:
            assert got[k].tobytes() == np.asarray(want[k], dtype=float).tobytes(), k


def test_train_resume_with_other_options_is_bad_input(tmp_path):
    prog = rh.load(MLP, params={"hidden": 4})
    train(prog, epochs=1, train_size=20, quiet=True, checkpoint=tmp_path / "c.npz")
    ck = Checkpoint.read(tmp_path / "c.npz")
    assert (ck.epoch, ck.position) == (2, 0)              # after the last epoch
    with pytest.raises(BadInput, match=r"lr 0.05 \(here 0.1\)"):
        train(prog, epochs=1, train_size=20, lr=0.1, quiet=True, resume=ck)
    (tmp_path / "bad.npz").write_bytes(b"not a checkpoint")
    r = subprocess.run(RH + ["train", MLP, "--resume", str(tmp_path / "bad.npz")], capture_output=True, text=True,
                       env=ENV)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "cannot read the checkpoint" in r.stderr, r.stderr


# -------------------------------------------------------------- campaigns

def test_fuzz_3000_interrupted_and_resumed_gives_the_same_summary(tmp_path):
    cmd = RH + ["fuzz", "--n", "3000", "--seed", "4", "--corpus", str(tmp_path / "corpus"), "--allow-holes"]
    journal = tmp_path / "corpus-journal.jsonl"          # the default: beside the corpus
    code, out, err = interrupted(cmd, "fuzz [", 3, signal.SIGINT, tmp_path)
    last = clean_stop(code, err, signal.SIGINT)
    assert str(journal) in last
    header, jobs = read(journal)
    checked = jobs[4].done
    assert header["options"]["n"] == 3000 and 0 < checked < 3000
    assert out.startswith(f"programs: {checked} in ")          # the summary of what was checked
    resumed = subprocess.run(cmd + ["--resume", str(journal)], capture_output=True, text=True, env=ENV)
    whole = subprocess.run(cmd + ["--journal", str(tmp_path / "j2.jsonl")], capture_output=True, text=True, env=ENV)
    assert resumed.returncode == whole.returncode == 0, resumed.stderr + whole.stderr
    assert summary(resumed.stdout)[0] == "programs: 3000"
    assert summary(resumed.stdout) == summary(whole.stdout)


def test_fuzz_jobs_sigterm(tmp_path):
    cmd = RH + ["fuzz", "--n", "2000", "--seed", "9", "--jobs", "2", "--journal", str(tmp_path / "j.jsonl"),
                "--corpus", str(tmp_path / "c"), "--allow-holes"]
    code, out, err = interrupted(cmd, "fuzz [", 2, signal.SIGTERM, tmp_path)
    clean_stop(code, err, signal.SIGTERM)
    _, jobs = read(tmp_path / "j.jsonl")
    assert out.startswith(f"programs: {sum(j.done for j in jobs.values())} in ")


@pytest.mark.parametrize("sub, n, unit", [(["pullback", "fuzz"], 40, "queries"), (["dbr", "fuzz"], 12, "expressions")])
def test_sibling_campaigns_interrupted_and_resumed(tmp_path, sub, n, unit):
    cmd = RH + [*sub, "--n", str(n), "--seed", "2", "--corpus", str(tmp_path / "corpus"), "--allow-holes"]
    if sub[0] == "dbr":
        cmd.remove("--allow-holes")
    else:                         # the higher-order queries still stuck are divergences unless allowed
        cmd.append("--allow-stuck")
    journal = tmp_path / "corpus-journal.jsonl"
    code, out, err = interrupted(cmd, "fuzz [", 3, signal.SIGINT, tmp_path)
    clean_stop(code, err, signal.SIGINT)
    first = read(journal)[1][2].done
    assert out.startswith(f"{unit}: {first} in ")
    if sub[0] == "pullback":      # a second interrupt, of the resumed run
        code, out, err = interrupted(cmd + ["--resume", str(journal)], "fuzz [", 2, signal.SIGTERM, tmp_path)
        clean_stop(code, err, signal.SIGTERM)
        assert read(journal)[1][2].done >= first
    resumed = subprocess.run(cmd + ["--resume", str(journal)], capture_output=True, text=True, env=ENV)
    whole = subprocess.run(cmd + ["--journal", str(tmp_path / "j2.jsonl")], capture_output=True, text=True, env=ENV)
    assert resumed.returncode == whole.returncode == 0, resumed.stderr + whole.stderr
    assert summary(resumed.stdout) == summary(whole.stdout)


def test_resume_with_other_options_is_bad_input(tmp_path):
    j = Journal.start(tmp_path / "j.jsonl", "revhandlers fuzz", {"n": 10, "seed": 0})
    with pytest.raises(BadInput, match="seed 0"):
        Journal.resume(j.path, "revhandlers fuzz", {"n": 10, "seed": 1})
    r = subprocess.run(RH + ["fuzz", "--n", "11", "--resume", str(j.path)], capture_output=True, text=True, env=ENV)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "other options" in r.stderr, r.stderr


def test_journal_keeps_whole_lines_only(tmp_path):
    j = Journal.start(tmp_path / "j.jsonl", "c", {})
    j.add(0, 0, ["agree", "skipped (x)"], coverage={"rule 1": 3})
    j.add(0, 2, ["agree"])
    with open(j.path, "a") as f:
        f.write('{"seed": 0, "start": 3, "verdi')          # a line cut by a crash
    _, jobs = read(j.path)
    r = jobs[0].report()
    assert (r.programs, r.skipped, dict(r.outcomes), dict(r.coverage)) == (
        3, 1, {"agree": 2, "skipped (x)": 1}, {"rule 1": 3})
    lines = j.path.read_text().splitlines()
    j.path.write_text("\n".join([lines[0], lines[1][:20], lines[2]]) + "\n")
    with pytest.raises(BadInput, match="damaged at line 2"):
        read(j.path)


# ------------------------------------------------------------- input-fuzz

@pytest.mark.parametrize("sig, jobs", [(signal.SIGINT, 1), (signal.SIGTERM, 2)])
def test_input_fuzz_stops_cleanly(tmp_path, sig, jobs):
    cmd = [sys.executable, str(ROOT / "scripts" / "input-fuzz.py"), "--n", "100000", "--programs", "10",
           "--jobs", str(jobs), "--cli-every", "1000000", "--oneshot-every", "1000000"]
    code, out, err = interrupted(cmd, "begins at input", jobs, sig, tmp_path)
    last = clean_stop(code, err, sig)
    assert "inputs reached" in last
    first = out.splitlines()[0]
    assert first.startswith("inputs: ") and f"stopped by {signal.Signals(sig).name}" in first, out


# --------------------------------------------------------- atomic, Session

def test_write_atomic_leaves_the_old_file_on_failure(tmp_path):
    path = tmp_path / "f.bin"
    interrupt.write_atomic(path, lambda f: f.write(b"old"))

    def fails(f):
        f.write(b"half")
        raise OSError("disk full")

    with pytest.raises(OSError):
        interrupt.write_atomic(path, fails)
    assert path.read_bytes() == b"old" and os.listdir(tmp_path) == ["f.bin"]


def test_session_snapshot_restore_and_a_dead_evaluator(tmp_path):
    prog = rh.load(MLP, params={"hidden": 3})
    x = np.linspace(0, 1, 64)
    with Session(prog, in_process=False) as s:       # a process to kill
        s.set_heap({"lr": [0.1], "l0": np.full(64 * 3, 0.01), "l1": np.full(30, -0.02)})
        snap = s.snapshot(tmp_path / "snap.npz")
        first = s.run(set={"input": x, "target": np.eye(10)[3]}, read=["l0"]).read["l0"]
        os.kill(s._ev._proc.pid, signal.SIGKILL)
        # seen during the request ("killed by signal 9") or before it (the process already reaped)
        with pytest.raises(rh.EvaluatorDied, match=r"(killed by signal 9|stopped between two requests).*"
                                                   r"snapshot 1 \(.*snap\.npz\)") as e:
            s.run(set={"input": x, "target": np.eye(10)[3]})
        assert e.value.snapshot is snap and e.value.exit_code == 1
        s.restore()                       # a new process, the snapshot's heap
        again = s.run(set={"input": x, "target": np.eye(10)[3]}, read=["l0"]).read["l0"]
        assert again.tobytes() == first.tobytes()
        s.restore(tmp_path / "snap.npz")
        assert s.heap()["l0"].tobytes() == snap.heap["l0"].tobytes()
    with Session(prog, engine="reference") as r:       # the same API on the reference engine
        r.set_heap({"lr": [0.5]})
        r.snapshot()
        r.set_heap({"lr": [0.0]})
        r.restore()
        assert r.heap()["lr"][0] == 0.5
        with pytest.raises(BadInput, match="another program"):
            Session(rh.load(MLP, params={"hidden": 2}), engine="reference").restore(snap)


# ---------------------------------------------------------- run, check, trace

@pytest.mark.parametrize("command, sig", [("run", signal.SIGINT), ("check", signal.SIGTERM), ("trace", signal.SIGINT)])
def test_run_check_trace_stop_cleanly_and_end_the_evaluator(tmp_path, command, sig):
    """An evaluator that never answers (a stand-in for a long run): the
    signal ends the command and the evaluator process."""
    stub = tmp_path / "rh-eval"
    stub.write_text(f"#!/bin/sh\necho $$ > {tmp_path}/pid\necho stand-in ready >&2\nexec sleep 300\n")
    stub.chmod(0o755)
    env = {**ENV, "RH_EVAL": str(stub)}
    p = subprocess.Popen(RH + [command, MLP], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    err = [p.stderr.readline()]
    while err[-1] and "stand-in ready" not in err[-1]:   # notes printed before the run (run: the initial heap)
        err.append(p.stderr.readline())
    assert "stand-in ready" in err[-1], err
    p.send_signal(sig)
    _, rest = p.communicate(timeout=60)
    last = clean_stop(p.returncode, "".join(err) + rest, sig)
    assert "nothing to keep" in last
    pid = int((tmp_path / "pid").read_text())
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]
