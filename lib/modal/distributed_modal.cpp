#include "modal/distributed_modal.hpp"

#include <mpi.h>
#include <slepceps.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <sstream>

#include "solvers/direct_lu.hpp"
#include "parallel/petsc_coo_matrix.hpp"
#include "solvers/saddle_point_matrix.hpp"
#include "solvers/factorization.hpp"

namespace catena {
namespace {

/// The pencil (A, B) = ([K_t, a C_q^T; a C_q, 0], [M, 0; 0, 0]) as two MatMPIAIJ with fixed
/// COO slots: A from the local tangent (ghost rows included: the K_c that owned joints write
/// there), C_q and its transpose; B from the bodies' diagonal blocks of the owned rows of M.
class ModalPencil {
 public:
  ModalPencil(const DistributedModel& dm, const SparseMatrixCSR& Kt, const SparseMatrixCSR& Cq,
              const SparseMatrixCSR& M)
      : n_(saddleNumbering(dm)), A_(n_, Kt, Cq) {
    // B: M lives in the bodies' diagonal blocks; the body pattern's coupling blocks stay out.
    const int nvb = dm.local().nv_body;
    std::vector<PetscInt> bi, bj;
    for (Index r = 0; r < dm.ownedVelocities(); ++r)
      for (int k = M.outerIndexPtr()[r]; k < M.outerIndexPtr()[r + 1]; ++k)
        if (M.innerIndexPtr()[k] / nvb == r / nvb) {
          mass_slots_.push_back(k);
          bi.push_back(n_.kv[r]);
          bj.push_back(n_.kv[M.innerIndexPtr()[k]]);
        }
    b_values_.resize(bi.size());
    B_ = std::make_unique<CooMatrix>(n_.local_size, n_.local_size, std::move(bi), std::move(bj));
  }

  /// Refills A and B with a the constraint scale. Collective.
  void set(const SparseMatrixCSR& Kt, const SparseMatrixCSR& Cq, const SparseMatrixCSR& M,
           double a) {
    A_.set(Kt, Cq, a);
    for (std::size_t k = 0; k < mass_slots_.size(); ++k)
      b_values_[k] = M.valuePtr()[mass_slots_[k]];
    B_->set(b_values_.data());
  }

  Mat A() const { return A_.mat(); }
  Mat B() const { return B_->mat(); }
  const SaddleNumbering& numbering() const { return n_; }

