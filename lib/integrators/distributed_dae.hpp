#pragma once
/// @file distributed_dae.hpp
/// (integrators/ internal: distributed_dynamics.cpp only; sees PETSc and MPI.) The distributed
/// IDA's DAE over the ranks (DistributedDae: numbering, ghost exchanges, residual and Newton
/// matrix of the rank's rows, the MUMPS or redundant-KLU solve) and the collective helpers it
/// needs. integrators/distributed_dynamics.hpp states what the integration guarantees.

#include <petscksp.h>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <vector>
#include "assembly/assemble.hpp"
#include "assembly/plan.hpp"
#include "formulations/mixed_basis/multibody_dae.hpp"
#include "integrators/distributed_dynamics.hpp"
#include "integrators/sundials/ida.hpp"
#include "integrators/sundials/reproducible_nvector.hpp"
#include "parallel/agreed_status.hpp"
#include "parallel/petsc_coo_matrix.hpp"
#include "parallel/phase_timer.hpp"
#include "parallel/reproducible_sum.hpp"
#include "solvers/direct_lu.hpp"
#include "solvers/factorization.hpp"
#include "solvers/gathered_klu.hpp"
#include "solvers/schur_decomposition.hpp"

namespace catena::distributed_ida {

/// The worst of the ranks' callback outcomes (SUNDIALS: 0 ok, 1 recoverable, -1 fatal), so that
/// every rank returns the same to IDA and all take the same path.
inline int worstOutcome(int flag) {
  int local = flag < 0 ? 2 : flag, worst = 0;
  MPI_Allreduce(&local, &worst, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD);
  return worst == 2 ? -1 : worst;
}

/// Global index of the first unknown of this rank: the unknowns of the lower ranks.
inline Index firstOfRank(Index local) {
  long below = 0, mine = local;
  MPI_Exscan(&mine, &below, 1, MPI_LONG, MPI_SUM, PETSC_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  return rank == 0 ? 0 : static_cast<Index>(below);  // MPI_Exscan leaves rank 0's undefined
}

/// For every ghost body (local index owned_bodies + i, global index ghosts[i]), the global index
/// its owner gave to its first unknown (body_start: one entry per local body, filled for the
/// owned ones).
inline void exchangeBodyStarts(const DistributedModel& dm, const std::vector<Index>& ghosts,
                               std::vector<double>& body_start) {
  GhostExchange(1, dm.part().owned_bodies, ghosts).update(body_start.data());
}

/// How DistributedLu solves.
enum class DistributedSolve {
  kPetsc,  ///< KSP preonly + LU, MUMPS unless the options under the prefix say otherwise
  kSchur,  ///< the Schur-complement domain decomposition (solvers/schur_decomposition.hpp)
  /// every rank gathers the whole matrix and factors it with KLU (solvers/gathered_klu.hpp):
  /// the same solutions, bit for bit, on any rank count
  kGatheredKlu,
};

/// A square matrix over a fixed COO pattern (global indices), factored and solved as `solve`
/// says. With kPetsc, a MatAIJ solved by KSP preonly + LU with MUMPS unless the options under
/// prefix say otherwise, as the distributed statics' saddle-point solver. Collective.
class DistributedLu {
 public:
  /// kSchur: the pattern is made structurally symmetric (explicit zeros at the transposed
  /// entries). kGatheredKlu: groups, per local row, the body of a coordinate or -1 for a
  /// multiplier (GatheredKlu).
  DistributedLu(Index local_rows, std::vector<PetscInt> rows, std::vector<PetscInt> cols,
                const std::string& prefix, DistributedSolve solve = DistributedSolve::kPetsc,
                const std::vector<int>& groups = {})
      : entries_(static_cast<Index>(rows.size())) {
    if (solve == DistributedSolve::kGatheredKlu) {
      gathered_.emplace(local_rows, std::vector<int>(rows.begin(), rows.end()),
                        std::vector<int>(cols.begin(), cols.end()), groups);
      return;
    }
    const bool schur = solve == DistributedSolve::kSchur;
    if (schur) {  // the transposed entries too, zero
      rows.reserve(2 * rows.size());
      cols.reserve(2 * cols.size());
      for (Index k = 0; k < entries_; ++k) {
        rows.push_back(cols[k]);
        cols.push_back(rows[k]);
      }
    }
    A_ = std::make_unique<CooMatrix>(local_rows, local_rows, std::move(rows), std::move(cols),
                                     MATAIJ);
    CATENA_PETSC(MatCreateVecs(A_->mat(), &x_, &b_));
    CATENA_PETSC(KSPCreate(PETSC_COMM_WORLD, &ksp_));
    if (schur) {
      dd_ = std::make_unique<SchurDecomposition>(prefix);
      values_.assign(A_->entries(), 0.0);
      return;
    }
    // MUMPS' default workspace margin (20 %) runs out on the Newton matrix of a 1000-link
    // chain (docs/dynamics-ida.md); 400 %.
    setUpDirectLu(ksp_, A_->mat(), prefix, 400);
  }
  ~DistributedLu() {
    VecDestroy(&x_);
    VecDestroy(&b_);
    KSPDestroy(&ksp_);
  }
  DistributedLu(const DistributedLu&) = delete;
  DistributedLu& operator=(const DistributedLu&) = delete;

  Index entries() const { return entries_; }

  /// Refills the matrix with values (one per COO entry of the constructor, summed) and factors
  /// it.
  Status factor(const double* values) {
    if (gathered_) return gathered_->factor(values);
    if (dd_) {
      std::copy_n(values, entries_, values_.begin());  // the transposed entries stay zero
      A_->set(values_.data());
      return agreedStatus(dd_->factor(A_->mat()));
    }
    A_->set(values);
    return agreedStatus(factorDirectLu(ksp_, A_->mat()));
  }

  /// x = A^-1 b on the owned entries (they may alias).
  Status solve(const double* b, double* x) {
    if (gathered_) return gathered_->solve(b, x);
    PetscInt n = 0;
    CATENA_PETSC(VecGetLocalSize(b_, &n));
    PetscScalar* a = nullptr;
    CATENA_PETSC(VecGetArray(b_, &a));
    std::copy_n(b, n, a);
    CATENA_PETSC(VecRestoreArray(b_, &a));
    KSPConvergedReason reason = KSP_CONVERGED_ITS;
    Status dd_status;
    if (dd_) {
      dd_status = dd_->solve(b_, x_);
    } else {
      CATENA_PETSC(KSPSolve(ksp_, b_, x_));
      CATENA_PETSC(KSPGetConvergedReason(ksp_, &reason));
    }
    const PetscScalar* s = nullptr;
    CATENA_PETSC(VecGetArrayRead(x_, &s));
    bool finite = true;
    for (PetscInt i = 0; i < n; ++i) finite = finite && std::isfinite(s[i]);
    std::copy_n(s, n, x);
    CATENA_PETSC(VecRestoreArrayRead(x_, &s));
    Status st = dd_status;
    if (st.ok() && reason < 0) {
      std::ostringstream os;
      os << "the linear solve failed (" << KSPConvergedReasons[reason] << ")";
      st = Status::failure(Status::Code::kNotConverged, os.str());
    } else if (st.ok() && !finite) {
      st = Status::failure(Status::Code::kSingular,
                           "the linear solve returned non-finite values (singular matrix)");
    }
    return agreedStatus(st);
  }

  std::string package() const {
    if (gathered_) return "gathered klu";
    return dd_ ? "schur (klu + mumps)" : directLuPackage(ksp_);
  }
  /// The next factorization chooses new pivots (gathered KLU; the others always do).
  void forgetPivots() {
    if (gathered_) gathered_->forgetPivots();
  }

 private:
  Index entries_ = 0;
  std::unique_ptr<CooMatrix> A_;
  std::unique_ptr<SchurDecomposition> dd_;
  std::optional<GatheredKlu> gathered_;
  std::vector<double> values_;  // schur: the constructor's entries, then zeros
  KSP ksp_ = nullptr;
  Vec b_ = nullptr, x_ = nullptr;
};

/// The sum over the ranks of the rows that the owned joints write on ghost bodies: a ghosted
/// Vec of `block` doubles per body, updated in reverse (ADD_VALUES, SCATTER_REVERSE).
class GhostRowSum {
 public:
  GhostRowSum(const DistributedModel& dm, int block) : owned_(dm.part().owned_bodies * block) {
    const std::vector<PetscInt> g(dm.part().ghost_bodies.begin(), dm.part().ghost_bodies.end());
    CATENA_PETSC(VecCreateGhostBlock(PETSC_COMM_WORLD, block, owned_, PETSC_DECIDE,
                                     static_cast<PetscInt>(g.size()), g.data(), &v_));
  }
  ~GhostRowSum() { VecDestroy(&v_); }
  GhostRowSum(const GhostRowSum&) = delete;
  GhostRowSum& operator=(const GhostRowSum&) = delete;

  /// ghost: the ghost bodies' blocks in local order. Returns the owned bodies' sums of what
  /// the other ranks gave their ghost copies (owned blocks). Collective.
  const std::vector<double>& sum(const std::vector<double>& ghost) {
    Vec l = nullptr;
    CATENA_PETSC(VecGhostGetLocalForm(v_, &l));
    CATENA_PETSC(VecSet(l, 0.0));
    PetscScalar* a = nullptr;
    CATENA_PETSC(VecGetArray(l, &a));
    std::copy(ghost.begin(), ghost.end(), a + owned_);
    CATENA_PETSC(VecRestoreArray(l, &a));
    CATENA_PETSC(VecGhostRestoreLocalForm(v_, &l));
    CATENA_PETSC(VecGhostUpdateBegin(v_, ADD_VALUES, SCATTER_REVERSE));
    CATENA_PETSC(VecGhostUpdateEnd(v_, ADD_VALUES, SCATTER_REVERSE));
    sums_.resize(owned_);
    const PetscScalar* b = nullptr;
    CATENA_PETSC(VecGetArrayRead(v_, &b));
    std::copy_n(b, owned_, sums_.data());
    CATENA_PETSC(VecRestoreArrayRead(v_, &b));
    return sums_;
  }

 private:
  Index owned_;
  Vec v_ = nullptr;
  std::vector<double> sums_;
};

/// The GGL DAE of a DistributedModel in the body-by-body numbering of distributed_dynamics.hpp:
/// MultibodyDae on the rank's local model for the formulas, the ghost exchanges around it, and
/// the Newton matrix as a MatAIJ (DistributedLu).
///
/// With the part's halo (model_part.hpp) the local model holds every joint on an owned body, in
/// global order: the owned bodies' rows are evaluated whole, by the same operations in the same
/// order as on one rank, and only the owned rows leave the rank. The ghost joints' lambda and mu
/// come from their owners. Without it, the local model is the part: a ghost body's rows hold
/// the joint terms of this rank, which are summed into the owner's rows (GhostRowSum, COO sums).
class DistributedDae {
 public:
  /// solve: how the Newton systems are solved (DistributedLu).
  DistributedDae(const DistributedAssembly& as, const std::string& prefix,
                 DistributedSolve solve = DistributedSolve::kPetsc)
      : dm_(as.distributedModel()),
        part_(dm_.part()),
        halo_(!part_.halo.empty()),
        m_(halo_ ? part_.halo.model : dm_.local()),
        halo_plan_(halo_ ? std::optional<AssemblyPlan>(buildAssemblyPlan(m_, true)) : std::nullopt),
        dae_(m_, halo_ ? *halo_plan_ : as.plan(), IdaFormulation::kIndex2, part_.owned_bodies),
        L_(dae_.layout()),
        d3_(m_.dimension == 3),
        owned_bodies_(part_.owned_bodies),
        bodies_(static_cast<Index>(m_.bodies.size())),
        qv_block_(m_.nq_body + m_.nv_body),
        joint_block_(2 * m_.rows_per_joint),
        ghosts_(halo_ ? part_.halo.ghost_bodies : part_.ghost_bodies),
        positions_(qv_block_, owned_bodies_, ghosts_) {
    CATENA_CHECK(!halo_ || (part_.halo.joints.size() == m_.joints.size() &&
                            ghosts_.size() + owned_bodies_ == m_.bodies.size()),
                 "distributed IDA: the part's halo lists "
                     << part_.halo.joints.size() << " joints and " << ghosts_.size()
                     << " ghost bodies for a model of " << m_.joints.size() << " and "
                     << m_.bodies.size() - owned_bodies_);
    // 0. The joints: owned (by the rank of body 1: a contiguous global range) or, in the halo,
    //    ghosts whose lambda and mu come from their owners.
    const Index joints = static_cast<Index>(m_.joints.size());
    const Index owned_joints = static_cast<Index>(part_.model.joints.size());
    std::vector<Index> ghost_joint_globals;
    for (Index j = 0; j < joints; ++j) {
      const Index g = halo_ ? part_.halo.joints[j] : part_.first_joint + j;
      if (g >= part_.first_joint && g < part_.first_joint + owned_joints) {
        owned_joints_.push_back(j);
      } else {
        ghost_joints_.push_back(j);
        ghost_joint_globals.push_back(g);
      }
    }
    CATENA_CHECK(static_cast<Index>(owned_joints_.size()) == owned_joints,
                 "distributed IDA: the halo lacks some of the " << owned_joints << " owned joints");
    if (halo_)
      joint_rows_.emplace(joint_block_, owned_joints, ghost_joint_globals);
    else
      ghost_rows_.emplace(dm_, qv_block_);

    // 1. Numbering: body by body, q, v, nu, then lambda and mu of the joints it holds
    // (holdingBody).
    std::vector<std::vector<Index>> held(owned_bodies_);
    for (Index j : owned_joints_) held[holdingBody(m_, j)].push_back(j);
    slot_.assign(L_.size, -1);
    std::vector<double> body_start(bodies_, 0.0);
    Index at = 0;
    for (Index b = 0; b < owned_bodies_; ++b) {
      body_start[b] = static_cast<double>(at);
      for (int c = 0; c < m_.nq_body; ++c) slot_[L_.q + m_.qOffset(b) + c] = at++;
      for (int c = 0; c < m_.nv_body; ++c) slot_[L_.v + m_.vOffset(b) + c] = at++;
      if (d3_) slot_[L_.nu + b] = at++;
      for (Index block : {L_.lambda, L_.mu})
        for (Index j : held[b])
          for (Index r = m_.joint_row_offset[j]; r < m_.joint_row_offset[j + 1]; ++r)
            slot_[block + r] = at++;
    }
    local_size_ = at;
    first_ = firstOfRank(local_size_);
    global_size_ = static_cast<long>(dm_.sum(static_cast<double>(local_size_)));
    CATENA_CHECK(global_size_ <= std::numeric_limits<PetscInt>::max(),
                 "distributed IDA: " << global_size_ << " unknowns do not fit PETSc's "
                                     << sizeof(PetscInt) * 8 << "-bit indices");
    for (Index b = 0; b < owned_bodies_; ++b) body_start[b] += static_cast<double>(first_);
    exchangeBodyStarts(dm_, ghosts_, body_start);
    global_.assign(L_.size, -1);
    for (Index i = 0; i < L_.size; ++i)
      if (slot_[i] >= 0) global_[i] = first_ + slot_[i];
    for (Index b = owned_bodies_; b < bodies_; ++b) {
      const Index start = static_cast<Index>(body_start[b]);
      for (int c = 0; c < m_.nq_body; ++c) global_[L_.q + m_.qOffset(b) + c] = start + c;
      for (int c = 0; c < m_.nv_body; ++c)
        global_[L_.v + m_.vOffset(b) + c] = start + m_.nq_body + c;
    }
    if (halo_) {  // a ghost joint's lambda and mu rows: from the owner's first ones
      joint_values_.assign((owned_joints_.size() + ghost_joints_.size()) * joint_block_, 0.0);
      for (std::size_t k = 0; k < owned_joints_.size(); ++k) {
        const Index r = m_.joint_row_offset[owned_joints_[k]];
        joint_values_[k * joint_block_] = static_cast<double>(global_[L_.lambda + r]);
        joint_values_[k * joint_block_ + 1] = static_cast<double>(global_[L_.mu + r]);
      }
      joint_rows_->update(joint_values_.data());
      for (std::size_t k = 0; k < ghost_joints_.size(); ++k) {
        const Index j = ghost_joints_[k];
        const double* block = joint_values_.data() + (owned_joints_.size() + k) * joint_block_;
        for (Index r = m_.joint_row_offset[j]; r < m_.joint_row_offset[j + 1]; ++r) {
          const Index i = r - m_.joint_row_offset[j];
          global_[L_.lambda + r] = static_cast<Index>(block[0]) + i;
          global_[L_.mu + r] = static_cast<Index>(block[1]) + i;
        }
      }
    }
    for (Index i = 0; i < L_.size; ++i)
      if (slot_[i] >= 0) owned_.push_back(i);

    // 2. The Newton matrix's COO pattern: with the halo, the owned rows; without it, every
    //    entry of the local rows (the ghost bodies' rows hold joint terms, which
    //    CooMatrix::set adds to the owners' rows).
    const SparseMatrixCSR& J = dae_.jacobian();
    std::vector<PetscInt> rows, cols;
    for (Index r = 0; r < L_.size; ++r) {
      if (halo_ && slot_[r] < 0) continue;
      for (int k = J.outerIndexPtr()[r]; k < J.outerIndexPtr()[r + 1]; ++k) {
        const Index c = J.innerIndexPtr()[k];
        CATENA_CHECK(global_[r] >= 0 && global_[c] >= 0,
                     "distributed IDA: the Newton matrix has an entry ("
                         << r << ", " << c << ") outside the distributed unknowns");
        rows.push_back(static_cast<PetscInt>(global_[r]));
        cols.push_back(static_cast<PetscInt>(global_[c]));
        entries_.push_back(k);
      }
    }
    values_.resize(rows.size());
    // For the gathered KLU: each owned unknown's body if it is a position or a velocity, else
    // -1 (nu, lambda, mu: equations without them).
    std::vector<int> groups;
    if (solve == DistributedSolve::kGatheredKlu) {
      groups.assign(static_cast<std::size_t>(local_size_), -1);
      for (Index b = 0; b < owned_bodies_; ++b) {
        const int body = static_cast<int>(part_.first_body + b);
        for (int c = 0; c < m_.nq_body; ++c) groups[slot_[L_.q + m_.qOffset(b) + c]] = body;
        for (int c = 0; c < m_.nv_body; ++c) groups[slot_[L_.v + m_.vOffset(b) + c]] = body;
      }
    }
    lu_.emplace(local_size_, std::move(rows), std::move(cols), prefix, solve, groups);

    yl_ = VecX::Zero(L_.size);
    ypl_ = VecX::Zero(L_.size);
    Fl_ = VecX::Zero(L_.size);
    qv_.assign(static_cast<std::size_t>(bodies_ * qv_block_), 0.0);
    if (!halo_) ghost_.assign(static_cast<std::size_t>((bodies_ - owned_bodies_) * qv_block_), 0.0);
    if (halo_)
      for (Index g : part_.ghost_bodies) {
        const auto it = std::find(ghosts_.begin(), ghosts_.end(), g);
        CATENA_CHECK(it != ghosts_.end(),
                     "distributed IDA: the halo lacks the part's ghost body " << g);
        part_ghosts_in_halo_.push_back(owned_bodies_ + static_cast<Index>(it - ghosts_.begin()));
      }
    column_scale_ = VecX::Ones(L_.size);
    solution_scale_ = VecX::Ones(local_size_);
  }

  Index localSize() const { return local_size_; }
  long globalSize() const { return global_size_; }
  const DaeLayout& layout() const { return L_; }
  std::string package() const { return lu_->package(); }

  /// Local DAE vectors from the owned entries of y and y', the ghost bodies' q and v and the
  /// halo's ghost joints' lambda and mu from their owners (the ghost bodies' y' and nu are not
  /// read by the DAE). Collective.
  void load(const double* y, const double* yp) {
    for (Index i : owned_) {
      yl_[i] = y[slot_[i]];
      if (yp) ypl_[i] = yp[slot_[i]];
    }
    for (Index b = 0; b < owned_bodies_; ++b) {
      double* block = qv_.data() + b * qv_block_;
      for (int c = 0; c < m_.nq_body; ++c) block[c] = yl_[L_.q + m_.qOffset(b) + c];
      for (int c = 0; c < m_.nv_body; ++c) block[m_.nq_body + c] = yl_[L_.v + m_.vOffset(b) + c];
    }
    positions_.update(qv_.data());
    for (Index b = owned_bodies_; b < bodies_; ++b) {
      const double* block = qv_.data() + b * qv_block_;
      for (int c = 0; c < m_.nq_body; ++c) yl_[L_.q + m_.qOffset(b) + c] = block[c];
      for (int c = 0; c < m_.nv_body; ++c) yl_[L_.v + m_.vOffset(b) + c] = block[m_.nq_body + c];
    }
    if (!halo_) return;
    const int R = m_.rows_per_joint;
    for (std::size_t k = 0; k < owned_joints_.size(); ++k) {
      const Index j = owned_joints_[k];
      double* block = joint_values_.data() + k * joint_block_;
      for (Index r = m_.joint_row_offset[j]; r < m_.joint_row_offset[j + 1]; ++r) {
        block[r - m_.joint_row_offset[j]] = yl_[L_.lambda + r];
        block[R + r - m_.joint_row_offset[j]] = yl_[L_.mu + r];
      }
    }
    joint_rows_->update(joint_values_.data());
    for (std::size_t k = 0; k < ghost_joints_.size(); ++k) {
      const Index j = ghost_joints_[k];
      const double* block = joint_values_.data() + (owned_joints_.size() + k) * joint_block_;
      for (Index r = m_.joint_row_offset[j]; r < m_.joint_row_offset[j + 1]; ++r) {
        yl_[L_.lambda + r] = block[r - m_.joint_row_offset[j]];
        yl_[L_.mu + r] = block[R + r - m_.joint_row_offset[j]];
      }
    }
  }

  /// F(t, y, y') on the owned entries. Returns 0, 1 (a non-finite value somewhere: IDA cuts the
  /// step) or -1 (an exception, message in `error`), the same on every rank. Collective.
  int residual(double t, const double* y, const double* yp, double* F, Status& error) {
    load(y, yp);
    int flag = sundials::guarded(error, "the residual", [&] {
      dae_.residual(t, yl_.data(), ypl_.data(), Fl_.data());
      return 0;
    });
    if (flag < 0) Fl_.setZero();
    if (!halo_) {
      // The joint terms on the ghost bodies' rows go to their owners (every rank takes part).
      for (Index b = owned_bodies_; b < bodies_; ++b) {
        double* block = ghost_.data() + (b - owned_bodies_) * qv_block_;
        for (int c = 0; c < m_.nq_body; ++c) block[c] = Fl_[L_.q + m_.qOffset(b) + c];
        for (int c = 0; c < m_.nv_body; ++c) block[m_.nq_body + c] = Fl_[L_.v + m_.vOffset(b) + c];
      }
      const std::vector<double>& sums = ghost_rows_->sum(ghost_);
      for (Index b = 0; b < owned_bodies_; ++b) {
        const double* block = sums.data() + b * qv_block_;
        for (int c = 0; c < m_.nq_body; ++c) Fl_[L_.q + m_.qOffset(b) + c] += block[c];
        for (int c = 0; c < m_.nv_body; ++c) Fl_[L_.v + m_.vOffset(b) + c] += block[m_.nq_body + c];
      }
    }
    bool finite = true;
    for (Index i : owned_) {
      F[slot_[i]] = Fl_[i];
      finite = finite && std::isfinite(Fl_[i]);
    }
    return worstOutcome(flag < 0 ? flag : (finite ? 0 : 1));
  }

  /// J S (the column scaling of the serial run, serial_ida_system.cpp, GGL: lambda by c_j m, mu and
  /// nu by c_j, m the largest diagonal entry of M over all ranks) into the MatAIJ. Returns as
  /// residual(). Collective.
  int newtonMatrix(double t, const double* y, const double* yp, double cj, Status& error) {
    load(y, yp);
    double mass = 0.0;
    const SparseMatrixCSR& J = dae_.jacobian();
    int flag = sundials::guarded(error, "the Newton matrix", [&] {
      dae_.newtonMatrix(t, yl_.data(), ypl_.data(), cj);
      mass = dae_.massScale();
      return 0;
    });
    mass = dm_.max(mass);
    column_scale_.segment(L_.lambda, L_.nc).setConstant(cj * mass);
    column_scale_.segment(L_.mu, L_.nmu).setConstant(cj);
    column_scale_.segment(L_.nu, L_.nnu).setConstant(cj);
    for (Index i : owned_) solution_scale_[slot_[i]] = column_scale_[i];
    const int* inner = J.innerIndexPtr();
    const double* v = J.valuePtr();
    bool finite = true;
    for (std::size_t e = 0; e < entries_.size(); ++e) {
      const int k = entries_[e];
      values_[e] = flag < 0 ? 0.0 : v[k] * column_scale_[inner[k]];
      finite = finite && std::isfinite(values_[e]);
    }
    // The factorization (LU setup) refills the matrix: values_ are kept until then.
    return worstOutcome(flag < 0 ? flag : (finite ? 0 : 1));
  }

  /// Factors the last Newton matrix. Collective.
  Status factor() { return lu_->factor(values_.data()); }
  void forgetPivots() { lu_->forgetPivots(); }

  /// x = S z with J S z = b (owned entries). Collective.
  Status solve(const double* b, double* x) {
    const Status st = lu_->solve(b, x);
    if (st.ok())
      for (Index i = 0; i < local_size_; ++i) x[i] *= solution_scale_[i];
    return st;
  }

  /// The owned entries of y and y' for a consistent state s of the part's model (distributed
  /// dynamics' states) with v' = vdot (owned velocities): mu = nu = 0, q' = N(q) v, lambda' = 0
  /// (MultibodyDae::pack).
  void pack(const State& s, const VecX& vdot, double* y, double* yp) const {
    VecX vd = VecX::Zero(m_.nv), yl, ypl;
    vd.head(vdot.size()) = vdot;
    dae_.pack(halo_ ? haloState(s) : s, vd, yl, ypl);
    for (Index i : owned_) {
      y[slot_[i]] = yl[i];
      yp[slot_[i]] = ypl[i];
    }
  }

  /// The state of the part's model at time t of the owned entries of y (ghosts from their
  /// owners, quaternions normalized). Collective.
  void unpack(double t, const double* y, State& s) {
    load(y, nullptr);
    if (!halo_) {
      dae_.unpack(t, yl_.data(), s);
      return;
    }
    State h;
    dae_.unpack(t, yl_.data(), h);
    const Model& pm = part_.model;
    s.t = t;
    s.q.resize(pm.nq);
    s.v.resize(pm.nv);
    s.lambda.resize(pm.nc);
    s.q.head(dm_.ownedPositions()) = h.q.head(dm_.ownedPositions());
    s.v.head(dm_.ownedVelocities()) = h.v.head(dm_.ownedVelocities());
    for (std::size_t i = 0; i < part_ghosts_in_halo_.size(); ++i) {
      const Index b = owned_bodies_ + static_cast<Index>(i), hb = part_ghosts_in_halo_[i];
      s.q.segment(pm.qOffset(b), pm.nq_body) = h.q.segment(m_.qOffset(hb), m_.nq_body);
      s.v.segment(pm.vOffset(b), pm.nv_body) = h.v.segment(m_.vOffset(hb), m_.nv_body);
    }
    forOwnedJointRows([&](Index part_row, Index halo_row, Index rows) {
      s.lambda.segment(part_row, rows) = h.lambda.segment(halo_row, rows);
    });
  }

  /// A per-unknown vector (owned entries) of a vector over the local DAE layout.
  void ownedEntries(const VecX& local, double* out) const {
    for (Index i : owned_) out[slot_[i]] = local[i];
  }

  VecX errorTestIds() const { return dae_.errorTestIds(); }

 private:
  /// f(first row in the part's model, first row in the halo's, rows) for every owned joint.
  template <class F>
  void forOwnedJointRows(F&& f) const {
    const Model& pm = part_.model;
    for (std::size_t k = 0; k < owned_joints_.size(); ++k) {
      const Index j = owned_joints_[k];
      f(pm.joint_row_offset[k], m_.joint_row_offset[j],
        m_.joint_row_offset[j + 1] - m_.joint_row_offset[j]);
    }
  }

  /// A state of the part's model in the halo's layout: the owned bodies and joints (the ghosts
  /// are not read: their unknowns belong to other ranks).
  State haloState(const State& s) const {
    State h;
    h.t = s.t;
    h.q = VecX::Zero(m_.nq);
    h.v = VecX::Zero(m_.nv);
    h.lambda = VecX::Zero(m_.nc);
    h.q.head(dm_.ownedPositions()) = s.q.head(dm_.ownedPositions());
    h.v.head(dm_.ownedVelocities()) = s.v.head(dm_.ownedVelocities());
    forOwnedJointRows([&](Index part_row, Index halo_row, Index rows) {
      h.lambda.segment(halo_row, rows) = s.lambda.segment(part_row, rows);
    });
    return h;
  }

  const DistributedModel& dm_;
  const ModelPart& part_;
  bool halo_;  ///< the owned rows evaluated whole on the part's halo
  const Model& m_;
  std::optional<AssemblyPlan> halo_plan_;
  MultibodyDae dae_;
  const DaeLayout& L_;
  bool d3_;
  Index owned_bodies_, bodies_;
  int qv_block_;               ///< doubles per body in the ghost exchanges: q, v (F_q, F_v)
  int joint_block_;            ///< doubles per joint in the halo's exchange: lambda, mu rows
  std::vector<Index> ghosts_;  ///< global index of local body owned_bodies_ + i
  std::vector<Index> part_ghosts_in_halo_;          ///< halo: local body of the part's ghost i
  GhostExchange positions_;                         ///< q and v of the ghost bodies
  std::vector<Index> owned_joints_, ghost_joints_;  ///< local joint indices
  std::optional<GhostExchange> joint_rows_;         ///< halo: lambda, mu of the ghost joints
  std::optional<GhostRowSum> ghost_rows_;           ///< no halo: F_q, F_v rows of ghosts to owners
  std::vector<Index> slot_;    ///< local DAE index -> owned position (-1: a ghost's)
  std::vector<Index> global_;  ///< local DAE index -> global index (-1: a ghost's nu)
  std::vector<Index> owned_;   ///< local DAE indices that are owned
  std::vector<int> entries_;   ///< J's value index of every COO entry
  Index local_size_ = 0, first_ = 0;
  long global_size_ = 0;
  VecX yl_, ypl_, Fl_, column_scale_, solution_scale_;
  std::vector<double> qv_, ghost_, values_, joint_values_;
  std::optional<DistributedLu> lu_;
};

}  // namespace catena::distributed_ida
