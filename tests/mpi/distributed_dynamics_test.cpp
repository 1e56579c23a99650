#define BOOST_TEST_MODULE distributed_dynamics
// The distributed IDA dynamics (integrators/distributed_dynamics.hpp, docs/parallel.md) of the
// catenary chain against the serial integrateIda (integrators/ida_dynamics.hpp), under mpiexec with
// 1, 2 and 4 ranks (tests/mpi.cmake). Every rank integrates its part; rank 0 alone runs the
// serial reference on the whole chain and broadcasts its check values. Every check is reduced
// over the ranks first, so all ranks pass or fail together.
//
// Why the bounds: both runs integrate the same DAE with the same options and the same start, but
// not with the same round-off. IDA's weighted norms are sums over the unknowns that the parallel
// N_Vector reduces rank by rank, the distributed residual adds a ghost body's joint terms to its
// owner's after its own, and MUMPS pivots differently from KLU. While the step sequences agree,
// the runs differ by round-off amplified by the Newton iterations; once a norm close to a
// threshold falls on the other side (the first step sizes already differ in the 15th digit),
// the step sequences part, and from then on the runs differ by their integration errors, and
// the step counts by up to 10 % (535 to 608 steps against the serial 553 for the release, 348
// to 385 against 348 for the swing). So the bound is the integration error of either run: at
// rtol 1e-8 the released chain's midpoint is 8.4e-10 of the span off a run at rtol 1e-11 (its
// reactions 3.3e-8 of the weight), and the distributed runs are 2.5e-10 to 3.2e-9 of the span
// off the serial one. The tests allow 1e-7 of the span (10 rtol) in positions and 15 % in step
// counts. The multipliers are index-2 variables, out of the error test, and their Newton
// corrections are weighed with multiplier_atol = 1e-2 N, about 7e-5 of the chain's weight:
// reactions are allowed 1e-4 of the weight (measured: at most 1.4e-7).
#include <mpi.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <utility>
#include <vector>

#include "analysis/energy.hpp"
#include "analysis/mpi_space.hpp"
#include "analysis/reactions.hpp"
#include "assembly/assemble.hpp"
#include "integrators/branch_watch.hpp"
#include "integrators/distributed_dynamics.hpp"
#include "integrators/ida_dynamics.hpp"
#include "kernels/pose.hpp"
#include "model/generators.hpp"
#include "model/state.hpp"
#include "mpi_support.hpp"
#include "parallel/reproducible_sum.hpp"
#include "petsc_fixture.hpp"
#include "statics/distributed_statics.hpp"
#include "statics/statics.hpp"

using namespace catena;
using namespace catena::test;

