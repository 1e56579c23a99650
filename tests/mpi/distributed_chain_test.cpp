#define BOOST_TEST_MODULE distributed_chain
// The distributed catenary chain (parallel/, docs/parallel.md) against the serial catena. The
// executable runs under mpiexec with 1, 2 and 4 ranks (tests/mpi.cmake); every rank builds its
// part of the chain and, for the comparison only, the whole chain, and compares the rows it
// owns. Every check is reduced over the ranks first, so all ranks pass or fail together and
// never leave one another waiting in a collective call.
#include <mpi.h>
#include <omp.h>
#include <petscsys.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "analysis/reactions.hpp"
#include "analysis/scales.hpp"
#include "assembly/assemble.hpp"
#include "core/check.hpp"
#include "dense_kkt.hpp"
#include "math/rotation.hpp"
#include "model/generators.hpp"
#include "model/state.hpp"
#include "mpi_support.hpp"
#include "petsc_fixture.hpp"
#include "solvers/distributed_saddle_point.hpp"
#include "solvers/petsc_check.hpp"
#include "solvers/redundant_klu.hpp"
#include "solvers/schur_decomposition.hpp"
#include "statics/distributed_statics.hpp"
#include "statics/statics.hpp"

using namespace catena;
using namespace catena::test;

namespace {

/// Body `global` moved off the 'V' by up to 5 cm and 0.05 rad, from its global index alone, so
/// every rank reproduces the serial configuration of its bodies.
void perturbBody(Index global, double* q) {
  std::mt19937 gen(1234u + static_cast<unsigned>(global));
  std::uniform_real_distribution<double> u(-0.05, 0.05);
  for (int k = 0; k < 3; ++k) q[k] += u(gen);
  const Vec3 theta(u(gen), u(gen), u(gen));
  const Quat r = boxPlus(Quat(q[3], q[4], q[5], q[6]), theta).normalized();
  q[3] = r.w();
  q[4] = r.x();
  q[5] = r.y();
  q[6] = r.z();
}
/// The whole chain's positions with every body moved as perturbBody moves it.
VecX perturbedPositions(const Model& whole) {
  VecX q = initialState(whole).q;
  for (Index b = 0; b < static_cast<Index>(whole.bodies.size()); ++b)
    perturbBody(b, q.data() + whole.qOffset(b));
  return q;
}
double multiplier(Index global_row) {
  return 10.0 * std::sin(1.0 + global_row);
}

/// Largest |a - b| over the entries of two matrices of equal size (infinity if sizes differ).
double maxDiff(const MatX& a, const MatX& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols()) return INFINITY;
  return a.size() ? (a - b).cwiseAbs().maxCoeff() : 0.0;
}

/// Every value of the owned rows of the distributed matrices and vectors, for bitwise checks.
std::vector<double> snapshot(const DistributedAssembly& as) {
  std::vector<double> v(as.C().data(), as.C().data() + as.C().size());
  v.insert(v.end(), as.f().data(), as.f().data() + as.f().size());
  for (const SparseMatrixCSR& A : {as.ownedRowsOfCq(), as.ownedRowsOfKc()}) {
    v.insert(v.end(), A.valuePtr(), A.valuePtr() + A.nonZeros());
    v.insert(v.end(), A.innerIndexPtr(), A.innerIndexPtr() + A.nonZeros());
  }
  return v;
}

/// The whole matrix on every rank from each rank's owned rows (global columns).
MatX gatherRows(const SparseMatrixCSR& owned, Index cols) {
  using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const RowMajor mine = RowMajor(MatX(owned)).leftCols(cols);
  const int n = static_cast<int>(mine.size()), size = worldSize();
  std::vector<int> counts(size), starts(size, 0);
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  for (int r = 1; r < size; ++r) starts[r] = starts[r - 1] + counts[r - 1];
  RowMajor all((starts.back() + counts.back()) / cols, cols);
  MPI_Allgatherv(mine.data(), n, MPI_DOUBLE, all.data(), counts.data(), starts.data(), MPI_DOUBLE,
                 MPI_COMM_WORLD);
  return all;
}

bool allBitwiseEqual(const std::vector<double>& a, const std::vector<double>& b) {
  const bool local =
      a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
  return allMax(local ? 0.0 : 1.0) == 0.0;
}

/// Distributed C, C_q, K_c and f at the perturbed configuration and multipliers, which it
/// returns (local q and lambda).
State assemblePerturbed(const DistributedModel& dm, DistributedAssembly& as) {
  const Model& m = dm.local();
  VecX q = initialState(m).q;
  for (Index b = 0; b < dm.part().owned_bodies; ++b)
    perturbBody(dm.part().globalBody(b), q.data() + m.qOffset(b));
  dm.updateGhosts(q);
  VecX lambda(m.nc);
  for (Index r = 0; r < m.nc; ++r) lambda(r) = multiplier(dm.firstRow() + r);
  as.assembleConstraints(q, 0.0);
  as.assembleConstraintStiffness(q, 0.0, lambda);
  as.assembleForces(q, 0.0);
  State s;
  s.q = q;
  s.lambda = lambda;
  return s;
}

}  // namespace

// The parts tile the chain: global sizes, owned ranges and the joints' global rows are those of
// the whole chain, for any rank count; on one rank the part is the whole chain.
BOOST_AUTO_TEST_CASE(parts_number_the_chain_as_the_whole_model) {
  const int N = 42;
  const ModelPart part = chainPart(N);
  const DistributedModel dm(part);
  const Model whole = wholeChain(N);
  BOOST_TEST(dm.globalNv() == whole.nv);
  BOOST_TEST(dm.globalNc() == whole.nc);
  double bad = 0.0;
  for (Index j = 0; j < static_cast<Index>(part.model.joints.size()); ++j) {
    const Index g = part.first_joint + j;
    bad += part.model.joints[j].name != whole.joints[g].name;
    bad += dm.firstRow() + part.model.joint_row_offset[j] != whole.joint_row_offset[g];
  }
  for (Index b = 0; b < static_cast<Index>(part.model.bodies.size()); ++b)
    bad += part.model.bodies[b].name != whole.bodies[part.globalBody(b)].name;
  BOOST_TEST(allMax(bad) == 0.0);
  if (worldSize() == 1) {
    BOOST_TEST(part.model.markers.size() == whole.markers.size());
    BOOST_TEST(part.ghost_bodies.empty());
  }
}

