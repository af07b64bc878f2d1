"""The explorers' narration: one sentence, made from a step's own state, that says what the step did and why.

For the solver explorers, :func:`narrate` reads what the solver contract gives (:class:`~svmteach.solvers.base.Solver`):
the step's picture (``solver.step_picture(state)``, a NamedTuple whose class documents every field), the measured
gap (``state.gap``) and each sample's KKT violation (``solver.sample_violations``); the picture's type picks the
sentence (:data:`STEP_SENTENCES`; a picture of no known type is a TypeError, never a silent blank).  A sentence reads,
for instance, "SMO chose i = 12, the most violating sample (largest y g over I_up), and j = 29, the partner of largest
second-order gain b²/a = 334 over I_low (b = y_i g_i − y_j g_j = 2, a = η = 0.012); α_j 0 → 1, clipped at H = 1 (its
maximiser on the line: 166). Gap 9.2e-01: 19 samples still violate KKT by more than 0.001."  :func:`rls_sentence`
and :func:`simplex_sentence` say the same of the RLS path explorer's and the simplex explorer's state.  Every number
of a step is printed to 3 significant digits, the gap to 2.

Written once here, so that what the narration claims is tested in one place (``tests/test_narration.py``).
"""

from __future__ import annotations

import math

import numpy as np

from ..backend import to_numpy
from ..losses.crammer_singer import CSBlock
from ..losses.lee_lin_wahba import LLWBlock
from ..losses.maximum_margin_regression import MMRBlock
from ..losses.weston_watkins import WWBlock
from ..solvers.dual_cd import CoordinatePicture
from ..solvers.multiclass_base import VisitPicture
from ..solvers.numba_smo import TAU, PairPicture
from ..solvers.parallel_block import ParallelPicture
from ..solvers.primal_subgradient import SubgradientPicture
from ..solvers.working_set import WorkingSetPicture
from ..solvers.ww_shark import SharkMoves

#: A sample "still violates KKT" when its violation (``solver.sample_violations``) is above this: LIBSVM's
#: default stopping tolerance on the violating pair, in the margin's units.
KKT_TOL = 1e-3

NO_STEP = "No step yet: the run starts here (press step)."
#: A state with no step in its picture after some steps: a warm start (a move of C, an edited point) shows none.
NO_STEP_SINCE = "No step since the last warm start (a move of C or an edited point){what}."


def g(x) -> str:
    """A number to 3 significant digits, as every sentence prints it ("-0" without its sign)."""
    text = f"{float(x):.3g}"
    return text[1:] if text.startswith("-") and float(text) == 0.0 else text


# ---- the binary solvers ----------------------------------------------------------------------------------
def smo_sentence(solver, problem, state, p: PairPicture) -> str:
    """SMO's pair step (:class:`~svmteach.solvers.numba_smo.PairPicture`): which pair its working-set rule chose
    and why, and what happened to alpha_j on the constraint's segment [L, H]."""
    if p.i < 0:
        if state.n_iter == 0:
            return NO_STEP
        return NO_STEP_SINCE.format(what=", or the last step found no pair violating the KKT conditions beyond "
                                         "rounding (a null step)")
    i, j = int(p.i), int(p.j)
    d = float(p.E_j - p.E_i)  # E_t = b - y_t g_t, so E_j - E_i = y_i g_i - y_j g_j: the pair's violation
    eta = float(p.eta)
    n, n_active = problem.n_samples, len(state.active)  # the engine's active samples (SMOEngine.active)
    up, low = ("I_up", "I_low") if n_active == n else (f"I_up, among the {n_active} of {n} samples shrinking keeps "
                                                       "active", "I_low's active samples")
    if solver.selection == "second_order":
        gain = d * d / (eta if eta > 0 else TAU)
        chose = (f"SMO chose i = {i}, the most violating sample (largest y g over {up}), and j = {j}, the partner of "
                 f"largest second-order gain b\u00b2/a = {g(gain)} over {low} (b = y_i g_i \u2212 y_j g_j = {g(d)}, "
                 f"a = \u03b7 = {g(eta)})")
    elif solver.selection == "max_violating_pair":
        chose = (f"SMO chose the maximal violating pair, i = {i} (largest y g over {up}) and j = {j} (smallest y g "
                 f"over {low}), its violation y_i g_i \u2212 y_j g_j = {g(d)}")
    else:
        chose = (f"SMO chose i = {i}, a KKT violator drawn at random, and j = {j}, a random partner "
                 f"(y_i g_i \u2212 y_j g_j = {g(d)})")
    old, new, unc, L, H = (float(v) for v in (p.alpha_j_old, p.alpha_j_new, p.alpha_j_unclipped, p.L, p.H))
    moved = f"\u03b1_j {g(old)} \u2192 {g(new)}"
    if not eta > 0:
        what = f"{moved}: \u03b7 \u2264 0 gives no maximum inside the segment, the better end was taken"
    elif unc > H and new == H:
        what = f"{moved}, clipped at H = {g(H)} (its maximiser on the line: {g(unc)})"
    elif unc < L and new == L:
        what = f"{moved}, clipped at L = {g(L)} (its maximiser on the line: {g(unc)})"
    elif new == old:
        what = f"\u03b1_j stayed at {g(old)}: the segment [L, H] = [{g(L)}, {g(H)}] leaves it no room"
    else:
        what = f"{moved}, inside [L, H] = [{g(L)}, {g(H)}]: not clipped"
    return f"{chose}; {what}."


