"""An error raised in a campaign's worker process reaches the parent whole.

Campaigns with ``--jobs 2`` run their batches in worker processes; an error
there (no driver to run, for one) is pickled back to the parent.  The
project's errors take constructor arguments that differ by class
(``DriverNotFound(name, env, why)``), so they are pickled by their fields
(``RevHandlersError.__reduce__``): before that, the parent could not rebuild
the error, printed a traceback and waited for the pool forever.
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys

import pytest

from revhandlers import errors
from revhandlers.paths import DriverNotFound


def every_error_class():
    seen, todo = [], [errors.RevHandlersError]
    while todo:
        c = todo.pop()
        if c not in seen:
            seen.append(c)
            todo.extend(c.__subclasses__())
    return seen


def test_driver_not_found_pickles_whole():
    e = DriverNotFound("pullback-eval", "PULLBACK_EVAL", "PULLBACK_EVAL is set to /x, which is not a file")
    f = pickle.loads(pickle.dumps(e))
    assert type(f) is DriverNotFound
    assert (f.kind, f.rule, f.exit_code, f.message, str(f)) == ("io", "none", 2, e.message, str(e))


def test_every_error_class_pickles_with_its_fields():
    classes = every_error_class()
    assert DriverNotFound in classes and errors.BadInput in classes
    for cls in classes:
        e = cls.__new__(cls)
        errors.RevHandlersError.__init__(e, "io", f"a message of {cls.__name__}", "some_rule", pos=(3, 4),
                                         notes=("a note",))
        f = pickle.loads(pickle.dumps(e))
        assert type(f) is cls
        assert (f.kind, f.rule, f.message, f.pos, f.notes, f.exit_code) == \
            (e.kind, e.rule, e.message, e.pos, e.notes, e.exit_code)


CAMPAIGNS = {
    "rh": (["fuzz"], "RH_EVAL", "rh-eval"),
    "pullback": (["pullback", "fuzz"], "PULLBACK_EVAL", "pullback-eval"),
}


@pytest.mark.parametrize("name", sorted(CAMPAIGNS))
def test_a_campaign_with_two_jobs_and_no_driver_stops_with_exit_2(name, tmp_path):
    argv, env_name, driver = CAMPAIGNS[name]
    missing = tmp_path / "no-such-driver"
    env = {**os.environ, env_name: str(missing)}
    p = subprocess.Popen([sys.executable, "-m", "revhandlers", *argv, "--n", "50", "--jobs", "2"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                         start_new_session=True)
    try:
        out, err = p.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        pytest.fail(f"`revhandlers {' '.join(argv)} --jobs 2` without {driver} did not stop")
    assert p.returncode == 2, out + err
    assert f"{env_name} is set to {missing}, which is not a file" in err
    assert "Traceback" not in out + err