// Ghost bodies receive their owners' positions through PETSc.
BOOST_AUTO_TEST_CASE(ghost_exchange_copies_the_owners_positions) {
  const ModelPart part = chainPart(42);
  const DistributedModel dm(part);
  const Model& m = part.model;
  VecX q = VecX::Constant(m.nq, -1.0);
  for (Index b = 0; b < part.owned_bodies; ++b)
    for (int c = 0; c < 7; ++c) q(m.qOffset(b) + c) = 100.0 * part.globalBody(b) + c;
  dm.updateGhosts(q);
  double bad = 0.0;
  for (Index b = 0; b < static_cast<Index>(m.bodies.size()); ++b)
    for (int c = 0; c < 7; ++c) bad += q(m.qOffset(b) + c) != 100.0 * part.globalBody(b) + c;
  BOOST_TEST(allMax(bad) == 0.0);
  BOOST_TEST((worldRank() == 0 ? part.ghost_bodies.empty() : part.ghost_bodies.size() == 1u));
}

// C, C_q, K_c and f of the distributed chain equal the serial assembly at a perturbed
// configuration with nonzero multipliers. They are copies of the same kernel values, and a K_c
// block of a chain sums at most two joint contributions (exact in either order), so the
// difference is expected to be exactly zero; the test allows round-off (1e-14 of the largest
// entry).
BOOST_AUTO_TEST_CASE(assembly_equals_the_serial_assembly) {
  const int N = 42;
  const ModelPart part = chainPart(N);
  const DistributedModel dm(part);
  DistributedAssembly as(dm);
  assemblePerturbed(dm, as);

  const Model whole = wholeChain(N);
  const AssemblyPlan plan = buildAssemblyPlan(whole);
  const VecX q = perturbedPositions(whole);
  VecX lambda(whole.nc);
  for (Index r = 0; r < whole.nc; ++r) lambda(r) = multiplier(r);
  VecX C(whole.nc), f(whole.nv);
  SparseMatrixCSR Cq = makeConstraintMatrix(plan), Kc = makeBodyMatrix(plan);
  assembleConstraints(whole, plan, q, 0.0, &C, &Cq);
  assembleConstraintStiffness(whole, plan, q, 0.0, lambda, Kc);
  assembleForces(whole, plan, q, VecX::Zero(whole.nv), 0.0, f);

  const Index r0 = dm.firstRow(), nr = dm.ownedRows();
  const Index v0 = dm.firstVelocity(), nv = dm.ownedVelocities();
  struct Compared {
    const char* name;
    double diff, scale;
  };
  const Compared compared[] = {
      {"C", maxDiff(as.C(), C.segment(r0, nr)), C.cwiseAbs().maxCoeff()},
      {"C_q", maxDiff(MatX(as.ownedRowsOfCq()), MatX(Cq).middleRows(r0, nr)),
       MatX(Cq).cwiseAbs().maxCoeff()},
      {"K_c", maxDiff(MatX(as.ownedRowsOfKc()), MatX(Kc).middleRows(v0, nv)),
       MatX(Kc).cwiseAbs().maxCoeff()},
      {"f", maxDiff(as.f(), f.segment(v0, nv)), f.cwiseAbs().maxCoeff()}};
  for (const Compared& c : compared) {
    const double diff = allMax(c.diff);
    if (worldRank() == 0)
      BOOST_TEST_MESSAGE(worldSize() << " ranks: " << c.name << " max |distributed - serial| = "
                                     << diff << " (largest entry " << c.scale << ")");
    BOOST_TEST(diff <= 1e-14 * c.scale, c.name << ": " << diff << " > 1e-14 * " << c.scale);
  }
}

// The tangent K + K_c and its largest entry |a_ij| (which scales the constraint rows of every
// distributed KKT matrix) equal the serial ones wherever that entry sits: each constraint row's
// multiplier in turn is made 10^4 times the others', so the largest entry walks along the chain
// and through the rows of the bodies next to each cut, which two ranks write (their sum is the
// entry; either part alone differs from it by about 1e-4). The parts are added in another order
// than the serial assembly's, so the two agree to round-off (1e-14 of the entry).
BOOST_AUTO_TEST_CASE(tangent_and_its_largest_entry_equal_the_serial_ones) {
  const int N = 42;
  const ModelPart part = chainPart(N);
  const DistributedModel dm(part);
  DistributedAssembly as(dm);
  const State local = assemblePerturbed(dm, as);

  const Model whole = wholeChain(N);
  const AssemblyPlan plan = buildAssemblyPlan(whole);
  const VecX q = perturbedPositions(whole);
  SparseMatrixCSR K = makeBodyMatrix(plan), Kc = makeBodyMatrix(plan);
  assembleForceStiffness(whole, plan, q, VecX::Zero(whole.nv), 0.0, K);
  const Index v0 = dm.firstVelocity(), nv = dm.ownedVelocities();
  double worst = 0.0, worst_tangent = 0.0;
  for (Index big = 0; big < whole.nc; ++big) {
    VecX lambda(whole.nc);
    for (Index r = 0; r < whole.nc; ++r) lambda(r) = multiplier(r) * (r == big ? 1e4 : 1.0);
    assembleConstraintStiffness(whole, plan, q, 0.0, lambda, Kc);
    const SparseMatrixCSR A = K + Kc;
    const double serial = maxAbsEntry(A);
    VecX mine = local.lambda;
    for (Index r = 0; r < mine.size(); ++r) mine(r) = lambda(dm.firstRow() + r);
    as.assembleTangent(local.q, 0.0, mine, true);
    worst = std::max(worst, std::abs(as.maxAbsTangent() - serial) / serial);
    if (big % 10 == 0)
      worst_tangent = std::max(
          worst_tangent,
          allMax(maxDiff(MatX(as.ownedRowsOfTangent()), MatX(A).middleRows(v0, nv))) / serial);
  }
  worst = allMax(worst);
  if (worldRank() == 0)
    BOOST_TEST_MESSAGE(worldSize() << " ranks: max |a_ij| against the serial one, worst relative "
                                      "difference "
                                   << worst << "; owned rows of the tangent " << worst_tangent);
  BOOST_TEST(worst <= 1e-14);
  BOOST_TEST(worst_tangent <= 1e-14);
}

