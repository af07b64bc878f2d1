"""``python -m svmteach.derivations [--json] [--model NAME ...]``: derive, check, report."""

from __future__ import annotations

import argparse
import json
import sys

from . import FAILED, MODELS, STATUSES, all_steps, model_key

PLURAL = {"verified": "verified", "erratum": "errata", "caveat": "caveats", "definition": "definitions",
          "failed": "failed"}  # "1 caveat", "2 caveats"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m svmteach.derivations",
                                     description="Derive every SVM formula of the course with SymPy and check it.")
    parser.add_argument("--json", action="store_true", help="print a JSON list instead of a table")
    parser.add_argument("--model", action="append", type=_model,
                        help=f"only this model (repeatable): {', '.join(MODELS)}")
    args = parser.parse_args(argv)
    steps = all_steps(args.model)
    if args.json:
        print(json.dumps([s.as_dict() for s in steps], indent=1, ensure_ascii=False))
    else:
        width = max(len(s.name) for s in steps)
        mwidth = max(len(s.model) for s in steps)
        print(f"{'model':{mwidth}}  {'step':{width}}  {'status':10}  source")
        for s in steps:
            print(f"{s.model:{mwidth}}  {s.name:{width}}  {s.status:10}  {s.source}")
        counts = {k: sum(s.status == k for s in steps) for k in STATUSES}
        counts = ", ".join(f"{c} {k if c == 1 and k != 'verified' else PLURAL[k]}" for k, c in counts.items())
        print(f"\n{counts}")
    return 1 if any(s.status == FAILED for s in steps) else 0


def _model(name):
    try:
        return model_key(name)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


if __name__ == "__main__":
    sys.exit(main())
