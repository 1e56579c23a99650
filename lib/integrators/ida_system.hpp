#pragma once
/// @file ida_system.hpp
/// What the one IDA driver (ida_driver.hpp) needs of the discretized mixed-basis DAE and its
/// linear algebra, on one rank (SerialIdaSystem: MultibodyDae, KLU or PETSc) or many
/// (MpiIdaSystem: DistributedDae, MUMPS). The driver owns IDA, the step loop, the outputs and
/// the failure reports; a system owns the unknowns' layout, the residual, the Newton matrix and
/// its factorization, the start and the rank reductions. Internal to lib/integrators.
///
/// Vectors passed as double* hold this rank's entries of IDA's vectors (localSize()). Calls
/// marked collective are made by every rank in the same order, and return the same everywhere.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/check.hpp"
#include "core/status.hpp"
#include "core/termination.hpp"
#include "formulations/mixed_basis/multibody_dae.hpp"
#include "integrators/ida_dynamics.hpp"
#include "integrators/sundials/context.hpp"

namespace catena {

class IdaSystem {
 public:
  virtual ~IdaSystem() = default;

  /// The run's name in messages: "IDA" or "distributed IDA".
  virtual std::string name() const = 0;
  /// Who solves the Newton systems, for DynamicsResult::method ("KLU", "distributed, PETSc
  /// mumps"); complete after setup().
  virtual std::string solverName() const = 0;
  /// The factorization package of the Newton systems ("KLU", "mumps", ...), after setup().
  virtual std::string package() const = 0;
  /// Throws catena::Error if this system cannot integrate formulation f.
  virtual void requireFormulation(IdaFormulation f) const = 0;
  /// The model whose states the run sees (a rank's local model in parallel).
  virtual const Model& model() const = 0;
  /// A SUNDIALS context on the system's communicator.
  virtual sundials::Context makeContext() const = 0;

  // --- The start (collective) ---
  /// Makes s consistent (assembles it) or checks that it is; on failure s is where it got and
  /// worst_rows name the largest residuals.
  virtual Status consistentStart(State& s, const IdaOptions& o,
                                 std::vector<std::string>& worst_rows) = 0;
  /// v' and lambda at a consistent s from [M C_q^T; C_q 0] [v'; lambda] = [f; gamma].
  virtual Status accelerations(const State& s, VecX& vdot, VecX& lambda) = 0;
  /// Why the KKT matrix at s is singular, or "" if the system cannot say.
  virtual std::string diagnoseSingular(const State& s) = 0;
  /// initialIdaStep of the state, summed over the ranks.
  virtual double initialStep(const State& s, const VecX& vdot, const IdaOptions& o,
                             double span) = 0;

  // --- The DAE (after setup) ---
  /// Builds the DAE of formulation o.formulation and the Newton solver. Status: out of memory.
  virtual Status setup(const IdaOptions& o, const sundials::Context& ctx) = 0;
  /// Frees what setup() made in the context, before the driver frees the context.
  virtual void release() = 0;
  virtual Index localSize() const = 0;
  virtual long globalSize() const = 0;
  /// A vector of IDA's (serial, or parallel with exact sums), or null if memory is exhausted.
  virtual sundials::Vector makeVector(const sundials::Context& ctx) const = 0;
  /// The layout of the (local) DAE, and this rank's entries of a vector over it.
  virtual const DaeLayout& layout() const = 0;
  virtual void ownedEntries(const VecX& whole, double* out) const = 0;
  /// 1 for the error-tested entries of the layout (errorTestIds of the DAE).
  virtual VecX errorTestIds() const = 0;
  virtual void pack(const State& s, const VecX& vdot, double* y, double* yp) = 0;
  /// The state at t of y (collective: ghosts from their owners).
  virtual void unpack(double t, const double* y, State& s) = 0;
  /// F(t, y, y'): 0, 1 (non-finite: IDA cuts the step) or -1 (failure in `error`). Collective.
  virtual int residual(double t, const double* y, const double* yp, double* F, Status& error) = 0;
  /// The column-scaled Newton matrix J S at c_j, kept for factor(); returns as residual().
  virtual int newtonMatrix(double t, const double* y, const double* yp, double cj,
                           Status& error) = 0;
  /// SUNLinearSolver calls on that matrix: SUNLS_* flags; a failure's reason in `error`.
  virtual int initializeSolver() = 0;
  virtual int factor(Status& error) = 0;
  /// The next factor() chooses new pivots (a Newton iteration failed since the last one); a
  /// solver that keeps none ignores it.
  virtual void forgetPivots() {}
  /// Whether the run should stop after this step (core/termination.hpp); distributed: the
  /// same answer on every rank (collective).
  virtual bool stopRequested() { return catena::stopRequested(); }
  /// x = S z with (J S) z = b.
  virtual int solve(N_Vector b, N_Vector x, double tol, Status& error) = 0;

  // --- Diagnostics (collective) ---
  /// The constraint rows with the largest |C| at s over the ranks (Model::rowName: value).
  virtual std::vector<std::string> worstRows(const State& s) = 0;
  /// The branch watch (branch_watch.hpp) on an output state: false after a velocity jump,
  /// with branchStatus() saying where.
  virtual bool watchBranch(const State& s) = 0;
  virtual Status branchStatus() const = 0;

  // --- Index 1 only: a system that refuses kIndex1 (requireFormulation) keeps these ---
  /// |C|_inf (m) and |C_q v + C_t|_inf at s.
  virtual std::pair<double, double> drift(const State&) { indexOneOnly(); }
  /// Projects s onto both constraint levels (|C| <= position_tolerance) and gives v' there.
  virtual Status project(State&, double /*position_tolerance*/, VecX& /*vdot*/) { indexOneOnly(); }
  /// Size of the mechanism, m (analysis/scales.hpp lengthScale).
  virtual double lengthScale() const { indexOneOnly(); }

 private:
  [[noreturn]] static void indexOneOnly() {
    throw Error("IDA: the index-1 projection is called on a system that refuses index 1");
  }
};

class DistributedAssembly;

/// The whole model in one process (SerialIdaSystem, serial_ida_system.cpp): any formulation,
/// KLU or PETSc per o.linear_solver, KKT solves under o.petsc_prefix. model and plan must
/// outlive it. PETSc must be initialized.
std::unique_ptr<IdaSystem> makeSerialIdaSystem(const Model& model, const AssemblyPlan& plan,
                                               const IdaOptions& o);

/// A rank's part of a distributed model (MpiIdaSystem, mpi_ida_system.cpp): index 2 only,
/// MUMPS (or the package of -<prefix>pc_factor_mat_solver_type). Collective.
std::unique_ptr<IdaSystem> makeMpiIdaSystem(const DistributedAssembly& assembly,
                                            const IdaOptions& o);

}  // namespace catena