// Within a rank the assembly is bitwise identical for 1 and 2 OpenMP threads. 2048 links: at
// 4 ranks each local model has 512 joints and bodies, enough for the assembly's parallel
// regions to start (assemble.cpp, kParallelItems).
BOOST_AUTO_TEST_CASE(assembly_is_bitwise_identical_for_any_thread_count) {
  const ModelPart part = chainPart(2048);
  const DistributedModel dm(part);
  DistributedAssembly as(dm);
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  assemblePerturbed(dm, as);
  const std::vector<double> one = snapshot(as);
  omp_set_num_threads(2);
  assemblePerturbed(dm, as);
  const std::vector<double> two = snapshot(as);
  omp_set_num_threads(threads);
  BOOST_TEST(allBitwiseEqual(one, two));
}

namespace {

/// Worst relative difference of the distributed statics from the serial one.
struct StaticsComparison {
  double q = 0.0, lambda = 0.0, sag = 0.0, reaction = 0.0, weight = 0.0;
  int iterations = 0;
  SchurStats schur;  ///< this rank's (the decomposition's runs)
};

StaticsComparison compareStatics(int N, const SaddlePointSolverOptions& linear = {}) {
  StaticsComparison out;
  const ModelPart part = chainPart(N);
  const DistributedModel dm(part);
  DistributedAssembly as(dm);
  const DistributedStaticsResult d = solveDistributedStatics(as, {}, linear);
  BOOST_TEST(d.status.ok(), d.status.message);
  out.iterations = static_cast<int>(d.history.size()) - 1;
  out.schur = d.schur;

  const Model whole = wholeChain(N);
  const AssemblyPlan plan = buildAssemblyPlan(whole);
  const StaticsResult s = solveStatics(whole, plan, initialState(whole));
  BOOST_TEST(s.status.ok(), s.status.message);
  const VecX& q = s.state.q;
  const VecX& lambda = s.state.lambda;

  // Positions relative to the chain's size (coordinates in m, quaternions of norm 1).
  const double ls = d.length_scale;
  out.q = allMax((d.state.q.head(dm.ownedPositions()) -
                  q.segment(part.first_body * 7, dm.ownedPositions()))
                     .cwiseAbs()
                     .maxCoeff()) /
          std::max(ls, 1.0);
  out.lambda =
      allMax(
          (d.state.lambda - lambda.segment(dm.firstRow(), dm.ownedRows())).cwiseAbs().maxCoeff()) /
      lambda.cwiseAbs().maxCoeff();
  double lowest = INFINITY;
  for (Index k = 0; k < static_cast<Index>(whole.markers.size()); ++k)
    if (whole.markers[k].body >= 0)
      lowest = std::min(lowest, markerPosition(whole, q.data(), k).z());
  const double sag = -lowestMarkerHeight(dm, d.state.q);
  out.sag = std::abs(sag + lowest) / std::abs(lowest);
  const std::vector<JointReaction> R = computeJointReactions(whole, plan, q, 0.0, lambda);
  const JointReaction a = distributedJointReaction(as, d.state.q, 0.0, d.state.lambda, 0);
  const JointReaction b = distributedJointReaction(as, d.state.q, 0.0, d.state.lambda, N);
  const double H = std::abs(R.front().force_world.x());
  out.reaction = std::max((a.force_world - R.front().force_world).norm(),
                          (b.force_world - R.back().force_world).norm()) /
                 H;
  // Closed form: the supports carry the chain's weight, 1 kg/m over |AC| + |CB| = 2 sqrt(61) m.
  const double weight = 9.81 * 2.0 * std::sqrt(61.0);
  out.weight = std::abs(a.force_world.z() + b.force_world.z() - weight) / weight;
  if (worldRank() == 0)
    BOOST_TEST_MESSAGE(worldSize()
                       << " ranks, N = " << N << ": sag " << sag << " m, H " << H << " N, "
                       << out.iterations << " Newton iterations (" << s.history.size() - 1
                       << " serial), " << d.linear_solver << " (" << d.krylov_iterations
                       << " Krylov iterations); relative differences from serial: "
                       << "q " << out.q << ", lambda " << out.lambda << ", sag " << out.sag
                       << ", reactions " << out.reaction << "; weight " << out.weight);
  return out;
}

/// The message of the catena::Error that factoring K with a decomposition of options prefix
/// `prefix` throws (empty if none).
std::string factorError(const std::string& prefix, Mat K) {
  SchurDecomposition dd(prefix);
  try {
    dd.factor(K);
  } catch (const Error& e) {
    return e.what();
  }
  return {};
}

SaddlePointSolverOptions augmentedLagrangian() {
  SaddlePointSolverOptions o;
  o.method = SaddlePointSolverOptions::Method::kAugmentedLagrangian;
  return o;
}

/// The N-link chain's distributed statics with `linear` against the serial one, to 1e-10.
void checkEqualsSerialStatics(int N, const SaddlePointSolverOptions& linear) {
  const StaticsComparison c = compareStatics(N, linear);
  BOOST_TEST(c.q <= 1e-10, "N = " << N << ": positions " << c.q);
  BOOST_TEST(c.lambda <= 1e-10, "N = " << N << ": multipliers " << c.lambda);
  BOOST_TEST(c.sag <= 1e-10, "N = " << N << ": sag " << c.sag);
  BOOST_TEST(c.reaction <= 1e-10, "N = " << N << ": support reactions " << c.reaction);
  BOOST_TEST(c.weight <= 1e-10, "N = " << N << ": vertical reactions vs weight " << c.weight);
}

}  // namespace

