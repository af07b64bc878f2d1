"""The ``svmteach`` command: ``svmteach lab`` opens the course in JupyterLab (``--solutions``: the
teacher's edition, every exercise solved and every problem with its worked solution); ``svmteach verify``
checks every derivation of the course with SymPy; ``svmteach bench`` runs the GPU benchmark,
``benchmarks/harness.py`` of the checkout (the harness is not part of the installed package).

Nothing heavy is imported before a command runs, so ``svmteach --help`` answers at once."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path


#: The source checkout svmteach is installed from (``pip install -e .``): the benchmarks live there.
CHECKOUT = Path(__file__).resolve().parent.parent


def bench_harness():
    """The module ``benchmarks/harness.py`` of the checkout, loaded once (as the benchmark scripts' ``harness``)."""
    import importlib.util

    path = CHECKOUT / "benchmarks" / "harness.py"
    loaded = sys.modules.get("harness")
    if loaded is not None and Path(getattr(loaded, "__file__", "")).resolve() == path:
        return loaded
    if not path.is_file():
        raise FileNotFoundError(f"the benchmark harness was not found at {path}; `svmteach bench` runs from a "
                                "clone of the repository installed with `python -m pip install -e .`")
    spec = importlib.util.spec_from_file_location("harness", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["harness"] = module
    spec.loader.exec_module(module)
    return module


def running_as_root() -> bool:
    """True for the superuser on POSIX (Docker, many lab machines, CI); Windows has no ``geteuid``."""
    return hasattr(os, "geteuid") and os.geteuid() == 0


def lab_command(target: Path, jupyter_args: list[str]) -> list[str]:
    """The JupyterLab command line: the course folder as its root, ``--allow-root`` for root
    (JupyterLab refuses to start as root without it), then the user's own JupyterLab options."""
    cmd = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={target}"]
    if running_as_root():
        cmd.append("--allow-root")
    return cmd + list(jupyter_args)


def announce_url(proc: subprocess.Popen, out=None, deadline: float = 600.0) -> None:
    """Wait until the server ``proc`` has written its runtime file, then print its address (with
    the token) and how to stop it.  Gives up silently when ``proc`` ends or ``deadline`` passes:
    JupyterLab prints its own address too."""
    from jupyter_server.serverapp import list_running_servers

    out = sys.stdout if out is None else out
    end = time.monotonic() + deadline
    while proc.poll() is None and time.monotonic() < end:
        info = next((s for s in list_running_servers() if s.get("pid") == proc.pid), None)
        if info is not None:
            url = info["url"].rstrip("/") + "/lab" + (f"?token={info['token']}" if info.get("token") else "")
            print(f"\nsvmteach: the course is open at {url}\n"
                  f"svmteach: to stop JupyterLab, press Ctrl-C twice here "
                  f"(or run `jupyter server stop {info['port']}` in another terminal)\n", file=out, flush=True)
            return
        time.sleep(0.5)


def start_warm_up():
    """Start :mod:`svmteach.warm_up` in the background, at lowered priority, and say so: it compiles the solvers
    the course uses while JupyterLab starts (a minute or more on a new install; a fraction of a second once
    numba's cache holds them).  ``SVMTEACH_WARM_UP=0`` skips it.  Returns the process, or None."""
    if os.environ.get("SVMTEACH_WARM_UP", "1").strip().lower() in {"0", "false", "no", "off"}:
        return None
    print("svmteach: compiling the course's solvers in the background (on a new install a few minutes of CPU, "
          "once; a notebook that runs meanwhile is slower at first)", flush=True)
    return subprocess.Popen([sys.executable, "-m", "svmteach.warm_up", "--background"], stdin=subprocess.DEVNULL)


def lab(args) -> int:
    if args.dir is None:  # a teacher's solutions never land in a student's working folder by default
        args.dir = "svmteach-solutions" if args.solutions else "svmteach-course"
    if not args.dir.strip():  # Path("") is the current folder: the course would land among the user's files
        args.parser.error(f"--dir {args.dir!r}: an empty name; give a folder for the course (or leave --dir out)")
    target = Path(args.dir).expanduser().resolve()
    if target.exists() and not target.is_dir():
        args.parser.error(f"--dir {args.dir}: this is a file, not a folder; give a folder for the course")
    from .exercises.notebooks import copy_course, print_progress

    try:  # the teacher's edition computes every answer: a line a notebook shows a long first run working
        copied = copy_course(target, solutions=args.solutions, progress=print_progress() if args.solutions else None)
    except OSError as e:
        args.parser.error(f"--dir {args.dir}: cannot copy the course there ({e.strerror or e})")
    what = " with every exercise solved and every problem's worked solution" if args.solutions else ""
    print(f"course folder: {target} ({len(copied)} notebook(s) copied{what}, existing ones kept)", flush=True)
    if args.copy_only:
        return 0
    warm = start_warm_up()
    print("svmteach: starting JupyterLab (its log follows); the address to open, with its token, "
          "is printed once the server is up", flush=True)
    proc = subprocess.Popen(lab_command(target, args.jupyter_args))
    threading.Thread(target=announce_url, args=(proc,), daemon=True).start()
    # Ctrl-C belongs to JupyterLab (the first asks, the second stops it): this process only waits;
    # a SIGTERM sent to this process is passed on, so that JupyterLab stops its kernels and cleans up
    previous = {signal.SIGINT: signal.signal(signal.SIGINT, signal.SIG_IGN),
                signal.SIGTERM: signal.signal(signal.SIGTERM, lambda signum, frame: proc.send_signal(signum))}
    try:
        return proc.wait()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if warm is not None and warm.poll() is None:
            warm.terminate()  # numba writes each cache entry whole: a cut warm-up leaves what it finished


def verify(args) -> int:
    from .derivations.__main__ import main as derivations_main

    return derivations_main(["--json"] if args.json else [])


def bench(args) -> int:
    try:
        harness = bench_harness()
    except FileNotFoundError as e:
        args.parser.error(str(e))
    return harness.main(args.bench_args)


def main(argv=None) -> int:
    from . import __version__

    parser = argparse.ArgumentParser(prog="svmteach", description="Learn, teach and run SVM duality.")
    parser.add_argument("--version", action="version", version=f"svmteach {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    p_lab = sub.add_parser(
        "lab", allow_abbrev=False,  # --no-browser is JupyterLab's, never an abbreviation of ours
        help="copy the course into a working folder and open JupyterLab there",
        description="Copy the course notebooks into a working folder (existing notebooks are kept) and start "
                    "JupyterLab there. Any other option goes to JupyterLab: --port 8890, --no-browser, "
                    "--ip 0.0.0.0, ... Stop it with Ctrl-C twice. For a fresh copy of the course, rename or "
                    "delete the folder and run this again.")
    p_lab.add_argument("--dir", default=None,
                       help="working folder (default: ./svmteach-course, or ./svmteach-solutions with --solutions)")
    p_lab.add_argument("--copy-only", action="store_true", help="only copy the notebooks, do not start JupyterLab")
    p_lab.add_argument("--solutions", action="store_true",
                       help="for teachers: copy the course with every exercise stub replaced by its reference solution "
                            "and every pen-and-paper problem followed by its worked solution")
    p_lab.set_defaults(func=lab, parser=p_lab)
    p_verify = sub.add_parser("verify", help="derive and check every formula of the course with SymPy")
    p_verify.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p_verify.set_defaults(func=verify)
    # every argument after `bench` is the harness's own (its --help included): prefix_chars no option starts with
    p_bench = sub.add_parser("bench", add_help=False, prefix_chars="\0",
                             help="CPU fast path versus the parallel solver on the GPU and LIBLINEAR (WW and CS); "
                                  "from a checkout: benchmarks/harness.py")
    p_bench.add_argument("bench_args", nargs=argparse.REMAINDER)
    p_bench.set_defaults(func=bench, parser=p_bench)
    args, args.jupyter_args = parser.parse_known_args(argv)
    if args.jupyter_args and args.command != "lab":  # only JupyterLab takes options svmteach does not know
        parser.error(f"unrecognized arguments: {' '.join(args.jupyter_args)}")
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
