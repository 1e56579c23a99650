#include "integrators/initial_state.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "analysis/scales.hpp"
#include "assembly/assemble.hpp"
#include "solvers/sparse_qr.hpp"

namespace catena {
namespace {

/// Zeroes the columns of C_q that belong to fixed coordinates: the minimum-norm step then
/// leaves them at zero.
void dropFixedColumns(const Model& m, SparseMatrixCSR& Cq) {
  for (int r = 0; r < Cq.outerSize(); ++r)
    for (SparseMatrixCSR::InnerIterator it(Cq, r); it; ++it) {
      const Index b = static_cast<Index>(it.col()) / m.nv_body;
      const int k = static_cast<int>(it.col()) % m.nv_body;
      if (m.bodies[b].fixed & (1u << k)) it.valueRef() = 0.0;
    }
}

}  // namespace

InitialStateResult assembleInitialState(const Model& m, const AssemblyPlan& plan, State s,
                                        const InitialStateOptions& o) {
  InitialStateResult out;
  SparseMatrixCSR Cq = makeConstraintMatrix(plan);
  VecX C(m.nc), Ct(m.nc);
  const double ls = lengthScale(m);
  // 1. Positions: Newton with minimum-norm steps.
  bool converged = false;
  for (int it = 0; it <= o.max_iterations; ++it) {
    assembleConstraints(m, plan, s.q, s.t, &C, &Cq);
    out.position_history.push_back(maxAbs(C));
    if (maxAbs(C) <= o.position_tolerance * ls) {
      converged = true;
      break;
    }
    if (it == o.max_iterations) break;
    dropFixedColumns(m, Cq);
    const MinimumNormSolution step = solveMinimumNorm(Cq, VecX(-C));
    out.rank = step.rank;
    if (!step.x.allFinite()) break;
    applyVariation(m, step.x, 1.0, s.q);
  }
  assembleConstraints(m, plan, s.q, s.t, &C, &Cq);
  out.rank = numericalRank(Cq);
  out.rank_deficiency = m.nc - out.rank;
  if (!converged) {
    std::ostringstream os;
    os << "the initial positions could not be assembled: |C| = " << maxAbs(C) << " m after "
       << out.position_history.size() - 1 << " Newton iterations (started at "
       << out.position_history.front() << "); C_q has rank " << out.rank << " of " << m.nc
       << " rows";
    if (out.rank_deficiency > 0)
      os << " (" << out.rank_deficiency
         << " redundant or singular rows: the joints may be incompatible or at a singular "
            "configuration)";
    out.status = Status::failure(Status::Code::kNotConverged, os.str());
    out.worst_rows = worstRows(m, C, 5);
    out.state = s;
    return out;
  }
  // 2. Velocities closest to the given ones: v = v0 + dv, min |dv| with C_q dv = -(C_q v0 + C_t).
  assembleConstraintTimeDerivative(m, plan, s.q, s.t, Ct);
  VecX residual = Cq * s.v + Ct;
  dropFixedColumns(m, Cq);
  s.v += solveMinimumNorm(Cq, VecX(-residual)).x;
  assembleConstraints(m, plan, s.q, s.t, nullptr, &Cq);
  residual = Cq * s.v + Ct;
  const double vs = std::max(1.0, maxAbs(s.v));
  if (maxAbs(residual) > o.velocity_tolerance * vs) {
    std::ostringstream os;
    os << "the initial velocities could not be made consistent: |C_q v + C_t| = "
       << maxAbs(residual) << " (the fixed velocity coordinates leave no solution, or the "
       << "constraints are singular)";
    out.status = Status::failure(Status::Code::kNotConverged, os.str());
    out.worst_rows = worstRows(m, residual, 5);
  }
  out.state = s;
  return out;
}

}  // namespace catena
