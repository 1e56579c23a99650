#pragma once
/// @file distributed_assembly.hpp
/// Assembly of a DistributedModel (distributed_model.hpp): the constraint residual C and the
/// applied forces f (owned entries), C_q (owned rows), the static tangent K + K_c and C_q^T lambda.
/// Each rank runs the serial assembly on its local model; ghost bodies' own terms are left to
/// their owners, and what a rank's joints add to its ghosts' rows reaches their owners by a
/// reverse ghost update (vectors) or fixed COO slots (petsc_coo_matrix.hpp: the tangent's rows
/// that several ranks write, for max |a_ij|; the global matrices the tests and the modal
/// analysis ask for, assembled on demand). For a chain the results equal the serial ones
/// bitwise (docs/parallel.md, "Distributed assembly", says how). Every call is collective.

#include <memory>
#include <vector>

#include "assembly/plan.hpp"
#include "parallel/distributed_model.hpp"

namespace catena {

class CooMatrix;  // parallel/petsc_coo_matrix.hpp

class DistributedAssembly {
 public:
  explicit DistributedAssembly(const DistributedModel& dm);
  ~DistributedAssembly();
  DistributedAssembly(const DistributedAssembly&) = delete;
  DistributedAssembly& operator=(const DistributedAssembly&) = delete;

  const DistributedModel& distributedModel() const { return dm_; }
  const AssemblyPlan& plan() const { return plan_; }

  /// C (owned rows) and C_q at the local positions q (local nq, ghosts up to date).
  void assembleConstraints(const VecX& q, double t);
  /// K_c = d(C_q^T lambda)/dq at fixed lambda, local (ownedRowsOfKc; its matrix is made on the
  /// first call: the analyses add K_c through assembleTangent). Local.
  void assembleConstraintStiffness(const VecX& q, double t, const VecX& lambda);
  /// Applied forces f and the magnitudes of their terms (assembleForceMagnitudes) at zero
  /// velocities (owned velocity entries).
  void assembleForces(const VecX& q, double t);
  /// The tangent of statics A = K + K_c (K = -df/dq; K_c only if with_kc), local;
  /// with_damping: D = -df/dv too (localDamping; its matrix is made on the first such call).
  void assembleTangent(const VecX& q, double t, const VecX& lambda, bool with_kc,
                       bool with_damping = false);
  /// Sets the local tangent's values to the identity of the owned velocities (ghost rows zero),
  /// for the multipliers' least-squares estimate, until the next assembleTangent. Local.
  void setTangentToIdentity();
  /// C_q^T lambda (owned velocity entries) with the last C_q.
  void constraintForces(const VecX& lambda, VecX& out) const;

  /// max |a_ij| of the global tangent of the last assembleTangent (the sums over the ranks).
  double maxAbsTangent() const { return max_abs_tangent_; }
  /// The mass matrix M at q into the local body pattern (M fills the bodies' diagonal blocks;
  /// the ghost bodies' rows are zeroed, their owners count them); the distributed modal
  /// analysis moves it into its MatMPIAIJ pencil. Allocated on the first call. Local.
  void assembleMass(const VecX& q);

  const VecX& C() const { return c_; }  ///< owned rows
  const VecX& f() const { return f_; }  ///< owned velocity entries
  /// The magnitudes of the terms of the last f (local nv; ghost bodies' entries zero).
  const VecX& localForceMagnitudes() const { return f_mag_local_; }
  /// The local matrices of the last calls (local model numbering; ghost rows hold this rank's
  /// contributions only).
  const SparseMatrixCSR& localCq() const { return cq_; }
  const SparseMatrixCSR& localTangent() const { return a_; }
  /// M of the last assembleMass (owned rows; ghost rows zero).
  const SparseMatrixCSR& localMass() const { return m_; }
  /// D = -df/dv of the last assembleTangent with damping (ghost rows hold the ghost bodies'
  /// terms; empty before).
  const SparseMatrixCSR& localDamping() const { return d_; }

  /// Owned rows of the assembled global matrices, global columns (comparisons, output); each
  /// assembles its matrix anew.
  SparseMatrixCSR ownedRowsOfCq() const;
  SparseMatrixCSR ownedRowsOfKc() const;       ///< after assembleConstraintStiffness
  SparseMatrixCSR ownedRowsOfTangent() const;  ///< assembles a copy: for tests
  /// Per local velocity coordinate: whether another rank's rows reach it too (a ghost here, or
  /// an owned body that is another rank's ghost).
  const std::vector<char>& sharedVelocities() const { return row_shared_; }

 private:
  const DistributedModel& dm_;
  AssemblyPlan plan_;
  void makeSharedTangent();
  double assembledMaxAbsTangent() const;  ///< from a_ and A_shared; collective

  /// Per local row of the tangent: written by more than one rank (a ghost here, or an owned body
  /// that is another rank's ghost); the staging copy of those rows' values for A_shared.
  std::vector<char> row_shared_;
  VecX shared_values_;
  double max_abs_tangent_ = 0.0;

  SparseMatrixCSR cq_, kc_, d_, a_, m_;
  VecX c_, f_, f_local_, f_mag_local_, v_zero_;
  struct Petsc;  // PETSc objects stay out of this header
  std::unique_ptr<Petsc> petsc_;
};

}  // namespace catena
