"""CPU fast path against the parallel solver on the GPU and LIBLINEAR: ``svmteach bench`` (see :mod:`svmteach.bench`).

    python benchmarks/gpu.py                          # 10k, 100k, 500k samples with a GPU; 2k, 20k without
    python benchmarks/gpu.py --sizes 500000 --json out.json
"""

import sys

from svmteach.bench import main

if __name__ == "__main__":
    sys.exit(main())
