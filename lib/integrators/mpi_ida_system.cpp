#include "integrators/ida_system.hpp"

#include <petscksp.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <sstream>
#include <vector>

#include "analysis/mpi_space.hpp"
#include "analysis/scales.hpp"
#include "assembly/assemble.hpp"
#include "core/check.hpp"
#include "integrators/branch_watch.hpp"
#include "integrators/distributed_dae.hpp"
#include "integrators/distributed_dynamics.hpp"
#include "integrators/ida_system.hpp"
#include "integrators/sundials/error_log.hpp"
#include "integrators/sundials/reproducible_nvector.hpp"
#include "parallel/reproducible_sum.hpp"
#include "solvers/direct_lu.hpp"

namespace catena {
namespace {

using namespace distributed_ida;

/// v' (owned velocities) and lambda (owned rows) at a consistent local state s, from
/// [M, a C_q^T; a C_q, 0] [v'; lambda / a] = [f; a gamma] with a = max |M| / max |C_q| (the
/// serial KktSolves' scaling), in the saddle-point numbering of the distributed statics (body
/// by body: the velocities, then the rows of the joints held). Collective.
Status initialAccelerations(const DistributedAssembly& as, const State& s,
                            const std::string& prefix, DistributedSolve solve, VecX& vdot,
                            VecX& lambda) {
  const DistributedModel& dm = as.distributedModel();
  const Model& m = dm.local();
  const AssemblyPlan& plan = as.plan();
  const Index owned = dm.part().owned_bodies, bodies = static_cast<Index>(m.bodies.size());
  const int nvb = m.nv_body;
  std::vector<std::vector<Index>> held(owned);
  for (Index j = 0; j < static_cast<Index>(m.joints.size()); ++j)
    held[holdingBody(m, j)].push_back(j);
  const Index local_size = dm.ownedVelocities() + m.nc;
  const Index first = firstOfRank(local_size);
  std::vector<Index> kv(m.nv), kr(m.nc);
  std::vector<double> start(bodies, 0.0);
  Index at = 0;
  for (Index b = 0; b < owned; ++b) {
    start[b] = static_cast<double>(first + at);
    for (int c = 0; c < nvb; ++c) kv[b * nvb + c] = at++;
    for (Index j : held[b])
      for (Index r = m.joint_row_offset[j]; r < m.joint_row_offset[j + 1]; ++r) kr[r] = at++;
  }
  exchangeBodyStarts(dm, dm.part().ghost_bodies, start);
  for (Index b = 0; b < owned; ++b)
    for (int c = 0; c < nvb; ++c) kv[b * nvb + c] += first;
  for (Index r = 0; r < m.nc; ++r) kr[r] += first;
  for (Index b = owned; b < bodies; ++b)
    for (int c = 0; c < nvb; ++c) kv[b * nvb + c] = static_cast<Index>(start[b]) + c;

  SparseMatrixCSR M = makeBodyMatrix(plan), Cq = makeConstraintMatrix(plan);
  assembleMass(m, plan, s.q, M);
  assembleConstraints(m, plan, s.q, s.t, nullptr, &Cq);
  VecX f(m.nv), gamma(m.nc);
  assembleForces(m, plan, s.q, s.v, s.t, f);
  assembleGamma(m, plan, s.q, s.v, s.t, gamma);

  // M's body blocks on the owned rows (its pattern also couples the bodies of a joint, as
  // zeros that depend on which joints a rank holds: left out, so that the matrix and its
  // factorization do not depend on the rank count), then a C_q and its transpose (a C_q^T on a
  // ghost's rows is summed into its owner's).
  std::vector<PetscInt> rows, cols;
  std::vector<double> values;
  double mmax = 0.0, cmax = 0.0;
  for (Index r = 0; r < dm.ownedVelocities(); ++r)
    for (int k = M.outerIndexPtr()[r]; k < M.outerIndexPtr()[r + 1]; ++k) {
      if (M.innerIndexPtr()[k] / nvb != r / nvb) continue;
      rows.push_back(static_cast<PetscInt>(kv[r]));
      cols.push_back(static_cast<PetscInt>(kv[M.innerIndexPtr()[k]]));
      values.push_back(M.valuePtr()[k]);
      mmax = std::max(mmax, std::abs(M.valuePtr()[k]));
    }
  for (int k = 0; k < Cq.nonZeros(); ++k) cmax = std::max(cmax, std::abs(Cq.valuePtr()[k]));
  mmax = dm.max(mmax);
  cmax = dm.max(cmax);
  const double a = (mmax > 0.0 && cmax > 0.0) ? mmax / cmax : 1.0;
  for (bool transpose : {false, true})
    for (Index r = 0; r < m.nc; ++r)
      for (int k = Cq.outerIndexPtr()[r]; k < Cq.outerIndexPtr()[r + 1]; ++k) {
        const Index row = kr[r], col = kv[Cq.innerIndexPtr()[k]];
        rows.push_back(static_cast<PetscInt>(transpose ? col : row));
        cols.push_back(static_cast<PetscInt>(transpose ? row : col));
        values.push_back(a * Cq.valuePtr()[k]);
      }
  std::vector<int> groups;  // for the gathered KLU: a velocity's body, or -1 for a row
  if (solve == DistributedSolve::kGatheredKlu) {
    groups.assign(static_cast<std::size_t>(local_size), -1);
    for (Index i = 0; i < dm.ownedVelocities(); ++i)
      groups[kv[i] - first] = static_cast<int>(dm.part().first_body + i / nvb);
  }
  DistributedLu lu(local_size, std::move(rows), std::move(cols), prefix,
                   solve == DistributedSolve::kSchur ? DistributedSolve::kPetsc : solve, groups);
  Status st = lu.factor(values.data());
  if (!st.ok()) return st;
  std::vector<double> rhs(local_size), x(local_size);
  for (Index i = 0; i < dm.ownedVelocities(); ++i) rhs[kv[i] - first] = f[i];
  for (Index r = 0; r < m.nc; ++r) rhs[kr[r] - first] = a * gamma[r];
  st = lu.solve(rhs.data(), x.data());
  if (!st.ok()) return st;
  vdot.resize(dm.ownedVelocities());
  lambda.resize(m.nc);
  for (Index i = 0; i < dm.ownedVelocities(); ++i) vdot[i] = x[kv[i] - first];
  for (Index r = 0; r < m.nc; ++r) lambda[r] = a * x[kr[r] - first];
  return Status::success();
}

/// A rank's part of a distributed model: DistributedDae (index 2, the column-scaled Newton
/// matrix as one MatMPIAIJ, MUMPS), IDA's vectors parallel with exact sums, the start checked
/// for consistency (never assembled) and its v' and lambda from the distributed KKT system.
class MpiIdaSystem final : public IdaSystem {
 public:
  MpiIdaSystem(const DistributedAssembly& as, const IdaOptions& o)
      : as_(as),
        dm_(as.distributedModel()),
        prefix_(o.petsc_prefix),
        solve_(o.linear_solver == IdaLinearSolver::kSchur         ? DistributedSolve::kSchur
               : o.linear_solver == IdaLinearSolver::kGatheredKlu ? DistributedSolve::kGatheredKlu
                                                                  : DistributedSolve::kPetsc),
        watch_branch_(o.watch_branch),
        branch_(dm_.local(), dm_.part().owned_bodies, distributedLengthScale(dm_),
                [](Index n, const std::function<double(Index)>& term) {
                  return reproducibleSum(PETSC_COMM_WORLD, n, term);
                }) {}