namespace {

CatenaryChainOptions chainOptions(int N) {
  CatenaryChainOptions o;
  o.links = N;
  return o;
}

/// The options of every comparison: GGL, rtol 1e-8, PETSc options under -ida_.
IdaOptions options(double t_end) {
  IdaOptions o;
  o.t_end = t_end;
  o.rtol = 1e-8;
  o.atol = 1e-10;
  o.assemble_initial_state = false;  // the 'V' at rest is assembled; the same start for both
  return o;
}

/// The N-link chain distributed over the ranks: this rank's part, and the distributed model and
/// assembly over it (they keep references to the part, so the whole is neither copied nor moved).
struct DistributedChain {
  explicit DistributedChain(int links)
      : part(buildCatenaryChainPart(chainOptions(links), worldRank(), worldSize())),
        dm(part),
        as(dm) {}
  DistributedChain(const DistributedChain&) = delete;
  DistributedChain& operator=(const DistributedChain&) = delete;
  /// integrateDistributedIda from the chain's initial state.
  DistributedDynamicsResult run(const IdaOptions& o) const {
    return integrateDistributedIda(as, initialState(part.model), o);
  }
  const ModelPart part;
  const DistributedModel dm;
  const DistributedAssembly as;
};

/// What is compared: the start of link N/2 (the mid-chain joint point), the support reactions
/// (world frame), the energy drift, IDA's counters.
struct Answer {
  Vec3 midpoint = Vec3::Zero(), reaction_a = Vec3::Zero(), reaction_b = Vec3::Zero();
  double energy_drift = 0.0;  ///< max |E - E0| / max kinetic energy, over the steps
  double kinetic = 0.0;       ///< at t_end, J
  double constraint = 0.0;    ///< max |C| over the steps, m
  long steps = 0, newton = 0;
  bool ok = false;
};

void broadcast(Answer& a) {
  std::vector<double> v = {a.midpoint.x(),   a.midpoint.y(),   a.midpoint.z(),   a.reaction_a.x(),
                           a.reaction_a.y(), a.reaction_a.z(), a.reaction_b.x(), a.reaction_b.y(),
                           a.reaction_b.z(), a.energy_drift,   a.kinetic,        a.constraint,
                           double(a.steps),  double(a.newton), a.ok ? 1.0 : 0.0};
  MPI_Bcast(v.data(), static_cast<int>(v.size()), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  a.midpoint = Vec3(v[0], v[1], v[2]);
  a.reaction_a = Vec3(v[3], v[4], v[5]);
  a.reaction_b = Vec3(v[6], v[7], v[8]);
  a.energy_drift = v[9];
  a.kinetic = v[10];
  a.constraint = v[11];
  a.steps = static_cast<long>(v[12]);
  a.newton = static_cast<long>(v[13]);
  a.ok = v[14] != 0.0;
}

/// The serial run of the whole chain on rank 0 (KLU, the serial default), broadcast.
Answer serialAnswer(int N, const IdaOptions& o) {
  Answer a;
  if (worldRank() == 0) {
    const Model m = buildCatenaryChain(chainOptions(N));
    const AssemblyPlan plan = buildAssemblyPlan(m);
    double e0 = 0.0, kmax = 0.0, drift = 0.0, cmax = 0.0;
    bool first = true;
    VecX C(m.nc);
    const DynamicsResult r = integrateIda(m, plan, initialState(m), o, [&](const State& s) {
      const Energy e = computeEnergy(m, plan, s);
      if (first) e0 = e.total();
      first = false;
      kmax = std::max(kmax, e.kinetic);
      drift = std::max(drift, std::abs(e.total() - e0));
      assembleConstraints(m, plan, s.q, s.t, &C, nullptr);
      cmax = std::max(cmax, C.cwiseAbs().maxCoeff());
      return true;
    });
    a.ok = r.status.ok();
    if (!a.ok) BOOST_TEST_MESSAGE("serial: " << r.status.message);
    a.midpoint = markerPosition(m, r.state.q.data(), m.findMarker(m.bodies[N / 2].name + "/start"));
    const std::vector<JointReaction> R =
        computeJointReactions(m, plan, r.state.q, r.state.t, r.state.lambda);
    a.reaction_a = R.front().force_world;
    a.reaction_b = R.back().force_world;
    a.energy_drift = drift / kmax;
    a.kinetic = computeEnergy(m, plan, r.state).kinetic;
    a.constraint = cmax;
    a.steps = r.stats.steps;
    a.newton = r.stats.newton_iterations;
  }
  broadcast(a);
  return a;
}

/// The start of link `link` at the local state s (summed: only its owner contributes).
Vec3 linkStart(const DistributedModel& dm, const State& s, int link) {
  const ModelPart& part = dm.part();
  const Index local = link - part.first_body;
  Vec3 p = Vec3::Zero();
  if (local >= 0 && local < part.owned_bodies) {
    const Model& m = dm.local();
    p = markerPosition(m, s.q.data(), m.findMarker(m.bodies[local].name + "/start"));
  }
  return allSum(p);
}

/// The distributed run of the chain of N links from `start` (the local 'V' by default).
Answer distributedAnswer(const DistributedAssembly& as, const State& start, const IdaOptions& o,
                         DistributedDynamicsResult* result = nullptr) {
  const DistributedModel& dm = as.distributedModel();
  const int N = static_cast<int>(dm.part().global_bodies);
  double e0 = 0.0, kmax = 0.0, drift = 0.0, cmax = 0.0;
  bool first = true;
  const DistributedDynamicsResult r = integrateDistributedIda(as, start, o, [&](const State& s) {
    const Energy e = distributedEnergy(as, s);
    if (first) e0 = e.total();
    first = false;
    kmax = std::max(kmax, e.kinetic);
    drift = std::max(drift, std::abs(e.total() - e0));
    cmax = std::max(cmax, distributedConstraintDrift(as, s).position);
    return true;
  });
  Answer a;
  a.ok = r.status.ok();
  BOOST_TEST(r.status.ok(), r.status.message);
  a.midpoint = linkStart(dm, r.state, N / 2);
  a.reaction_a = distributedJointReaction(as, r.state.q, r.state.t, r.state.lambda, 0).force_world;
  a.reaction_b = distributedJointReaction(as, r.state.q, r.state.t, r.state.lambda, N).force_world;
  a.energy_drift = drift / kmax;
  a.kinetic = distributedEnergy(as, r.state).kinetic;
  a.constraint = cmax;
  a.steps = r.stats.steps;
  a.newton = r.stats.newton_iterations;
  if (result) *result = r;
  return a;
}

struct Comparison {
  double position = 0.0;  ///< |midpoint difference| / chain span (10 m)
  double reaction = 0.0;  ///< |reaction difference| / chain weight
};

Comparison compare(const Answer& d, const Answer& s, double weight) {
  Comparison c;
  c.position = (d.midpoint - s.midpoint).norm() / 10.0;
  c.reaction =
      std::max((d.reaction_a - s.reaction_a).norm(), (d.reaction_b - s.reaction_b).norm()) / weight;
  return c;
}

/// The fewest and most steps of a serial run (`steps_with(factor)`: its step count with the
/// first step scaled by factor) over the first step 2 % shorter, as is and 2 % longer, as
/// ida_test's kFirstStepFactors. Round-off alone spreads a step count that much: serial KLU,
/// 2026-11-27, the released chain took 531, 596 and 588 steps, and a change of the
/// factorization's pivot order alone moved it from 615 to 531. A distributed run's steps are
/// checked against this range, not against one count.
std::pair<long, long> serialStepRange(const std::function<long(double)>& steps_with) {
  std::pair<long, long> range{steps_with(1.0), 0};
  range.second = range.first;
  for (const double factor : {0.98, 1.02}) {
    const long steps = steps_with(factor);
    range.first = std::min(range.first, steps);
    range.second = std::max(range.second, steps);
  }
  return range;
}

/// Distributed steps within `fraction` of the serial range.
void checkSteps(long distributed, std::pair<long, long> serial, double fraction) {
  BOOST_TEST((distributed >= (1.0 - fraction) * static_cast<double>(serial.first) &&
              distributed <= (1.0 + fraction) * static_cast<double>(serial.second)),
             "steps " << distributed << " distributed, " << serial.first << " to " << serial.second
                      << " serial");
}

double chainWeight() {
  return 9.81 * 2.0 * std::sqrt(61.0);  // 1 kg/m over |AC| + |CB| = 2 sqrt(61) m
}

/// The chain of 40 links released at rest from its 'V', to t = 0.3 s (the corner falls 0.21 m),
/// with the distributed Newton systems solved by `solver`, against the serial run: the answer's
/// bounds of the file's header, step counts within `steps` of the range of the serial run's
/// with its first step perturbed (as ida_test's kFirstStepFactors), energy
/// conserved as well as the serial run does, and |C| <= `constraint` m.
void checkReleasedChain(IdaLinearSolver solver, double steps, double constraint) {
  const int N = 40;
  IdaOptions o = options(0.3);
  o.linear_solver = solver;
  const DistributedChain chain(N);
  DistributedDynamicsResult r;
  const Answer d = distributedAnswer(chain.as, initialState(chain.part.model), o, &r);
  const Answer s = serialAnswer(N, options(0.3));
  BOOST_REQUIRE(d.ok && s.ok);
  const std::pair<long, long> range = serialStepRange([&](double factor) {
    if (factor == 1.0) return s.steps;
    IdaOptions perturbed = options(0.3);
    perturbed.initial_step_factor = factor;
    const Answer p = serialAnswer(N, perturbed);
    BOOST_REQUIRE(p.ok);
    return p.steps;
  });
  const Comparison c = compare(d, s, chainWeight());
  if (worldRank() == 0)
    BOOST_TEST_MESSAGE(worldSize()
                       << " ranks, N = " << N << ", " << r.method << ", " << r.unknowns
                       << " unknowns: " << d.steps << " steps, " << d.newton
                       << " Newton iterations (serial " << s.steps << ", " << s.newton
                       << "); midpoint " << d.midpoint.transpose() << " m; differences from "
                       << "serial: midpoint " << c.position << " of the span, reactions "
                       << c.reaction << " of the weight; energy drift " << d.energy_drift
                       << " (serial " << s.energy_drift << ") of the largest kinetic energy; "
                       << "max |C| " << d.constraint << " m (serial " << s.constraint << ")");
  BOOST_TEST(c.position <= 1e-7, "midpoint differs from serial by " << c.position);
  BOOST_TEST(c.reaction <= 1e-4, "reactions differ from serial by " << c.reaction);
  checkSteps(d.steps, range, steps);
  // Physics: no damping, so E = T + V is conserved up to the integration error (BDF damps a
  // little): 2.3e-8 of the largest kinetic energy at rtol 1e-8 (serial and distributed alike),
  // 100 rtol allowed.
  BOOST_TEST(d.energy_drift <= 1e-6, "energy drift " << d.energy_drift);
  BOOST_TEST(s.energy_drift <= 1e-6, "serial energy drift " << s.energy_drift);
  BOOST_TEST(d.constraint <= constraint, "max |C| " << d.constraint);
  BOOST_TEST(d.kinetic > 10.0, "kinetic energy at t_end " << d.kinetic << " J");
}

/// IDA's Newton tolerance on the position constraints, in m: 0.33 of the weight rtol |q| + atol
/// of the chain's options (|q| ~ 5 m: 1.7e-8 m).
double newtonConstraintBound() {
  const IdaOptions o = options(0.3);
  return 0.33 * (o.rtol * 5.0 + o.atol);
}

}  // namespace

// The released chain with MUMPS on 1, 2 and 4 ranks: the state at t_end equals the serial
// run's within the header's bounds, steps within 15 %; the position constraints hold to IDA's
// Newton tolerance, as below. Measured 4.6e-11 to 6.7e-11 m on 1, 2 and 4 ranks (serial KLU
// 5.4e-11) and 1.36e-10 m on 3 (hand run, 2026-11-29), past the 1e-10 m this test held before:
// where Newton stops is the integrator's business, not the solver's.
BOOST_AUTO_TEST_CASE(released_chain_equals_the_serial_run) {
  checkReleasedChain(IdaLinearSolver::kPetsc, 0.15, newtonConstraintBound());
}

// The same run with the Newton systems solved by the Schur-complement decomposition
// (IdaLinearSolver::kSchur, solvers/schur_decomposition.hpp): the same bounds on the answer
// (positions, reactions, energy) against the serial run. Its step sequence parts from the
// serial one as MUMPS' does, and further: 522-591 steps on 1, 2 and 4 ranks against the serial
// 615 (MUMPS: 548-573), so 25 % is allowed here. The position constraints hold to IDA's Newton
// tolerance, 0.33 of the weight rtol |q| + atol (|q| ~ 5 m: 1.7e-8 m); measured 2e-11 to
// 2.3e-10 m (MUMPS 3e-11, the serial KLU 7e-12: the Newton iterations stop at different
// points, not the solves, whose backward error is refined below 1e-14).
BOOST_AUTO_TEST_CASE(released_chain_by_schur_decomposition_equals_the_serial_run) {
  checkReleasedChain(IdaLinearSolver::kSchur, 0.25, newtonConstraintBound());
}

// The chain at its static equilibrium, swung by gravity turned 30 degrees about the line AB
// (benchmarks/chain_dynamics.cpp, "swing"): distributed statics, then distributed dynamics,
// against serial statics and serial dynamics.
BOOST_AUTO_TEST_CASE(swinging_chain_equals_the_serial_run) {
  const int N = 42;
  const IdaOptions o = options(0.2);
  ModelPart part = buildCatenaryChainPart(chainOptions(N), worldRank(), worldSize());
  State start = initialState(part.model);
  {
    const DistributedModel dm(part);
    DistributedAssembly as(dm);
    const DistributedStaticsResult eq = solveDistributedStatics(as);
    BOOST_REQUIRE(eq.status.ok());
    start.q = eq.state.q;
  }
  const double g = 9.81, turn = M_PI / 6.0;
  const Vec3 side(0.0, g * std::sin(turn), -g * std::cos(turn));
  part.model.gravity = side;
  const DistributedModel dm(part);
  const DistributedAssembly as(dm);
  const Answer d = distributedAnswer(as, start, o);

  const auto serial = [&](double first_step_factor) {
    Answer s;
    if (worldRank() == 0) {
      Model m = buildCatenaryChain(chainOptions(N));
      const AssemblyPlan plan = buildAssemblyPlan(m);
      const StaticsResult eq = solveStatics(m, plan, initialState(m));
      State s0 = eq.state;
      s0.v.setZero();
      m.gravity = side;
      IdaOptions so = o;
      so.initial_step_factor = first_step_factor;
      const DynamicsResult r = integrateIda(m, plan, s0, so, {});
      s.ok = eq.status.ok() && r.status.ok();
      s.midpoint =
          markerPosition(m, r.state.q.data(), m.findMarker(m.bodies[N / 2].name + "/start"));
      const std::vector<JointReaction> R =
          computeJointReactions(m, plan, r.state.q, r.state.t, r.state.lambda);
      s.reaction_a = R.front().force_world;
      s.reaction_b = R.back().force_world;
      s.steps = r.stats.steps;
      s.newton = r.stats.newton_iterations;
    }
    broadcast(s);
    return s;
  };
  const Answer s = serial(1.0);
  const std::pair<long, long> range = serialStepRange([&](double factor) {
    const Answer p = factor == 1.0 ? s : serial(factor);
    BOOST_REQUIRE(p.ok);
    return p.steps;
  });
  BOOST_REQUIRE(d.ok && s.ok);
  const Comparison c = compare(d, s, chainWeight());
  if (worldRank() == 0)
    BOOST_TEST_MESSAGE(worldSize()
                       << " ranks, swing, N = " << N << ": " << d.steps << " steps, " << d.newton
                       << " Newton iterations (serial " << s.steps << ", " << s.newton
                       << "); midpoint " << d.midpoint.transpose()
                       << " m; differences from serial: midpoint " << c.position << ", reactions "
                       << c.reaction << "; energy drift " << d.energy_drift);
  BOOST_TEST(c.position <= 1e-7, "midpoint differs from serial by " << c.position);
  BOOST_TEST(c.reaction <= 1e-4, "reactions differ from serial by " << c.reaction);
  checkSteps(d.steps, range, 0.15);
  BOOST_TEST(d.energy_drift <= 1e-6, "energy drift " << d.energy_drift);
  // It swings: the midpoint leaves the plane of A, B and C (y = 0) towards +y.
  BOOST_TEST(d.midpoint.y() > 0.05, "midpoint " << d.midpoint.transpose());
}

// A long chain starts: with fixed Newton weights on GGL's mu the run failed at t = 0 (the
// serial one from 15000 links at the default multiplier_atol, from 2000 at 1e-5, used here to
// keep the chain small; ida_test, long_chain_starts_in_every_formulation). The weights of mu
// are scaled by h (sundials::ErrorWeights, integrators/sundials/ida.hpp). Bounds as in the file's
// header.
BOOST_AUTO_TEST_CASE(long_chain_starts_as_the_serial_run) {
  const int N = 2000;
  IdaOptions o = options(1e-3);
  o.multiplier_atol = 1e-5;
  const DistributedChain chain(N);
  const Answer d = distributedAnswer(chain.as, initialState(chain.part.model), o);
  const Answer s = serialAnswer(N, o);
  BOOST_REQUIRE(d.ok && s.ok);
  const Comparison c = compare(d, s, chainWeight());
  if (worldRank() == 0)
    BOOST_TEST_MESSAGE(worldSize()
                       << " ranks, N = " << N << ": " << d.steps << " steps (serial " << s.steps
                       << "); midpoint " << c.position << " of the span from the serial run's");
  BOOST_TEST(c.position <= 1e-7, "midpoint differs from serial by " << c.position);
  BOOST_TEST(std::abs(d.steps - s.steps) <= 0.15 * s.steps,
             "steps " << d.steps << " distributed, " << s.steps << " serial");
}

// Within a rank the whole integration is bitwise identical for 1 and 2 OpenMP threads: at least
// 512 links per rank, so that the assembly's parallel regions start (assemble.cpp,
// kParallelItems).
// On one rank the final state is compared bit for bit. On several, MUMPS schedules its parallel
// fronts by the load it measures at run time (distributed_chain_test.cpp), so there the states
// are compared within the bounds of the comparison with the serial run.
BOOST_AUTO_TEST_CASE(dynamics_is_bitwise_identical_for_any_thread_count) {
  const int N = std::max(1024, 512 * worldSize());
  const IdaOptions o = options(3e-4);
  const DistributedChain chain(N);
  const int threads = omp_get_max_threads();
  std::vector<std::vector<double>> runs;
  std::vector<long> steps;
  for (int t : {1, 2}) {
    omp_set_num_threads(t);
    const DistributedDynamicsResult r = chain.run(o);
    BOOST_TEST(r.status.ok(), r.status.message);
    std::vector<double> v(r.state.q.data(), r.state.q.data() + r.state.q.size());
    v.insert(v.end(), r.state.v.data(), r.state.v.data() + r.state.v.size());
    v.insert(v.end(), r.state.lambda.data(), r.state.lambda.data() + r.state.lambda.size());
    runs.push_back(std::move(v));
    steps.push_back(r.stats.steps);
  }
  omp_set_num_threads(threads);
  BOOST_REQUIRE(runs[0].size() == runs[1].size());
  if (worldRank() == 0)
    BOOST_TEST_MESSAGE(worldSize() << " ranks, N = " << N << ": " << steps[0] << " and " << steps[1]
                                   << " steps with 1 and 2 threads");
  if (worldSize() == 1) {
    BOOST_TEST(std::memcmp(runs[0].data(), runs[1].data(), runs[0].size() * sizeof(double)) == 0);
    BOOST_TEST(steps[0] == steps[1]);
  } else {
    // Positions (the first entries) in m and quaternion components, as in the comparison with
    // the serial run.
    double diff = 0.0;
    for (Index i = 0; i < chain.part.model.nq; ++i)
      diff = std::max(diff, std::abs(runs[0][i] - runs[1][i]));
    diff = allMax(diff);
    if (worldRank() == 0) BOOST_TEST_MESSAGE("positions differ by " << diff);
    BOOST_TEST(diff <= 1e-7 * 10.0, "1 and 2 threads: positions differ by " << diff);
  }
}

namespace {

/// The same status on every rank: the code and the message's length and characters summed.
void checkSameStatusOnEveryRank(const Status& s) {
  double sum = 0.0;
  for (const char c : s.message) sum += static_cast<unsigned char>(c);
  const double local[3] = {static_cast<double>(s.code), static_cast<double>(s.message.size()), sum};
  for (const double x : local) BOOST_TEST(allMax(x) == -allMax(-x));
}

}  // namespace

// Issue 26: the distributed failure messages were untested. A run that reaches max_steps stops
// with a status that says so, on every rank alike, with the time reached.
BOOST_AUTO_TEST_CASE(max_steps_stops_with_a_clear_status_on_every_rank) {
  const int N = 40;
  const DistributedChain chain(N);
  IdaOptions o = options(0.3);
  o.max_steps = 5;
  const DistributedDynamicsResult r = chain.run(o);
  BOOST_TEST(!r.status.ok());
  BOOST_TEST(r.status.message.find("max_steps = 5") != std::string::npos, r.status.message);
  BOOST_TEST(r.status.message.find("t = ") != std::string::npos, r.status.message);
  BOOST_TEST(r.stats.steps == 5);
  BOOST_TEST(r.state.t > 0.0);
  BOOST_TEST(r.state.t < 0.3);
  checkSameStatusOnEveryRank(r.status);
  // Issue 27: the worst rows as the serial run reports them, the same on every rank.
  BOOST_TEST(r.worst_rows.size() == 5u);
  std::string rows;
  for (const std::string& w : r.worst_rows) rows += w + "\n";
  BOOST_TEST(rows.find("joint '") == 0u, rows);
  checkSameStatusOnEveryRank(Status::failure(Status::Code::kNotConverged, rows));
}

// An IDA failure (here: a smallest step far above what the motion needs) stops with IDA's
// flag and the time, on every rank alike.
BOOST_AUTO_TEST_CASE(ida_failure_stops_with_a_clear_status_on_every_rank) {
  const int N = 40;
  const DistributedChain chain(N);
  IdaOptions o = options(0.3);
  o.min_step = 0.1;
  o.max_step = 0.1;
  o.initial_step = 0.1;
  const DistributedDynamicsResult r = chain.run(o);
  BOOST_TEST(!r.status.ok());
  BOOST_TEST(r.status.message.find("IDA") != std::string::npos, r.status.message);
  BOOST_TEST(r.status.message.find("t = ") != std::string::npos, r.status.message);
  checkSameStatusOnEveryRank(r.status);
  if (worldRank() == 0) BOOST_TEST_MESSAGE(worldSize() << " ranks: " << r.status.message);
}

// The branch watch of the distributed runs (integrators/branch_watch.hpp, issue 27: every
// diagnostic of the serial run): the velocity of the first ten links, all on rank 0, reverses
// between two outputs of a smooth motion. Every rank's watch sees the jump at the same output,
// as the serial watch of the whole chain does, and names the same interval; without the jump
// no watch says anything.
BOOST_AUTO_TEST_CASE(branch_watch_sees_one_ranks_jump_on_every_rank) {
  const int N = 40, jumping = 10, outputs = 12, jump_at = 6;
  const DistributedChain chain(N);
  const Model& local = chain.dm.local();
  const Model whole = buildCatenaryChain(chainOptions(N));
  BOOST_REQUIRE(chain.part.first_body + chain.part.owned_bodies <= N);
  // Output k of a motion whose speed grows smoothly, the first `jumping` links reversed from
  // output jump_at on if `jump`; body b of `m` is global body global(b).
  auto state = [&](const Model& m, Index bodies, auto global, int k, bool jump) {
    State s = initialState(m);
    s.t = 0.1 * k;
    for (Index b = 0; b < bodies; ++b) {
      const double sign = jump && k >= jump_at && global(b) < jumping ? -1.0 : 1.0;
      for (int c = 0; c < m.nv_body; ++c)
        s.v(m.vOffset(b) + c) = sign * (0.1 + s.t) * (0.05 + 0.01 * c);
    }
    return s;
  };
  const auto local_global = [&](Index b) { return chain.part.first_body + b; };
  const auto same = [](Index b) { return b; };
  const BranchWatch::RankSum sum = [](Index n, const std::function<double(Index)>& term) {
    return reproducibleSum(MPI_COMM_WORLD, n, term);
  };
  for (bool jump : {false, true}) {
    BranchWatch distributed(local, chain.part.owned_bodies, distributedLengthScale(chain.dm), sum);
    BranchWatch serial(whole);
    int seen = -1, seen_serial = -1;
    for (int k = 0; k < outputs; ++k) {
      if (seen < 0 &&
          !distributed.add(state(local, chain.part.owned_bodies, local_global, k, jump)))
        seen = k;
      if (seen_serial < 0 &&
          !serial.add(state(whole, static_cast<Index>(whole.bodies.size()), same, k, jump)))
        seen_serial = k;
    }
    BOOST_TEST(seen == (jump ? jump_at + 1 : -1), "jump " << jump << ": seen at output " << seen);
    BOOST_TEST(seen == seen_serial);
    checkSameStatusOnEveryRank(distributed.status());
    if (jump) {
      const std::string& message = distributed.status().message;
      BOOST_TEST(message.find("between t = 0.5 s and 0.6 s") != std::string::npos, message);
      BOOST_TEST(serial.status().message.find("between t = 0.5 s and 0.6 s") != std::string::npos);
    }
  }
}
