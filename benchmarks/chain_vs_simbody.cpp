/// @file chain_vs_simbody.cpp
/// Benchmark (issue 4, item 6): the closed catenary chain released at rest from its 'V', in
/// catena and in Simbody (the solver users would otherwise pick), side by side: wall time per
/// simulated second at equal accuracy for N links.
///
/// The chain is buildCatenaryChain with its defaults: N solid cylinders (radius 0.02 m, 1 kg/m,
/// total length 2 sqrt(61) m) from A = (0,0,0) through C = (5,0,-6) to B = (10,0,0), universal
/// joints between links (twist locked), a universal joint to the ground at A, a spherical joint
/// at B, gravity 9.81 m/s^2. Simbody gets the same bodies, masses, inertias and joint frames,
/// read from the catena Model: a tree of MobilizedBody::Universal from the ground at A whose two
/// free axes are F2's y and z (catena's universal locks x, y, z and Rx in F2's basis: the twist
/// about the link), the loop closed at B by Constraint::Ball; mobility 2N - 3 in both. The two
/// joints differ off the plane of the 'V' (catena locks the x part of the relative quaternion,
/// Simbody's Cardan angles are rotations about x then the new y), but the motion stays in that
/// plane, where both are the same hinge (the table reports the largest out-of-plane
/// coordinate).
///
/// Per N:
///   1. the two models are checked to be the same mechanism (initial joint points within
///      1e-12 m, mobility 2N - 3 in both) before anything is timed;
///   2. references: a tight Simbody run (Runge-Kutta-Merson, --simbody-reference), against which
///      every error below is measured, and a tight catena run (--catena-reference, IDA by
///      default, up to --catena-reference-max links) whose difference from it cross-checks the
///      two formulations;
///   3. ladders: each method at a range of tolerances, loosest first: wall time per simulated
///      second (median of --repeats runs when a run is shorter than --repeat-below s), steps,
///      the error of the mid-chain joint point (start of link N/2), the largest error over all
///      N + 1 joint points, and the closure (distance of the last link's end from B);
///   4. equal accuracy: each method's cost at each error of --levels, for both error measures,
///      interpolated log-log between the last ladder run above the level and the next one.
/// A run longer than --budget wall seconds is stopped and recorded as over budget (cost
/// > budget / t_end); the method's tighter settings are then skipped, as they are once a run's
/// worst joint error is below a quarter of the smallest level. Methods: ga (catena
/// generalized-alpha with error control, K_c in the iteration matrix), ida (catena IDA, index-2
/// GGL, rtol = atol), rkm, rk3 (Simbody's explicit Runge-Kutta-Merson, its default, and
/// Runge-Kutta 3; constraint tolerance = accuracy, as Simbody users set it), rkmc (Runge-Kutta-
/// Merson with the loop closed to 1e-10, as tight as catena's); "name:N" runs a method up to N
/// links only. Simbody's CPodes cannot run here: libSimTKmath carries its own old SUNDIALS, and
/// with SUNDIALS 6 loaded first for catena's IDA (benchmarks/CMakeLists.txt) CPodes' calls reach
/// SUNDIALS 6 and crash.
/// Single thread: set OMP_NUM_THREADS=1. Output: markdown tables on stdout, CSV (--csv).
///
///   bench_chain_vs_simbody --sizes 10,100 --t-end 1 --methods ga,rkm --csv out.csv
#include <unistd.h>

#include <Simbody.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "integrators/generalized_alpha.hpp"
#include "integrators/ida_dynamics.hpp"
#include "integrators/rk_dynamics.hpp"
#include "model/generators.hpp"
#include "parallel/petsc_session.hpp"
#include "support/markdown_table.hpp"
#include "support/options.hpp"
#include "support/stamp.hpp"
#include "support/timing.hpp"

using namespace catena;