// The distributed equilibrium equals the serial one (KLU on one rank) to 1e-10 relative:
// positions, multipliers, sag and the support reactions; the supports carry the chain's weight.
BOOST_AUTO_TEST_CASE(statics_equals_the_serial_statics) {
  for (int N : {40, 42}) checkEqualsSerialStatics(N, {});
}

// The iterative saddle-point solver (FGMRES, augmented Lagrangian preconditioner, no global
// factor) reaches the same equilibrium as the serial statics, to the same 1e-10: its relative
// residual 1e-10 per solve is below what Newton's tolerances let through.
BOOST_AUTO_TEST_CASE(iterative_statics_equals_the_serial_statics) {
  for (int N : {40, 400}) checkEqualsSerialStatics(N, augmentedLagrangian());
}

// The Schur-complement domain decomposition (KLU per rank and on the gathered interfaces) reaches
// the same equilibrium to the same 1e-10. The chain starts on its 'V': every rank's stretch is
// straight, so with its interface held fixed its block is singular and the decomposition moves
// those unknowns to the interface (SchurDecomposition); 400 links put several hundred unknowns
// in each interior.
BOOST_AUTO_TEST_CASE(schur_statics_equals_the_serial_statics) {
  SaddlePointSolverOptions linear;
  linear.method = SaddlePointSolverOptions::Method::kSchur;
  for (int N : {40, 42, 400}) checkEqualsSerialStatics(N, linear);
}

// S is factored by KLU on every rank from its gathered entries (-PREFIXdd_interface klu) or by
// MUMPS across the ranks (mumps); auto (the default) gathers S up to -PREFIXdd_gathered_max
// unknowns. The same equilibrium to the same 1e-10 every way, and each choice takes effect
// (only the gathered factorization reports its own CPU time): the chain's small S is gathered
// by default, and factored by MUMPS when the bound is below its size.
BOOST_AUTO_TEST_CASE(schur_interface_by_gathered_klu_or_by_mumps_equals_the_serial_statics) {
  SaddlePointSolverOptions linear;
  linear.method = SaddlePointSolverOptions::Method::kSchur;
  struct Choice {
    const char *interface, *gathered_max;
    bool gathered;
  };
  for (const Choice& choice : {Choice{"klu", nullptr, true}, Choice{"mumps", nullptr, false},
                               Choice{nullptr, nullptr, true}, Choice{nullptr, "1", false}}) {
    if (choice.interface) PetscOptionsSetValue(nullptr, "-statics_dd_interface", choice.interface);
    if (choice.gathered_max)
      PetscOptionsSetValue(nullptr, "-statics_dd_gathered_max", choice.gathered_max);
    const StaticsComparison c = compareStatics(400, linear);
    PetscOptionsClearValue(nullptr, "-statics_dd_interface");
    PetscOptionsClearValue(nullptr, "-statics_dd_gathered_max");
    const std::string name = std::string(choice.interface ? choice.interface : "auto") +
                             (choice.gathered_max ? " up to 1 unknown" : "");
    BOOST_TEST(c.q <= 1e-10, name << ": positions " << c.q);
    BOOST_TEST(c.lambda <= 1e-10, name << ": multipliers " << c.lambda);
    BOOST_TEST(c.sag <= 1e-10, name << ": sag " << c.sag);
    if (worldSize() < 2) continue;  // no interface
    const double cpu = allMax(c.schur.interface_cpu_seconds);
    BOOST_TEST((choice.gathered ? cpu > 0.0 : cpu == 0.0),
               name << ": interface CPU " << cpu << " s");
  }
}

// An unknown interface solver is refused with the option's name and the choices.
BOOST_AUTO_TEST_CASE(schur_refuses_an_unknown_interface_solver) {
  Mat K = nullptr;
  const PetscInt n = 2;
  CATENA_PETSC(MatCreateAIJ(PETSC_COMM_WORLD, n, n, PETSC_DETERMINE, PETSC_DETERMINE, 1, nullptr, 0,
                            nullptr, &K));
  for (PetscInt i = n * worldRank(); i < n * (worldRank() + 1); ++i)
    CATENA_PETSC(MatSetValue(K, i, i, 1.0, INSERT_VALUES));
  CATENA_PETSC(MatAssemblyBegin(K, MAT_FINAL_ASSEMBLY));
  CATENA_PETSC(MatAssemblyEnd(K, MAT_FINAL_ASSEMBLY));
  PetscOptionsSetValue(nullptr, "-bad_dd_interface", "lu");
  const std::string message = factorError("bad_", K);
  PetscOptionsClearValue(nullptr, "-bad_dd_interface");
  MatDestroy(&K);
  BOOST_TEST(
      message.find("-bad_dd_interface: expected auto, klu or mumps, got 'lu'") != std::string::npos,
      message);
}

// Each solve of the decomposition is direct (one sweep per interior block around the interface
// solve, SchurDecomposition::Impl::applyOnce): its backward error before any refinement is at
// round-off. Iterative refinement would otherwise hide a wrong interface term from the
// equilibrium checks (a sign flipped in blockInterfaceCorrection passed them, at 2 refinement
// steps per solve).
BOOST_AUTO_TEST_CASE(schur_solves_are_accurate_without_refinement) {
  SaddlePointSolverOptions linear;
  linear.method = SaddlePointSolverOptions::Method::kSchur;
  for (int N : {42, 400}) {
    const StaticsComparison c = compareStatics(N, linear);
    BOOST_TEST(c.q <= 1e-10);
    if (worldSize() > 1) BOOST_TEST(c.schur.interface_total > 0);
    const double error = allMax(c.schur.unrefined_backward_error);
    BOOST_TEST_MESSAGE("N = " << N << ": largest unrefined backward error " << error << ", "
                              << c.schur.refinements << " refinement steps");
    BOOST_TEST(error <= 1e-13, "N = " << N << ": " << error);
  }
}

