"""The package installed outside the checkout, as a user with only Python
gets it: the platform wheel (``make wheel``'s build: ``pip wheel`` of a copy
of this checkout, the drivers taken from ``_build/default/extracted`` where
dune extracted and compiled them from the proofs), installed with its
dependencies into a fresh virtual environment that does not see this
Python's packages, and run from a directory outside the checkout with
``PATH`` reduced to the environment and the system's programs *without*
Coq, OCaml and dune (a directory of links to ``/usr/bin`` and ``/bin``
minus ``coq*``, ``dune*``, ``ocaml*``, ``opam*``): ``run``, ``check``,
``train --epochs 1``, ``fuzz --n 200``, ``pullback run``, ``dbr diff
--engine coq``.  Also: the drivers' shared libraries (``ldd``), the wheel's
tag, the digits shipped in it, building from source without the toolchain
(a clear message), the package without the drivers (``REVHANDLERS_DRIVERS=
none``, as ``make install`` installs it) finding them on ``PATH`` or
through ``RH_EVAL``, or not at all (a one-line error, exit code 2), the
one-line error of ``fuzz`` without its optional dependencies, and ``make
install``'s copy of the drivers (into a temporary ``DESTDIR``, without
building).

The dependencies (numpy, sexpdata, lark, matplotlib, greenlet, and
hypothesis for ``fuzz``) are installed by the machine's pip from the
indexes it is configured with (no ``--system-site-packages``, which would
let the environment see an editable install of the checkout).  About a
minute on a 2-core machine.  Nothing here is skipped: when the wheel or the
environment cannot be made, the tests fail with the reason."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
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
SKIP_COPY = {"_build", ".git", "build", "dist", "results", ".hypothesis", ".pytest_cache", "__pycache__"}
# the toolchain a machine with only Python lacks
TOOLCHAIN = re.compile(r"^(coq|dune|ocaml|opam)")
# the drivers' shared libraries: the C library, and GMP (zarith, in dbr-eval), which every Debian system
# has (coreutils, an essential package, pre-depends on libgmp10)
ALLOWED_LIBS = re.compile(r"^(linux-vdso\.so\.1|libc\.so\.6|libm\.so\.6|ld-linux-x86-64\.so\.2|libgmp\.so\.10)$")


def clean_env(**extra: str) -> dict[str, str]:
    """This environment without what would let another installation's
    package be imported (pip would find it "already satisfied")."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    env.update(extra)
    return env


def run(cmd, *, timeout=120, check=False, **kw) -> subprocess.CompletedProcess:
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, **kw)
    if check and p.returncode != 0:
        pytest.fail(f"{' '.join(map(str, cmd))} failed (exit code {p.returncode}):\n{p.stdout[-2000:]}\n{p.stderr[-3000:]}")
    return p


def copy_source(dest: Path) -> Path:
    def ignore(directory, names):
        return [n for n in names if n in SKIP_COPY or n.endswith(".egg-info")]

    shutil.copytree(ROOT, dest, ignore=ignore, symlinks=True)
    return dest


def system_bin_without_toolchain(dest: Path) -> Path:
    """A directory of links to the programs of /usr/bin and /bin, but
    Coq's, OCaml's, dune's and opam's."""
    dest.mkdir()
    for d in ("/usr/bin", "/bin"):
        for entry in sorted(Path(d).iterdir()):
            if TOOLCHAIN.match(entry.name) or (dest / entry.name).exists() or (dest / entry.name).is_symlink():
                continue
            (dest / entry.name).symlink_to(entry)
    return dest


def build_wheel(src: Path, out: Path, drivers: str) -> Path:
    try:
        import setuptools  # noqa: F401  (the build backend, used without isolation)
    except ImportError as e:
        pytest.fail(f"cannot build the wheel offline: setuptools is not importable by {sys.executable}: {e}")
    env = clean_env(REVHANDLERS_DRIVERS=drivers)
    run([sys.executable, "-m", "pip", "wheel", src, "--no-deps", "--no-build-isolation", "--no-index",
         "--disable-pip-version-check", "-w", out], check=True, timeout=300, env=env)
    wheels = list(out.glob("revhandlers-*.whl"))
    if len(wheels) != 1:
        pytest.fail(f"pip wheel made {wheels}, not one revhandlers wheel")
    return wheels[0]


