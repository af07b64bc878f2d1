"""``python -m svmteach.exercises``: list the exercises, or write the solutions copy of the course.

    python -m svmteach.exercises                    # the catalog
    python -m svmteach.exercises --solutions DIR    # the course with every stub filled in
"""

from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    from . import catalog
    from .notebooks import write_solutions

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
    try:
        written = write_solutions(args.solutions)
    except (OSError, ValueError) as e:
        parser.error(f"--solutions {args.solutions}: {e}")
    for path, names in written.items():
        print(f"{path}: {len(names)} solution(s) filled in ({', '.join(names) or 'no exercise'})")
    print(f"{len(written)} notebook(s) written to {args.solutions}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