 private:
  SaddleNumbering n_;
  SaddlePointMatrix A_;
  std::unique_ptr<CooMatrix> B_;
  std::vector<double> b_values_;
  std::vector<int> mass_slots_;
};

struct EpsObjects {
  EPS eps = nullptr;
  Vec xr = nullptr, xi = nullptr, v0 = nullptr, y = nullptr, w = nullptr, z = nullptr;
  std::string option;  ///< a MUMPS option set for this solve only, cleared at the end
  ~EpsObjects() {
    for (Vec* v : {&z, &w, &y, &v0, &xi, &xr}) VecDestroy(v);
    EPSDestroy(&eps);
    if (!option.empty()) PetscOptionsClearValue(nullptr, option.c_str());
  }
};

double maxAbs(const double* v, long n) {
  double a = 0.0;
  for (long k = 0; k < n; ++k) a = std::max(a, std::abs(v[k]));
  return a;
}

/// Check values and the normalized shape of one mode from the local arrays of x, A x, B x and
/// A (phi, 0) (saddle-point numbering).
void checkValues(const DistributedModel& dm, const SparseMatrixCSR& M, const SaddleNumbering& n,
                 const double* x, const double* ax, const double* bx, const double* az, double mu,
                 DistributedMode& mode) {
  const Model& m = dm.local();
  const int nvb = m.nv_body, nt = m.dimension;
  const Index nv = dm.ownedVelocities();
  VecX phi(nv);
  for (Index k = 0; k < nv; ++k) phi(k) = x[n.kv[k] - n.first];
  // Sums over the ranks, one reduction: energy by coordinate, M phi summed by direction, the
  // squared norms of the residual's force and constraint rows, of K_t phi and of M phi.
  std::vector<double> sums(nvb + 3 + 4, 0.0);
  double* energy = sums.data();
  double* momentum = energy + nvb;
  double* norms = momentum + 3;
  for (Index r = 0; r < nv; ++r) {
    double p = 0.0;  // (M phi)_r: M is block diagonal, its columns are owned
    for (int k = M.outerIndexPtr()[r]; k < M.outerIndexPtr()[r + 1]; ++k)
      if (M.innerIndexPtr()[k] < nv) p += M.valuePtr()[k] * phi(M.innerIndexPtr()[k]);
    const int c = static_cast<int>(r % nvb);
    energy[c] += phi(r) * p;
    if (c < nt) momentum[c] += p;
    const Index at = n.kv[r] - n.first;
    const double res = ax[at] - mu * bx[at];
    norms[0] += res * res;
    norms[2] += az[at] * az[at];
    norms[3] += bx[at] * bx[at];
  }
  for (Index r = 0; r < m.nc; ++r) {
    const double res = ax[n.kr[r] - n.first];  // the (2,2) block and B's rows are zero
    norms[1] += res * res;
  }
  std::vector<double> total(sums.size());
  MPI_Allreduce(sums.data(), total.data(), static_cast<int>(sums.size()), MPI_DOUBLE, MPI_SUM,
                PETSC_COMM_WORLD);
  const double* e = total.data();
  const double* g = e + nvb;
  const double* nn = g + 3;
  const double kinetic = std::accumulate(e, e + nvb, 0.0);
  const double scale = std::sqrt(nn[2]) + std::abs(mu) * std::sqrt(nn[3]);
  mode.residual = scale > 0.0 ? std::sqrt(nn[0]) / scale : INFINITY;
  mode.constraint_residual = scale > 0.0 ? std::sqrt(nn[1]) / scale : INFINITY;
  if (kinetic > 0.0) {
    for (int c = 0; c < nvb; ++c) mode.energy_fractions(c < nt ? c : 3) += e[c] / kinetic;
    for (int d = 0; d < nt; ++d) mode.effective_mass(d) = g[d] * g[d] / kinetic;
  }
  // Mass-normalized; the largest entry (lowest global index on ties) positive.
  struct {
    double value;
    int index;
  } local{0.0, 0}, largest{0.0, 0};
  for (Index k = 0; k < nv; ++k)
    if (std::abs(phi(k)) > local.value) {
      local.value = std::abs(phi(k));
      local.index = static_cast<int>(dm.firstVelocity() + k);
    }
  if (local.value == 0.0) local.index = static_cast<int>(dm.globalNv());
  MPI_Allreduce(&local, &largest, 1, MPI_DOUBLE_INT, MPI_MAXLOC, PETSC_COMM_WORLD);
  const Index at = largest.index - dm.firstVelocity();
  const double pivot = dm.sum(at >= 0 && at < nv ? phi(at) : 0.0);
  const double norm = kinetic > 0.0 ? std::sqrt(kinetic) : 1.0;
  mode.shape = (pivot < 0.0 ? -1.0 : 1.0) / norm * phi;
}

}  // namespace

DistributedModalResult solveDistributedModal(DistributedAssembly& as, const VecX& q,
                                             const VecX& lambda, const ModalOptions& o) {
  CATENA_CHECK(!o.damped, "the distributed modal analysis is undamped (ModalOptions::damped)");
  CATENA_CHECK(o.modes >= 1, "ModalOptions::modes: expected >= 1, got " << o.modes);
  const DistributedModel& dm = as.distributedModel();
  const Model& m = dm.local();
  DistributedModalResult out;
  const double two_pi = 2.0 * std::numbers::pi;

  // 1. K_t = K + K_c, C_q and M at the equilibrium; the constraint scale of solveModal.
  double t0 = MPI_Wtime();
  as.assembleConstraints(q, 0.0);
  as.assembleTangent(q, 0.0, lambda, o.constraint_stiffness);
  as.assembleMass(q);
  const SparseMatrixCSR &Kt = as.localTangent(), &Cq = as.localCq(), &M = as.localMass();
  const SparseMatrixCSR& D = as.localDamping();
  const int owned_d = D.outerIndexPtr()[dm.ownedVelocities()];
  if (dm.max(maxAbs(D.valuePtr(), owned_d)) > 0.0) {
    out.status = Status::failure(Status::Code::kInvalidInput,
                                 "the distributed modal analysis is undamped, and the model's "
                                 "forces have a velocity Jacobian D");
    return out;
  }
  const double sigma = std::pow(two_pi * o.target_hz, 2);
  const double kscale =
      std::max({as.maxAbsTangent(), sigma * dm.max(maxAbs(M.valuePtr(), M.nonZeros())), 1e-300});
  const double cmax = dm.max(maxAbs(Cq.valuePtr(), Cq.nonZeros()));
  out.constraint_scale = cmax > 0.0 ? kscale / cmax : 1.0;
  out.assembly_seconds = MPI_Wtime() - t0;

  // 2. The pencil: numbering and COO patterns, then the values.
  t0 = MPI_Wtime();
  ModalPencil pencil(dm, Kt, Cq, M);
  out.setup_seconds = MPI_Wtime() - t0;
  t0 = MPI_Wtime();
  pencil.set(Kt, Cq, M, out.constraint_scale);
  out.assembly_seconds += MPI_Wtime() - t0;

  // 3. Krylov-Schur, shift-and-invert with MUMPS, as solvers/eigen_solver.cpp on one rank.
  t0 = MPI_Wtime();
  // MUMPS delays many pivots on these matrices (distributed_statics.cpp): a 100 % workspace
  // margin unless set, doubled while the factorization runs short (solvers/direct_lu.hpp).
  // ICNTL(14) is read when the factorization is set up inside EPSSetUp, hence an option under
  // the ST's prefix rather than MatMumpsSetIcntl, and a new eigensolver for every try.
  const SaddleNumbering& n = pencil.numbering();
  std::unique_ptr<EpsObjects> p;
  ST st;
  KSP ksp;
  PC pc;
  PetscErrorCode ierr = 0;
  for (int margin = 100;; margin *= 2) {
    p = std::make_unique<EpsObjects>();
    CATENA_PETSC(EPSCreate(PETSC_COMM_WORLD, &p->eps));
    if (!o.petsc_prefix.empty()) CATENA_PETSC(EPSSetOptionsPrefix(p->eps, o.petsc_prefix.c_str()));
    CATENA_PETSC(EPSSetOperators(p->eps, pencil.A(), pencil.B()));
    CATENA_PETSC(EPSSetProblemType(p->eps, EPS_GNHEP));  // K_c makes the pencil non-symmetric
    CATENA_PETSC(EPSSetType(p->eps, EPSKRYLOVSCHUR));
    CATENA_PETSC(EPSSetDimensions(p->eps, o.modes, PETSC_DEFAULT, PETSC_DEFAULT));
    CATENA_PETSC(EPSSetTolerances(p->eps, o.tolerance, 1000));
    CATENA_PETSC(EPSSetTarget(p->eps, sigma));
    CATENA_PETSC(EPSSetWhichEigenpairs(p->eps, EPS_TARGET_MAGNITUDE));
    CATENA_PETSC(EPSGetST(p->eps, &st));
    CATENA_PETSC(STSetType(st, STSINVERT));
    CATENA_PETSC(STGetKSP(st, &ksp));
    selectMumpsLu(ksp);
    CATENA_PETSC(KSPGetPC(ksp, &pc));
    // A fixed start vector of the global index: the same on any rank count.
    CATENA_PETSC(MatCreateVecs(pencil.A(), &p->xr, &p->xi));
    for (Vec* v : {&p->v0, &p->y, &p->w, &p->z}) CATENA_PETSC(VecDuplicate(p->xr, v));
    {
      PetscScalar* v;
      CATENA_PETSC(VecGetArray(p->v0, &v));
      for (Index i = 0; i < n.local_size; ++i)
        v[i] = 1.0 + 0.5 * std::sin(0.7 * static_cast<double>(n.first + i) + 0.3);
      CATENA_PETSC(VecRestoreArray(p->v0, &v));
    }
    CATENA_PETSC(EPSSetInitialSpace(p->eps, 1, &p->v0));
    CATENA_PETSC(EPSSetFromOptions(p->eps));
    const std::string name = mumpsWorkspaceOption(pc);
    PetscBool set = PETSC_FALSE;
    CATENA_PETSC(PetscOptionsHasName(nullptr, nullptr, name.c_str(), &set));
    if (!set) {
      CATENA_PETSC(PetscOptionsSetValue(nullptr, name.c_str(), std::to_string(margin).c_str()));
      p->option = name;
    }
    PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);  // a singular pencil is a status
    ierr = EPSSetUp(p->eps);
    PetscPopErrorHandler();
    if (!ierr || p->option.empty() || margin >= 6400 || !mumpsWorkspaceShort(pc)) break;
  }
  out.factor_seconds = MPI_Wtime() - t0;
  t0 = MPI_Wtime();
  if (!ierr) {
    PetscPushErrorHandler(PetscReturnErrorHandler, nullptr);
    ierr = EPSSolve(p->eps);
    PetscPopErrorHandler();
  }
  PetscInt N = 0;
  CATENA_PETSC(MatGetSize(pencil.A(), &N, nullptr));
  if (ierr) {
    const Status factor = factorizationStatus(pc, N, ierr);
    std::ostringstream os;
    os << "distributed modal analysis: the eigensolver failed (PETSc error " << ierr
       << ") at the shift sigma = " << sigma << ": ";
    if (!factor.ok())
      os << factor.message;
    else
      os << "the shifted pencil A - sigma B is probably singular";
    out.status = Status::failure(factor.ok() ? Status::Code::kSingular : factor.code, os.str());
    out.solve_seconds = MPI_Wtime() - t0;
    return out;
  }
  PetscInt nconv = 0, its = 0, solves = 0;
  CATENA_PETSC(EPSGetConverged(p->eps, &nconv));
  CATENA_PETSC(EPSGetIterationNumber(p->eps, &its));
  CATENA_PETSC(KSPGetTotalIterations(ksp, &solves));  // preonly: one per application
  out.iterations = static_cast<int>(its);
  out.solves = static_cast<int>(solves);
  {
    EPSType type;
    STType sttype;
    MatSolverType package = nullptr;
    CATENA_PETSC(EPSGetType(p->eps, &type));
    CATENA_PETSC(STGetType(st, &sttype));
    PCFactorGetMatSolverType(pc, &package);
    out.method = std::string(type) + " + " + sttype + " (" + (package ? package : "petsc") + ")";
  }

