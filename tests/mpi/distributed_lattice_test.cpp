#define BOOST_TEST_MODULE distributed_lattice
// The distributed four-bar lattice (graph partition by PT-Scotch, parallel/lattice_part.hpp)
// against the serial catena and against closed forms. Runs under mpiexec with 1, 2 and 4 ranks
// (tests/mpi.cmake); every rank builds its part and, for the comparison only, the whole
// lattice, and compares the bodies and joints it owns by name (a graph partition renumbers the
// bodies, so indices differ from the serial model's).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "analysis/energy.hpp"
#include "analysis/reactions.hpp"
#include "assembly/assemble.hpp"
#include "integrators/distributed_dynamics.hpp"
#include "integrators/ida_dynamics.hpp"
#include "modal/distributed_modal.hpp"
#include "modal/modal.hpp"
#include "model/state.hpp"
#include "mpi_support.hpp"
#include "parallel/lattice_part.hpp"
#include "petsc_fixture.hpp"
#include "solvers/redundant_klu.hpp"
#include "statics/distributed_statics.hpp"
#include "statics/statics.hpp"

using namespace catena;
using namespace catena::test;

// The parts tile the lattice: every body is owned by exactly one rank, with its global index
// in that rank's contiguous range, and is identical (mass, inertia, initial state) to the same
// body of the whole lattice; ghosts are bodies of other ranks; every joint is held once.
BOOST_AUTO_TEST_CASE(parts_tile_the_lattice) {
  const FourBarLatticeOptions o = leaningFourBarLattice(5, 7, 0.5);
  const DistributedLatticePart d = buildDistributedFourBarLattice(o);
  const ModelPart& part = d.part;
  const Model whole = buildFourBarLattice(o);
  const DistributedModel dm(part);  // checks contiguity and joint ownership with MPI
  std::vector<double> owner(whole.bodies.size(), 0.0), sum(whole.bodies.size());
  double mismatch = 0.0;
  for (Index b = 0; b < static_cast<Index>(part.model.bodies.size()); ++b) {
    const Body& mine = part.model.bodies[b];
    const Index w = whole.findBody(mine.name);
    BOOST_REQUIRE(w >= 0);
    const Body& ref = whole.bodies[w];
    const bool same = mine.mass == ref.mass && mine.inertia == ref.inertia &&
                      mine.position == ref.position && mine.velocity == ref.velocity &&
                      mine.orientation.coeffs() == ref.orientation.coeffs() &&
                      mine.angular_velocity == ref.angular_velocity;
    if (!same) mismatch = 1.0;
    if (b < part.owned_bodies) owner[w] += 1.0;
  }
  MPI_Allreduce(owner.data(), sum.data(), static_cast<int>(sum.size()), MPI_DOUBLE, MPI_SUM,
                MPI_COMM_WORLD);
  BOOST_TEST(allMax(mismatch) == 0.0);
  BOOST_TEST(*std::min_element(sum.begin(), sum.end()) == 1.0);
  BOOST_TEST(*std::max_element(sum.begin(), sum.end()) == 1.0);
  BOOST_TEST(allSum(static_cast<double>(part.model.joints.size())) ==
             static_cast<double>(whole.joints.size()));
  BOOST_TEST(allSum(static_cast<double>(part.model.nc)) == static_cast<double>(whole.nc));
  // The partitioner is PT-Scotch on several ranks; the ghosts it leaves are a small share.
  const double ghosts = allSum(static_cast<double>(part.ghost_bodies.size()));
  if (worldRank() == 0)
    BOOST_TEST_MESSAGE(worldSize() << " ranks: " << d.partitioner << ", " << ghosts
                                   << " ghost bodies of " << whole.bodies.size());
  BOOST_TEST((worldSize() == 1 ? d.partitioner == "none" : d.partitioner == "ptscotch"));
  BOOST_TEST(ghosts <= 0.25 * static_cast<double>(whole.bodies.size()));
}