// Refactorizations keep a block's pivots while their growth stays within
// -PREFIXdd_max_refactor_growth; a solve whose refinement cannot reach its bound with kept
// pivots is factored anew and solved again. Without refinement steps (-PREFIXdd_max_refinements
// 0) every such solve takes that path, and the equilibrium is the serial one to the same 1e-10.
// With MUMPS on the interface, one solve of the 400-link statics takes it on 2 ranks (backward
// error 1.0e-14 with kept pivots); on 4 ranks none needs to, nor with KLU on the gathered
// interface, whose solves stay below the bound.
BOOST_AUTO_TEST_CASE(schur_solves_that_cannot_refine_kept_pivots_factor_anew) {
  SaddlePointSolverOptions linear;
  linear.method = SaddlePointSolverOptions::Method::kSchur;
  PetscOptionsSetValue(nullptr, "-statics_dd_max_refinements", "0");
  PetscOptionsSetValue(nullptr, "-statics_dd_interface", "mumps");
  const StaticsComparison c = compareStatics(400, linear);
  PetscOptionsClearValue(nullptr, "-statics_dd_max_refinements");
  PetscOptionsClearValue(nullptr, "-statics_dd_interface");
  BOOST_TEST(c.q <= 1e-10);
  BOOST_TEST(c.lambda <= 1e-10);
  BOOST_TEST_MESSAGE("repivoted solves " << c.schur.repivoted_solves << ", refactorizations "
                                         << allMax(static_cast<double>(c.schur.refactorizations)));
  if (worldSize() == 2) BOOST_TEST(c.schur.repivoted_solves > 0, "the path was not taken");
}

// The rows moved to the interface are found among each block's last pivots on the chain, so the
// analysis that follows keeps the blocks' orders (those rows dropped) instead of ordering them
// anew: one ordering per rank over the whole statics, with the same equilibrium as above.
BOOST_AUTO_TEST_CASE(schur_statics_orders_each_block_once) {
  SaddlePointSolverOptions linear;
  linear.method = SaddlePointSolverOptions::Method::kSchur;
  const StaticsComparison c = compareStatics(400, linear);
  BOOST_TEST(c.q <= 1e-10);
  const double moved = allSum(static_cast<double>(c.schur.moved)),
               orderings = allSum(static_cast<double>(c.schur.orderings));
  if (worldSize() > 1) BOOST_TEST(moved > 0.0, "no pinned block: the test checks nothing");
  BOOST_TEST(orderings == static_cast<double>(worldSize()), "orderings " << orderings);
}

// A middle rank's block faces two neighbours. Ordering the rows next to both last made its
// elimination carry the first side's rows to the end (fill 1.5 times an end rank's per
// unknown, 3.8x the factorization time at 10^5 links on 4 ranks); pivoting only one side's
// last (oneSidedLast) keeps its fill per unknown near the end ranks'.
BOOST_AUTO_TEST_CASE(schur_middle_blocks_fill_as_end_blocks) {
  SaddlePointSolverOptions linear;
  linear.method = SaddlePointSolverOptions::Method::kSchur;
  const StaticsComparison c = compareStatics(400, linear);
  BOOST_TEST(c.q <= 1e-10);
  if (worldSize() < 3) return;  // no middle rank
  const double fill = static_cast<double>(c.schur.factor_nonzeros) /
                      static_cast<double>(std::max<long>(c.schur.interior, 1));
  const double most = allMax(fill), least = -allMax(-fill);
  BOOST_TEST_MESSAGE("nnz(L + U) per interior unknown: " << least << " .. " << most);
  BOOST_TEST(most <= 1.2 * least, "fill per unknown " << least << " .. " << most);
}

// The decomposition needs a structurally symmetric pattern across the ranks; a matrix whose
// row couples to another rank's row that does not couple back is refused on every rank, and
// the message names the solver that takes it (the default of catena statics|modal under mpirun
// is this decomposition).
BOOST_AUTO_TEST_CASE(schur_refuses_an_unsymmetric_pattern_naming_mumps) {
  if (worldSize() < 2) return;
  const PetscInt n = 2, first = n * worldRank();
  Mat K = nullptr;
  CATENA_PETSC(MatCreateAIJ(PETSC_COMM_WORLD, n, n, PETSC_DETERMINE, PETSC_DETERMINE, 2, nullptr, 1,
                            nullptr, &K));
  for (PetscInt i = first; i < first + n; ++i)
    CATENA_PETSC(MatSetValue(K, i, i, 1.0, INSERT_VALUES));
  if (worldRank() == 0)  // row 1 couples to rank 1's row 2; row 2 does not couple back
    CATENA_PETSC(MatSetValue(K, n - 1, n, 0.5, INSERT_VALUES));
  CATENA_PETSC(MatAssemblyBegin(K, MAT_FINAL_ASSEMBLY));
  CATENA_PETSC(MatAssemblyEnd(K, MAT_FINAL_ASSEMBLY));
  const std::string message = factorError("unsym_", K);
  MatDestroy(&K);
  BOOST_TEST(message.find("not structurally symmetric") != std::string::npos, message);
  BOOST_TEST(message.find("--distributed-solver mumps") != std::string::npos, message);
}