def dual_cd_sentence(solver, problem, state, p: CoordinatePicture) -> str:
    """Dual coordinate ascent's step (:class:`~svmteach.solvers.numba_dual_cd.CoordinatePicture`): the coordinate
    of this epoch's order, the parabola's vertex and whether [0, C_i] clipped it."""
    if p.i < 0:
        return NO_STEP if state.n_iter == 0 else NO_STEP_SINCE.format(what="")
    i = int(p.i)
    if p.shrunk:
        return (f"Dual coordinate ascent set coordinate i = {i} aside (shrinking: it sits at a bound and its gradient "
                "pushes it into that bound).")
    C = float(to_numpy(problem.C_i)[i])
    new, unc = float(p.alpha_clipped), float(p.alpha_unclipped)
    old = new - float(p.delta)
    moved = f"\u03b1_i {g(old)} \u2192 {g(new)}"
    if not math.isfinite(unc):
        what = f"Q_ii \u2264 0 gives the parabola no vertex, the better end of [0, C] was taken: {moved}"
    elif unc > C:
        what = f"the parabola's vertex {g(unc)} was clipped to C_i = {g(C)}: {moved}"
    elif unc < 0:
        what = f"the parabola's vertex {g(unc)} was clipped to 0: {moved}"
    else:
        what = f"the parabola's vertex {g(unc)} lies inside [0, C_i]: {moved}, not clipped"
    return f"Dual coordinate ascent visited i = {i}, next in epoch {int(state.epoch)}'s random order; {what}."


def subgradient_sentence(solver, problem, state, p: SubgradientPicture) -> str:
    """The subgradient method's step (:class:`~svmteach.solvers.primal_subgradient.SubgradientPicture`): its step
    size and subgradient, and how many samples are inside the margin (those enter the next subgradient)."""
    if not math.isfinite(p.step_size):
        return NO_STEP if state.n_iter == 0 else NO_STEP_SINCE.format(what="")
    inside = int(np.sum(to_numpy(state.active)))
    return (f"The subgradient method stepped \u03b7 = {g(p.step_size)} (its {solver.step_size} schedule) along a "
            f"subgradient of norm {g(p.grad_norm)}, which moves every \u03b1_i at once; {inside} of "
            f"{problem.n_samples} samples now have margin y f under 1 and enter the next subgradient.")


# ---- the multiclass solvers --------------------------------------------------------------------------------
def _at_bounds(beta, C) -> tuple[int, int, int]:
    """``(at 0, at C, free)`` counts of the off-label multipliers ``beta``."""
    beta = np.asarray(beta, dtype=np.float64)
    at0, atC = int(np.sum(beta <= 0.0)), int(np.sum(beta >= C))
    return at0, atC, beta.size - at0 - atC