namespace {

using bench::Clock;
using bench::cpuSeconds;
using bench::secondsSince;

const std::vector<std::string> kMethods = {"ga",   "ida", "erk5", "erk6",
                                           "erk8", "rkm", "rkmc", "rk3"};

/// Simbody's constraint tolerance for "rkmc": the loop closed as tightly as catena closes it.
constexpr double kTightConstraintTolerance = 1e-10;

std::string methodLabel(const std::string& m) {
  if (m == "ga") return "catena generalized-alpha";
  if (m == "ida") return "catena IDA index-2";
  if (m == "erk5") return "catena explicit RK Dormand-Prince 5(4), index 1 + projection";
  if (m == "erk6") return "catena explicit RK Verner 6(5), index 1 + projection";
  if (m == "erk8") return "catena explicit RK Fehlberg 8(7), index 1 + projection";
  if (m == "rkm") return "Simbody RungeKuttaMerson";
  if (m == "rkmc") return "Simbody RungeKuttaMerson, constraint tolerance 1e-10";
  return "Simbody RungeKutta3";
}

bool isCatena(const std::string& m) {
  return m == "ga" || m == "ida" || m == "erk5" || m == "erk6" || m == "erk8";
}

struct Options {
  std::vector<int> sizes = {10, 30, 100, 300, 1000, 3000};
  double t_end = 1.0;
  std::map<int, double> t_end_at;  ///< per-N overrides of t_end
  std::vector<std::string> methods = {"ga", "ida", "rkm", "rkmc", "rk3"};
  std::map<std::string, int> max_links;  ///< method -> largest N it runs
  std::map<std::string, std::vector<double>> ladder = {
      {"ga", {1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 3e-6, 1e-6, 3e-7, 1e-7, 3e-8, 1e-8, 3e-9, 1e-9}},
      {"ida", {1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 3e-5, 1e-5, 3e-6, 1e-6}},
      {"erk5", {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8}},
      {"erk6", {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9}},
      {"erk8", {1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10}},
      {"rkm", {1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 1e-5, 1e-6}},
      // A tight constraint tolerance with a loose accuracy makes Simbody reject most steps.
      {"rkmc", {1e-2, 1e-3, 1e-4}},
      {"rk3", {1e-1, 3e-2, 1e-2, 3e-3, 1e-3, 3e-4, 1e-4, 1e-5}}};
  double simbody_reference = 1e-8;
  std::string catena_reference_method = "ida";
  double catena_reference = 1e-8;
  int catena_reference_max = 300;                       ///< largest N of the catena reference
  double ga_max_step = GeneralizedAlphaOptions{}.step;  ///< s, the library's default
  std::vector<double> levels = {1e-2, 1e-3, 1e-4};
  double budget = 120.0;            ///< wall s per run
  double reference_budget = 300.0;  ///< wall s per reference run
  int repeats = 3;
  double repeat_below = 2.0;  ///< s
  bool cpu_clock = false;     ///< --time cpu: costs in process CPU time
  std::string csv;
  bench::PetscArgs petsc;
};

/// What one run leaves: its cost, where the chain is at the end, and why it stopped.
struct Run {
  std::string status = "ok";  ///< ok | over budget | failed | skipped
  std::string note;
  double t_end = 0.0;
  double wall = 0.0;  ///< s, median over the repeats
  /// s: process CPU time of the run the median wall time comes from; below the wall time when
  /// the run had to share its core.
  double cpu = 0.0;
  int repeats = 0;
  long steps = 0, rejected = 0;
  /// The work of the steps: catena's Newton iterations and factorizations of the iteration
  /// matrix; Simbody's realizations (evaluations of the accelerations), factorizations 0.
  long iterations = 0, factorizations = 0;
  std::vector<Vec3> points;                        ///< the N + 1 joint points at t_end, m
  double closure = NAN;                            ///< m
  double off_plane = NAN;                          ///< largest |y| of a joint point, m
  double midpoint_error = NAN, worst_error = NAN;  ///< m, against the reference
  int worst_joint = -1;                            ///< where the worst error is, 0..N
  bool cpu_clock = false;  ///< the cost is the CPU time (--time cpu), else the wall time
  bool done() const { return status == "ok"; }
  double costPerSecond() const { return (cpu_clock ? cpu : wall) / t_end; }
};

void finishRun(Run& r, const Vec3& end_b) {
  r.closure = (r.points.back() - end_b).norm();
  r.off_plane = 0.0;
  for (const Vec3& p : r.points) r.off_plane = std::max(r.off_plane, std::abs(p.y()));
}

// ---- catena -----------------------------------------------------------------------------------

std::vector<Vec3> catenaJointPoints(const Model& m, const State& s) {
  std::vector<Vec3> points;
  const Index n = static_cast<Index>(m.bodies.size());
  for (Index k = 0; k <= n; ++k) {
    const Index body = k < n ? k : n - 1;
    const std::string which = k < n ? "/start" : "/end";
    const Index marker = m.findMarker(m.bodies[body].name + which);
    const Index qo = m.qOffset(body);
    const Quat rho(s.q(qo + 3), s.q(qo + 4), s.q(qo + 5), s.q(qo + 6));
    points.push_back(s.q.segment<3>(qo) + rho.normalized() * m.markers[marker].position);
  }
  return points;
}

/// One catena run (method "ga", "ida", "erk5", "erk6" or "erk8") at tolerance `tol`, stopped after
/// `budget`
/// wall s.
Run runCatena(const Model& m, const AssemblyPlan& plan, const std::string& method, double tol,
              double t_end, double budget, double ga_max_step) {
  Run run;
  run.t_end = t_end;
  const Clock::time_point t0 = Clock::now();
  const double cpu0 = cpuSeconds();
  bool over = false;
  // Called at every accepted step (output_interval 0): the budget check, nothing else.
  const TrajectoryObserver observer = [&](const State&) {
    over = secondsSince(t0) > budget;
    return !over;
  };
  DynamicsResult r;
  if (method == "ga") {
    GeneralizedAlphaOptions o;
    o.t_end = t_end;
    o.step = ga_max_step;
    o.min_step = 1e-9;
    o.error_tolerance = tol;
    o.output_interval = 0.0;
    o.consistent_multipliers = false;  // positions only, like Simbody's runs
    r = integrateGeneralizedAlpha(m, plan, initialState(m), o, observer);
  } else if (method == "erk5" || method == "erk6" || method == "erk8") {
    RkOptions o;
    o.table = method == "erk5"   ? RkTable::kDormandPrince54
              : method == "erk6" ? RkTable::kVerner65
                                 : RkTable::kFehlberg78;
    o.t_end = t_end;
    o.rtol = tol;
    o.atol = tol;
    o.output_interval = 0.0;
    o.max_steps = 10'000'000;
    r = integrateRungeKutta(m, plan, initialState(m), o, observer);
  } else {
    IdaOptions o;
    o.t_end = t_end;
    o.rtol = tol;
    o.atol = tol;
    o.output_interval = 0.0;
    o.max_steps = 10'000'000;
    r = integrateIda(m, plan, initialState(m), o, observer);
  }
  run.wall = secondsSince(t0);
  run.cpu = cpuSeconds() - cpu0;
  run.steps = r.stats.steps;
  run.rejected = r.stats.rejected_steps;
  run.iterations = r.stats.newton_iterations;
  run.factorizations = r.stats.factorizations;
  if (over) {
    run.status = "over budget";
    std::ostringstream os;
    os << "stopped at t = " << r.state.t << " s";
    run.note = os.str();
  } else if (!r.status.ok()) {
    run.status = "failed";
    run.note = r.status.message;
  }
  run.points = catenaJointPoints(m, r.state);
  return run;
}

// ---- Simbody ----------------------------------------------------------------------------------

SimTK::Vec3 toSimTK(const Vec3& v) {
  return SimTK::Vec3(v.x(), v.y(), v.z());
}
Vec3 fromSimTK(const SimTK::Vec3& v) {
  return Vec3(v[0], v[1], v[2]);
}
SimTK::Rotation toSimTK(const Quat& q) {
  return SimTK::Rotation(SimTK::Quaternion(q.w(), q.x(), q.y(), q.z()));
}

/// The catena chain rebuilt in Simbody from the Model: one MobilizedBody::Universal per link
/// (from the ground at A, in joint order) and a Constraint::Ball for the spherical joint at B.
/// The mobilizer frames are F2 (inboard) and F1 (outboard) with their axes permuted so that
/// Simbody's locked z is catena's locked x: F = (y, z, x) of the catena marker.
class SimbodyChain {
 public:
  explicit SimbodyChain(const Model& m) : matter_(system_), forces_(system_) {
    SimTK::Force::UniformGravity(forces_, matter_, toSimTK(m.gravity));
    // Columns y, z, x: Simbody's first Cardan axis is catena's y (the bending in the 'V'
    // plane), the second z, the locked one x.
    const SimTK::Rotation perm(SimTK::Mat33(0, 0, 1, 1, 0, 0, 0, 1, 0), true);
    std::vector<int> mobod_of(m.bodies.size(), -1);
    links_.reserve(m.bodies.size());
    auto frame = [&](Index marker) {
      const Marker& k = m.markers[marker];
      return SimTK::Transform(toSimTK(k.orientation) * perm, toSimTK(k.position));
    };
    for (const Joint& j : m.joints) {
      const Index b1 = m.markerBody(j.marker1), b2 = m.markerBody(j.marker2);
      if (j.type == JointType::kUniversal) {
        if (b1 == kGround || mobod_of[b1] >= 0 || (b2 != kGround && mobod_of[b2] < 0))
          throw std::runtime_error("Simbody chain: joint '" + j.name + "' is not a tree edge");
        const Body& body = m.bodies[b1];
        const Mat3& I = body.inertia;
        const SimTK::Inertia inertia_c(I(0, 0), I(1, 1), I(2, 2), I(0, 1), I(0, 2), I(1, 2));
        const SimTK::MassProperties mass(
            body.mass, toSimTK(body.com),
            inertia_c.shiftFromMassCenter(toSimTK(body.com), body.mass));
        SimTK::MobilizedBody& parent = b2 == kGround ? matter_.updGround() : links_[mobod_of[b2]];
        links_.push_back(SimTK::MobilizedBody::Universal(
            parent, frame(j.marker2), SimTK::Body::Rigid(mass), frame(j.marker1)));
        mobod_of[b1] = static_cast<int>(links_.size()) - 1;
      } else if (j.type == JointType::kSpherical && b2 == kGround && b1 != kGround &&
                 mobod_of[b1] >= 0) {
        SimTK::Constraint::Ball(matter_.updGround(), toSimTK(m.markers[j.marker2].position),
                                links_[mobod_of[b1]], toSimTK(m.markers[j.marker1].position));
        end_b_ = m.markers[j.marker2].position;
      } else {
        throw std::runtime_error("Simbody chain: joint '" + j.name + "' is not supported");
      }
    }
    for (std::size_t b = 0; b < m.bodies.size(); ++b) {
      if (mobod_of[b] != static_cast<int>(b))
        throw std::runtime_error("Simbody chain: bodies must be listed from A to B");
      start_.push_back(toSimTK(m.markers[m.findMarker(m.bodies[b].name + "/start")].position));
    }
    end_ = toSimTK(m.markers[m.findMarker(m.bodies.back().name + "/end")].position);
    initial_ = system_.realizeTopology();
    // The 'V': each mobilizer's angles from the catena initial orientations of its two bodies.
    for (std::size_t k = 0; k < links_.size(); ++k) {
      const Joint& j = m.joints[k];
      const Index b2 = m.markerBody(j.marker2);
      const SimTK::Rotation R_G2 =
          toSimTK(b2 == kGround ? Quat::Identity() : m.bodies[b2].orientation);
      const SimTK::Rotation R_GF = R_G2 * frame(j.marker2).R();
      const SimTK::Rotation R_GM = toSimTK(m.bodies[k].orientation) * frame(j.marker1).R();
      links_[k].setQToFitRotation(initial_, ~R_GF * R_GM);
    }
    system_.realize(initial_, SimTK::Stage::Position);
  }