// The same inside a rank: with four parts per rank (-PREFIXdd_parts 4, threads' blocks) the
// middle parts face two cuts, and their fill per unknown stays near that of one part per rank.
BOOST_AUTO_TEST_CASE(schur_middle_parts_fill_as_whole_blocks) {
  SaddlePointSolverOptions linear;
  linear.method = SaddlePointSolverOptions::Method::kSchur;
  const ModelPart part = chainPart(800);
  const DistributedModel dm(part);
  DistributedAssembly as(dm);
  StaticsOptions o;
  o.petsc_prefix = "fill_statics_";
  double fill[2] = {0.0, 0.0};
  for (int parts : {1, 4}) {
    PetscOptionsSetValue(nullptr, "-fill_statics_dd_parts", std::to_string(parts).c_str());
    const DistributedStaticsResult d = solveDistributedStatics(as, o, linear);
    BOOST_TEST(d.status.ok(), d.status.message);
    fill[parts == 4] = allSum(static_cast<double>(d.schur.factor_nonzeros)) /
                       allSum(static_cast<double>(d.schur.interior));
  }
  PetscOptionsClearValue(nullptr, "-fill_statics_dd_parts");
  BOOST_TEST_MESSAGE("nnz(L + U) per interior unknown: 1 part " << fill[0] << ", 4 parts "
                                                                << fill[1]);
  BOOST_TEST(fill[1] <= 1.1 * fill[0], "fill per unknown " << fill[0] << " -> " << fill[1]);
}

// The decomposition with two parts per rank (-PREFIXdd_parts 2: each rank's rows in two blocks,
// one thread each) gives the same bits on 1 and 2 OpenMP threads, on any rank count, where
// MUMPS' dynamic scheduling could not (statics_is_bitwise_identical_for_any_thread_count), and
// the serial equilibrium to 1e-10.
BOOST_AUTO_TEST_CASE(schur_statics_with_parts_is_bitwise_identical_for_any_thread_count) {
  const ModelPart part = chainPart(400);
  const DistributedModel dm(part);
  DistributedAssembly as(dm);
  StaticsOptions o;
  o.petsc_prefix = "parts_statics_";
  PetscOptionsSetValue(nullptr, "-parts_statics_dd_parts", "2");
  SaddlePointSolverOptions linear;
  linear.method = SaddlePointSolverOptions::Method::kSchur;
  const int threads = omp_get_max_threads();
  std::vector<std::vector<double>> runs;
  for (int t : {1, 2}) {
    omp_set_num_threads(t);
    const DistributedStaticsResult d = solveDistributedStatics(as, o, linear);
    BOOST_TEST(d.status.ok(), d.status.message);
    BOOST_TEST(d.schur.interface_total > 0);
    std::vector<double> v(d.state.q.data(), d.state.q.data() + d.state.q.size());
    v.insert(v.end(), d.state.lambda.data(), d.state.lambda.data() + d.state.lambda.size());
    runs.push_back(std::move(v));
  }
  omp_set_num_threads(threads);
  PetscOptionsClearValue(nullptr, "-parts_statics_dd_parts");
  BOOST_TEST(allBitwiseEqual(runs[0], runs[1]));
  const Model whole = wholeChain(400);
  const StaticsResult s = solveStatics(whole, buildAssemblyPlan(whole), initialState(whole));
  BOOST_REQUIRE(s.status.ok());
  const VecX q = s.state.q.segment(part.first_body * 7, dm.ownedPositions());
  double dq = 0.0;
  for (Index i = 0; i < q.size(); ++i) dq = std::max(dq, std::abs(runs[0][i] - q(i)));
  BOOST_TEST(allMax(dq) <= 1e-10 * 10.0, "positions differ from serial by " << allMax(dq));
}

// One KKT solver serves the multipliers' estimate and Newton (statics.cpp): after
// forgetAnalysis, a solver that first factored [I C_q^T; C_q 0] factors and solves the tangent's
// system as a new solver: to the same bits with the Schur decomposition and with MUMPS on one
// rank, to round-off with MUMPS on several. Leaving out the entries the plan flags as always
// zero (AssemblyPlan::body_nonzero: a third of a 3D chain's tangent) changes the solution by
// round-off only.
BOOST_AUTO_TEST_CASE(a_solver_that_forgets_its_analysis_solves_as_a_new_one) {
  const ModelPart part = chainPart(40);
  const DistributedModel dm(part);
  DistributedAssembly as(dm);
  const State perturbed = assemblePerturbed(dm, as);
  as.assembleTangent(perturbed.q, 0.0, perturbed.lambda, true);
  const SparseMatrixCSR& A = as.localTangent();
  const SparseMatrixCSR& B = as.localCq();
  SparseMatrixCSR I = A;
  for (int row = 0; row < I.outerSize(); ++row)
    for (SparseMatrixCSR::InnerIterator it(I, row); it; ++it)
      it.valueRef() = it.col() == row && row < dm.ownedVelocities() ? 1.0 : 0.0;
  const VecX g = VecX::Constant(dm.ownedRows(), 1e-3);
  // cond(K) of the scaled system K = [A, 10 B^T; 10 B, 0] (2-norm), from the gathered rows.
  const Index nv = allSum(static_cast<double>(dm.ownedVelocities()));
  const MatX K =
      test::denseKkt(SparseMatrixCSR(gatherRows(as.ownedRowsOfTangent(), nv).sparseView()),
                     SparseMatrixCSR(gatherRows(as.ownedRowsOfCq(), nv).sparseView()), 10.0);
  const VecX sv = Eigen::JacobiSVD<MatX>(K).singularValues();
  const double condition = sv(0) / sv(sv.size() - 1);
  const std::vector<std::uint8_t>& flags = as.plan().body_nonzero;
  long flagged_zero = std::count(flags.begin(), flags.end(), std::uint8_t{0});
  BOOST_TEST(allMax(static_cast<double>(flagged_zero)) > 0.0);
  for (auto method :
       {SaddlePointSolverOptions::Method::kDirect, SaddlePointSolverOptions::Method::kSchur}) {
    SaddlePointSolverOptions o;
    o.method = method;
    const auto solveTangent = [&](KktSolver& kkt, VecX& x, VecX& y) {
      Status st = kkt.factor(A, B, 10.0, 1.0);
      if (st.ok()) st = kkt.solve(as.f(), g, x, y);
      BOOST_TEST(allMax(st.ok() ? 0.0 : 1.0) == 0.0, st.message);
    };
    VecX x_used, y_used, x_new, y_new, x_all, y_all, lsq;
    {
      DistributedSaddlePoint used(dm, A, B, "", o, flags);
      BOOST_TEST(allMax(used.leastSquaresMultipliers(I, B, as.f(), lsq).ok() ? 0.0 : 1.0) == 0.0);
      used.forgetAnalysis();
      solveTangent(used, x_used, y_used);
    }
    {
      DistributedSaddlePoint fresh(dm, A, B, "", o, flags);
      solveTangent(fresh, x_new, y_new);
    }
    {
      DistributedSaddlePoint all_entries(dm, A, B, "", o);
      solveTangent(all_entries, x_all, y_all);
    }
    const auto bits = [](const VecX& x, const VecX& y) {
      std::vector<double> v(x.data(), x.data() + x.size());
      v.insert(v.end(), y.data(), y.data() + y.size());
      return v;
    };
    // Two backward-stable solves of one system differ by at most about cond(K) eps (relative).
    const auto difference = [](const VecX& xa, const VecX& ya, const VecX& xb, const VecX& yb) {
      return std::max(allMax((xa - xb).cwiseAbs().maxCoeff()),
                      allMax((ya - yb).cwiseAbs().maxCoeff() * 10.0));
    };
    const double size =
        allMax(std::max(x_all.cwiseAbs().maxCoeff(), y_all.cwiseAbs().maxCoeff() * 10.0));
    const double bound = 10.0 * condition * std::numeric_limits<double>::epsilon();
    // The same bits where the solver is deterministic: the decomposition, and MUMPS on one rank.
    // On several, MUMPS assembles its fronts in the order its messages arrive (docs/scaling.md).
    if (method == SaddlePointSolverOptions::Method::kSchur || worldSize() == 1)
      BOOST_TEST(allBitwiseEqual(bits(x_used, y_used), bits(x_new, y_new)),
                 "method " << static_cast<int>(method));
    else
      BOOST_TEST(difference(x_used, y_used, x_new, y_new) <= bound * size);
    const double change = difference(x_new, y_new, x_all, y_all);
    if (worldRank() == 0)
      BOOST_TEST_MESSAGE(worldSize() << " ranks, method " << static_cast<int>(method)
                                     << ": always-zero entries left out changed the solution by "
                                     << change / size << " of its size (bound " << bound
                                     << ", cond(K) " << condition << ")");
    BOOST_TEST(change <= bound * size);
  }
}