class Installed:
    """The platform wheel, the virtual environment it is installed in, a
    system bin directory without the toolchain, and a working directory
    outside the checkout; and the package built without the drivers,
    installed into a directory of its own (``pure``) that the same
    environment imports when it is put on ``PYTHONPATH``."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        for name in DRIVERS:
            if not (EXTRACTED / name).is_file():
                pytest.fail(f"{EXTRACTED / name} is missing: run `make build` (or `make drivers`) first")
        src = copy_source(tmp / "src")
        self.wheel = build_wheel(src, tmp / "wheels", str(EXTRACTED))
        shutil.rmtree(src / "build", ignore_errors=True)
        self.pure_wheel = build_wheel(src, tmp / "pure-wheels", "none")
        self.venv = tmp / "venv"
        # no pip in the environment (ensurepip takes 20 s): this Python's pip installs into it
        run([sys.executable, "-m", "venv", "--without-pip", self.venv], check=True, env=clean_env())
        self.python = self.venv / "bin" / "python"
        self.revhandlers = self.venv / "bin" / "revhandlers"
        run([sys.executable, "-m", "pip", "--python", self.python, "install", "--no-compile",
             "--disable-pip-version-check", "--quiet", self.wheel, "hypothesis"], check=True, timeout=900,
            env=clean_env())
        self.pure = tmp / "pure"
        run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-compile", "--disable-pip-version-check",
             "--target", self.pure, self.pure_wheel], check=True, env=clean_env())
        self.bin = tmp / "bin"                 # copies of the drivers, for the package without them
        self.bin.mkdir()
        for name in DRIVERS:
            shutil.copy(EXTRACTED / name, self.bin / name)
        self.sysbin = system_bin_without_toolchain(tmp / "sysbin")
        self.work = tmp / "work"
        self.work.mkdir()
        for example in ("one_layer.rh", "mlp.rh", "pullback/paper_f.pb"):
            shutil.copy(ROOT / "examples" / example, self.work / Path(example).name)
        # PATH without the drivers and without the toolchain: the venv's scripts and the system's programs
        self.bare_path = os.pathsep.join([str(self.venv / "bin"), str(self.sysbin)])
        for name in (*DRIVERS, "coqc", "dune", "ocamlfind", "ocamlopt"):
            found = shutil.which(name, path=self.bare_path)
            if found:
                pytest.fail(f"{found} is reachable: cannot test a PATH without {name}")

    def env(self, drivers_on_path: bool = False, pure: bool = False, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if k not in ("RH_EVAL", "DBR_EVAL", "PULLBACK_EVAL", "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
        env["PATH"] = (str(self.bin) + os.pathsep if drivers_on_path else "") + self.bare_path
        env["MPLBACKEND"] = "Agg"
        env["MPLCONFIGDIR"] = str(self.tmp / "mpl")
        if pure:
            env["PYTHONPATH"] = str(self.pure)
        env.update(extra)
        return env

    def cli(self, *args, drivers_on_path: bool = False, pure: bool = False, timeout=120, **extra):
        cmd = [self.python, "-m", "revhandlers"] if pure else [self.revhandlers]
        return run([*cmd, *args], cwd=self.work, env=self.env(drivers_on_path, pure, **extra), timeout=timeout)

    def py(self, code: str, *args, pure: bool = False) -> subprocess.CompletedProcess:
        return run([self.python, "-c", code, *args], cwd=self.work, env=self.env(pure=pure))


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Installed:
    return Installed(tmp_path_factory.mktemp("install"))


def test_the_wheel_is_a_platform_wheel_carrying_the_drivers(installed):
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    assert installed.wheel.name == f"revhandlers-{VERSION}-py3-none-{plat}.whl", installed.wheel.name
    with zipfile.ZipFile(installed.wheel) as z:
        infos = {Path(i.filename).name: i for i in z.infolist() if "/revhandlers/bin/" in f"/{i.filename}"}
        assert set(infos) == set(DRIVERS), infos
        for name, info in infos.items():
            assert z.read(info) == (EXTRACTED / name).read_bytes(), name
            assert (info.external_attr >> 16) & 0o111, f"{name} is not executable in the wheel"
    with zipfile.ZipFile(installed.pure_wheel) as z:
        assert installed.pure_wheel.name.endswith("-py3-none-any.whl"), installed.pure_wheel.name
        assert not [n for n in z.namelist() if "/bin/" in n], z.namelist()


def test_the_drivers_need_only_the_c_library_and_gmp(installed):
    if shutil.which("ldd") is None:
        pytest.fail("ldd is not installed")
    for name in DRIVERS:
        exe = next(installed.venv.rglob(f"revhandlers/bin/{name}"))
        p = run(["ldd", exe], check=True)
        libs = [line.split()[0] for line in p.stdout.splitlines() if line.strip()]
        libs = [Path(lib).name for lib in libs]
        assert libs and all(ALLOWED_LIBS.match(lib) for lib in libs), (name, p.stdout)


def test_the_wheel_ships_the_digits_and_their_source(installed):
    names = zipfile.ZipFile(installed.wheel).namelist()
    data = ROOT / "data"
    with zipfile.ZipFile(installed.wheel) as z:
        for name in ("digits.csv.gz", "README.md"):
            found = [n for n in names if n.endswith(f"revhandlers/data/{name}")]
            assert len(found) == 1, names
            assert z.read(found[0]) == (data / name).read_bytes(), name
    assert not [n for n in names if "_build" in n or n.endswith((".ml", ".v"))], names
    # the package's copy is the checkout's data/, byte for byte
    for name in ("digits.csv.gz", "README.md"):
        assert (ROOT / "pytools" / "revhandlers" / "data" / name).read_bytes() == (data / name).read_bytes(), name


def test_the_venv_runs_the_wheel_not_the_checkout(installed):
    p = installed.py("import revhandlers, revhandlers.paths as p, revhandlers.rh.train as t, numpy\n"
                     "print(revhandlers.__file__); print(p.checkout_root()); print(t.DIGITS); print(numpy.__file__)\n"
                     "print(p.rh_eval_path())")
    assert p.returncode == 0, p.stderr
    file, root, digits, np_file, rh_eval = p.stdout.splitlines()
    venv = str(installed.venv.resolve()) + os.sep
    assert os.path.realpath(file).startswith(venv), file
    assert os.path.realpath(np_file).startswith(venv), np_file      # not this Python's packages
    assert root == "None"
    assert os.path.realpath(digits).startswith(venv) and digits.endswith("revhandlers/data/digits.csv.gz"), digits
    assert os.path.realpath(rh_eval).startswith(venv) and rh_eval.endswith("revhandlers/bin/rh-eval"), rh_eval


def test_version(installed):
    p = installed.cli("--version")
    assert (p.returncode, p.stdout.strip()) == (0, f"revhandlers {VERSION}"), p.stderr


def test_run(installed):
    p = installed.cli("run", "one_layer.rh")
    assert p.returncode == 0, p.stderr
    assert "engine: verified" in p.stdout
    assert "value: <[-2.75, -3.6 ]>" in p.stdout
    assert "steps: 28" in p.stdout


def test_check(installed):
    p = installed.cli("check", "mlp.rh")
    assert p.returncode == 0, p.stderr
    # a rev handle over one variable x_in : Real(n_in) = Real(64) answers the 1-tuple of its gradient
    assert p.stdout.strip() == "mlp.rh: well typed, Prod(Real(64))", p.stdout


def test_train_reads_the_installed_digits(installed):
    p = installed.cli("train", "mlp.rh", "--epochs", "1", "--plot", "loss.png", timeout=300)
    assert p.returncode == 0, p.stderr
    assert "on the UCI digits through the verified evaluator (rh-eval)" in p.stdout
    assert re.search(r"^held-out accuracy: [01]\.\d{3} \(chance: 0\.100\)$", p.stdout, re.M), p.stdout
    assert (installed.work / "loss.png").stat().st_size > 0


def test_fuzz(installed):
    p = installed.cli("fuzz", "--n", "200", "--corpus", str(installed.tmp / "fuzz-corpus"), timeout=600)
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == 0, (p.returncode, p.stdout[-3000:], p.stderr[-3000:])
    assert re.search(r"^programs: 200 ", p.stdout, re.M), p.stdout
    assert re.search(r"^divergences: 0$", p.stdout, re.M), p.stdout
    assert not (installed.tmp / "fuzz-corpus").exists()


def test_pullback_run(installed):
    p = installed.cli("pullback", "run", "paper_f.pb")
    assert p.returncode == 0, p.stderr
    # the paper's example (Mak and Ong, the pullback of f at its point, worked in the paper)
    assert re.search(r"^value: \[660, 528\]\*$", p.stdout, re.M), p.stdout


def test_dbr_diff_coq(installed):
    p = installed.cli("dbr", "diff", "(x+1)^3", "--at", "4", "--engine", "coq")
    assert p.returncode == 0, p.stderr
    assert "extracted from Coq" in p.stdout
    assert re.search(r"^f'\(4\) = 75$", p.stdout, re.M), p.stdout


def test_building_from_source_without_the_toolchain_says_what_is_missing(installed, tmp_path):
    src = copy_source(tmp_path / "src")
    env = {k: v for k, v in clean_env().items() if k != "REVHANDLERS_DRIVERS"}
    env["PATH"] = str(installed.sysbin)
    p = run([sys.executable, "-m", "pip", "wheel", src, "--no-deps", "--no-build-isolation", "--no-index",
             "--disable-pip-version-check", "-w", tmp_path / "out"], env=env, timeout=300)
    assert p.returncode != 0, p.stdout
    out = p.stdout + p.stderr
    assert "builds rh-eval, dbr-eval and pullback-eval from the Coq proofs" in out, out[-3000:]
    assert re.search(r"missing: coqc, dune, ocamlfind, ocamlopt", out), out[-3000:]
    assert "REVHANDLERS_DRIVERS" in out
    assert not list((tmp_path / "out").glob("*.whl")) if (tmp_path / "out").exists() else True


# ------------------------------------------ the package without the drivers

def test_the_package_without_drivers_finds_them_on_path(installed):
    p = installed.cli("run", "one_layer.rh", pure=True, drivers_on_path=True)
    assert p.returncode == 0 and "steps: 28" in p.stdout, p.stderr
    p = installed.cli("dbr", "diff", "(x+1)^3", "--at", "4", "--engine", "coq", pure=True, drivers_on_path=True)
    assert p.returncode == 0 and re.search(r"^f'\(4\) = 75$", p.stdout, re.M), p.stderr
    p = installed.py("import revhandlers; print(revhandlers.__file__)", pure=True)
    assert p.stdout.strip().startswith(str(installed.pure)), p.stdout


def one_line_error(p: subprocess.CompletedProcess) -> str:
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    return lines[0]


def test_no_driver_is_a_clear_error(installed):
    msg = one_line_error(installed.cli("run", "one_layer.rh", pure=True))
    assert msg.startswith("error (io): "), msg
    for what in ("rh-eval is not on PATH", "make wheel", "make build", "make install", "RH_EVAL"):
        assert what in msg, msg
    assert "_build" not in msg, msg       # no path made up inside the Python installation


def test_no_dbr_eval_is_a_clear_error(installed):
    p = installed.cli("dbr", "diff", "x^2", "--at", "1", "--engine", "coq", pure=True)
    msg = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    for what in ("dbr-eval is not on PATH", "make build", "make install", "DBR_EVAL"):
        assert what in msg, msg


def test_rh_eval_variable(installed):
    p = installed.cli("run", "one_layer.rh", pure=True, RH_EVAL=str(installed.bin / "rh-eval"))
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
    drivers``: the drivers are built already) and without pip (``PIP=``)."""
    if shutil.which("make") is None:
        pytest.fail("make is not installed")
    for name in DRIVERS:
        if not (EXTRACTED / name).is_file():
            pytest.fail(f"{EXTRACTED / name} is missing: run `make build` first")
    stage = tmp_path / "stage"
    p = run(["make", "--no-print-directory", "-o", "drivers", "install", f"DESTDIR={stage}", "PREFIX=/opt/rh",
             "PIP="], cwd=ROOT)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "pip" not in p.stdout
    for name in DRIVERS:
        exe = stage / "opt" / "rh" / "bin" / name
        assert exe.is_file() and os.access(exe, os.X_OK), exe
        assert exe.read_bytes() == (EXTRACTED / name).read_bytes()
        v = run([exe, "--version"])
        assert (v.returncode, v.stdout.strip()) == (0, f"{name} {VERSION}"), v.stderr


def test_make_install_says_where_the_package_went(tmp_path):
    """``make install`` with ``PIP`` pointing into a new environment: it
    installs there, says so, and touches no other environment (it does not
    run ``make deps``: ``-o drivers`` only skips rebuilding the drivers)."""
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", venv], check=True, env=clean_env())
    pip = f"{sys.executable} -m pip --python {venv / 'bin' / 'python'}"
    # the dependencies are not what is tested here (PIP_NO_DEPS: pip's --no-deps)
    env = clean_env(PIP_NO_DEPS="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    p = run(["make", "--no-print-directory", "-o", "drivers", "install", f"DESTDIR={tmp_path / 'stage'}",
             f"PIP={pip}"], cwd=ROOT, timeout=300, env=env)
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    last = p.stdout.strip().splitlines()[-1]
    site = next((venv / "lib").glob("python3*/site-packages"))
    assert last == f"install: the package revhandlers (not editable) in {site}, by {pip}", last
    assert (site / "revhandlers" / "__init__.py").is_file()
    assert not (site / "revhandlers" / "bin").exists()        # the drivers went to PREFIX/bin