  std::string name() const override { return "distributed IDA"; }
  std::string solverName() const override {
    return dae_ ? "distributed, PETSc " + dae_->package() : "distributed";
  }
  std::string package() const override { return dae_ ? dae_->package() : ""; }
  void requireFormulation(IdaFormulation f) const override {
    CATENA_CHECK(f == IdaFormulation::kIndex2,
                 "distributed IDA: only the index-2 GGL formulation is distributed, got "
                     << idaFormulationName(f));
  }
  const Model& model() const override { return dm_.local(); }
  sundials::Context makeContext() const override { return sundials::Context(PETSC_COMM_WORLD); }

  /// Positions are not assembled here: with assemble_initial_state the start must satisfy
  /// |C|_inf <= 1e-10 (1 + max |r_body|) and |C_q v + C_t|_inf <= 1e-8 max(1, |v|_inf).
  Status consistentStart(State& s, const IdaOptions& o,
                         std::vector<std::string>& worst_rows) override {
    const Model& m = dm_.local();
    const auto [pos, vel] = distributedConstraintDrift(as_, s);
    double size = 0.0;  // of the positions (2D: x, y; not the angle)
    for (Index b = 0; b < dm_.part().owned_bodies; ++b)
      size = std::max(size, s.q.segment(m.qOffset(b), m.dimension).norm());
    const double pos_tol = 1e-10 * (1.0 + dm_.max(size));
    const double vel_tol = 1e-8 * std::max(1.0, dm_.maxAbs(s.v));
    if (!o.assemble_initial_state || (pos <= pos_tol && vel <= vel_tol)) return Status::success();
    std::ostringstream os;
    os << "the initial state is not consistent (|C| = " << pos << ", |C_q v + C_t| = " << vel
       << "; tolerances " << pos_tol << ", " << vel_tol
       << "): start from an assembled configuration, such as the static equilibrium";
    worst_rows = worstRows(s);
    return Status::failure(Status::Code::kInvalidInput, os.str());
  }
  Status accelerations(const State& s, VecX& vdot, VecX& lambda) override {
    return initialAccelerations(as_, s, prefix_, solve_, vdot, lambda);
  }
  std::string diagnoseSingular(const State&) override { return ""; }
  /// The serial sum over the bodies reduced over the ranks reproducibly: the same bits on any
  /// rank count.
  double initialStep(const State& s, const VecX& vdot, const IdaOptions& o, double span) override {
    return initialIdaStep(dm_.local(), dm_.part().owned_bodies, s, vdot, o, span,
                          static_cast<double>(dm_.globalNq()),
                          [](const std::vector<double>& squares) {
                            return reproducibleSum(PETSC_COMM_WORLD, squares.data(),
                                                   static_cast<Index>(squares.size()));
                          });
  }

