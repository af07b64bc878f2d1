"""The ``svmteach`` command: ``svmteach lab`` opens the course in JupyterLab; ``svmteach verify``
checks every derivation of the course with SymPy; ``svmteach bench`` times the CPU fast path
against the parallel solver on the GPU (:mod:`svmteach.bench`)."""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path


def course_source() -> Path:
    """The course notebooks: ``notebooks/`` of the source checkout svmteach is installed from."""
    checkout = Path(__file__).resolve().parent.parent / "notebooks"
    if checkout.is_dir():
        return checkout
    raise FileNotFoundError(
        f"the course notebooks were not found at {checkout}; install svmteach from a clone "
        "of its repository with `python -m pip install -e .`"
    )


def copy_course(target: Path) -> list[Path]:
    """Copy the notebooks that ``target`` does not have yet; never overwrite a student's work."""
    target.mkdir(parents=True, exist_ok=True)
    copied = []
    for nb in sorted(course_source().glob("*.ipynb")):
        dest = target / nb.name
        if not dest.exists():
            shutil.copy2(nb, dest)
            copied.append(dest)
    return copied


def lab(args) -> int:
    target = Path(args.dir).expanduser().resolve()
    copied = copy_course(target)
    print(f"course folder: {target} ({len(copied)} notebook(s) copied, existing ones kept)")
    if args.no_browser_launch:
        return 0
    cmd = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={target}"]
    return subprocess.call(cmd)


def verify(args) -> int:
    from .derivations.__main__ import main as derivations_main

    return derivations_main(["--json"] if args.json else [])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="svmteach", description="Learn, teach and run SVM duality.")
    sub = parser.add_subparsers(dest="command", required=True)
    p_lab = sub.add_parser("lab", help="copy the course into a working folder and open JupyterLab there")
    p_lab.add_argument("--dir", default="svmteach-course", help="working folder (default: ./svmteach-course)")
    p_lab.add_argument("--no-browser-launch", action="store_true",
                       help="only copy the notebooks, do not start JupyterLab")
    p_lab.set_defaults(func=lab)
    p_verify = sub.add_parser("verify", help="derive and check every formula of the course with SymPy")
    p_verify.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p_verify.set_defaults(func=verify)
    from . import bench

    p_bench = sub.add_parser("bench", help="CPU fast path versus the parallel solver on the GPU (WW and CS)",
                             description=bench.__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    bench.add_arguments(p_bench)
    p_bench.set_defaults(func=bench.run)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
