"""CoCoA+ on a dask array (svmteach.solvers.cocoa): rounds and time to a relative gap against the number of row
chunks, dense and sparse, on a LocalCluster of two worker processes; and a problem larger than one worker's
memory limit, fitted and certified.

    python benchmarks/dask_fit.py [--n 40000] [--d 100] [--chunks 1 2 4 8 16] [--tol 1e-3] [--large-gb 2.0]

Each row: the chunks, the rounds the fit took (``n_iter_``), its certified gap, the wall time, and how that time
splits between the workers' local epochs (their CPU seconds over the fit, per worker) and the rest (scheduling,
moving the (k, d) weights, the measures).  The data is made on the workers (``dask.array.random``), never in this
process.  Timing is of whole fits after a warm-up fit (numba's compile excluded).
"""

from __future__ import annotations

import argparse
import platform
import resource
import time
import tracemalloc

import numpy as np

import dask.array as da
from distributed import Client, LocalCluster

from svmteach import MulticlassSVC


def cpu(client):
    return client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_utime)


def problem(n, d, chunks, sparse, seed=0):
    """k = 4 classes from the first features (a linear rule, 5% labels flipped), made on the workers."""
    rs = da.random.RandomState(seed)
    X = rs.standard_normal((n, d), chunks=(-(-n // chunks), d))
    if sparse:  # 10% of the entries kept, each chunk a CSR matrix
        import scipy.sparse as sp

        X = da.where(rs.random_sample((n, d), chunks=X.chunks) < 0.1, X, 0.0).map_blocks(sp.csr_matrix)
        dense = None
    else:
        dense = X
    Z = X if dense is not None else X.map_blocks(lambda b: b.toarray(), dtype=np.float64)
    y = (Z[:, 0] > 0).astype(int) + 2 * (Z[:, 1] > 0).astype(int)
    flip = rs.random_sample(n, chunks=(X.chunks[0],)) < 0.05
    y = da.where(flip, rs.randint(0, 4, n, chunks=(X.chunks[0],)), y)
    return X, y


def fit(client, X, y, tol, C=0.01):
    before = cpu(client)
    t0 = time.perf_counter()
    est = MulticlassSVC(C=C, tol=tol, max_iter=20_000).fit(X, y)
    wall = time.perf_counter() - t0
    after = cpu(client)
    local = max(after[w] - before[w] for w in before)
    return est, wall, local


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=40_000)
    parser.add_argument("--d", type=int, default=100)
    parser.add_argument("--chunks", type=int, nargs="+", default=[1, 2, 4, 8, 16])
    parser.add_argument("--tol", type=float, default=1e-3)
    parser.add_argument("--large-gb", type=float, default=2.0, help="GB of X in the last problem (0: skip it)")
    args = parser.parse_args(argv)
    print(f"machine: {platform.processor() or platform.machine()}, LocalCluster of 2 worker processes x 1 thread")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                      memory_limit="4GB") as cluster, Client(cluster) as client:
        X, y = problem(2000, 10, 2, False)
        fit(client, X, y, args.tol)  # numba's compile on the workers, once
        Xs, ys = problem(2000, 10, 2, True)
        fit(client, Xs, ys, args.tol)
        for sparse in (False, True):
            print(f"\n{'sparse (10% of entries)' if sparse else 'dense'}, n = {args.n}, d = {args.d}, k = 4, C = 0.01, "
                  f"tol = {args.tol:g}")
            print("| chunks | rounds | gap | wall s | local epochs s (busiest worker) | the rest s |")
            print("|---:|---:|---:|---:|---:|---:|")
            for chunks in args.chunks:
                X, y = problem(args.n, args.d, chunks, sparse)
                X, y = client.persist(X), client.persist(y)  # the data made before the clock starts
                est, wall, local = fit(client, X, y, args.tol)
                print(f"| {chunks} | {est.n_iter_} | {est.result_.gap:.2e} | {wall:.1f} | {local:.1f} | "
                      f"{max(wall - local, 0.0):.1f} |")
                del X, y
    if args.large_gb > 0:
        limit_gb = 0.8 * args.large_gb  # below the whole X; each worker holds about half of it
        n = int(args.large_gb * 1e9 / (8 * 50))
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                          memory_limit=f"{limit_gb:.2f}GB") as cluster, Client(cluster) as client:
            X, y = problem(n, 50, 8, False)
            tracemalloc.start()
            est, wall, local = fit(client, X, y, args.tol, C=0.001)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            print(f"\nlarger than a worker: X {X.nbytes / 1e9:.2f} GB (n = {n}, d = 50, 8 chunks) over 2 workers of "
                  f"memory_limit {limit_gb:.2f} GB each: {est.n_iter_} rounds, gap {est.result_.gap:.2e} "
                  f"(converged: {est.result_.converged}), {wall:.1f} s, the client's traced peak {peak / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