// An iterative solve that runs out of iterations stops the statics with a status that says
// which solve, why and after how many iterations, and returns the state it had.
BOOST_AUTO_TEST_CASE(iterative_statics_out_of_iterations_says_so) {
  const ModelPart part = chainPart(400);
  const DistributedModel dm(part);
  DistributedAssembly as(dm);
  SaddlePointSolverOptions linear = augmentedLagrangian();
  linear.max_iterations = 2;
  const DistributedStaticsResult d = solveDistributedStatics(as, {}, linear);
  BOOST_TEST(!d.status.ok());
  BOOST_TEST((d.status.code == Status::Code::kNotConverged));
  const std::string& why = d.status.message;
  BOOST_TEST(why.find("least-squares estimate of the multipliers") != std::string::npos, why);
  BOOST_TEST(why.find("DIVERGED_ITS after 2 Krylov iterations") != std::string::npos, why);
  BOOST_TEST(d.state.q.size() == dm.local().nq);
  BOOST_TEST(d.state.q.allFinite());
}

// Within a rank the whole statics is bitwise identical for 1 and 2 OpenMP threads (the
// assembly's parallel regions start at 4 ranks too: 512 joints per rank). On one rank the
// solution is compared bit for bit. On several, MUMPS assigns the work of its parallel fronts by
// the load it measures at run time, so two runs may differ in the last bits whatever the thread
// count (seen at 4 oversubscribed ranks): there the solution is compared to round-off with
// MUMPS, and bit for bit with a KLU of the gathered matrix on every rank (useRedundantKlu).
BOOST_AUTO_TEST_CASE(statics_is_bitwise_identical_for_any_thread_count) {
  const ModelPart part = chainPart(2048);
  const DistributedModel dm(part);
  DistributedAssembly as(dm);
  const int threads = omp_get_max_threads();
  auto solve = [&](const StaticsOptions& o) {
    std::vector<std::vector<double>> runs;
    for (int t : {1, 2}) {
      omp_set_num_threads(t);
      const DistributedStaticsResult d = solveDistributedStatics(as, o);
      BOOST_TEST(d.status.ok(), d.status.message);
      BOOST_TEST(d.linear_solver == (o.petsc_prefix == "statics_" ? "mumps" : "redundant klu"));
      std::vector<double> v(d.state.q.data(), d.state.q.data() + d.state.q.size());
      v.insert(v.end(), d.state.lambda.data(), d.state.lambda.data() + d.state.lambda.size());
      runs.push_back(std::move(v));
    }
    omp_set_num_threads(threads);
    return runs;
  };
  const std::vector<std::vector<double>> runs = solve({});
  if (worldSize() == 1) {
    BOOST_TEST(allBitwiseEqual(runs[0], runs[1]));
  } else {
    // PCREDUNDANT gathers the MatMPIAIJ into a sequential matrix, which KLU takes (on one rank
    // it would hand KLU the MatMPIAIJ itself).
    StaticsOptions o;
    o.petsc_prefix = "bitwise_statics_";
    useRedundantKlu(o.petsc_prefix);
    const std::vector<std::vector<double>> klu = solve(o);
    BOOST_TEST(allBitwiseEqual(klu[0], klu[1]));
    BOOST_REQUIRE(runs[0].size() == runs[1].size());
    double diff = 0.0, scale = 0.0;
    for (std::size_t i = 0; i < runs[0].size(); ++i) {
      diff = std::max(diff, std::abs(runs[0][i] - runs[1][i]));
      scale = std::max(scale, std::abs(runs[0][i]));
    }
    BOOST_TEST(allMax(diff) <= 1e-12 * allMax(scale));
  }
}