  // 4. The pairs nearest the shift (ties, conjugate pairs: larger imaginary part first, as
  //    solvers/eigen_solver.cpp sorts), their check values and normalized shapes.
  std::vector<std::complex<double>> values(nconv);
  for (PetscInt i = 0; i < nconv; ++i) {
    PetscScalar kr, ki;
    CATENA_PETSC(EPSGetEigenvalue(p->eps, i, &kr, &ki));
    values[i] = {kr, ki};
  }
  std::vector<PetscInt> order(nconv);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](PetscInt a, PetscInt b) {
    const double da = std::abs(values[a] - sigma), db = std::abs(values[b] - sigma);
    if (std::abs(da - db) > 1e-12 * std::max(da, db)) return da < db;
    return values[a].imag() > values[b].imag();
  });
  for (PetscInt i : order) {
    if (values[i].imag() < 0.0) continue;  // one of each conjugate pair
    DistributedMode mode;
    PetscScalar kr, ki;
    CATENA_PETSC(EPSGetEigenpair(p->eps, i, &kr, &ki, p->xr, p->xi));
    mode.mu = {kr, ki};
    std::complex<double> s = std::sqrt(-mode.mu);
    if (s.imag() < 0.0 || (s.imag() == 0.0 && s.real() < 0.0)) s = -s;
    mode.s = s;
    mode.frequency_hz = std::abs(s.imag()) / two_pi;
    PetscReal err = 0.0;
    CATENA_PETSC(EPSComputeError(p->eps, i, EPS_ERROR_RELATIVE, &err));
    mode.slepc_error = err;
    // A x, B x, and A (phi, 0) for K_t phi; checked on the real part of a complex pair.
    CATENA_PETSC(MatMult(pencil.A(), p->xr, p->y));
    CATENA_PETSC(MatMult(pencil.B(), p->xr, p->w));
    CATENA_PETSC(VecCopy(p->xr, p->z));
    {
      PetscScalar* z;
      CATENA_PETSC(VecGetArray(p->z, &z));
      for (Index r = 0; r < m.nc; ++r) z[n.kr[r] - n.first] = 0.0;
      CATENA_PETSC(VecRestoreArray(p->z, &z));
    }
    CATENA_PETSC(MatMult(pencil.A(), p->z, p->v0));
    const PetscScalar *x, *ax, *bx, *az;
    CATENA_PETSC(VecGetArrayRead(p->xr, &x));
    CATENA_PETSC(VecGetArrayRead(p->y, &ax));
    CATENA_PETSC(VecGetArrayRead(p->w, &bx));
    CATENA_PETSC(VecGetArrayRead(p->v0, &az));
    checkValues(dm, M, n, x, ax, bx, az, kr, mode);
    CATENA_PETSC(VecRestoreArrayRead(p->v0, &az));
    CATENA_PETSC(VecRestoreArrayRead(p->w, &bx));
    CATENA_PETSC(VecRestoreArrayRead(p->y, &ax));
    CATENA_PETSC(VecRestoreArrayRead(p->xr, &x));
    out.modes.push_back(std::move(mode));
    if (static_cast<int>(out.modes.size()) == o.modes) break;
  }
  out.solve_seconds = MPI_Wtime() - t0;
  if (static_cast<int>(out.modes.size()) < o.modes) {
    std::ostringstream os;
    os << "distributed modal analysis: the eigensolver converged " << out.modes.size() << " of the "
       << o.modes << " requested modes in " << its << " iterations";
    out.status = Status::failure(Status::Code::kNotConverged, os.str());
  }
  return out;
}

}  // namespace catena
