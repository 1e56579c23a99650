#include "integrators/distributed_dynamics.hpp"

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
#include "integrators/sundials/ida.hpp"
#include "integrators/sundials/reproducible_nvector.hpp"
#include "parallel/petsc_coo_matrix.hpp"
#include "parallel/phase_timer.hpp"
#include "parallel/reproducible_sum.hpp"
#include "solvers/direct_lu.hpp"
#include "solvers/factorization.hpp"

namespace catena {
namespace {

/// The worst of the ranks' callback outcomes (SUNDIALS: 0 ok, 1 recoverable, -1 fatal), so that
/// every rank returns the same to IDA and all take the same path.
int worstOutcome(int flag) {
  int local = flag < 0 ? 2 : flag, worst = 0;
  MPI_Allreduce(&local, &worst, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD);
  return worst == 2 ? -1 : worst;
}

/// The worst of the ranks' statuses: ok only if every rank's is; otherwise this rank's failure,
/// or the code of another rank's with a generic message.
Status worstStatus(const Status& st) {
  int local = st.ok() ? -1 : static_cast<int>(st.code), worst = -1;
  MPI_Allreduce(&local, &worst, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD);
  if (worst < 0) return Status::success();
  if (!st.ok()) return st;
  return Status::failure(static_cast<Status::Code>(worst), "failed on another rank");
}

/// Global index of the first unknown of this rank: the unknowns of the lower ranks.
Index firstOfRank(Index local) {
  long below = 0, mine = local;
  MPI_Exscan(&mine, &below, 1, MPI_LONG, MPI_SUM, PETSC_COMM_WORLD);
  int rank = 0;
  MPI_Comm_rank(PETSC_COMM_WORLD, &rank);
  return rank == 0 ? 0 : static_cast<Index>(below);  // MPI_Exscan leaves rank 0's undefined
}

/// For every ghost body (local index owned_bodies + i, global index ghosts[i]), the global index
/// its owner gave to its first unknown (body_start: one entry per local body, filled for the
/// owned ones).
void exchangeBodyStarts(const DistributedModel& dm, const std::vector<Index>& ghosts,
                        std::vector<double>& body_start) {
  GhostExchange(1, dm.part().owned_bodies, ghosts).update(body_start.data());
}

/// A square MatAIJ over a fixed COO pattern (global indices), solved by KSP preonly + LU with
/// MUMPS unless the options under prefix say otherwise, as the distributed statics'
/// saddle-point solver. MatAIJ is sequential on one rank: with -PREFIXpc_type redundant and a
/// sequential package (-PREFIXredundant_pc_factor_mat_solver_type klu) every rank count then
/// factors the same gathered sequential matrix, and the solves do not depend on the rank count
/// (distributed_dynamics.hpp). Collective.
class DistributedLu {
 public:
  DistributedLu(Index local_rows, std::vector<PetscInt> rows, std::vector<PetscInt> cols,
                const std::string& prefix)
      : A_(local_rows, local_rows, std::move(rows), std::move(cols), MATAIJ) {
    CATENA_PETSC(MatCreateVecs(A_.mat(), &x_, &b_));
    CATENA_PETSC(KSPCreate(PETSC_COMM_WORLD, &ksp_));
    // MUMPS' default workspace margin (20 %) runs out on the Newton matrix of a 1000-link
    // chain (docs/dynamics-ida.md); 400 %.
    setUpDirectLu(ksp_, A_.mat(), prefix, 400);
  }
  ~DistributedLu() {
    VecDestroy(&x_);
    VecDestroy(&b_);
    KSPDestroy(&ksp_);
  }
  DistributedLu(const DistributedLu&) = delete;
  DistributedLu& operator=(const DistributedLu&) = delete;

  Index entries() const { return A_.entries(); }

  /// Refills the matrix with values (one per COO entry, summed) and factors it.
  Status factor(const double* values) {
    A_.set(values);
    return worstStatus(factorDirectLu(ksp_, A_.mat()));
  }