namespace {

struct Solved {
  FourBarLatticeOptions options;
  DistributedLatticePart d;
  std::unique_ptr<DistributedModel> dm;
  std::unique_ptr<DistributedAssembly> as;
  DistributedStaticsResult statics;
  Model whole;
  StaticsResult serial;
};

/// The distributed and the serial statics of the same lattice.
std::unique_ptr<Solved> solveBoth(int L, int K, const SaddlePointSolverOptions& linear = {}) {
  auto s = std::make_unique<Solved>();
  // From 0.5 rad Newton, serial or distributed, found the 6-level lattice's equilibrium but not
  // the 24-level one's until a step's rotation was capped (StaticsOptions::max_rotation_step).
  s->options = leaningFourBarLattice(L, K, 0.5);
  s->d = buildDistributedFourBarLattice(s->options);
  s->dm = std::make_unique<DistributedModel>(s->d.part);
  s->as = std::make_unique<DistributedAssembly>(*s->dm);
  s->statics = solveDistributedStatics(*s->as, {}, linear);
  s->whole = buildFourBarLattice(s->options);
  s->serial = solveStatics(s->whole, buildAssemblyPlan(s->whole), initialState(s->whole));
  return s;
}

/// The distributed equilibrium equals the serial one (KLU) to 1e-10, body by body and joint by
/// joint (matched by name), and is the closed-form hanging lattice: every crank straight down
/// (angle -pi/2), every level h below the last, the ground hinges carrying the whole weight.
void checkStatics(const SaddlePointSolverOptions& linear, int L = 6) {
  const int K = 8;
  const auto s = solveBoth(L, K, linear);
  BOOST_REQUIRE_MESSAGE(s->statics.status.ok(), s->statics.status.message);
  BOOST_REQUIRE_MESSAGE(s->serial.status.ok(), s->serial.status.message);
  const Model& m = s->d.part.model;
  const Model& w = s->whole;
  const VecX &q = s->statics.state.q, &qs = s->serial.state.q;
  double dq = 0.0, dlambda = 0.0, hang = 0.0, lambda_scale = 0.0;
  for (Index b = 0; b < s->d.part.owned_bodies; ++b) {
    const Index k = w.findBody(m.bodies[b].name);
    dq = std::max(dq, (q.segment(b * m.nq_body, m.nq_body) - qs.segment(k * w.nq_body, w.nq_body))
                          .cwiseAbs()
                          .maxCoeff());
    if (m.bodies[b].name.starts_with("crank_")) {  // 2D q: x, y, theta
      const double theta = q(b * m.nq_body + 2);
      hang = std::max(
          hang, std::abs(std::remainder(theta + 0.5 * std::numbers::pi, 2.0 * std::numbers::pi)));
    }
  }
  std::unordered_map<std::string, Index> joint;
  for (Index j = 0; j < static_cast<Index>(w.joints.size()); ++j) joint[w.joints[j].name] = j;
  const VecX& ls = s->serial.state.lambda;
  lambda_scale = ls.cwiseAbs().maxCoeff();
  double vertical = 0.0;
  const std::vector<JointReaction> R =
      computeJointReactions(m, s->as->plan(), q, 0.0, s->statics.state.lambda);
  for (Index j = 0; j < static_cast<Index>(m.joints.size()); ++j) {
    const Index k = joint.at(m.joints[j].name);
    for (Index r = 0; r < m.joint_row_offset[j + 1] - m.joint_row_offset[j]; ++r)
      dlambda = std::max(dlambda, std::abs(s->statics.state.lambda(m.joint_row_offset[j] + r) -
                                           ls(w.joint_row_offset[k] + r)));
    if (m.markers[m.joints[j].marker2].body == kGround) vertical += R[j].force_world.y();
  }
  double mass = 0.0;
  for (const Body& b : w.bodies) mass += b.mass;
  const double weight = 9.81 * mass;
  const double weight_residual = std::abs(allSum(vertical) - weight) / weight;
  // The lowest markers are the ends of the top level's couplers, L h below the ground hinges.
  const double lowest = lowestMarkerHeight(*s->dm, q);
  const double drop = std::abs(lowest + L * s->options.crank_length);
  dq = allMax(dq);
  dlambda = allMax(dlambda) / lambda_scale;
  hang = allMax(hang);
  if (worldRank() == 0)
    BOOST_TEST_MESSAGE(worldSize()
                       << " ranks, " << L << " x " << K
                       << " lattice: " << s->statics.history.size() - 1 << " Newton iterations ("
                       << s->serial.history.size() - 1 << " serial), " << s->statics.linear_solver
                       << " (" << s->statics.krylov_iterations << " Krylov iterations)"
                       << "; differences from serial: q " << dq << " m or rad, lambda " << dlambda
                       << " (relative); cranks off vertical " << hang << " rad; lowest point "
                       << lowest << " m; weight residual " << weight_residual);
  BOOST_TEST(dq <= 1e-10);
  BOOST_TEST(dlambda <= 1e-10);
  BOOST_TEST(hang <= 1e-10);
  BOOST_TEST(drop <= 1e-10);
  BOOST_TEST(weight_residual <= 1e-12);
}

}  // namespace