def visit_sentence(solver, problem, state, p: VisitPicture) -> str:
    """A sequential multiclass solver's visit (:class:`~svmteach.solvers.multiclass_base.VisitPicture`): the
    sample of this epoch's order and what its block step did, by the type of the block's picture."""
    if p.i < 0:
        return NO_STEP if state.n_iter == 0 else NO_STEP_SINCE.format(what="")
    i, b = int(p.i), p.block
    label = problem.classes[int(b.y)]
    C = float(to_numpy(problem.C_i)[i])
    moved = b.delta is not None and bool(np.any(np.asarray(b.delta) != 0))
    who = f"sample {i} (class {label})"
    if not moved and not bool(np.asarray(state.active)[i]):  # the engine's (n,) active flags: set aside at this visit
        return (f"{who[0].upper()}{who[1:]} is at rest (its block at its optimum with room to spare): shrinking sets "
                "it aside for the next epochs, nothing moved.")
    if isinstance(b, SharkMoves):
        n_moves = len(b.moves_j)
        if n_moves == 0:
            return f"Shark's inner loop on {who} made no move: its block is already optimal."
        clipped = int(np.sum(np.asarray(b.moves_m) != np.asarray(b.moves_m_unclipped)))
        each = "each on the coordinate" if n_moves != 1 else "on the coordinate"
        return (f"Shark's inner loop on {who} made {n_moves} greedy move{'s' * (n_moves != 1)}, {each} of largest "
                f"violation ({clipped} clipped to [0, C_i]); the block's largest change is "
                f"{g(np.max(np.abs(b.delta)))}.")
    if isinstance(b, CSBlock):
        if b.skipped:
            return (f"Crammer-Singer's block for {who} was skipped: its violation v_i = {g(b.violation)} leaves "
                    "nothing to project (the block is at its optimum, or at rest).")
        if b.beta is None:
            return f"Crammer-Singer's block for {who}: a zero row, nothing projected."
        kept = int(np.sum(np.asarray(b.beta) > 0))
        return (f"Crammer-Singer's block for {who}: the projection onto the simplex of mass z = {g(b.z)} kept {kept} of "
                f"{len(b.beta)} classes, threshold \u03b8 = {g(b.theta)}.")
    if isinstance(b, (WWBlock, LLWBlock)):
        title = "Weston-Watkins" if isinstance(b, WWBlock) else "Lee-Lin-Wahba"
        if not moved:
            return f"The exact {title} block for {who}: already optimal, nothing moved."
        at0, atC, free = _at_bounds(b.beta, C)
        how = "sorting its breakpoints gave" if isinstance(b, WWBlock) else "the piecewise-linear equation gave"
        return (f"The exact {title} block for {who}: {how} the root t = 1'\u03b2 = {g(b.t)}; of its {len(b.beta)} "
                f"off-label multipliers {at0} at 0, {atC} at C_i = {g(C)}, {free} free.")
    if isinstance(b, MMRBlock):
        unc, new = float(b.alpha_unclipped), float(b.alpha_clipped)
        change = f"its multiplier \u03b1_iy went {g(new - float(b.delta))} \u2192 {g(new)}"
        if not moved:
            return f"Maximum-margin regression's block for {who}: already optimal ({change}), nothing moved."
        if not math.isfinite(unc):
            where = f"a zero row: the dual is a line along it, its better end taken ({change})"
        elif unc > C or unc < 0:
            where = f"the parabola's vertex {g(unc)} was clipped to {g(C) if unc > C else 0}: {change}"
        else:
            where = f"the parabola's vertex {g(unc)} lies inside [0, C_i]: {change}, not clipped"
        return (f"Maximum-margin regression's block for {who} is one multiplier, its score at its class "
                f"s_y = {g(float(b.grad) + 1.0)} against the target 1; {where}.")
    if hasattr(b, "delta"):  # a loss from outside the package: what every block picture says, its change
        title = problem.loss_object.title or problem.loss_object.name
        if not moved:
            return f"The {title} block for {who}: already optimal, nothing moved."
        return (f"The {title} block for {who} was solved by its own kernel; its largest change is "
                f"{g(float(np.max(np.abs(np.asarray(b.delta, dtype=np.float64)))))}.")
    raise TypeError(f"no sentence for the block picture {type(b).__name__} of {type(solver).__name__}")


def parallel_sentence(solver, problem, state, p: ParallelPicture) -> str:
    """The parallel solver's step (:class:`~svmteach.solvers.parallel_block.ParallelPicture`): every block solved
    alone, then the line search or the plane search."""
    if not math.isfinite(p.t):
        return NO_STEP if state.n_iter == 0 else NO_STEP_SINCE.format(what="")
    if p.used_plane:
        a, b = p.plane
        how = (f"the plane of T \u2212 \u03b1 and the previous step gave the lower dual (a = {g(a)}, b = {g(b)}; the "
               f"line search alone: t = {g(p.t)})")
    else:
        how = f"the exact line search took t = {g(p.t)} of the way to T"
    return f"Every one of the {problem.n_samples} blocks was solved alone (the targets T), then {how}."