  Status setup(const IdaOptions&, const sundials::Context&) override {
    dae_.emplace(as_, prefix_, solve_);
    return Status::success();
  }
  void forgetPivots() override {
    if (dae_) dae_->forgetPivots();
  }
  /// The signal reaches the ranks at different times: stop when any rank has it. No message
  /// when the program does not stop runs on a signal (catena-scale: at segment ends).
  bool stopRequested() override {
    if (!stepsStopOnTermination()) return false;
    return dm_.max(catena::stopRequested() ? 1.0 : 0.0) > 0.0;
  }
  void release() override {}
  Index localSize() const override { return dae_->localSize(); }
  long globalSize() const override { return dae_->globalSize(); }
  /// IDA's decisions the same on any rank count (its work vectors are clones of y).
  sundials::Vector makeVector(const sundials::Context& ctx) const override {
    return sundials::reproducibleVector(PETSC_COMM_WORLD, dae_->localSize(), dae_->globalSize(),
                                        ctx);
  }
  const DaeLayout& layout() const override { return dae_->layout(); }
  void ownedEntries(const VecX& whole, double* out) const override {
    dae_->ownedEntries(whole, out);
  }
  VecX errorTestIds() const override { return dae_->errorTestIds(); }
  void pack(const State& s, const VecX& vdot, double* y, double* yp) override {
    dae_->pack(s, vdot, y, yp);
  }
  void unpack(double t, const double* y, State& s) override { dae_->unpack(t, y, s); }
  int residual(double t, const double* y, const double* yp, double* F, Status& error) override {
    return dae_->residual(t, y, yp, F, error);
  }
  int newtonMatrix(double t, const double* y, const double* yp, double cj, Status& error) override {
    return dae_->newtonMatrix(t, y, yp, cj, error);
  }
  int initializeSolver() override { return SUNLS_SUCCESS; }
  int factor(Status& error) override { return sundials::linearSolverFlag(error = dae_->factor()); }
  int solve(N_Vector b, N_Vector x, double, Status& error) override {
    return sundials::linearSolverFlag(
        error = dae_->solve(N_VGetArrayPointer(b), N_VGetArrayPointer(x)));
  }

  /// The rows with the largest |C| over the ranks at s (ghosts current), the same everywhere.
  std::vector<std::string> worstRows(const State& s) override {
    const Model& m = dm_.local();
    VecX C(m.nc);
    assembleConstraints(m, as_.plan(), s.q, s.t, &C, nullptr);
    std::vector<std::string> rows;
    for (RankedText& w : largestOverRanks(rankedWorstRows(m, C, 5), 5))
      rows.push_back(std::move(w.text));
    return rows;
  }
  bool watchBranch(const State& s) override { return !watch_branch_ || branch_.add(s); }
  Status branchStatus() const override { return branch_.status(); }

 private:
  const DistributedAssembly& as_;
  const DistributedModel& dm_;
  const std::string prefix_;
  const DistributedSolve solve_;
  std::optional<DistributedDae> dae_;
  bool watch_branch_ = true;
  BranchWatch branch_;
};

}  // namespace

std::unique_ptr<IdaSystem> makeMpiIdaSystem(const DistributedAssembly& assembly,
                                            const IdaOptions& o) {
  return std::make_unique<MpiIdaSystem>(assembly, o);
}

}  // namespace catena
