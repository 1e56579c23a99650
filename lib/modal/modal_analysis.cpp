// The one modal analysis (modal.hpp, modal_system.hpp): pencil, shift-and-invert, rejection of
// eigenpairs that are not modes, classification and check values, over one communicator.
#include <slepceps.h>

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>
#include <numeric>
#include <sstream>

#include "mobility/constraint_rank.hpp"
#include "modal/modal_system.hpp"
#include "parallel/petsc_coo_matrix.hpp"
#include "solvers/direct_lu.hpp"
#include "solvers/factorization.hpp"
#include "solvers/petsc_check.hpp"
#include "solvers/schur_decomposition.hpp"
#include "solvers/sparse_qr.hpp"

namespace catena {
namespace {

int commSize(MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  return size;
}

/// Relative size below which the coordinate part (phi, and s phi when damped) of an eigenvector
/// of unit norm counts as vanished: the pair lives in the multipliers (an infinite eigenvalue
/// that round-off made finite). A mode's multiplier part is within cond(C_q) of its coordinate
/// part, since the constraint rows are scaled to the stiffness.
constexpr double kVanishedCoordinates = 1e-6;
/// Relative residual of the scalar equation phi^H (s^2 M + s D + K_t) phi = 0 above which an
/// eigenpair is not a mode: its eigenvalue is not carried by its coordinate part. A converged
/// mode meets it to the eigensolver's tolerance times the conditioning.
constexpr double kRayleighTolerance = 1e-6;
/// Fraction of |M| |phi|^2 below which phi^H M phi counts as zero: the motion has no mass
/// (1e-29 for the pendulum's spurious pairs, above 0.5 for its mode and the chains' modes).
constexpr double kMasslessMotion = 1e-8;

/// The pencil (A, B) as two AIJ matrices on the system's communicator (MATSEQAIJ on one
/// process, which KLU takes), their patterns from COO entries in the layout's global indices;
/// the rows of ghost bodies are summed into their owners'.
struct Pencil {
  std::unique_ptr<CooMatrix> a, b;
  Mat A() const { return a->mat(); }
  Mat B() const { return b->mat(); }
};

struct Coo {
  std::vector<PetscInt> i, j;
  std::vector<double> v;
  void add(Index r, Index c, double x) {
    i.push_back(r);
    j.push_back(c);
    v.push_back(x);
  }
  /// Entries of X (local numbering) at the global rows rm[r], columns cm[c], times s.
  void add(const SparseMatrixCSR& X, Index rows, const std::vector<Index>& rm,
           const std::vector<Index>& cm, double s, bool transpose = false) {
    for (Index r = 0; r < rows; ++r)
      for (int k = X.outerIndexPtr()[r]; k < X.outerIndexPtr()[r + 1]; ++k) {
        const Index a = rm[r], b = cm[X.innerIndexPtr()[k]];
        add(transpose ? b : a, transpose ? a : b, s * X.valuePtr()[k]);
      }
  }
  std::unique_ptr<CooMatrix> matrix(MPI_Comm comm, Index local) {
    auto X = std::make_unique<CooMatrix>(local, local, std::move(i), std::move(j), MATAIJ, comm);
    X->set(v.data());
    return X;
  }
};

/// Undamped [K_t, a C_q^T; a C_q, 0], [M, 0; 0, 0]; damped [0, I, 0; -K_t, -D, -a C_q^T; a C_q,
/// 0, 0], [I, 0, 0; 0, M, 0; 0, 0, 0] (M: the bodies' diagonal blocks of the owned rows).
void buildPencil(const ModalSystem& sys, const PencilLayout& L, bool damped, double a, Pencil& p) {
  const Model& m = *sys.model;
  const Index nv = m.nv, nvo = sys.owned_bodies * m.nv_body, nc = m.nc;
  const int nvb = m.nv_body;
  Coo A, B;
  const std::vector<Index>& mass_rows = damped ? L.v : L.phi;
  for (Index r = 0; r < nvo; ++r)
    for (int k = sys.M->outerIndexPtr()[r]; k < sys.M->outerIndexPtr()[r + 1]; ++k)
      if (sys.M->innerIndexPtr()[k] / nvb == r / nvb)
        B.add(mass_rows[r], mass_rows[sys.M->innerIndexPtr()[k]], sys.M->valuePtr()[k]);
  if (!damped) {
    A.add(*sys.K, nv, L.phi, L.phi, 1.0);
    A.add(*sys.Cq, nc, L.rows, L.phi, a, true);
    A.add(*sys.Cq, nc, L.rows, L.phi, a);
  } else {
    // x = (phi, v, lambda): v = s phi; -K phi - D v - C^T lambda = s M v; C phi = 0.
    for (Index k = 0; k < nvo; ++k) {
      A.add(L.phi[k], L.v[k], 1.0);
      B.add(L.phi[k], L.phi[k], 1.0);
    }
    A.add(*sys.K, nv, L.v, L.phi, -1.0);
    A.add(*sys.D, nvo, L.v, L.v, -1.0);
    A.add(*sys.Cq, nc, L.rows, L.v, -a, true);
    A.add(*sys.Cq, nc, L.rows, L.phi, a);
  }
  p.a = A.matrix(sys.comm, L.size);
  p.b = B.matrix(sys.comm, L.size);
}

struct EpsObjects {
  EPS eps = nullptr;
  Vec xr = nullptr, xi = nullptr, z = nullptr, y = nullptr;
  std::string option;  ///< a MUMPS option set for this solve only, cleared at the end
  ~EpsObjects() {
    for (Vec* v : {&y, &z, &xi, &xr}) VecDestroy(v);
    EPSDestroy(&eps);
    if (!option.empty()) PetscOptionsClearValue(nullptr, option.c_str());
  }
};

/// One eigenpair on this process: the local entries of x and of the products the checks need.
struct Pair {
  std::complex<double> value;
  VecC x;           ///< the pencil's local entries, unit 2-norm, largest entry real positive
  VecC k, d, mphi;  ///< K_t phi, D phi, M phi on the owned coordinates
  VecC ax, bx, az;  ///< A x, B x, A (x with the constraint rows zeroed)
};

/// y = X applied to the local entries `in` (complex: two products); the local entries of y.
VecC multiply(Mat X, EpsObjects& p, const VecC& in) {
  VecC out(in.size());
  const int parts = in.imag().cwiseAbs().maxCoeff() > 0.0 ? 2 : 1;  // a real pair: one product
  for (int part = 0; part < parts; ++part) {
    PetscScalar* z;
    CATENA_PETSC(VecGetArray(p.z, &z));
    for (Index i = 0; i < in.size(); ++i) z[i] = part ? in(i).imag() : in(i).real();
    CATENA_PETSC(VecRestoreArray(p.z, &z));
    CATENA_PETSC(MatMult(X, p.z, p.y));
    const PetscScalar* y;
    CATENA_PETSC(VecGetArrayRead(p.y, &y));
    for (Index i = 0; i < in.size(); ++i)
      out(i) = part ? std::complex<double>(out(i).real(), y[i]) : std::complex<double>(y[i], 0.0);
    CATENA_PETSC(VecRestoreArrayRead(p.y, &y));
  }
  return out;
}

/// Unit 2-norm over all processes, and the phase that makes the largest entry (lowest global
/// index on ties) real and positive: the same modes and signs every run.
void normalize(MPI_Comm comm, Index first, VecC& x) {
  const VecX re = x.real(), im = x.imag();  // contiguous: the summation order of one process
  double norm2 = re.squaredNorm() + im.squaredNorm();
  sumAll(comm, &norm2, 1);
  struct {
    double value;
    int index;
  } local{-1.0, 0}, largest{-1.0, 0};
  for (Index i = 0; i < x.size(); ++i)
    if (std::norm(x(i)) > local.value) local = {std::norm(x(i)), static_cast<int>(first + i)};
  MPI_Allreduce(&local, &largest, 1, MPI_DOUBLE_INT, MPI_MAXLOC, comm);
  double pivot[2] = {0.0, 0.0};
  if (largest.index >= first && largest.index < first + x.size())
    pivot[0] = x(largest.index - first).real(), pivot[1] = x(largest.index - first).imag();
  sumAll(comm, pivot, 2);
  const std::complex<double> pv(pivot[0], pivot[1]);
  const double norm = std::sqrt(norm2);
  if (norm == 0.0 || std::abs(pv) == 0.0) return;
  const std::complex<double> phase = std::conj(pv) / (std::abs(pv) * norm);
  for (Index i = 0; i < x.size(); ++i) {
    const std::complex<double> w = x(i) * phase;
    x(i) = {w.real(), i == largest.index - first ? 0.0 : w.imag()};
  }
}

/// Entries of the local pencil vector x at the global indices g (of this process).
VecC gather(const VecC& x, const std::vector<Index>& g, Index count, Index first) {
  VecC out(count);
  for (Index k = 0; k < count; ++k) out(k) = x(g[k] - first);
  return out;
}
VecC scatter(const VecC& in, const std::vector<Index>& g, Index size, Index first) {
  VecC out = VecC::Zero(size);
  for (Index k = 0; k < in.size(); ++k) out(g[k] - first) = in(k);
  return out;
}

/// Why the eigenpair is not a mode of the mechanism, or "" if it is one.
std::string rejection(const ModalSystem& sys, const PencilLayout& L, bool damped, const Pair& e,
                      std::complex<double> s, Index nvo) {
  const VecC phi = gather(e.x, L.phi, nvo, L.first);
  double n[5] = {e.x.squaredNorm(), phi.squaredNorm(), 0.0, 0.0, 0.0};
  if (damped) n[1] += gather(e.x, L.v, nvo, L.first).squaredNorm();
  const std::complex<double> k = phi.dot(e.k), d = phi.dot(e.d), mm = phi.dot(e.mphi);
  double sums[6] = {k.real(), k.imag(), d.real(), d.imag(), mm.real(), mm.imag()};
  n[2] = phi.squaredNorm();
  sumAll(sys.comm, n, 3);
  sumAll(sys.comm, sums, 6);
  const double all = std::sqrt(n[0]), coord = std::sqrt(n[1]), phi2 = n[2];
  std::ostringstream os;
  if (!(coord > kVanishedCoordinates * all)) {
    os << "coordinate part " << coord / all << " of the eigenvector";
    return os.str();
  }
  const std::complex<double> K(sums[0], sums[1]), D(sums[2], sums[3]), M(sums[4], sums[5]);
  const double scale = (std::norm(s) * sys.max_m + std::abs(s) * sys.max_d + sys.max_k) * phi2;
  const double r = std::abs(s * s * M + s * D + K);
  if (!(r <= kRayleighTolerance * scale)) {
    os << "|phi^H (s^2 M + s D + K) phi| = " << r / scale << " relative";
    return os.str();
  }
  // A motion of massless (and undamped) coordinates only: an infinite eigenvalue, whose
  // Rayleigh quotient above is 0 / 0. A mode moves mass (or a damper).
  const double inertial = std::norm(s) * std::abs(M) + std::abs(s) * std::abs(D);
  const double inertial_scale = (std::norm(s) * sys.max_m + std::abs(s) * sys.max_d) * phi2;
  if (!(inertial > kMasslessMotion * inertial_scale)) {
    os << "a motion without mass (phi^H M phi = " << std::abs(M) / (sys.max_m * phi2)
       << " of |M| |phi|^2)";
    return os.str();
  }
  return "";
}

}  // namespace

Index degreesOfFreedom(const SparseMatrixCSR& Cq) {
  if (Cq.rows() == 0) return Cq.cols();
  double longest = 0.0;
  for (int r = 0; r < Cq.outerSize(); ++r) longest = std::max(longest, Cq.row(r).norm());
  if (longest == 0.0) return Cq.cols();
  return Cq.cols() - sparseQrRank(Cq, kDefaultRankTolerance * longest, true).rank;
}

ModalResult computeModes(const ModalSystem& sys, const ModalOptions& o, double start) {
  ModalResult out;
  const Model& m = *sys.model;
  const MPI_Comm comm = sys.comm;
  const Index nvo = sys.owned_bodies * m.nv_body;
  out.damped = o.damped || sys.max_d > 0.0;
  out.requested = o.modes;
  if (out.damped && sys.damped.size == 0) {
    out.status = Status::failure(Status::Code::kInvalidInput,
                                 "the damped modal analysis (first-order pencil) runs on one "
                                 "process only, and ModalOptions::damped is set or the model's "
                                 "forces have a velocity Jacobian D");
    return out;
  }
  // 1. The most modes there are: dof = n_v - rank(C_q).
  out.dof = sys.degrees_of_freedom();
  const int wanted = static_cast<int>(o.limit_to_dof ? std::min<Index>(o.modes, out.dof) : o.modes);
  const Index gnv = sys.global_nv;
  if (wanted < o.modes) {
    std::ostringstream os;
    os << "the mechanism has " << out.dof << " degree" << (out.dof == 1 ? "" : "s")
       << " of freedom at the equilibrium (n_v " << gnv << " - rank(C_q) " << gnv - out.dof
       << "): " << wanted << " mode" << (wanted == 1 ? "" : "s") << " of the " << o.modes
       << " requested";
    out.note = os.str();
  }
  if (wanted <= 0) {
    out.status = Status::success();
    out.assembly_seconds = MPI_Wtime() - start;
    return out;
  }
  // 2. The pencil, its constraint rows on the scale of the stiffness (or of the mass at the
  //    target).
  const double two_pi = 2.0 * std::numbers::pi;
  const double sigma = std::pow(two_pi * o.target_hz, 2);
  const double kscale = std::max({sys.max_k, sigma * sys.max_m, 1e-300});
  out.constraint_scale = sys.max_cq > 0.0 ? kscale / sys.max_cq : 1.0;
  double t0 = MPI_Wtime();
  const PencilLayout& L = out.damped ? sys.damped : sys.undamped;
  Pencil pencil;
  buildPencil(sys, L, out.damped, out.constraint_scale, pencil);
  out.setup_seconds = MPI_Wtime() - t0;
  out.assembly_seconds = MPI_Wtime() - start;

  // 3. Krylov-Schur, shift-and-invert: KLU on one process, MUMPS on several. MUMPS delays many
  //    pivots on these matrices: a 100 % workspace margin unless set, doubled while the
  //    factorization runs short (solvers/direct_lu.hpp). ICNTL(14) is read when EPSSetUp sets
  //    the factorization up, hence an option under the ST's prefix and a new eigensolver for
  //    every try.
  t0 = MPI_Wtime();
  const int count = out.damped ? 2 * wanted : wanted;  // damped: conjugate pairs count twice
  const double target = out.damped ? 0.0 : sigma;
  std::unique_ptr<SchurDecomposition> dd;  // declared first: it outlives the eigensolver
  std::unique_ptr<EpsObjects> p;
  ST st;
  KSP ksp;
  PC pc;
  PetscErrorCode ierr = 0;
  for (int margin = 100;; margin *= 2) {
    p = std::make_unique<EpsObjects>();
    CATENA_PETSC(EPSCreate(comm, &p->eps));
    if (!o.petsc_prefix.empty()) CATENA_PETSC(EPSSetOptionsPrefix(p->eps, o.petsc_prefix.c_str()));
    CATENA_PETSC(EPSSetOperators(p->eps, pencil.A(), pencil.B()));
    CATENA_PETSC(EPSSetProblemType(p->eps, EPS_GNHEP));  // K_c makes the pencil non-symmetric
    CATENA_PETSC(EPSSetType(p->eps, EPSKRYLOVSCHUR));
    CATENA_PETSC(EPSSetDimensions(p->eps, count, PETSC_DEFAULT, PETSC_DEFAULT));
    CATENA_PETSC(EPSSetTolerances(p->eps, o.tolerance, 1000));
    CATENA_PETSC(EPSSetTarget(p->eps, target));
    CATENA_PETSC(EPSSetWhichEigenpairs(p->eps, EPS_TARGET_MAGNITUDE));
    CATENA_PETSC(EPSGetST(p->eps, &st));
    CATENA_PETSC(STSetType(st, STSINVERT));
    CATENA_PETSC(STGetKSP(st, &ksp));
    CATENA_PETSC(KSPGetPC(ksp, &pc));
    if (o.schur_decomposition && commSize(comm) > 1) {
      dd = std::make_unique<SchurDecomposition>(o.petsc_prefix + "st_");
      dd->attachTo(ksp);
    } else if (commSize(comm) == 1) {
      CATENA_PETSC(KSPSetType(ksp, KSPPREONLY));
      useDirectFactorization(pc);
    } else {
      selectMumpsLu(ksp);
    }
    // A fixed start vector of the global index: the same modes every run, on any rank count.
    CATENA_PETSC(MatCreateVecs(pencil.A(), &p->xr, &p->xi));
    for (Vec* v : {&p->z, &p->y}) CATENA_PETSC(VecDuplicate(p->xr, v));
    {
      PetscScalar* v;
      CATENA_PETSC(VecGetArray(p->z, &v));
      for (Index i = 0; i < L.size; ++i)
        v[i] = 1.0 + 0.5 * std::sin(0.7 * static_cast<double>(L.first + i) + 0.3);
      CATENA_PETSC(VecRestoreArray(p->z, &v));
    }
    CATENA_PETSC(EPSSetInitialSpace(p->eps, 1, &p->z));
    CATENA_PETSC(EPSSetFromOptions(p->eps));
    MatSolverType package = nullptr;
    if (!dd) CATENA_PETSC(PCFactorGetMatSolverType(pc, &package));
    if (package && std::string(package) == MATSOLVERMUMPS) {
      const std::string name = mumpsWorkspaceOption(pc);
      PetscBool set = PETSC_FALSE;
      CATENA_PETSC(PetscOptionsHasName(nullptr, nullptr, name.c_str(), &set));
      if (!set) {
        CATENA_PETSC(PetscOptionsSetValue(nullptr, name.c_str(), std::to_string(margin).c_str()));
        p->option = name;
      }
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
  if (ierr) {
    PetscInt N = 0;
    CATENA_PETSC(MatGetSize(pencil.A(), &N, nullptr));
    const Status factor = dd ? dd->lastFailure() : factorizationStatus(pc, N, ierr);
    std::ostringstream os;
    os << "the eigensolver failed (PETSc error " << ierr << ") at the shift sigma = " << target
       << ": " << (factor.ok() ? "the shifted pencil A - sigma B is probably singular" : "")
       << (factor.ok() ? "" : factor.message);
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
    if (!dd) PCFactorGetMatSolverType(pc, &package);
    out.method = std::string(type) + " + " + sttype + " (" +
                 (dd        ? "schur: klu + mumps"
                  : package ? package
                            : "petsc") +
                 ")";
  }

  // 4. The pairs nearest the target (ties, conjugate pairs: larger imaginary part first); each
  //    is a mode unless rejected, then classified and checked.
  std::vector<std::complex<double>> values(nconv);
  for (PetscInt i = 0; i < nconv; ++i) {
    PetscScalar kr, ki;
    CATENA_PETSC(EPSGetEigenvalue(p->eps, i, &kr, &ki));
    values[i] = {kr, ki};
  }
  std::vector<PetscInt> order(nconv);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](PetscInt a, PetscInt b) {
    const double da = std::abs(values[a] - target), db = std::abs(values[b] - target);
    if (std::abs(da - db) > 1e-12 * std::max(da, db)) return da < db;
    return values[a].imag() > values[b].imag();
  });
  out.plane_normal = planeNormal(sys);
  const std::vector<Index>& mass_slot = out.damped ? L.v : L.phi;
  for (PetscInt i : order) {
    Mode mode;
    std::complex<double> s = values[i];
    if (!out.damped) {
      // mu = -s^2: keep the root with Im s >= 0 (and Re s >= 0 when s is real).
      s = std::sqrt(-values[i]);
      if (s.imag() < 0.0 || (s.imag() == 0.0 && s.real() < 0.0)) s = -s;
    } else if (values[i].imag() < 0.0) {
      continue;  // keep one of each conjugate pair
    }
    Pair e;
    e.value = values[i];
    PetscScalar kr, ki;
    CATENA_PETSC(EPSGetEigenpair(p->eps, i, &kr, &ki, p->xr, p->xi));
    {
      const PetscScalar *re, *im;
      CATENA_PETSC(VecGetArrayRead(p->xr, &re));
      CATENA_PETSC(VecGetArrayRead(p->xi, &im));
      e.x.resize(L.size);
      for (Index k = 0; k < L.size; ++k) e.x(k) = {re[k], ki != 0.0 ? im[k] : 0.0};
      CATENA_PETSC(VecRestoreArrayRead(p->xi, &im));
      CATENA_PETSC(VecRestoreArrayRead(p->xr, &re));
    }
    normalize(comm, L.first, e.x);
    // K_t phi, D phi, M phi on the owned coordinates from products with the pencil.
    const VecC phi = gather(e.x, L.phi, nvo, L.first);
    const VecC in_phi = scatter(phi, L.phi, L.size, L.first);
    const VecC in_mass = scatter(phi, mass_slot, L.size, L.first);
    e.mphi = gather(multiply(pencil.B(), *p, in_mass), mass_slot, nvo, L.first);
    if (!out.damped) {
      e.k = gather(multiply(pencil.A(), *p, in_phi), L.phi, nvo, L.first);
      e.d = VecC::Zero(nvo);
    } else {
      e.k = -gather(multiply(pencil.A(), *p, in_phi), L.v, nvo, L.first);
      e.d = -gather(multiply(pencil.A(), *p, in_mass), L.v, nvo, L.first);
    }
    const std::string why = rejection(sys, L, out.damped, e, s, nvo);
    if (!why.empty()) {
      ++out.rejected;
      continue;
    }
    // Residuals of the pencil: A x - value B x on the force rows and on the constraint rows.
    VecC z = e.x;
    for (Index r = 0; r < m.nc; ++r) z(L.rows[r] - L.first) = 0.0;
    e.ax = multiply(pencil.A(), *p, e.x);
    e.bx = multiply(pencil.B(), *p, e.x);
    e.az = multiply(pencil.A(), *p, z);
    double norms[4] = {0.0, 0.0, 0.0, 0.0};  // force rows, constraint rows, |A z|, |B x|
    VecC res = e.ax - e.value * e.bx;
    for (Index r = 0; r < m.nc; ++r) {
      const Index at = L.rows[r] - L.first;
      norms[1] += std::norm(res(at));
      res(at) = e.az(at) = 0.0;
    }
    norms[0] = res.squaredNorm();
    norms[2] = e.az.squaredNorm();
    norms[3] = e.bx.squaredNorm();
    mode.s = s;
    mode.eigenvalue = e.value;
    PetscReal err = 0.0;
    CATENA_PETSC(EPSComputeError(p->eps, i, EPS_ERROR_RELATIVE, &err));
    mode.residual = err;
    mode.natural_frequency_hz = std::abs(s) / two_pi;
    mode.frequency_hz = std::abs(s.imag()) / two_pi;
    mode.damping_ratio = std::abs(s) > 0.0 ? -s.real() / std::abs(s) : 0.0;
    mode.shape_re = phi.real();
    mode.shape_im = phi.imag();
    classify(sys, out.plane_normal, mode);
    checkValues(sys, phi, e.mphi, norms, mode);
    out.modes.push_back(std::move(mode));
    if (static_cast<int>(out.modes.size()) == wanted) break;
  }
  out.solve_seconds = MPI_Wtime() - t0;
  if (static_cast<int>(out.modes.size()) < wanted) {
    std::ostringstream os;
    if (nconv < count)
      os << "the eigensolver converged " << out.modes.size() << " of the " << wanted
         << " requested modes in " << its << " iterations";
    else
      os << "the eigensolver found " << out.modes.size() << " of the " << wanted
         << " modes the mechanism has near the target (" << out.rejected
         << " eigenpairs rejected: their coordinate part vanished or did not carry the "
            "eigenvalue)";
    out.status = Status::failure(Status::Code::kNotConverged, os.str());
  } else {
    out.status = Status::success();
  }
  return out;
}

}  // namespace catena
