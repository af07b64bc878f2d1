"""``python -m svmteach.exercises.problem_set``: list the problems, or sync them into the course notebooks.

    python -m svmteach.exercises.problem_set                 # the problems, by notebook
    python -m svmteach.exercises.problem_set --sync [DIR]    # write each notebook's ## Problems section
"""

from __future__ import annotations

import argparse
import sys


def main(argv=None) -> int:
    from . import KINDS, problems

    parser = argparse.ArgumentParser(prog="python -m svmteach.exercises.problem_set",
                                     description="The course's pen-and-paper problems: list them, or sync them "
                                                 "into the notebooks.")
    parser.add_argument("--sync", nargs="?", const="", metavar="DIR", default=None,
                        help="write the '## Problems' section of every lesson notebook in DIR (default: the "
                             "course's notebooks/), in place, before its '## Summary'")
    args = parser.parse_args(argv)
    if args.sync is None:
        for p in problems():
            checked = "checked answer" if p.answer is not None else "written answer"
            print(f"{p.name:6s} {KINDS[p.kind]:20s} {p.title} ({checked})")
        return 0
    from .course import sync_course

    done = sync_course(args.sync or None)
    for path, names in done.items():
        print(f"{path}: {len(names)} problem(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
