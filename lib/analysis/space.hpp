#pragma once
/// @file space.hpp
/// The discretized mechanism as an analysis sees it, on one process or on many ranks: the
/// rank's model, its assembly, its KKT solver, reductions over the ranks and the manifold update.
/// An analysis written against Space (statics/statics.hpp) is written once for both:
///   - SerialSpace (analysis/serial_space.hpp): a whole Model in one process;
///   - MpiSpace (parallel/mpi_space.hpp): a rank's part of a DistributedModel; every call is
///     collective over its ranks.
///
/// Layout of the vectors (model/model_part.hpp): positions q are the rank's local model's (owned
/// bodies, then ghost bodies, kept current by updateGhosts); multipliers lambda and constraint
/// residuals C have the rank's rows (its joints); velocity-space vectors (forces, variations,
/// residuals) have the owned bodies' entries, nv_body per body. Matrices are the local model's
/// (assembly/plan.hpp patterns). Units: SI (m, rad, N, N m, kg, s).

#include <memory>
#include <string>
#include <vector>

#include "analysis/scales.hpp"
#include "assembly/plan.hpp"
#include "solvers/kkt_solver.hpp"

namespace catena {

class Space {
 public:
  virtual ~Space() = default;

  /// The rank's model: owned bodies first, then ghosts; its joints are the rank's.
  virtual const Model& model() const = 0;
  virtual const AssemblyPlan& plan() const = 0;
  /// Bodies whose rows this rank owns: the first ownedBodies() of model().
  virtual Index ownedBodies() const = 0;
  Index ownedVelocities() const { return ownedBodies() * model().nv_body; }

  /// Sum and maximum over the ranks (one process: x).
  virtual double sum(double x) const = 0;
  virtual double max(double x) const = 0;
  /// The `count` entries of largest value over all ranks' `local`, largest first (ties: lower
  /// rank first); the same on every rank.
  virtual std::vector<RankedText> largest(std::vector<RankedText> local, int count) const = 0;
  /// Copies the owners' positions into the ghost bodies' slots of q (local nq).
  virtual void updateGhosts(VecX& q) const = 0;
  /// Size of the whole mechanism, m (analysis/scales.hpp lengthScale).
  virtual double lengthScale() const = 0;

  /// C (the rank's rows) and C_q (local) at positions q, time t.
  virtual void assembleConstraints(const VecX& q, double t) = 0;
  /// Applied forces f and the magnitudes of their terms (assembleForceMagnitudes) at q, t and
  /// zero velocities (owned entries).
  virtual void assembleForces(const VecX& q, double t) = 0;
  /// With the last C_q: cforce = C_q^T lambda and terms = the magnitudes of the terms of
  /// f - C_q^T lambda (analysis/scales.hpp forceTermMagnitudes), both summed over every rank's
  /// joints (owned entries).
  virtual void constraintForces(const VecX& lambda, VecX& cforce, VecX& terms) = 0;
  /// The statics tangent A = K + K_c (K = -df/dq; K_c only if with_kc) at q, t, lambda (local);
  /// returns max |a_ij| of the assembled A over all ranks.
  virtual double assembleTangent(const VecX& q, double t, const VecX& lambda, bool with_kc) = 0;
  /// Sets the tangent to the identity on the owned entries (zero on ghost rows).
  virtual void setTangentToIdentity() = 0;

  virtual const VecX& C() const = 0;
  virtual const VecX& f() const = 0;
  virtual const SparseMatrixCSR& Cq() const = 0;
  virtual const SparseMatrixCSR& tangent() const = 0;

  /// A new KKT solver of the tangent's and C_q's patterns (PETSc options prefix `prefix`).
  virtual std::unique_ptr<KktSolver> kktSolver(const std::string& prefix) const = 0;

  /// q = q [+] alpha dq on the owned bodies (manifold update, model/state.hpp applyVariation),
  /// then the ghosts from their owners.
  virtual void applyVariation(const VecX& dq, double alpha, VecX& q) const = 0;
};

}  // namespace catena
