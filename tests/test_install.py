"""The package installed outside the checkout, as a user gets it: a wheel
built from this checkout (``pip wheel``), installed (not editable) into a
fresh virtual environment, run from a directory outside the checkout with
the extracted drivers found on ``PATH`` (as ``make install`` puts them),
or through ``RH_EVAL``, or not at all (a one-line error saying how to get
them, exit code 2).  Also: the digits shipped in the wheel, the one-line
error of ``fuzz`` without its optional dependencies, and ``make install``'s
copy of the drivers (into a temporary ``DESTDIR``, without building).

Nothing here is skipped: when the wheel or the environment cannot be made,
the tests fail with the reason.  The wheel is built offline (``--no-index
--no-build-isolation``: the running Python's setuptools), and the virtual
environment sees this Python's packages (``--system-site-packages``: numpy
and the rest are not downloaded), but imports ``revhandlers`` from the
wheel, which the tests check."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXTRACTED = ROOT / "_build" / "default" / "extracted"
DRIVERS = ("rh-eval", "dbr-eval", "pullback-eval")
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
# what a source tree needs to build the wheel is copied, not built in place:
# setuptools writes ./build into the tree it builds (and other runs may share
# the checkout)
SKIP_COPY = {"_build", ".git", "build", "results", ".hypothesis", ".pytest_cache", "__pycache__"}


def run(cmd, *, timeout=120, check=False, **kw) -> subprocess.CompletedProcess:
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, **kw)
    if check and p.returncode != 0:
        pytest.fail(f"{' '.join(map(str, cmd))} failed (exit code {p.returncode}):\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}")
    return p


class Installed:
    """The wheel, the virtual environment it is installed in, a bin
    directory holding copies of the drivers, and a working directory
    outside the checkout."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.wheel = self._build_wheel()
        self.venv = tmp / "venv"
        run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", self.venv], check=True)
        self.python = self.venv / "bin" / "python"
        self.revhandlers = self.venv / "bin" / "revhandlers"
        # the pip of the system site-packages, installing into the venv
        run([self.python, "-m", "pip", "install", "--no-deps", "--no-index", "--force-reinstall",
             "--disable-pip-version-check", self.wheel], check=True)
        self.bin = tmp / "bin"
        self.bin.mkdir()
        for name in DRIVERS:
            if not (EXTRACTED / name).is_file():
                pytest.fail(f"{EXTRACTED / name} is missing: run `make build` first")
            shutil.copy(EXTRACTED / name, self.bin / name)
        self.work = tmp / "work"
        self.work.mkdir()
        for example in ("one_layer.rh", "mlp.rh", "pullback/paper_f.pb"):
            shutil.copy(ROOT / "examples" / example, self.work / Path(example).name)
        # PATH without the drivers: the venv's scripts and the system's programs
        self.bare_path = os.pathsep.join([str(self.venv / "bin"), "/usr/bin", "/bin"])
        for name in DRIVERS:
            found = shutil.which(name, path=self.bare_path)
            if found:
                pytest.fail(f"{found} is installed system-wide: cannot test a PATH without {name}")

    def _build_wheel(self) -> Path:
        try:
            import setuptools  # noqa: F401  (the build backend, used without isolation)
        except ImportError as e:
            pytest.fail(f"cannot build the wheel offline: setuptools is not importable by {sys.executable}: {e}")
        src = self.tmp / "src"

        def ignore(directory, names):
            return [n for n in names if n in SKIP_COPY or n.endswith(".egg-info")]

        shutil.copytree(ROOT, src, ignore=ignore, symlinks=True)
        out = self.tmp / "wheels"
        run([sys.executable, "-m", "pip", "wheel", src, "--no-deps", "--no-build-isolation", "--no-index",
             "--disable-pip-version-check", "-w", out], check=True, timeout=180)
        wheels = list(out.glob("revhandlers-*.whl"))
        if len(wheels) != 1:
            pytest.fail(f"pip wheel made {wheels}, not one revhandlers wheel")
        return wheels[0]

    def env(self, drivers_on_path: bool = True, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if k not in ("RH_EVAL", "DBR_EVAL", "PULLBACK_EVAL", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
        env["PATH"] = (str(self.bin) + os.pathsep if drivers_on_path else "") + self.bare_path
        env["MPLBACKEND"] = "Agg"
        env["MPLCONFIGDIR"] = str(self.tmp / "mpl")
        env.update(extra)
        return env

    def cli(self, *args, drivers_on_path: bool = True, timeout=120, **extra) -> subprocess.CompletedProcess:
        return run([self.revhandlers, *args], cwd=self.work, env=self.env(drivers_on_path, **extra),
                   timeout=timeout)

    def py(self, code: str, *args, drivers_on_path: bool = True) -> subprocess.CompletedProcess:
        return run([self.python, "-c", code, *args], cwd=self.work, env=self.env(drivers_on_path))


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    return Installed(tmp_path_factory.mktemp("install"))


def test_the_wheel_ships_the_digits_and_their_source(installed):
    names = zipfile.ZipFile(installed.wheel).namelist()
    data = ROOT / "data"
    with zipfile.ZipFile(installed.wheel) as z:
        for name in ("digits.csv.gz", "README.md"):
            assert f"revhandlers/data/{name}" in names, names
            assert z.read(f"revhandlers/data/{name}") == (data / name).read_bytes(), name
    assert not [n for n in names if "_build" in n or n.endswith((".ml", ".v"))], names
    # the package's copy is the checkout's data/, byte for byte
    for name in ("digits.csv.gz", "README.md"):
        assert (ROOT / "pytools" / "revhandlers" / "data" / name).read_bytes() == (data / name).read_bytes(), name


def test_the_venv_runs_the_wheel_not_the_checkout(installed):
    p = installed.py("import revhandlers, revhandlers.paths as p, revhandlers.train as t\n"
                     "print(revhandlers.__file__); print(p.checkout_root()); print(t.DIGITS)")
    assert p.returncode == 0, p.stderr
    file, root, digits = p.stdout.splitlines()
    venv = str(installed.venv.resolve()) + os.sep
    assert os.path.realpath(file).startswith(venv), file
    assert root == "None"
    assert os.path.realpath(digits).startswith(venv) and digits.endswith("revhandlers/data/digits.csv.gz"), digits


def test_version(installed):
    p = installed.cli("--version")
    assert (p.returncode, p.stdout.strip()) == (0, f"revhandlers {VERSION}"), p.stderr


def test_run_finds_rh_eval_on_path(installed):
    p = installed.cli("run", "one_layer.rh")
    assert p.returncode == 0, p.stderr
    assert "engine: verified" in p.stdout
    assert "value: <[-2.75, -3.6 ]>" in p.stdout
    assert "steps: 28" in p.stdout


def test_check_finds_rh_eval_on_path(installed):
    p = installed.cli("check", "mlp.rh")
    assert p.returncode == 0, p.stderr
    # a rev handle over one variable x_in : Real(n_in) = Real(64) answers the 1-tuple of its gradient
    assert p.stdout.strip() == "mlp.rh: well typed, Prod(Real(64))", p.stdout


def test_fuzz_runs_outside_the_checkout(installed):
    # --allow-holes: 50 programs may leave a rule unfired (exit code 3), which is not what is tested here
    p = installed.cli("fuzz", "--n", "50", "--seed", "1", "--allow-holes",
                      "--corpus", str(installed.tmp / "fuzz-corpus"), timeout=600)
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == 0, (p.returncode, p.stdout[-3000:], p.stderr[-3000:])
    assert re.search(r"^programs: 50 ", p.stdout, re.M), p.stdout
    assert re.search(r"^divergences: 0$", p.stdout, re.M), p.stdout
    assert not (installed.tmp / "fuzz-corpus").exists()


def test_pullback_run_finds_pullback_eval_on_path(installed):
    p = installed.cli("pullback", "run", "paper_f.pb")
    assert p.returncode == 0, p.stderr
    # the paper's example (Mak and Ong, the pullback of f at its point, worked in the paper)
    assert re.search(r"^value: \[660, 528\]\*$", p.stdout, re.M), p.stdout


def test_dbr_diff_finds_dbr_eval_on_path(installed):
    p = installed.cli("dbr", "diff", "(x+1)^3", "--at", "4", "--engine", "coq")
    assert p.returncode == 0, ("dbr-eval on PATH is not found: revhandlers/dbr/engine.py's dbr_eval_path "
                               f"must return paths.driver_path('dbr-eval', 'DBR_EVAL'): {p.stderr}")
    assert "extracted from Coq" in p.stdout
    assert re.search(r"^f'\(4\) = 75$", p.stdout, re.M), p.stdout


def test_train_reads_the_installed_digits(installed):
    p = installed.cli("train", "mlp.rh", "--epochs", "1", "--train-size", "20", "--hidden", "4",
                      "--plot", "loss.png", timeout=90)
    assert p.returncode == 0, p.stderr
    assert "on the UCI digits through the verified evaluator (rh-eval)" in p.stdout
    assert re.search(r"^held-out accuracy: [01]\.\d{3} \(chance: 0\.100\)$", p.stdout, re.M), p.stdout
    assert (installed.work / "loss.png").stat().st_size > 0


def one_line_error(p: subprocess.CompletedProcess) -> str:
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    return lines[0]


def test_no_driver_is_a_clear_error(installed):
    msg = one_line_error(installed.cli("run", "one_layer.rh", drivers_on_path=False))
    assert msg.startswith("error (io): "), msg
    for what in ("rh-eval is not on PATH", "make build", "make install", "RH_EVAL"):
        assert what in msg, msg
    assert "_build" not in msg, msg       # no path made up inside the Python installation


def test_no_dbr_eval_is_a_clear_error(installed):
    p = installed.cli("dbr", "diff", "x^2", "--at", "1", "--engine", "coq", drivers_on_path=False)
    msg = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    for what in ("dbr-eval is not on PATH", "make build", "make install", "DBR_EVAL"):
        assert what in msg, msg


def test_rh_eval_variable(installed):
    p = installed.cli("run", "one_layer.rh", drivers_on_path=False, RH_EVAL=str(installed.bin / "rh-eval"))
    assert p.returncode == 0 and "steps: 28" in p.stdout, p.stderr
    missing = installed.tmp / "nowhere" / "rh-eval"
    msg = one_line_error(installed.cli("run", "one_layer.rh", RH_EVAL=str(missing)))
    assert f"RH_EVAL is set to {missing}" in msg and "make install" in msg, msg


@pytest.mark.parametrize("command, hidden", [(["fuzz", "--n", "2"], ["hypothesis"]),
                                              (["dbr", "fuzz", "--n", "2"], ["hypothesis"]),
                                              (["dbr", "fuzz", "--n", "2", "--jobs", "2"], ["sympy"])])
def test_fuzz_without_the_test_extra(installed, command, hidden):
    # the modules made unimportable, as if the test extra were not installed
    code = ("import sys\n"
            f"for m in {hidden!r}: sys.modules[m] = None\n"
            "from revhandlers.cli import main\n"
            "sys.exit(main(sys.argv[1:]))")
    msg = one_line_error(installed.py(code, *command, "--corpus", str(installed.tmp / "corpus")))
    name = "revhandlers fuzz" if command[0] == "fuzz" else "revhandlers dbr fuzz"
    assert msg.startswith(f"error (io): {name} needs "), msg
    assert " and ".join(hidden) in msg and "pip install 'revhandlers[test]'" in msg, msg
    assert not (installed.tmp / "corpus").exists()


def test_make_install_copies_the_drivers(tmp_path):
    """``make install``'s copy, into a DESTDIR, without building (``-o
    build``: the drivers are built already) and without pip (``PIP=``)."""
    if shutil.which("make") is None:
        pytest.fail("make is not installed")
    for name in DRIVERS:
        if not (EXTRACTED / name).is_file():
            pytest.fail(f"{EXTRACTED / name} is missing: run `make build` first")
    stage = tmp_path / "stage"
    p = run(["make", "--no-print-directory", "-o", "build", "install", f"DESTDIR={stage}", "PREFIX=/opt/rh", "PIP="],
            cwd=ROOT)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "pip" not in p.stdout
    for name in DRIVERS:
        exe = stage / "opt" / "rh" / "bin" / name
        assert exe.is_file() and os.access(exe, os.X_OK), exe
        assert exe.read_bytes() == (EXTRACTED / name).read_bytes()
        v = run([exe, "--version"])
        assert (v.returncode, v.stdout.strip()) == (0, f"{name} {VERSION}"), v.stderr