BOOST_AUTO_TEST_CASE(statics_equals_the_serial_statics_and_the_hanging_lattice) {
  checkStatics({});
}

// 24 levels from the same lean: the distributed Newton caps a step's rotation as the serial one
// does (statics_test, leaning_lattice_reaches_hanging).
BOOST_AUTO_TEST_CASE(leaning_24_level_lattice_equals_the_serial_statics_and_hangs) {
  checkStatics({}, 24);
}

// The same with the iterative saddle-point solver (augmented Lagrangian, no global factor).
BOOST_AUTO_TEST_CASE(iterative_statics_equals_the_serial_statics_and_the_hanging_lattice) {
  SaddlePointSolverOptions linear;
  linear.method = SaddlePointSolverOptions::Method::kAugmentedLagrangian;
  checkStatics(linear);
}

// The same with the Schur-complement domain decomposition over PT-Scotch's parts: the lattice's
// interfaces are whole rows of cells, and pinned cells next to them leave interior blocks
// singular, whose unknowns join the interface.
BOOST_AUTO_TEST_CASE(schur_statics_equals_the_serial_statics_and_the_hanging_lattice) {
  SaddlePointSolverOptions linear;
  linear.method = SaddlePointSolverOptions::Method::kSchur;
  checkStatics(linear);
  checkStatics(linear, 24);
}

// The lowest modes of the distributed lattice at its equilibrium equal the closed-form
// frequencies of the hanging lattice (hangingFourBarLatticeFrequencies: the L x L Lagrange
// equations in the levels' angles) and the serial modal analysis, to 1e-9 relative (SLEPc's
// tolerance 1e-10 on mu = omega^2, condition number near 1 for this symmetric pencil; the
// closed form is exact up to round-off).
namespace {

void checkModes(bool schur) {
  const int L = 6, K = 8, count = 4;
  const auto s = solveBoth(L, K);
  BOOST_REQUIRE_MESSAGE(s->statics.status.ok(), s->statics.status.message);
  ModalOptions mo;
  mo.modes = count;
  mo.schur_decomposition = schur;
  const DistributedModalResult dr =
      solveDistributedModal(*s->as, s->statics.state.q, s->statics.state.lambda, mo);
  BOOST_REQUIRE_MESSAGE(dr.status.ok(), dr.status.message);
  BOOST_REQUIRE_EQUAL(static_cast<int>(dr.modes.size()), count);
  const ModalResult sr = solveModal(s->whole, buildAssemblyPlan(s->whole), s->serial.state, mo);
  BOOST_REQUIRE_MESSAGE(sr.status.ok(), sr.status.message);
  const std::vector<double> exact = hangingFourBarLatticeFrequencies(s->options, 9.81, count);
  std::vector<double> f;
  for (const DistributedMode& mode : dr.modes) f.push_back(mode.frequency_hz);
  std::sort(f.begin(), f.end());
  double vs_exact = 0.0, vs_serial = 0.0;
  std::ostringstream os;
  os.precision(12);
  for (int i = 0; i < count; ++i) {
    vs_exact = std::max(vs_exact, std::abs(f[i] - exact[i]) / exact[i]);
    vs_serial = std::max(vs_serial, std::abs(f[i] - sr.modes[i].frequency_hz) / exact[i]);
    os << " " << f[i] << " (" << exact[i] << ")";
  }
  if (worldRank() == 0)
    BOOST_TEST_MESSAGE(worldSize() << " ranks: " << dr.method << ", frequencies [Hz] (closed form):"
                                   << os.str() << "; relative differences: closed form " << vs_exact
                                   << ", serial " << vs_serial);
  BOOST_TEST(allMax(vs_exact) <= 1e-9);
  BOOST_TEST(allMax(vs_serial) <= 1e-9);
  // n_v - rank(C_q) without C_q on one rank (distributedDegreesOfFreedom): the serial count,
  // through the lattice's redundant loop rows on every rank and across the cuts.
  BOOST_TEST(dr.dof == sr.dof, "distributed " << dr.dof << ", serial " << sr.dof);
  BOOST_TEST(allMax(static_cast<double>(dr.dof)) == -allMax(-static_cast<double>(dr.dof)));
}

}  // namespace