def working_set_sentence(solver, problem, state, p: WorkingSetPicture) -> str:
    """The working-set solver's step (:class:`~svmteach.solvers.working_set.WorkingSetPicture`): which b samples
    it solved together, how far their sub-problem's largest block violation fell and in how many inner epochs."""
    chosen = np.asarray(p.chosen)
    if chosen.size == 0 or not math.isfinite(p.start):
        return NO_STEP if state.n_iter == 0 else NO_STEP_SINCE.format(what="")
    shown = ", ".join(str(int(i)) for i in chosen[:8]) + (", ..." if chosen.size > 8 else "")
    who = f"The working set of {chosen.size} sample{'s' * (chosen.size != 1)} ({shown})"
    if not p.start > 0:
        return f"{who} was already solved: no block violated its KKT conditions, nothing moved."
    epochs = f"{p.inner_epochs} inner epoch{'s' * (p.inner_epochs != 1)}"
    return (f"{who} was solved together from their kernel rows, the other samples held fixed: its largest block "
            f"violation went {g(p.start)} \u2192 {g(p.end)} in {epochs} ({p.visits} block visits), then every score "
            f"moved by one product.")


#: The sentence of each picture type a solver's ``step_picture`` returns.
STEP_SENTENCES = {
    PairPicture: smo_sentence,
    CoordinatePicture: dual_cd_sentence,
    SubgradientPicture: subgradient_sentence,
    VisitPicture: visit_sentence,
    ParallelPicture: parallel_sentence,
    WorkingSetPicture: working_set_sentence,
}


def step_sentence(solver, problem, state) -> str:
    """What the step that made ``state`` did and why (:data:`STEP_SENTENCES`, by the type of its picture)."""
    picture = solver.step_picture(state)
    tell = STEP_SENTENCES.get(type(picture))
    if tell is None:
        raise TypeError(f"no sentence for the step picture {type(picture).__name__} of {type(solver).__name__}")
    return tell(solver, problem, state, picture)


def standing_sentence(solver, problem, state) -> str:
    """Where the run stands: the relative gap and how many samples violate KKT by more than :data:`KKT_TOL`."""
    gap = float(state.gap)
    if math.isnan(gap):
        return "Gap not measured yet."
    count = int(np.sum(solver.sample_violations(problem, state) > KKT_TOL))
    if count == 0:
        return f"Gap {gap:.1e}: every sample satisfies KKT to {KKT_TOL:g}."
    return (f"Gap {gap:.1e}: {count} sample{'s' * (count != 1)} still violate{'s' * (count == 1)} KKT by more than "
            f"{KKT_TOL:g}.")


def narrate(solver, problem, state) -> str:
    """The narration of a solver explorer: :func:`step_sentence`, then :func:`standing_sentence`."""
    return f"{step_sentence(solver, problem, state)} {standing_sentence(solver, problem, state)}"


# ---- the explorers without a solver ----------------------------------------------------------------------
def rls_sentence(state: dict, n_samples: int) -> str:
    """The RLS path explorer's lambda (its ``state`` dict): the error rates there and where the leave-one-out best
    lies."""
    i = int(state["index"])
    lam, best = float(state["lam"]), float(state["best_lam"])
    train, loo = float(state["train_error_rate"][i]), float(state["loo_error_rate"][i])
    mse = float(state["loo_mse"][i])
    where = ("the leave-one-out best" if lam == best else
             f"{'below' if lam < best else 'above'} the leave-one-out best \u03bb = {g(best)}")
    return (f"\u03bb = {g(lam)}, {where}: {round(train * n_samples)} of {n_samples} training points misclassified, "
            f"{round(loo * n_samples)} when each is left out (mean squared leave-one-out residual {g(mse)}).")


def simplex_sentence(state: dict) -> str:
    """The simplex explorer's projection (its ``state`` dict): how many entries it kept and its threshold."""
    beta_hat, beta = np.asarray(state["beta_hat"]), np.asarray(state["beta"])
    kept = int(np.sum(beta > 0))
    return (f"The projection onto {{\u03b2 \u2265 0, \u03a3\u03b2 = z = {g(state['z'])}}} kept {kept} of {beta_hat.size} "
            f"entries, those above the threshold \u03b8 = {g(state['theta'])}: \u03b2 = max(\u03b2\u0302 \u2212 \u03b8, 0).")
