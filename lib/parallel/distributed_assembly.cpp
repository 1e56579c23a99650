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

}  // namespace

struct DistributedAssembly::Petsc {
  /// A_shared: the tangent's entries in rows more than one rank writes (an owned body that is
  /// another rank's ghost, and this rank's ghosts), assembled over the ranks for max |a_ij|.
  std::unique_ptr<CooMatrix> Kc, A_shared;
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

std::unique_ptr<CooMatrix> DistributedAssembly::bodyCoo() const {
  const std::vector<Index>& vel = dm_.globalVelocity();
  std::vector<PetscInt> i, j;
  cooEntries(a_, vel, vel, i, j);
  return std::make_unique<CooMatrix>(dm_.ownedVelocities(), dm_.ownedVelocities(), i, j);
}

void DistributedAssembly::makeSharedTangent() {
  // A row is shared if it is a ghost here or, owned here, a ghost on another rank.
  const Index owned = dm_.ownedVelocities();
  VecX ghost_count = VecX::Zero(a_.rows());
  ghost_count.tail(a_.rows() - owned).setOnes();
  dm_.addGhostsToOwners(ghost_count);
  const std::vector<Index>& vel = dm_.globalVelocity();
  std::vector<PetscInt> i, j;
  for (int r = 0; r < a_.outerSize(); ++r) {
    const bool shared = r >= owned || ghost_count[r] > 0.0;
    for (int k = a_.outerIndexPtr()[r]; k < a_.outerIndexPtr()[r + 1]; ++k) {
      if (!shared) continue;
      shared_entries_.push_back(k);
      i.push_back(vel[r]);
      j.push_back(vel[a_.innerIndexPtr()[k]]);
    }
    if (!shared && r < owned)
      unshared_end_.push_back(a_.outerIndexPtr()[r + 1]);
    else
      unshared_end_.push_back(a_.outerIndexPtr()[r]);
  }
  shared_values_.resize(static_cast<Index>(shared_entries_.size()));
  petsc_->A_shared = std::make_unique<CooMatrix>(owned, owned, std::move(i), std::move(j));
}

void DistributedAssembly::assembleConstraints(const VecX& q, double t) {
  catena::assembleConstraints(dm_.local(), plan_, q, t, &c_, &cq_);
}

void DistributedAssembly::assembleConstraintStiffness(const VecX& q, double t, const VecX& lambda) {
  if (kc_.nonZeros() == 0) kc_ = makeBodyMatrix(plan_);
  catena::assembleConstraintStiffness(dm_.local(), plan_, q, t, lambda, kc_);
  if (!petsc_->Kc) petsc_->Kc = bodyCoo();
  petsc_->Kc->set(kc_.valuePtr());
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
  for (std::size_t e = 0; e < shared_entries_.size(); ++e)
    shared_values_[static_cast<Index>(e)] = a_.valuePtr()[shared_entries_[e]];
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
    for (int k = a_.outerIndexPtr()[r]; k < unshared_end_[r]; ++k)
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
  const Model& m = dm_.local();
  std::vector<Index> rows(m.nc);
  for (Index r = 0; r < m.nc; ++r) rows[r] = dm_.firstRow() + r;
  std::vector<PetscInt> i, j;
  cooEntries(cq_, rows, dm_.globalVelocity(), i, j);
  CooMatrix Cq(m.nc, dm_.ownedVelocities(), std::move(i), std::move(j));
  Cq.set(cq_.valuePtr());
  return ownedRows(Cq.mat());
}
SparseMatrixCSR DistributedAssembly::ownedRowsOfKc() const {
  CATENA_CHECK(petsc_->Kc, "DistributedAssembly::ownedRowsOfKc before assembleConstraintStiffness");
  return ownedRows(petsc_->Kc->mat());
}
SparseMatrixCSR DistributedAssembly::ownedRowsOfTangent() const {
  const std::unique_ptr<CooMatrix> A = bodyCoo();
  A->set(a_.valuePtr());
  return ownedRows(A->mat());
}

}  // namespace catena
