"""What one visit of the compiled multiclass epochs costs: nanoseconds a visit, without the measures or Python.

    python benchmarks/visit_cost.py digits cs            # a problem of multiclass.py (its first C) and a loss
    python benchmarks/visit_cost.py text ww --shrinking  # with the solver's shrinking (fewer, cheaper visits)

A state after 5 epochs of the loss's default solver, then ``drivers.epochs`` for 3n visits from copies of it,
best of 15 (one thread).  For comparing two trees of the code on one machine (``PYTHONPATH=<tree>``), not against
another library: LIBLINEAR's cost a visit is in benchmarks/RESULTS.md (its train counted from source)."""

import argparse
import time
import warnings

import numpy as np
from multiclass import make_problems
from threadpoolctl import threadpool_limits

from svmteach import MulticlassProblem
from svmteach.losses import get_loss
from svmteach.solvers import make_multiclass_solver
from svmteach.solvers import numba_multiclass as nm


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("problem", choices=("issue", "digits", "text", "mnist-5k"))
    parser.add_argument("loss", choices=("cs", "ww", "llw"))
    parser.add_argument("--shrinking", action="store_true", help="keep the solver's shrinking (default: every sample)")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    threadpool_limits(1)
    _, X, y, C, _ = make_problems(args.problem, False, 1, "/tmp")[0]
    problem = MulticlassProblem(X, y, C=C, loss=args.loss)
    solver = make_multiclass_solver(None, get_loss(args.loss), random_state=0)
    state = solver.advance(problem, solver.init(problem), 5 * problem.n_samples)
    n, k = problem.n_samples, problem.k
    drivers = nm.drivers(solver.block_kernels(problem))

    def run():
        order = solver.engine_order(problem, state)  # the solver's own copies of the state's order
        if not args.shrinking:
            order = order._replace(active=np.zeros(0, dtype=bool))
        model = solver.engine_model(problem, state)  # the solver's own copy of W
        alpha = np.array(state.alpha)
        start = time.perf_counter()
        visits = drivers.epochs(drivers.code, model, nm.Samples(problem.sqnorm, problem.codes, problem.C_i),
                                solver.kernel_params(problem), alpha, order, 3 * n, np.zeros((3, k)),
                                solver._record(problem), np.empty(k))[0]
        return time.perf_counter() - start, visits

    run()  # compiled
    times = [run() for _ in range(15)]
    best, visits = min(t for t, _ in times), times[0][1]
    print(f"{args.problem} {args.loss}: {best * 1e9 / visits:.0f} ns a visit ({visits} visits, {best * 1e3:.2f} ms)")


if __name__ == "__main__":
    main()