// Issue 26: a distributed statics that does not converge says so, with its residuals, on every
// rank alike, and returns the state it had.
BOOST_AUTO_TEST_CASE(statics_that_does_not_converge_says_so_on_every_rank) {
  const ModelPart part = chainPart(40);
  const DistributedModel dm(part);
  DistributedAssembly as(dm);
  StaticsOptions o;
  o.max_iterations = 2;
  const DistributedStaticsResult d = solveDistributedStatics(as, o);
  BOOST_TEST(!d.status.ok());
  BOOST_TEST((d.status.code == Status::Code::kNotConverged));
  const std::string& why = d.status.message;
  BOOST_TEST(why.find("did not converge in 2 iterations") != std::string::npos, why);
  BOOST_TEST(why.find("force residual") != std::string::npos, why);
  BOOST_TEST(d.history.size() == 3u);
  BOOST_TEST(d.state.q.allFinite());
  double sum = 0.0;
  for (const char c : why) sum += static_cast<unsigned char>(c);
  BOOST_TEST(allMax(sum) == -allMax(-sum));
}

namespace {

/// The same text on every rank (a sum of its characters, compared over the ranks).
bool sameOnEveryRank(const std::string& text) {
  double sum = static_cast<double>(text.size());
  for (const char c : text) sum = 31.0 * std::fmod(sum, 1e9) + static_cast<unsigned char>(c);
  return allMax(sum) == -allMax(-sum);
}

/// The value after ": " of a worst-row text ("joint 'name' row x: value").
double rowValue(const std::string& text) {
  return std::stod(text.substr(text.rfind(": ") + 2));
}

}  // namespace

// Issue 27: one statics for one rank and many, so the distributed run reports what the serial
// one does. A run stopped after 2 iterations names its worst rows, the same on every rank and
// with the serial run's values (to round-off: the iterates agree to round-off).
BOOST_AUTO_TEST_CASE(distributed_statics_reports_the_worst_rows_as_serial) {
  const int N = 40;
  const ModelPart part = chainPart(N);
  const DistributedModel dm(part);
  DistributedAssembly as(dm);
  StaticsOptions o;
  o.max_iterations = 2;
  const DistributedStaticsResult d = solveDistributedStatics(as, o);
  const Model whole = wholeChain(N);
  const StaticsResult s = solveStatics(whole, buildAssemblyPlan(whole), initialState(whole), o);
  BOOST_TEST(!d.status.ok());
  BOOST_TEST(!s.status.ok());
  BOOST_TEST(d.history.size() == s.history.size());
  BOOST_REQUIRE(d.worst_rows.size() == 5u);
  BOOST_REQUIRE(s.worst_rows.size() == 5u);
  std::string all;
  for (std::size_t k = 0; k < 5; ++k) {
    all += d.worst_rows[k] + "\n";
    BOOST_TEST(d.worst_rows[k].find("joint '") == 0u, d.worst_rows[k]);
    const double a = std::abs(rowValue(d.worst_rows[k])), b = std::abs(rowValue(s.worst_rows[k]));
    BOOST_TEST(std::abs(a - b) <= 1e-9 * std::abs(b), d.worst_rows[k] << " vs " << s.worst_rows[k]);
  }
  BOOST_TEST(sameOnEveryRank(all), all);
}

// Without K_c a chain has no stiffness along its free motions: the distributed run fails as the
// serial one does, with the hint that K_c is off, on every rank alike.
BOOST_AUTO_TEST_CASE(distributed_statics_without_kc_says_why_it_is_singular) {
  const ModelPart part = chainPart(40);
  const DistributedModel dm(part);
  DistributedAssembly as(dm);
  StaticsOptions o;
  o.constraint_stiffness = false;
  const DistributedStaticsResult d = solveDistributedStatics(as, o);
  BOOST_TEST(!d.status.ok());
  BOOST_TEST((d.status.code == Status::Code::kSingular), d.status.message);
  BOOST_TEST(d.status.message.find("K_c is switched off") != std::string::npos, d.status.message);
  BOOST_TEST(sameOnEveryRank(d.status.message), d.status.message);
  BOOST_TEST(d.worst_rows.size() == 5u);
}

// The distributed statics starts from any state of the local model, not only the generator's:
// from the serial equilibrium it is converged at once (no Newton step), and from a state a few
// centimetres off it comes back to the same equilibrium.
BOOST_AUTO_TEST_CASE(distributed_statics_starts_from_a_given_state) {
  const int N = 40;
  const Model whole = wholeChain(N);
  const StaticsResult s = solveStatics(whole, buildAssemblyPlan(whole), initialState(whole));
  BOOST_REQUIRE(s.status.ok());
  const ModelPart part = chainPart(N);
  const DistributedModel dm(part);
  DistributedAssembly as(dm);
  const Model& local = dm.local();
  State start = initialState(local);
  for (Index b = 0; b < part.owned_bodies; ++b)
    start.q.segment(local.qOffset(b), 7) = s.state.q.segment(whole.qOffset(part.globalBody(b)), 7);
  const DistributedStaticsResult at = solveDistributedStatics(as, start);
  BOOST_TEST(at.status.ok(), at.status.message);
  BOOST_TEST(at.history.size() == 1u);
  for (Index b = 0; b < part.owned_bodies; ++b)
    perturbBody(part.globalBody(b), start.q.data() + local.qOffset(b));
  const DistributedStaticsResult off = solveDistributedStatics(as, start);
  BOOST_TEST(off.status.ok(), off.status.message);
  BOOST_TEST(off.history.size() > 2u);
  double diff = 0.0;
  for (Index b = 0; b < part.owned_bodies; ++b)
    diff = std::max(diff, (off.state.q.segment(local.qOffset(b), 3) -
                           s.state.q.segment(whole.qOffset(part.globalBody(b)), 3))
                              .cwiseAbs()
                              .maxCoeff());
  BOOST_TEST(allMax(diff) <= 1e-8, "positions differ by " << allMax(diff) << " m");
}