  /// x = A^-1 b on the owned entries (they may alias).
  Status solve(const double* b, double* x) {
    PetscInt n = 0;
    CATENA_PETSC(VecGetLocalSize(b_, &n));
    PetscScalar* a = nullptr;
    CATENA_PETSC(VecGetArray(b_, &a));
    std::copy_n(b, n, a);
    CATENA_PETSC(VecRestoreArray(b_, &a));
    CATENA_PETSC(KSPSolve(ksp_, b_, x_));
    KSPConvergedReason reason;
    CATENA_PETSC(KSPGetConvergedReason(ksp_, &reason));
    const PetscScalar* s = nullptr;
    CATENA_PETSC(VecGetArrayRead(x_, &s));
    bool finite = true;
    for (PetscInt i = 0; i < n; ++i) finite = finite && std::isfinite(s[i]);
    std::copy_n(s, n, x);
    CATENA_PETSC(VecRestoreArrayRead(x_, &s));
    Status st;
    if (reason < 0) {
      std::ostringstream os;
      os << "the linear solve failed (" << KSPConvergedReasons[reason] << ")";
      st = Status::failure(Status::Code::kNotConverged, os.str());
    } else if (!finite) {
      st = Status::failure(Status::Code::kSingular,
                           "the linear solve returned non-finite values (singular matrix)");
    }
    return worstStatus(st);
  }

  std::string package() const { return directLuPackage(ksp_); }

 private:
  CooMatrix A_;
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
  DistributedDae(const DistributedAssembly& as, const std::string& prefix)
      : dm_(as.distributedModel()),
        part_(dm_.part()),
        halo_(!part_.halo.empty()),
        m_(halo_ ? part_.halo.model : dm_.local()),
        halo_plan_(halo_ ? std::optional<AssemblyPlan>(buildAssemblyPlan(m_)) : std::nullopt),
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

    // 1. Numbering: body by body, q, v, nu, then lambda and mu of the joints held as body 1.
    std::vector<std::vector<Index>> held(owned_bodies_);
    for (Index j : owned_joints_) held[m_.markerBody(m_.joints[j].marker1)].push_back(j);
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
    //    MatSetValuesCOO adds to the owners' rows).
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
    lu_.emplace(local_size_, std::move(rows), std::move(cols), prefix);

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

