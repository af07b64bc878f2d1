"""CPU fast path against the parallel solver on the GPU and LIBLINEAR (the harness: ``harness.py``).

    python benchmarks/gpu.py                          # 10k, 100k, 500k samples with a GPU; 2k, 20k without
    python benchmarks/gpu.py --sizes 500000 --json out.json

``svmteach bench`` runs the same from a checkout.
"""

import sys

from harness import main

if __name__ == "__main__":
    sys.exit(main(prog="python benchmarks/gpu.py"))
