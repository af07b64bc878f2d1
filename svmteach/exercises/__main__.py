"""``python -m svmteach.exercises``: list the exercises, or write the solutions copy of the course.

    python -m svmteach.exercises                    # the catalog
    python -m svmteach.exercises --solutions DIR    # the course with every stub filled in
"""

from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    from pathlib import Path

    from . import catalog
    from .notebooks import copy_course, print_progress

    parser = argparse.ArgumentParser(prog="python -m svmteach.exercises",
                                     description="The course's exercises: list them, or write the solutions copy.")
    parser.add_argument("--solutions", metavar="DIR",
                        help="write the course notebooks into DIR with every exercise stub replaced by its reference "
                             "solution (notebooks already in DIR are kept)")
    args = parser.parse_args(argv)
    if args.solutions is None:
        for e in catalog():
            print(f"{e.notebook}  {e.name:22s} {e.title}\n    {e.signature}")
        return 0
    target = Path(args.solutions).expanduser()
    if target.exists() and not target.is_dir():
        parser.error(f"--solutions {args.solutions}: this is a file, not a folder")
    try:
        written = copy_course(target, solutions=True, progress=print_progress())  # as `svmteach lab --solutions --copy-only`
    except OSError as e:
        parser.error(f"--solutions {args.solutions}: cannot write the course there ({e.strerror or e})")
    for path in written:
        print(path)
    print(f"{len(written)} notebook(s) written to {args.solutions} with every exercise solved (existing ones kept)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