  /// J S (the column scaling of the serial ScaledPetsc, GGL: lambda by c_j m, mu and nu by c_j,
  /// m the largest diagonal entry of M over all ranks) into the MatAIJ. Returns as
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

/// v' (owned velocities) and lambda (owned rows) at a consistent local state s, from
/// [M, a C_q^T; a C_q, 0] [v'; lambda / a] = [f; a gamma] with a = max |M| / max |C_q| (the
/// serial KktSolves' scaling), in the saddle-point numbering of the distributed statics (body
/// by body: the velocities, then the rows of the joints held). Collective.
Status initialAccelerations(const DistributedAssembly& as, const State& s,
                            const std::string& prefix, VecX& vdot, VecX& lambda) {
  const DistributedModel& dm = as.distributedModel();
  const Model& m = dm.local();
  const AssemblyPlan& plan = as.plan();
  const Index owned = dm.part().owned_bodies, bodies = static_cast<Index>(m.bodies.size());
  const int nvb = m.nv_body;
  std::vector<std::vector<Index>> held(owned);
  for (Index j = 0; j < static_cast<Index>(m.joints.size()); ++j)
    held[m.markerBody(m.joints[j].marker1)].push_back(j);
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
  DistributedLu lu(local_size, std::move(rows), std::move(cols), prefix);
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

/// The first step of the serial integrateIda (ida_dynamics.cpp, initialStep): the BDF1 error
/// of the positions, h^2/2 |q''|, at a tenth of the tolerance, with the sum over the bodies
/// reduced over the ranks (reproducibly: the same bits on any rank count); at most 1e-3 of the
/// span and max_step.
double initialStep(const DistributedModel& dm, const State& s, const VecX& vdot,
                   const IdaOptions& o, double span) {
  const Model& m = dm.local();
  std::vector<double> squares;
  auto add = [&](double value, double x) {
    const double e = x / (o.rtol * std::abs(value) + o.atol);
    squares.push_back(e * e);
  };
  for (Index b = 0; b < dm.part().owned_bodies; ++b) {
    const Index qo = m.qOffset(b), vo = m.vOffset(b);
    for (int k = 0; k < 3; ++k) add(s.q(qo + k), vdot(vo + k));
    if (m.dimension != 3) continue;
    const Quat rho(s.q(qo + 3), s.q(qo + 4), s.q(qo + 5), s.q(qo + 6));
    const Vec3 w = s.v.segment<3>(vo + 3), wd = vdot.segment<3>(vo + 3);
    const Quat half = rho * Quat(0.0, 0.5 * wd.x(), 0.5 * wd.y(), 0.5 * wd.z());
    const double c = -0.25 * w.squaredNorm();
    add(rho.w(), half.w() + c * rho.w());
    add(rho.x(), half.x() + c * rho.x());
    add(rho.y(), half.y() + c * rho.y());
    add(rho.z(), half.z() + c * rho.z());
  }
  const double sum =
      reproducibleSum(PETSC_COMM_WORLD, squares.data(), static_cast<Index>(squares.size()));
  const double norm = std::sqrt(sum / std::max<double>(dm.globalNq(), 1.0));
  double h = 1e-3 * span;
  if (norm > 0.0) h = std::min(h, std::sqrt(0.2 / norm));
  if (o.max_step > 0.0) h = std::min(h, o.max_step);
  return h;
}

/// What the C callbacks see (IDA's user data, the linear solver's content).
struct CallbackData {
  DistributedDae* dae = nullptr;
  DistributedDynamicsTimings* timings = nullptr;
  sundials::ErrorLog log;  ///< log.linear_solver: the last failure of the Newton solves
  int last_flag = SUNLS_SUCCESS;
  sundials::ErrorWeights weights;  ///< mu's scaled by h, as in the serial GGL (owned entries)
};

// Callbacks catch everything (STYLE.md rule 6) and return the same on every rank: 0 ok,
// 1 recoverable (IDA cuts the step), -1 fatal. The DAE's own failures are agreed on by the
// ranks; an exception out of the ghost exchanges (a PETSc error) is fatal on its rank alone.
int residualCallback(realtype t, N_Vector y, N_Vector yp, N_Vector r, void* user) {
  auto* data = static_cast<CallbackData*>(user);
  PhaseTimer timer(data->timings->assembly);
  return sundials::guarded(data->log.callback, "the residual", [&] {
    return data->dae->residual(t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp),
                               N_VGetArrayPointer(r), data->log.callback);
  });
}

int jacobianCallback(realtype t, realtype cj, N_Vector y, N_Vector yp, N_Vector, SUNMatrix,
                     void* user, N_Vector, N_Vector, N_Vector) {
  auto* data = static_cast<CallbackData*>(user);
  PhaseTimer timer(data->timings->assembly);
  return sundials::guarded(data->log.callback, "the Newton matrix", [&] {
    return data->dae->newtonMatrix(t, N_VGetArrayPointer(y), N_VGetArrayPointer(yp), cj,
                                   data->log.callback);
  });
}

// The Newton matrix lives in DistributedDae's MatAIJ; IDA gets a placeholder SUNMatrix so
// that it treats the solver as a direct, matrix-based one (jacobianCallback, then setup).
SUNMatrix_ID placeholderId(SUNMatrix) {
  return SUNMATRIX_CUSTOM;
}
int placeholderZero(SUNMatrix) {
  return 0;
}
void placeholderDestroy(SUNMatrix A) {
  SUNMatFreeEmpty(A);
}

SUNMatrix makePlaceholderMatrix(SUNContext ctx) {
  SUNMatrix A = SUNMatNewEmpty(ctx);
  if (!A) return nullptr;
  A->ops->getid = placeholderId;
  A->ops->zero = placeholderZero;
  A->ops->destroy = placeholderDestroy;
  return A;
}

/// The custom SUNLinearSolver: setup factors the Newton matrix that jacobianCallback filled,
/// solve returns x = S z. A singular matrix or a failed solve is recoverable (IDA retries with
/// a new matrix or a smaller step); exhausted memory or an exception is not.
CallbackData* solverData(SUNLinearSolver S) {
  return static_cast<CallbackData*>(S->content);
}
SUNLinearSolver_Type solverType(SUNLinearSolver) {
  return SUNLINEARSOLVER_DIRECT;
}
SUNLinearSolver_ID solverId(SUNLinearSolver) {
  return SUNLINEARSOLVER_CUSTOM;
}
int solverInitialize(SUNLinearSolver S) {
  solverData(S)->last_flag = SUNLS_SUCCESS;
  return SUNLS_SUCCESS;
}
int solverSetup(SUNLinearSolver S, SUNMatrix) {
  CallbackData* c = solverData(S);
  PhaseTimer timer(c->timings->factorization);
  Status& failure = c->log.linear_solver;
  return c->last_flag = sundials::guarded(
             failure, "the factorization",
             [&] { return sundials::linearSolverFlag(failure = c->dae->factor()); },
             SUNLS_PACKAGE_FAIL_UNREC);
}
int solverSolve(SUNLinearSolver S, SUNMatrix, N_Vector x, N_Vector b, realtype) {
  CallbackData* c = solverData(S);
  PhaseTimer timer(c->timings->solve);
  Status& failure = c->log.linear_solver;
  return c->last_flag = sundials::guarded(
             failure, "the solve",
             [&] {
               return sundials::linearSolverFlag(
                   failure = c->dae->solve(N_VGetArrayPointer(b), N_VGetArrayPointer(x)));
             },
             SUNLS_PACKAGE_FAIL_UNREC);
}
sunindextype solverLastFlag(SUNLinearSolver S) {
  return solverData(S)->last_flag;
}
int solverFree(SUNLinearSolver S) {
  if (!S) return SUNLS_SUCCESS;
  S->content = nullptr;  // CallbackData belongs to the run
  SUNLinSolFreeEmpty(S);
  return SUNLS_SUCCESS;
}

SUNLinearSolver makeSolver(CallbackData* data, SUNContext ctx) {
  SUNLinearSolver S = SUNLinSolNewEmpty(ctx);
  if (!S) return nullptr;
  S->content = data;
  S->ops->gettype = solverType;
  S->ops->getid = solverId;
  S->ops->initialize = solverInitialize;
  S->ops->setup = solverSetup;
  S->ops->solve = solverSolve;
  S->ops->lastflag = solverLastFlag;
  S->ops->free = solverFree;
  return S;
}

}  // namespace

DistributedDynamicsResult integrateDistributedIda(const DistributedAssembly& as,
                                                  const State& initial, const IdaOptions& o,
                                                  const TrajectoryObserver& observer) {
  const DistributedModel& dm = as.distributedModel();
  const Model& model = dm.local();
  CATENA_CHECK(o.formulation == IdaFormulation::kIndex2,
               "distributed IDA: only the index-2 GGL formulation is distributed, got "
                   << idaFormulationName(o.formulation));
  CATENA_CHECK(o.t_end > initial.t, "distributed IDA: t_end must be after the initial time "
                                        << initial.t << " s, got " << o.t_end);
  CATENA_CHECK(o.rtol > 0.0 && o.atol > 0.0 && o.multiplier_atol > 0.0,
               "distributed IDA: rtol, atol and multiplier_atol must be positive, got "
                   << o.rtol << ", " << o.atol << ", " << o.multiplier_atol);
  CATENA_CHECK(
      o.output_interval >= 0.0 && o.max_step >= 0.0 && o.min_step >= 0.0 && o.initial_step >= 0.0,
      "distributed IDA: output_interval, max_step, min_step and initial_step must not "
      "be negative");
  CATENA_CHECK(o.max_steps > 0, "distributed IDA: max_steps must be positive, got " << o.max_steps);
  CATENA_CHECK(o.max_order >= 1 && o.max_order <= 5,
               "distributed IDA: max_order must be 1..5, got " << o.max_order);
  CATENA_CHECK(initial.q.size() == model.nq && initial.v.size() == model.nv,
               "distributed IDA: the initial state has "
                   << initial.q.size() << " positions and " << initial.v.size()
                   << " velocities, the local model " << model.nq << " and " << model.nv);

  DistributedDynamicsResult out;
  DistributedDynamicsTimings& time = out.timings;
  out.method = "IDA " + idaFormulationName(o.formulation) + " (distributed)";
  State s = initial;
  s.lambda = VecX::Zero(model.nc);
  auto fail = [&](Status::Code code, const std::string& message, const State& at) {
    out.status = Status::failure(code, message);
    out.state = at;
    return out;
  };

  // 1. The start: consistent positions and velocities (checked), then v' and lambda.
  VecX vdot;
  {
    PhaseTimer timer(time.initial);
    const auto [pos, vel] = distributedConstraintDrift(as, s);
    double size = 0.0;  // of the positions (2D: x, y; not the angle)
    for (Index b = 0; b < dm.part().owned_bodies; ++b)
      size = std::max(size, s.q.segment(model.qOffset(b), model.dimension).norm());
    const double pos_tol = 1e-10 * (1.0 + dm.max(size));
    const double vel_tol = 1e-8 * std::max(1.0, dm.maxAbs(s.v));
    if (o.assemble_initial_state && (pos > pos_tol || vel > vel_tol)) {
      std::ostringstream os;
      os << "distributed IDA: the initial state is not consistent (|C| = " << pos
         << ", |C_q v + C_t| = " << vel << "; tolerances " << pos_tol << ", " << vel_tol
         << "): start from an assembled configuration, such as the static equilibrium";
      return fail(Status::Code::kInvalidInput, os.str(), s);
    }
    const Status st = initialAccelerations(as, s, o.petsc_prefix, vdot, s.lambda);
    if (!st.ok())
      return fail(st.code,
                  "distributed IDA: the initial accelerations and multipliers could not be "
                  "computed (" +
                      st.message + ")",
                  s);
  }

  // 2. The distributed DAE and IDA.
  std::optional<DistributedDae> dae_storage;
  CallbackData data;
  sundials::IdaObjects sun{sundials::Context(PETSC_COMM_WORLD)};
  {
    PhaseTimer timer(time.setup);
    dae_storage.emplace(as, o.petsc_prefix);
  }
  DistributedDae& dae = *dae_storage;
  data.dae = &dae;
  data.timings = &time;
  out.linear_solver = dae.package();
  out.method = "IDA " + idaFormulationName(o.formulation) + " (distributed, PETSc " +
               out.linear_solver + ")";
  out.unknowns = dae.globalSize();
  const Index n = dae.localSize(), N = dae.globalSize();
  {
    PhaseTimer timer(time.setup);
    // IDA's decisions the same on any rank count (its work vectors are clones of y).
    for (sundials::Vector* v : {&sun.y, &sun.yp, &sun.id, &sun.work})
      *v = sundials::reproducibleVector(PETSC_COMM_WORLD, n, N, sun.ctx);
    if (!sun.y || !sun.yp || !sun.id || !sun.work)
      return fail(Status::Code::kResources, "distributed IDA: out of memory for the vectors", s);
    dae.pack(s, vdot, N_VGetArrayPointer(sun.y.get()), N_VGetArrayPointer(sun.yp.get()));
    const DaeLayout& L = dae.layout();
    dae.ownedEntries(dae.errorTestIds(), N_VGetArrayPointer(sun.id.get()));
    VecX atol = VecX::Constant(L.size, o.multiplier_atol);
    atol.segment(L.q, L.nq).setConstant(o.atol);
    atol.segment(L.v, L.nv).setConstant(o.atol);
    // GGL's mu weighed by h in Newton's test, as in the serial integrateIda (ida_dynamics.cpp):
    // with fixed weights the serial run failed at t = 0 from 15000 links.
    VecX step_power = VecX::Zero(L.size);
    step_power.segment(L.mu, L.nmu).setConstant(1.0);
    sundials::ErrorWeights& e = data.weights;
    e.rtol = o.rtol;
    e.atol = VecX(n);
    dae.ownedEntries(atol, e.atol.data());
    VecX owned_power(n);
    dae.ownedEntries(step_power, owned_power.data());
    e.step_power = owned_power.cast<int>();
    sun.J.reset(makePlaceholderMatrix(sun.ctx.get()));
    sun.ls.reset(makeSolver(&data, sun.ctx.get()));
    if (!sun.J || !sun.ls)
      return fail(Status::Code::kResources, "distributed IDA: out of memory", s);
    const double span = o.t_end - s.t;
    e.h_start = o.initial_step > 0.0 ? o.initial_step : initialStep(dm, s, vdot, o, span);
    sundials::SetupGuard g = sundials::startIda(sun, data, residualCallback, jacobianCallback, s.t,
                                                o.max_order, o.max_steps);
    sundials::limitSteps(g, sun.mem.get(), s.t, o.t_end, o.max_step, o.min_step, e.h_start);
    if (!g.ok()) {
      const Status st = g.status("distributed IDA", sundials::idaFlagName, data.log);
      return fail(st.code, st.message, s);
    }
  }
  void* mem = sun.mem.get();
  int flag = IDA_SUCCESS;

  // 3. Steps (IDA_ONE_STEP, as the serial integrateIda); outputs between steps are IDA's
  //    interpolation (IDAGetDky). Every rank takes the same path: IDA's decisions rest on
  //    reduced norms and on callback outcomes that are reduced too.
  const double loop_start = MPI_Wtime();
  State current = s;
  DynamicsStats& stats = out.stats;
  stats.smallest_step = std::numeric_limits<double>::infinity();
  auto finish = [&](bool ok_status) {
    sundials::IdaCounters c;
    c.add(mem);
    c.fill(stats);
    if (stats.steps == 0) stats.smallest_step = 0.0;
    time.integration = MPI_Wtime() - loop_start;
    if (ok_status) {
      out.status = Status::success();
      out.state = current;
    }
    return out;
  };
  if (observer && !observer(s)) return finish(true);
  const double t0 = s.t, dt = o.output_interval;
  long next_index = 1;
  auto nextOutput = [&]() {
    const double t = t0 + static_cast<double>(next_index) * dt;
    return t >= o.t_end - 1e-12 * std::max(1.0, std::abs(o.t_end)) ? o.t_end : t;
  };
  double t = t0;
  while (t < o.t_end) {
    if (stats.steps >= o.max_steps) {
      finish(false);
      std::ostringstream os;
      os.precision(10);
      os << "distributed IDA stopped at t = " << t << " s after max_steps = " << o.max_steps
         << " accepted steps (t_end = " << o.t_end << " s): raise max_steps, or loosen rtol/atol";
      dae.unpack(t, N_VGetArrayPointer(sun.y.get()), current);
      return fail(Status::Code::kNotConverged, os.str(), current);
    }
    realtype tret = t;
    flag = IDASolve(mem, o.t_end, &tret, sun.y.get(), sun.yp.get(), IDA_ONE_STEP);
    if (flag < 0) {
      finish(false);
      realtype tcur = t;
      IDAGetCurrentTime(mem, &tcur);
      return fail(flag == IDA_MEM_FAIL || data.log.linear_solver.code == Status::Code::kResources
                      ? Status::Code::kResources
                      : Status::Code::kNotConverged,
                  data.log.failure("distributed IDA " + idaFormulationName(o.formulation), tcur,
                                   o.t_end, sundials::idaFlagName(flag)),
                  current);
    }
    ++stats.steps;
    realtype h = 0.0;
    IDAGetLastStep(mem, &h);
    stats.last_step = h;
    stats.smallest_step = std::min(stats.smallest_step, static_cast<double>(h));
    stats.largest_step = std::max(stats.largest_step, static_cast<double>(h));
    if (dt > 0.0 && observer) {
      for (double tout = nextOutput(); tout < tret; tout = nextOutput()) {
        State so;
        IDAGetDky(mem, tout, 0, sun.work.get());
        dae.unpack(tout, N_VGetArrayPointer(sun.work.get()), so);
        ++next_index;
        if (!observer(so)) {
          current = so;  // the run ends where the observer stopped it
          return finish(true);
        }
      }
    }
    t = tret;
    const bool output = observer && (dt == 0.0 || nextOutput() == tret);
    if (output || t >= o.t_end) dae.unpack(tret, N_VGetArrayPointer(sun.y.get()), current);
    if (dt > 0.0 && nextOutput() == tret) ++next_index;
    if (output && !observer(current)) return finish(true);
  }
  return finish(true);
}

Energy distributedEnergy(const DistributedAssembly& as, const State& s) {
  // Each owned body's kinetic and gravity terms, summed exactly over the ranks: the same bits on
  // any rank count. M is block-diagonal, so an owned body's rows of M v hold its own v only.
  const DistributedModel& dm = as.distributedModel();
  const Model& m = dm.local();
  CATENA_CHECK(m.springs.empty() && m.rotational_springs.empty(),
               "distributedEnergy: distributed models have no springs");
  SparseMatrixCSR M = makeBodyMatrix(as.plan());
  assembleMass(m, as.plan(), s.q, M);
  const VecX Mv = M * s.v;
  const Index owned = dm.part().owned_bodies;
  Energy e;
  e.kinetic = reproducibleSum(PETSC_COMM_WORLD, owned, [&](Index b) {
    const Index vo = m.vOffset(b);
    return 0.5 * s.v.segment(vo, m.nv_body).dot(Mv.segment(vo, m.nv_body));
  });
  e.gravity = reproducibleSum(PETSC_COMM_WORLD, owned, [&](Index b) {
    return -m.bodies[b].mass * m.gravity.dot(centreOfMass(m, s.q, b));
  });
  return e;
}

ConstraintDrift distributedConstraintDrift(const DistributedAssembly& as, const State& s) {
  const DistributedModel& dm = as.distributedModel();
  const Model& m = dm.local();
  SparseMatrixCSR Cq = makeConstraintMatrix(as.plan());
  VecX C(m.nc), Ct(m.nc);
  assembleConstraints(m, as.plan(), s.q, s.t, &C, &Cq);
  assembleConstraintTimeDerivative(m, as.plan(), s.q, s.t, Ct);
  return {dm.maxAbs(C), dm.maxAbs(VecX(Cq * s.v + Ct))};
}

}  // namespace catena
