"""``python -m svmteach.derivations [--json] [--model NAME ...]``: derive, check, report."""

from __future__ import annotations

import argparse
import json
import sys

from . import FAILED, MODELS, all_steps


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m svmteach.derivations",
                                     description="Derive every SVM formula of the course with SymPy and check it.")
    parser.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    parser.add_argument("--model", action="append", choices=list(MODELS), help="only these models (repeatable)")
    args = parser.parse_args(argv)
    steps = all_steps(args.model)
    if args.json:
        print(json.dumps([s.as_dict() for s in steps], indent=1))
    else:
        width = max(len(s.name) for s in steps)
        mwidth = max(len(s.model) for s in steps)
        print(f"{'model':{mwidth}}  {'step':{width}}  {'status':8}  source")
        for s in steps:
            print(f"{s.model:{mwidth}}  {s.name:{width}}  {s.status:8}  {s.source}")
        counts = {k: sum(s.status == k for s in steps) for k in ("verified", "erratum", "failed")}
        print(f"\n{counts['verified']} verified, {counts['erratum']} errata, {counts['failed']} failed")
    return 1 if any(s.status == FAILED for s in steps) else 0


if __name__ == "__main__":
    sys.exit(main())