  const SimTK::MultibodySystem& system() const { return system_; }
  const SimTK::State& initial() const { return initial_; }
  int mobilities() const { return initial_.getNU(); }
  int constraintEquations() const { return initial_.getNMultipliers(); }
  const Vec3& endB() const { return end_b_; }

  /// Start of every link, then the end of the last one; `s` realized to Position.
  std::vector<Vec3> jointPoints(const SimTK::State& s) const {
    std::vector<Vec3> points;
    for (std::size_t k = 0; k < links_.size(); ++k)
      points.push_back(fromSimTK(links_[k].findStationLocationInGround(s, start_[k])));
    points.push_back(fromSimTK(links_.back().findStationLocationInGround(s, end_)));
    return points;
  }

 private:
  SimTK::MultibodySystem system_;
  SimTK::SimbodyMatterSubsystem matter_;
  SimTK::GeneralForceSubsystem forces_;
  std::vector<SimTK::MobilizedBody> links_;
  std::vector<SimTK::Vec3> start_;
  SimTK::Vec3 end_;
  Vec3 end_b_ = Vec3::Zero();
  SimTK::State initial_;
};

std::unique_ptr<SimTK::Integrator> makeIntegrator(const std::string& method,
                                                  const SimTK::MultibodySystem& system) {
  if (method == "rk3") return std::make_unique<SimTK::RungeKutta3Integrator>(system);
  return std::make_unique<SimTK::RungeKuttaMersonIntegrator>(system);
}

/// One Simbody run at accuracy `accuracy`, stopped after `budget` wall s. The constraint
/// tolerance is the accuracy (Simbody's usual setting), 1e-10 for "rkmc".
Run runSimbody(const SimbodyChain& chain, const std::string& method, double accuracy, double t_end,
               double budget) {
  Run run;
  run.t_end = t_end;
  std::unique_ptr<SimTK::Integrator> integ = makeIntegrator(method, chain.system());
  integ->setAccuracy(accuracy);
  integ->setConstraintTolerance(method == "rkmc" ? kTightConstraintTolerance : accuracy);
  integ->setFinalTime(t_end);               // the last step lands on t_end: no interpolated answer
  integ->setReturnEveryInternalStep(true);  // to watch the budget
  const Clock::time_point t0 = Clock::now();
  const double cpu0 = cpuSeconds();
  try {
    integ->initialize(chain.initial());
    while (!integ->isSimulationOver()) {
      integ->stepTo(t_end);
      if (secondsSince(t0) > budget) {
        run.status = "over budget";
        std::ostringstream os;
        os << "stopped at t = " << integ->getTime() << " s";
        run.note = os.str();
        break;
      }
    }
    if (integ->isSimulationOver() &&
        integ->getTerminationReason() != SimTK::Integrator::ReachedFinalTime) {
      run.status = "failed";
      run.note = SimTK::Integrator::getTerminationReasonString(integ->getTerminationReason());
    }
  } catch (const std::exception& e) {
    run.status = "failed";
    run.note = e.what();
    run.note = run.note.substr(0, run.note.find('\n'));
  }
  run.wall = secondsSince(t0);
  run.cpu = cpuSeconds() - cpu0;
  run.steps = integ->getNumStepsTaken();
  run.rejected = integ->getNumStepsAttempted() - integ->getNumStepsTaken();
  run.iterations = integ->getNumRealizations();
  SimTK::State s = integ->getState();
  chain.system().realize(s, SimTK::Stage::Position);
  run.points = chain.jointPoints(s);
  return run;
}

// ---- the study --------------------------------------------------------------------------------

/// Runs `once` and, if it was short, again up to `repeats` times: the median wall time.
template <class F>
Run timed(F once, int repeats, double repeat_below, bool cpu_clock) {
  Run r = once();
  r.cpu_clock = cpu_clock;
  std::vector<double> walls = {r.wall}, cpus = {r.cpu};
  while (r.done() && static_cast<int>(walls.size()) < repeats && r.wall < repeat_below) {
    const Run again = once();
    walls.push_back(again.wall);
    cpus.push_back(again.cpu);
  }
  r.wall = bench::median(walls);
  r.cpu = bench::median(cpus);
  r.repeats = static_cast<int>(walls.size());
  return r;
}

void compare(Run& r, const Run& reference, int links) {
  r.midpoint_error = (r.points[links / 2] - reference.points[links / 2]).norm();
  r.worst_error = 0.0;
  for (std::size_t k = 0; k < r.points.size(); ++k) {
    const double e = (r.points[k] - reference.points[k]).norm();
    if (e > r.worst_error) {
      r.worst_error = e;
      r.worst_joint = static_cast<int>(k);
    }
  }
}

/// The two accuracy measures: the error of the mid-chain joint point (what issue 4 states) and
/// the largest error over all joint points (immune to a lucky midpoint).
struct Measure {
  const char* name;
  const char* title;
  double Run::*error;
};
const Measure kMeasures[] = {{"midpoint", "midpoint error", &Run::midpoint_error},
                             {"worst_joint", "worst joint-point error", &Run::worst_error}};

/// Cost per simulated second at the error `level`: log-log interpolation between the last
/// completed ladder run above the level and the next completed one, so that every tighter run
/// stays at or below it (a lucky loose run that an error crossing happens to put below the level
/// does not count). `bound` says what the number is when it is not an interpolation: "<=" (no
/// run was above the level: the loosest run's cost), ">" (the last completed run is still above:
/// its cost), "n/a" (no completed run).
struct AtLevel {
  double cost = NAN;
  std::string bound = "n/a";
};

AtLevel costAtLevel(const std::vector<Run>& ladder, double Run::*error, double level) {
  std::vector<const Run*> done;  // a failed loose setting does not end the ladder
  for (const Run& r : ladder)
    if (r.done()) done.push_back(&r);
  AtLevel a;
  if (done.empty()) return a;
  std::size_t above = done.size();  // the last run above the level
  for (std::size_t i = 0; i < done.size(); ++i)
    if (done[i]->*error > level) above = i;
  if (above == done.size()) {
    a.cost = done.front()->costPerSecond();
    a.bound = "<=";
  } else if (above + 1 == done.size()) {
    a.cost = done.back()->costPerSecond();
    a.bound = ">";
  } else {
    const Run &p = *done[above], &r = *done[above + 1];
    const double x0 = std::log(p.*error), x1 = std::log(r.*error);
    const double y0 = std::log(p.costPerSecond()), y1 = std::log(r.costPerSecond());
    a.cost = std::exp(y0 + (std::log(level) - x0) * (y1 - y0) / (x1 - x0));
    a.bound = "";
  }
  return a;
}

/// The cheapest catena method at a level among those whose cost there is known or bounded from
/// above ("" or "<="), and its name; bound "n/a" when none is.
std::pair<AtLevel, std::string> cheapestCatena(
    const std::map<std::string, std::vector<std::vector<AtLevel>>>& at, std::size_t measure,
    std::size_t level) {
  std::pair<AtLevel, std::string> best;
  for (const auto& [method, levels] : at) {
    if (!isCatena(method)) continue;
    const AtLevel& a = levels[measure][level];
    if ((a.bound.empty() || a.bound == "<=") &&
        (best.first.bound == "n/a" || a.cost < best.first.cost))
      best = {a, method};
  }
  return best;
}

/// rkm / ga with the direction the bounds give it ("<= x", ">= x", "?" when they conflict).
std::string ratio(const AtLevel& ga, const AtLevel& rkm) {
  if (ga.bound == "n/a" || rkm.bound == "n/a") return "-";
  // +1: the true ratio is at least this one, -1: at most, 0: exact.
  const int up = rkm.bound.empty() ? 0 : (rkm.bound == ">" ? 1 : -1);
  const int down = ga.bound.empty() ? 0 : (ga.bound == ">" ? -1 : 1);
  std::ostringstream os;
  os << std::setprecision(3) << rkm.cost / ga.cost;
  if (up == 0 && down == 0) return os.str();
  if (up >= 0 && down >= 0) return ">= " + os.str();
  if (up <= 0 && down <= 0) return "<= " + os.str();
  return "? (bounds)";
}

std::string fmt(double v, int precision = 3) {
  if (std::isnan(v)) return "-";
  std::ostringstream os;
  os << std::setprecision(precision) << v;
  return os.str();
}

std::string describe(const Run& r) {
  if (r.status == "ok") return "ok";
  return r.status + (r.note.empty() ? "" : " (" + r.note + ")");
}

constexpr const char* kCsvHeader =
    "kind,links,method,setting,t_end_s,status,wall_s,cpu_s,cost_per_simulated_s,repeats,steps,"
    "rejected,iterations,factorizations,midpoint_error_m,worst_joint_error_m,worst_joint,"
    "closure_m,off_plane_m,measure,level_m,bound,note";

constexpr const char* kUsage =
    "usage: bench_chain_vs_simbody [--sizes N,N] [--t-end T] [--t-end-at N=T,N=T]\n"
    "  [--methods ga,ida,erk5,erk6,erk8,rkm,rkmc,rk3[:maxN]] [--ladder METHOD=TOL,TOL]\n"
    "  [--simbody-reference ACC] [--catena-reference ga|ida=TOL]\n"
    "  [--catena-reference-max N] [--levels E,E] [--budget S] [--reference-budget S]\n"
    "  [--repeats K] [--repeat-below S] [--time wall|cpu] [--ga-max-step H]\n"
    "  [--csv PATH]\n"
    "  [PETSc options]\n";

Options parse(int argc, char** argv) {
  Options o;
  bench::OptionReader r(argc, argv, kUsage, bench::OptionReader::kPetscOptions);
  while (r.next()) {
    if (r.read({bench::option("--sizes", o.sizes), bench::option("--t-end", o.t_end),
                bench::option("--simbody-reference", o.simbody_reference),
                bench::option("--catena-reference-max", o.catena_reference_max),
                bench::option("--levels", o.levels), bench::option("--budget", o.budget),
                bench::option("--reference-budget", o.reference_budget),
                bench::option("--repeats", o.repeats),
                bench::option("--repeat-below", o.repeat_below),
                bench::option("--ga-max-step", o.ga_max_step), bench::option("--csv", o.csv)}))
      continue;
    if (r.is("--t-end-at")) {
      for (const std::string& item : r.stringList()) {
        const auto eq = item.find('=');
        if (eq == std::string::npos) r.fail("--t-end-at: " + item + " is not N=T");
        o.t_end_at[std::stoi(item.substr(0, eq))] = std::stod(item.substr(eq + 1));
      }
    } else if (r.is("--methods")) {
      o.methods.clear();
      for (const std::string& item : r.stringList()) {
        const auto colon = item.find(':');
        const std::string name = item.substr(0, colon);
        if (std::find(kMethods.begin(), kMethods.end(), name) == kMethods.end())
          r.fail("--methods: unknown method " + name);
        o.methods.push_back(name);
        if (colon != std::string::npos) o.max_links[name] = std::stoi(item.substr(colon + 1));
      }
    } else if (r.is("--ladder")) {
      const std::string v = r.value();
      const auto eq = v.find('=');
      if (eq == std::string::npos || !o.ladder.count(v.substr(0, eq)))
        r.fail("--ladder: " + v + " is not METHOD=TOL,TOL,...");
      o.ladder[v.substr(0, eq)] = bench::numberList(v.substr(eq + 1));
    } else if (r.is("--catena-reference")) {
      const std::string v = r.value();
      const auto eq = v.find('=');
      if (eq == std::string::npos || !isCatena(v.substr(0, eq)))
        r.fail("--catena-reference: " + v + " is not ga=TOL or ida=TOL");
      o.catena_reference_method = v.substr(0, eq);
      o.catena_reference = std::stod(v.substr(eq + 1));
    } else if (r.is("--time")) {
      const std::string v = r.value();
      if (v != "cpu" && v != "wall") r.fail("--time: cpu or wall, not " + v);
      o.cpu_clock = v == "cpu";
    } else {
      r.other();
    }
  }
  o.petsc = r.petsc();
  if (o.levels.empty() || o.sizes.empty()) r.fail("--levels and --sizes must not be empty");
  // Simbody asserts 0 < accuracy < 1.
  for (const auto& [method, settings] : o.ladder)
    for (double setting : settings)
      if (setting <= 0.0 || (!isCatena(method) && setting >= 1.0))
        r.fail("--ladder: a setting of " + method + " is out of range");
  std::sort(o.levels.begin(), o.levels.end(), std::greater<>());
  return o;
}

/// Progress on stderr, only on a terminal (DESIGN.md outputs).
void progress(const std::string& text) {
  static const bool tty = isatty(STDERR_FILENO);
  if (tty) std::cerr << "[chain_vs_simbody] " << text << std::endl;
}

/// What one N leaves for the summary tables: the equal-accuracy costs per method, per measure
/// and level.
struct Summary {
  int n = 0;
  double t_end = 0.0;
  std::map<std::string, std::vector<std::vector<AtLevel>>> at;  ///< [measure][level]
};

}  // namespace