BOOST_AUTO_TEST_CASE(modes_equal_the_hanging_lattice_closed_form) {
  checkModes(false);
}

// The same with the shift-and-invert through the Schur-complement domain decomposition.
BOOST_AUTO_TEST_CASE(schur_modes_equal_the_hanging_lattice_closed_form) {
  checkModes(true);
}

// Within a rank the lattice's statics is bitwise identical for 1 and 2 OpenMP threads: on one
// rank with MUMPS, on several with a KLU of the gathered matrix on every rank (useRedundantKlu;
// MUMPS' dynamic scheduling of fronts may flip last bits there, see distributed_chain_test, so
// it is compared to round-off).
BOOST_AUTO_TEST_CASE(statics_is_bitwise_identical_for_any_thread_count) {
  const FourBarLatticeOptions o = leaningFourBarLattice(24, 24, 0.05);
  const DistributedLatticePart d = buildDistributedFourBarLattice(o);
  const DistributedModel dm(d.part);
  DistributedAssembly as(dm);
  const int threads = omp_get_max_threads();
  auto difference = [&](const StaticsOptions& options) {
    std::vector<VecX> runs;
    for (int t : {1, 2}) {
      omp_set_num_threads(t);
      const DistributedStaticsResult r = solveDistributedStatics(as, options);
      BOOST_TEST(r.status.ok(), r.status.message);
      VecX v(r.state.q.size() + r.state.lambda.size());
      v << r.state.q, r.state.lambda;
      runs.push_back(v);
    }
    omp_set_num_threads(threads);
    return std::pair{allMax((runs[0] - runs[1]).cwiseAbs().maxCoeff()),
                     allMax(runs[0].cwiseAbs().maxCoeff())};
  };
  const auto [diff, scale] = difference({});
  if (worldSize() == 1) {
    BOOST_TEST(diff == 0.0);
  } else {
    BOOST_TEST(diff <= 1e-12 * scale);
    StaticsOptions klu;
    klu.petsc_prefix = "bitwise_statics_";
    useRedundantKlu(klu.petsc_prefix);
    BOOST_TEST(difference(klu).first == 0.0);
  }
}

namespace {

double maxDifference(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0.0;
  for (std::size_t k = 0; k < a.size(); ++k) d = std::max(d, std::abs(a[k] - b[k]));
  return d;
}

}  // namespace

