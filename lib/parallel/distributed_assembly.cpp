#include "parallel/distributed_assembly.hpp"

#include <petscvec.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "assembly/assemble.hpp"
#include "parallel/petsc_coo_matrix.hpp"

namespace catena {
namespace {

/// COO entries of a local CSR matrix through maps of its rows and columns to global indices.
void cooEntries(const SparseMatrixCSR& A, const std::vector<Index>& row_map,
                const std::vector<Index>& col_map, std::vector<PetscInt>& rows,
                std::vector<PetscInt>& cols) {
  for (int r = 0; r < A.outerSize(); ++r)
    for (int k = A.outerIndexPtr()[r]; k < A.outerIndexPtr()[r + 1]; ++k) {
      rows.push_back(row_map[r]);
      cols.push_back(col_map[A.innerIndexPtr()[k]]);
    }
}

/// The owned rows (global columns) of the global matrix that every rank's local X sums to, its
/// rows and columns mapped to global indices; assembled here and dropped. Collective.
SparseMatrixCSR ownedRowsOfSum(const SparseMatrixCSR& X, const std::vector<Index>& row_map,
                               const std::vector<Index>& col_map, Index owned_rows,
                               Index owned_cols) {
  std::vector<PetscInt> i, j;
  cooEntries(X, row_map, col_map, i, j);
  CooMatrix sum(owned_rows, owned_cols, std::move(i), std::move(j));
  sum.set(X.valuePtr());
  return ownedRows(sum.mat());
}

}  // namespace

struct DistributedAssembly::Petsc {
  /// The tangent's rows that more than one rank writes (row_shared_), assembled over the ranks
  /// for max |a_ij|.
  std::unique_ptr<CooMatrix> A_shared;
};

DistributedAssembly::DistributedAssembly(const DistributedModel& dm)
    : dm_(dm), plan_(buildAssemblyPlan(dm.local())), petsc_(std::make_unique<Petsc>()) {
  const Model& m = dm.local();
  cq_ = makeConstraintMatrix(plan_);
  a_ = makeBodyMatrix(plan_);
  c_ = VecX::Zero(m.nc);
  f_ = VecX::Zero(dm.ownedVelocities());
  f_local_ = VecX::Zero(m.nv);
  f_mag_local_ = VecX::Zero(m.nv);
  v_zero_ = VecX::Zero(m.nv);
  makeSharedTangent();
}

DistributedAssembly::~DistributedAssembly() = default;

void DistributedAssembly::makeSharedTangent() {
  // A row is shared if it is a ghost here or, owned here, a ghost on another rank.
  const Index owned = dm_.ownedVelocities();
  VecX ghost_count = VecX::Zero(a_.rows());
  ghost_count.tail(a_.rows() - owned).setOnes();
  dm_.addGhostsToOwners(ghost_count);
  row_shared_.resize(a_.rows());
  for (int r = 0; r < a_.outerSize(); ++r) row_shared_[r] = r >= owned || ghost_count[r] > 0.0;
  const std::vector<Index>& vel = dm_.globalVelocity();
  std::vector<PetscInt> i, j;
  for (int r = 0; r < a_.outerSize(); ++r)
    if (row_shared_[r])
      for (int k = a_.outerIndexPtr()[r]; k < a_.outerIndexPtr()[r + 1]; ++k) {
        i.push_back(vel[r]);
        j.push_back(vel[a_.innerIndexPtr()[k]]);
      }
  shared_values_.resize(static_cast<Index>(i.size()));
  petsc_->A_shared = std::make_unique<CooMatrix>(owned, owned, std::move(i), std::move(j));
}

void DistributedAssembly::assembleConstraints(const VecX& q, double t) {
  catena::assembleConstraints(dm_.local(), plan_, q, t, &c_, &cq_);
}

void DistributedAssembly::assembleConstraintStiffness(const VecX& q, double t, const VecX& lambda) {
  if (kc_.nonZeros() == 0) kc_ = makeBodyMatrix(plan_);
  catena::assembleConstraintStiffness(dm_.local(), plan_, q, t, lambda, kc_);
}

void DistributedAssembly::assembleForces(const VecX& q, double t) {
  catena::assembleForces(dm_.local(), plan_, q, v_zero_, t, f_local_);
  f_ = f_local_.head(dm_.ownedVelocities());
  assembleForceMagnitudes(dm_.local(), plan_, q, v_zero_, t, f_mag_local_);
  // Ghost bodies' terms are their owners'.
  f_mag_local_.tail(f_mag_local_.size() - dm_.ownedVelocities()).setZero();
}

void DistributedAssembly::assembleTangent(const VecX& q, double t, const VecX& lambda, bool with_kc,
                                          bool with_damping) {
  const Model& m = dm_.local();
  // K straight into A's values, then K_c's terms added joint by joint: no matrix for K, for K_c
  // (and for D, unless asked for).
  if (with_damping) {
    if (d_.nonZeros() == 0) d_ = makeBodyMatrix(plan_);
    assembleForceJacobians(m, plan_, q, v_zero_, t, nullptr, a_, d_);
  } else {
    assembleForceStiffness(m, plan_, q, v_zero_, t, a_);
  }
  // Ghost bodies' rows come last in the local pattern: their body terms are the owners'.
  const int ghost_start = a_.outerIndexPtr()[dm_.ownedVelocities()];
  std::fill(a_.valuePtr() + ghost_start, a_.valuePtr() + a_.nonZeros(), 0.0);
  if (with_kc) {
    addConstraintStiffness(m, plan_, q, t, lambda, a_);
  }
  Index e = 0;
  for (int r = 0; r < a_.outerSize(); ++r)
    if (row_shared_[r])
      for (int k = a_.outerIndexPtr()[r]; k < a_.outerIndexPtr()[r + 1]; ++k)
        shared_values_[e++] = a_.valuePtr()[k];
  petsc_->A_shared->set(shared_values_.data());
  max_abs_tangent_ = assembledMaxAbsTangent();
}

void DistributedAssembly::setTangentToIdentity() {
  const Index owned = dm_.ownedVelocities();
  for (int r = 0; r < a_.outerSize(); ++r)
    for (SparseMatrixCSR::InnerIterator it(a_, r); it; ++it)
      it.valueRef() = (it.col() == r && r < owned) ? 1.0 : 0.0;
}

void DistributedAssembly::assembleMass(const VecX& q) {
  if (m_.nonZeros() == 0) m_ = makeBodyMatrix(plan_);
  catena::assembleMass(dm_.local(), plan_, q, m_);
  const int ghost_start = m_.outerIndexPtr()[dm_.ownedVelocities()];
  std::fill(m_.valuePtr() + ghost_start, m_.valuePtr() + m_.nonZeros(), 0.0);
}

void DistributedAssembly::constraintForces(const VecX& lambda, VecX& out) const {
  // Each rank's joints' terms, those on its ghost bodies then added to their owners' (the sums a
  // global C_q^T lambda would form, in the same order).
  VecX local = cq_.transpose() * lambda;
  dm_.addGhostsToOwners(local);
  out = local.head(dm_.ownedVelocities());
}

double DistributedAssembly::assembledMaxAbsTangent() const {
  // Owned rows no other rank writes hold their assembled entries here; the shared rows' sums are
  // A_shared's, whose diagonal and off-diagonal blocks hold each of its owned entries once.
  double a = 0.0;
  for (int r = 0; r < a_.outerSize(); ++r)
    if (!row_shared_[r])
      for (int k = a_.outerIndexPtr()[r]; k < a_.outerIndexPtr()[r + 1]; ++k)
        a = std::max(a, std::abs(a_.valuePtr()[k]));
  Mat Ad = nullptr, Ao = nullptr;
  const PetscInt* colmap = nullptr;
  CATENA_PETSC(MatMPIAIJGetSeqAIJ(petsc_->A_shared->mat(), &Ad, &Ao, &colmap));
  for (Mat B : {Ad, Ao}) {
    MatInfo info;
    CATENA_PETSC(MatGetInfo(B, MAT_LOCAL, &info));
    const PetscScalar* v = nullptr;
    CATENA_PETSC(MatSeqAIJGetArrayRead(B, &v));
    for (long k = 0; k < static_cast<long>(info.nz_used); ++k) a = std::max(a, std::abs(v[k]));
    CATENA_PETSC(MatSeqAIJRestoreArrayRead(B, &v));
  }
  return dm_.max(a);
}

SparseMatrixCSR DistributedAssembly::ownedRowsOfCq() const {
  std::vector<Index> rows(cq_.rows());
  for (Index r = 0; r < cq_.rows(); ++r) rows[r] = dm_.firstRow() + r;
  return ownedRowsOfSum(cq_, rows, dm_.globalVelocity(), dm_.ownedRows(), dm_.ownedVelocities());
}
SparseMatrixCSR DistributedAssembly::ownedRowsOfKc() const {
  CATENA_CHECK(kc_.nonZeros() > 0,
               "DistributedAssembly::ownedRowsOfKc before assembleConstraintStiffness");
  const std::vector<Index>& vel = dm_.globalVelocity();
  return ownedRowsOfSum(kc_, vel, vel, dm_.ownedVelocities(), dm_.ownedVelocities());
}
SparseMatrixCSR DistributedAssembly::ownedRowsOfTangent() const {
  const std::vector<Index>& vel = dm_.globalVelocity();
  return ownedRowsOfSum(a_, vel, vel, dm_.ownedVelocities(), dm_.ownedVelocities());
}

}  // namespace catena