int main(int argc, char** argv) {
  Options o = parse(argc, argv);
  PetscSession session(o.petsc.argc(), o.petsc.argv());
  std::ofstream csv = bench::openCsv(o.csv, kCsvHeader);
  auto csvRun = [&](const std::string& kind, int n, const std::string& method, double setting,
                    const Run& r) {
    if (!csv) return;
    std::string note = r.note;
    std::replace(note.begin(), note.end(), ',', ';');
    csv << std::setprecision(10) << kind << ',' << n << ',' << method << ',' << setting << ','
        << r.t_end << ',' << r.status << ',' << r.wall << ',' << r.cpu << ',' << r.costPerSecond()
        << ',' << r.repeats << ',' << r.steps << ',' << r.rejected << ',' << r.iterations << ','
        << r.factorizations << ',' << r.midpoint_error << ',' << r.worst_error << ','
        << r.worst_joint << ',' << r.closure << ',' << r.off_plane << ",,,," << note << std::endl;
  };
  const char* threads = std::getenv("OMP_NUM_THREADS");
  const std::string clock = o.cpu_clock ? "CPU" : "wall";
  std::cout << "# Catenary chain from the 'V': catena vs Simbody at equal accuracy\n\n"
            << "Cost: " << clock << " seconds per simulated second"
            << (o.cpu_clock ? " (process CPU time: on a machine shared with other work it is the "
                              "wall time of the single-threaded run without the time slices "
                              "lost to other processes; the CPU / wall column shows the loss)"
                            : "")
            << ". t_end " << o.t_end << " s";
  for (const auto& [n, t] : o.t_end_at) std::cout << " (N = " << n << ": " << t << " s)";
  std::cout << "; budget " << o.budget << " s per run, " << o.reference_budget
            << " s per reference run; generalized-alpha with the library's defaults (rho_inf "
            << GeneralizedAlphaOptions{}.rho_inf << ", reuse of the iteration matrix "
            << (GeneralizedAlphaOptions{}.reuse_iteration_matrix ? "on" : "off")
            << ", the scheme's multipliers at the outputs: positions only) and steps up to "
            << o.ga_max_step << " s; IDA index-2 GGL with the library's "
            << "defaults but rtol = atol; OMP_NUM_THREADS=" << (threads ? threads : "unset")
            << "; CPU " << bench::cpuModel() << ".\n\nReferences: Simbody RungeKuttaMerson at "
            << "accuracy " << o.simbody_reference << " (every error below is against it) and "
            << methodLabel(o.catena_reference_method) << " at "
            << (o.catena_reference_method == "ga" ? "local error " : "rtol = atol ")
            << o.catena_reference << " (N <= " << o.catena_reference_max << ").\nMethods:";
  for (const std::string& method : o.methods)
    std::cout << ' ' << method << " (" << methodLabel(method)
              << (o.max_links.count(method) ? ", N <= " + std::to_string(o.max_links[method]) : "")
              << ')' << (&method == &o.methods.back() ? ".\n\n" : ",");

  std::vector<Summary> summaries;
  // Midpoint errors of each method's ladder at the previous size (NaN: not completed).
  std::map<std::string, std::vector<double>> previous_errors;
  std::ostringstream references, ladders;
  references << "| N | t_end s | Simbody ref. wall s | catena ref. wall s | midpoint difference "
                "m | worst joint difference m | closure Simbody / catena m | off-plane m |\n"
                "|---:|---:|---:|---:|---:|---:|---|---:|\n";
  ladders
      << "| N | method | setting | cost s per simulated s | CPU / wall | steps | rejected | "
         "Newton its (factorizations) / realizations | midpoint error m | worst joint error m "
         "| closure m | status |\n|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
  bool all_ok = true;
  for (int n : o.sizes) {
    const double t_end = o.t_end_at.count(n) ? o.t_end_at[n] : o.t_end;
    CatenaryChainOptions co;
    co.links = n;
    const Model m = buildCatenaryChain(co);
    const AssemblyPlan plan = buildAssemblyPlan(m);
    const SimbodyChain chain(m);
    // 1. The two models must be the same mechanism before anything is timed.
    const std::vector<Vec3> v_catena = catenaJointPoints(m, initialState(m));
    const std::vector<Vec3> v_simbody = chain.jointPoints(chain.initial());
    double initial_gap = 0.0;
    for (std::size_t k = 0; k < v_catena.size(); ++k)
      initial_gap = std::max(initial_gap, (v_catena[k] - v_simbody[k]).norm());
    const int simbody_dof = chain.mobilities() - chain.constraintEquations();
    // Simbody places the links by composing N joint transforms: its round-off grows along
    // the chain (1.0e-12 m at N = 10^4).
    const double gap_tolerance = 1e-12 * std::max(1.0, n / 1000.0);
    if (initial_gap > gap_tolerance || simbody_dof != m.dofEstimate()) {
      std::cerr << "N = " << n << ": the Simbody model is not catena's (initial joint points "
                << initial_gap << " m apart, mobility " << simbody_dof << " vs " << m.dofEstimate()
                << ")\n";
      return 1;
    }

    // 2. References.
    progress("N = " + std::to_string(n) + ": Simbody reference");
    Run ref = runSimbody(chain, "rkm", o.simbody_reference, t_end, o.reference_budget);
    ref.repeats = 1;
    finishRun(ref, chain.endB());
    compare(ref, ref, n);
    csvRun("reference", n, "rkm", o.simbody_reference, ref);
    if (!ref.done()) {
      all_ok = all_ok && ref.status != "failed";
      references << "| " << n << " | " << t_end << " | " << describe(ref)
                 << " | - | - | - | - | - |\n";
      continue;  // nothing to measure errors against
    }
    Run cref;
    cref.status = "skipped";
    if (n <= o.catena_reference_max) {
      progress("N = " + std::to_string(n) + ": catena reference");
      cref = runCatena(m, plan, o.catena_reference_method, o.catena_reference, t_end,
                       o.reference_budget, o.ga_max_step);
      cref.repeats = 1;
      finishRun(cref, chain.endB());
      compare(cref, ref, n);
      csvRun("reference", n, o.catena_reference_method, o.catena_reference, cref);
      all_ok = all_ok && cref.status != "failed";
    }
    references << "| " << n << " | " << t_end << " | " << fmt(ref.wall) << " | "
               << (cref.done() ? fmt(cref.wall) : describe(cref)) << " | "
               << (cref.done() ? fmt(cref.midpoint_error) : "-") << " | "
               << (cref.done() ? fmt(cref.worst_error) : "-") << " | " << fmt(ref.closure) << " / "
               << (cref.done() ? fmt(cref.closure) : "-") << " | "
               << fmt(std::max(ref.off_plane, cref.done() ? cref.off_plane : 0.0)) << " |\n";

    // 3. Ladders, loosest setting first. The methods take turns, one setting each, so that a
    //    change of the machine's load (it is shared) falls on all of them alike.
    Summary summary{n, t_end, {}};
    struct Ladder {
      std::vector<Run> runs;
      std::string stop;  // why the rest of the ladder is skipped
      std::ostringstream rows;
    };
    std::map<std::string, Ladder> ladder_of;
    std::vector<std::string> here;
    std::size_t rounds = 0;
    for (const std::string& method : o.methods)
      if (!o.max_links.count(method) || n <= o.max_links[method]) {
        here.push_back(method);
        rounds = std::max(rounds, o.ladder[method].size());
      }
    for (std::size_t i = 0; i < rounds; ++i)
      for (const std::string& method : here) {
        const std::vector<double>& settings = o.ladder[method];
        if (i >= settings.size()) continue;
        Ladder& ladder = ladder_of[method];
        const std::vector<double>& before = previous_errors[method];
        const double setting = settings[i];
        Run r;
        r.t_end = t_end;
        // Errors at a setting mostly grow with N: a setting whose next tighter one was still 10x
        // above the largest level at the previous size will not bracket a level here.
        if (ladder.stop.empty() && i + 1 < before.size() &&
            before[i + 1] > 10.0 * o.levels.front()) {
          r.status = "skipped";
          r.note = "too loose at the previous size";
        } else if (!ladder.stop.empty()) {
          r.status = "skipped";
          r.note = ladder.stop;
        } else {
          std::ostringstream label;
          label << "N = " << n << ": " << method << " " << setting;
          progress(label.str());
          if (isCatena(method))
            r = timed(
                [&] { return runCatena(m, plan, method, setting, t_end, o.budget, o.ga_max_step); },
                o.repeats, o.repeat_below, o.cpu_clock);
          else
            r = timed([&] { return runSimbody(chain, method, setting, t_end, o.budget); },
                      o.repeats, o.repeat_below, o.cpu_clock);
          finishRun(r, chain.endB());
          compare(r, ref, n);
          if (r.status == "over budget") ladder.stop = "a looser setting was over budget";
          if (r.status == "failed") all_ok = false;
          // Both measures below a quarter of the smallest level: the interpolation has its
          // bracketing run and tighter ones would only cost time.
          if (r.done() && r.worst_error < 0.25 * o.levels.back())
            ladder.stop = "a looser setting was accurate enough";
        }
        csvRun("ladder", n, method, setting, r);
        if (r.status != "skipped")
          ladder.rows << "| " << n << " | " << method << " | " << setting << " | "
                      << (r.status == "over budget" ? "> " + fmt(r.costPerSecond())
                                                    : fmt(r.costPerSecond(), 4))
                      << " | " << fmt(r.cpu / r.wall, 2) << " | " << r.steps << " | " << r.rejected
                      << " | " << r.iterations
                      << (isCatena(method) ? " (" + std::to_string(r.factorizations) + ")" : "")
                      << " | " << (r.done() ? fmt(r.midpoint_error) : "-") << " | "
                      << (r.done() ? fmt(r.worst_error) : "-") << " | "
                      << (r.done() ? fmt(r.closure) : "-") << " | " << describe(r) << " |\n";
        ladder.runs.push_back(r);
      }
    for (const std::string& method : here) {
      const Ladder& ladder = ladder_of[method];
      ladders << ladder.rows.str();
      previous_errors[method].clear();
      for (const Run& r : ladder.runs)
        previous_errors[method].push_back(r.done() ? r.midpoint_error : NAN);
      // 4. Equal accuracy.
      auto& at = summary.at[method];
      for (const Measure& measure : kMeasures) {
        at.emplace_back();
        for (double level : o.levels) {
          const AtLevel a = costAtLevel(ladder.runs, measure.error, level);
          at.back().push_back(a);
          if (csv)
            csv << std::setprecision(10) << "equal_accuracy," << n << ',' << method << ",," << t_end
                << ",,,," << a.cost << ",,,,,,,,,,," << measure.name << ',' << level << ','
                << (a.bound.empty() ? "=" : a.bound) << ",\n";
        }
      }
    }
    summaries.push_back(summary);
  }

  std::cout << "## Reference cross-check (at t_end)\n\n" << references.str() << '\n';
  const bool ratios = std::find(o.methods.begin(), o.methods.end(), "ga") != o.methods.end() &&
                      std::find(o.methods.begin(), o.methods.end(), "rkm") != o.methods.end();
  for (std::size_t k = 0; k < std::size(kMeasures); ++k) {
    std::cout << "## " << clock << " seconds per simulated second at equal " << kMeasures[k].title
              << "\n\n"
              << "Interpolated log-log between the last ladder run above the level and the next "
                 "one (every tighter run stays below it); \"<= x\": the loosest run was already "
                 "that accurate; \"> x\": the tightest completed run was not (x: its cost); "
                 "\"-\": not run.";
    if (ratios)
      std::cout << " rkm / ga > 1: catena is faster; rkm / best: against the cheapest catena "
                   "method at the level (issue 29's target: >= 3).";
    std::cout << "\n\n| N | t_end s | level m |";
    for (const std::string& method : o.methods) std::cout << ' ' << method << " |";
    if (ratios) std::cout << " rkm / ga | rkm / best |";
    std::cout << "\n|---:|---:|---:|";
    for (std::size_t i = 0; i < o.methods.size() + (ratios ? 2 : 0); ++i) std::cout << "---:|";
    std::cout << '\n';
    for (const Summary& s : summaries)
      for (std::size_t l = 0; l < o.levels.size(); ++l) {
        std::cout << "| " << s.n << " | " << s.t_end << " | " << o.levels[l] << " |";
        for (const std::string& method : o.methods) {
          const auto it = s.at.find(method);
          const AtLevel a = it == s.at.end() ? AtLevel{} : it->second[k][l];
          std::cout << ' '
                    << (it == s.at.end()   ? "-"
                        : a.bound == "n/a" ? "n/a"
                        : a.bound.empty()  ? fmt(a.cost)
                                           : a.bound + ' ' + fmt(a.cost))
                    << " |";
        }
        if (ratios) {
          const auto ga = s.at.find("ga"), rkm = s.at.find("rkm");
          std::cout << ' '
                    << (ga == s.at.end() || rkm == s.at.end()
                            ? "-"
                            : ratio(ga->second[k][l], rkm->second[k][l]))
                    << " |";
          const auto [best, name] = cheapestCatena(s.at, k, l);
          std::cout << ' '
                    << (rkm == s.at.end() || best.bound == "n/a"
                            ? "-"
                            : ratio(best, rkm->second[k][l]) + " (" + name + ")")
                    << " |";
        }
        std::cout << '\n';
      }
    std::cout << '\n';
  }
  std::cout << "## Ladders\n\n" << ladders.str();
  return all_ok ? 0 : 1;
}