// The lattice released at rest a little off hanging (levels lean by up to 0.01 rad, a mix of
// modes), by the distributed IDA on 1, 2 and 4 ranks, for 1 s: it takes the serial IDA's steps
// and its levels' angles equal the serial ones to round-off; they follow the closed-form small
// oscillations (hangingFourBarLatticeSmallMotion) to their O(theta^3) error; energy holds.
// Bounds: the same step count, and angles within 1e-11 rad of the serial run (measured
// 9e-14 on 1 rank, 1.1e-13 .. 6.1e-13 on 2 and 4 in ten hand-run loops each: MUMPS' round-off
// varies from run to run). Runs whose step sequences part, as the released chain's do
// (distributed_dynamics_test.cpp), differ by their integration errors instead (there 2e-10 ..
// 3e-9 of the span) and by their step counts. The linear theory is off by 3.0e-6 rad here
// (O(theta^3): tests/verification/lattice_release_test.cpp): 1e-3 of the amplitude (9.6e-6
// rad) allowed.
BOOST_AUTO_TEST_CASE(released_lattice_equals_the_serial_run_and_the_small_oscillations) {
  const int L = 6, K = 8;
  const FourBarLatticeOptions o = leaningFourBarLattice(L, K, 0.01);
  const DistributedLatticePart d = buildDistributedFourBarLattice(o);
  const DistributedModel dm(d.part);
  const DistributedAssembly as(dm);
  IdaOptions io;
  io.t_end = 1.0;
  io.rtol = 1e-8;
  io.atol = 1e-10;
  io.assemble_initial_state = false;  // the leaning lattice is assembled
  double e0 = 0.0, kmax = 0.0, drift = 0.0;
  bool first = true;
  const DistributedDynamicsResult r =
      integrateDistributedIda(as, initialState(d.part.model), io, [&](const State& s) {
        const Energy e = distributedEnergy(as, s);
        if (first) e0 = e.total();
        first = false;
        kmax = std::max(kmax, e.kinetic);
        drift = std::max(drift, std::abs(e.total() - e0));
        return true;
      });
  BOOST_REQUIRE_MESSAGE(r.status.ok(), r.status.message);
  const Model& m = d.part.model;
  std::vector<double> theta = fourBarLatticeLevelAngles(m, r.state.q, d.part.owned_bodies, L);
  for (double& x : theta) x = allSum(x);

  // The serial run of the whole lattice (every rank: it is small).
  const Model w = buildFourBarLattice(o);
  const DynamicsResult sr = integrateIda(w, buildAssemblyPlan(w), initialState(w), io, {});
  BOOST_REQUIRE_MESSAGE(sr.status.ok(), sr.status.message);
  const std::vector<double> serial =
      fourBarLatticeLevelAngles(w, sr.state.q, static_cast<Index>(w.bodies.size()), L);

  const std::vector<double> theta0 = fourBarLatticeInitialAngles(o);
  const std::vector<double> linear = hangingFourBarLatticeSmallMotion(o, 9.81, theta0, io.t_end);
  double amplitude = 0.0;
  for (double x : theta0) amplitude = std::max(amplitude, std::abs(x));
  const double vs_serial = maxDifference(theta, serial), vs_linear = maxDifference(theta, linear);
  if (worldRank() == 0)
    BOOST_TEST_MESSAGE(worldSize()
                       << " ranks, " << L << " x " << K << " lattice released, " << r.method << ": "
                       << r.stats.steps << " steps (serial " << sr.stats.steps
                       << "); level angles off serial by " << vs_serial
                       << " rad, off the linear theory by " << vs_linear << " rad; energy drift "
                       << drift / kmax << " of the largest kinetic energy");
  BOOST_TEST(r.stats.steps == sr.stats.steps);
  BOOST_TEST(vs_serial <= 1e-11);
  BOOST_TEST(vs_linear <= 1e-3 * amplitude);
  // No damping: E = T + V holds to the integration error (BDF damps a little; measured 5.2e-7
  // of the largest kinetic energy), 100 rtol allowed, as for the chain
  // (distributed_dynamics_test.cpp).
  BOOST_TEST(drift <= 1e-6 * kmax, "energy drift " << drift << " J, largest kinetic " << kmax);
  // It moves: the top level has swung by a good part of the amplitude.
  BOOST_TEST(std::abs(theta[L - 1] - theta0[L - 1]) > 0.1 * amplitude);
}
