// bench_formulation_comparison: the formulations of catena side by side on the examples each can
// express, at the same accuracy (issue 7, item 5; docs/formulation-comparison.md). Every example
// has a target accuracy against its independent reference, the same for all its formulations.
// Each formulation sweeps its tolerance from --tol-max down to --tol-min (--per-decade values a
// decade) and reports the selected run: the loosest tolerance that reaches the target and whose
// next --confirm tighter tolerances reach it too (an error that dips under the target by chance
// is not picked), rerun --repeats times for the median wall time. A formulation that never
// reaches the target reports its smallest error. A sweep stops once its selection is confirmed,
// or after a run longer than --budget seconds (tighter runs only cost more).
//
// Examples, references and error measures, sampled at outputs every --interval s (0.05; all
// but the mixed-basis IDA GGL and index 3 stop at every output, which bounds the explicit
// integrators' step):
//   dp   the rotation-matrix paper's double pendulum, 0..5 s: max |phi - phi_ref|,
//        |psi - psi_ref| [rad], the angles of its eq. (27) from the centres of mass and the hinge
//        H1, against its two-angle ODE (26). Mixed basis (inputs/double_pendulum.yaml): IDA GGL,
//        index 3, index 1, generalized-alpha, MCS; rotation matrix (buildRmDoublePendulum): IDA
//        GGL, two-step; natural coordinates (inputs/natural/bar_double_pendulum.yaml) and the
//        Lagrangian facility's hand-written bar double pendulum (H1, P2): IDA GGL, index 3.
//   m0   Mechanism0 of the natural-coordinates paper, 0..5 s: max |(A, B) - (A, B)_ref| [m]
//        against its (theta, r, phi) ODE. Natural coordinates (inputs/natural/mechanism0.yaml)
//        and the hand-written Lagrangian in (A, B): IDA GGL, index 3.
//   top  the free top of inputs/natural/free_top.yaml (centroid fixed, no forces, I = (1, 2, 3)
//        kg m^2, omega0 = (1, 0.3, 1.5) rad/s), 0..10 s: max rotation angle of R_ref^T R [rad]
//        against Euler's equations in (R, omega). Natural coordinates and the hand-written
//        FreeTop (u, v): IDA GGL, index 3; mixed basis (one body, a spherical joint at its
//        centroid): IDA GGL, index 3, index 1, generalized-alpha, MCS; rotation matrix (the same
//        model through rmModelFromCatenaModel) where it can express the body (not a lamina).
// References: ARKODE Fehlberg 7(8) at rtol 1e-12 (tests/support/reference_odes.hpp). Every
// formulation runs with atol = 1e-2 tol. Wall time: the integration from the initial state (the
// Lagrangian consistent-state projection included), not the model's construction. Prints
// Markdown: per example the selected runs, then with --sweep every run of the sweeps.
//
//   bench_formulation_comparison --repeats 5 --sweep
//   bench_formulation_comparison --cases dp --only "IDA GGL" --per-decade 1
//   bench_formulation_comparison --cases dp,top --only generalized --rho-inf 0.5,0.8,0.95

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iomanip>
#include <iostream>
#include <limits>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "assembly/plan.hpp"
#include "formulations/lagrangian/examples/bar_double_pendulum.hpp"
#include "formulations/lagrangian/examples/free_top.hpp"
#include "formulations/lagrangian/examples/mechanism0.hpp"
#include "formulations/lagrangian/lagrangian_ida.hpp"
#include "formulations/mixed_basis/multibody_dae.hpp"
#include "formulations/natural/natural_mechanism.hpp"
#include "formulations/natural/natural_yaml.hpp"
#include "formulations/rotation_matrix/rm_dae_ida.hpp"
#include "formulations/rotation_matrix/rm_two_step.hpp"
#include "integrators/generalized_alpha.hpp"
#include "integrators/ida_dynamics.hpp"
#include "integrators/mcs_dynamics.hpp"
#include "io/yaml_loader.hpp"
#include "mechanism0_reference.hpp"
#include "parallel/petsc_session.hpp"
#include "reference_odes.hpp"
#include "support/markdown_table.hpp"
#include "support/options.hpp"
#include "support/references.hpp"
#include "support/stamp.hpp"
#include "support/timing.hpp"

using namespace catena;
namespace lg = catena::lagrangian;

namespace {

using bench::Clock;
constexpr double kAtolFactor = 1e-2;  ///< atol = kAtolFactor tol, every formulation
constexpr double kInf = std::numeric_limits<double>::infinity();
const std::string kSource = CATENA_SOURCE_DIR;

/// The observables of a run at each output time, in its example's representation.
using Trajectory = std::vector<VecX>;

/// One run of one formulation at one tolerance.
struct RunRecord {
  double tol = 0.0;
  bool ok = false;
  std::string message;  ///< why it failed
  long steps = 0, newton = 0;
  std::string notes;  ///< formulation-specific counters
  std::string size;   ///< overrides Formulation::size when known only after a run (MCS)
  double wall_ms = 0.0;
  double error = kInf;
};

using Runner = std::function<RunRecord(double tol, Trajectory& out)>;

/// A formulation of an example: its sizes as it counts them and how to run it at a tolerance.
struct Formulation {
  std::string name, n, m, size;
  std::string tol_name = "rtol";
  Runner run;
};

/// The time range of an example and the interval of the outputs where its error is measured.
struct Horizon {
  double t_end = 1.0, interval = 0.05;  ///< s
};

struct LagrangianProblem;

struct Case {
  std::string key, title, error_name;
  Horizon horizon;
  double target = 0.0;
  std::vector<double> rho_inf;  ///< of the generalized-alpha runs
  std::vector<double> times;
  Trajectory reference;
  /// Distance between the observables of a run and of the reference at one output time.
  std::function<double(const VecX& x, const VecX& ref)> distance;
  std::vector<Formulation> formulations;
  std::vector<std::string> not_run;  ///< formulations that cannot express the example, and why
  /// The Lagrangian-facility problems, for the cost of one AD evaluation.
  std::vector<std::pair<std::string, std::shared_ptr<const LagrangianProblem>>> lagrangians;
};

std::vector<double> outputTimes(const Horizon& h) {
  std::vector<double> t;
  for (int k = 0; k <= static_cast<int>(std::lround(h.t_end / h.interval)); ++k)
    t.push_back(k * h.interval);
  return t;
}

std::string str(long x) {
  return std::to_string(x);
}

/// bench::sci, "-" for an infinite or NaN x (a run that never reached the target).
std::string sci(double x, int digits = 2) {
  return std::isfinite(x) ? bench::sci(x, digits) : "-";
}

/// The rotation angle of Ra^T Rb [rad] (atan2 of its sine and cosine: accurate near 0).
double rotationAngle(const Mat3& Ra, const Mat3& Rb) {
  const Mat3 E = Ra.transpose() * Rb;
  const Vec3 s(E(2, 1) - E(1, 2), E(0, 2) - E(2, 0), E(1, 0) - E(0, 1));
  return std::atan2(0.5 * s.norm(), 0.5 * (E.trace() - 1.0));
}

VecX flatten(const Mat3& R) {
  return Eigen::Map<const VecX>(R.data(), 9);
}

Mat3 unflatten(const VecX& x) {
  return Eigen::Map<const Mat3>(x.data());
}

/// R_WB of the 3D mixed-basis body whose coordinates start at `offset` (NOTATION.md: r, then
/// the quaternion (s, vx, vy, vz)).
Mat3 quaternionMatrix(const VecX& q, Index offset) {
  return Quat(q(offset + 3), q(offset + 4), q(offset + 5), q(offset + 6))
      .normalized()
      .toRotationMatrix();
}

/// Q = [u v u x v] of two orthonormal body vectors (natural coordinates).
Mat3 frameOfVectors(const Vec3& u, const Vec3& v) {
  Mat3 Q;
  Q << u, v, u.cross(v);
  return Q;
}

/// The angles of the rotation-matrix paper's eq. (27): phi of O -> G1, psi of H1 -> G2, in its
/// plane (x0 down, y0 horizontal).
VecX paperAngles(const Vec3& g1, const Vec3& h1, const Vec3& g2) {
  VecX a(2);
  a << std::atan2(g1.y(), g1.x()), std::atan2(g2.y() - h1.y(), g2.x() - h1.x());
  return a;
}

// ---------------------------------------------------------------------------------------------
// The formulations, as families of runs.

/// catena's mixed-basis model with its plan (built in place: the plan is made for this model).
struct MixedBasis {
  Model model;
  AssemblyPlan plan;
};

std::shared_ptr<const MixedBasis> makeMixedBasis(Model model) {
  auto mb = std::make_shared<MixedBasis>();
  mb->model = std::move(model);
  mb->plan = buildAssemblyPlan(mb->model);
  return mb;
}

using StateObservable = std::function<VecX(const Model&, const State&)>;

std::string mixedCoordinates(const Model& m) {
  return str(m.nq) + " (nv " + str(m.nv) + ")";
}

/// The status, steps and Newton iterations of a run, from any integrator's statistics.
template <class Stats>
void fillRun(const Status& status, const Stats& stats, RunRecord& r) {
  r.ok = status.ok();
  r.message = status.message;
  r.steps = stats.steps;
  r.newton = stats.newton_iterations;
}

/// An integrator's options with the outputs of h, rtol = tol and atol = kAtolFactor tol.
template <class Options>
Options sweepOptions(const Horizon& h, double tol) {
  Options o;
  o.t_end = h.t_end;
  o.output_interval = h.interval;
  o.rtol = tol;
  o.atol = kAtolFactor * tol;
  return o;
}

/// An observer that appends observe(model, state) to out at every output and goes on.
template <class M, class Observable>
auto collectInto(Trajectory& out, const M& model, const Observable& observe) {
  return [&out, &model, &observe](const auto& s) {
    out.push_back(observe(model, s));
    return true;
  };
}

/// run()'s result; its wall time (ms) in r.wall_ms.
template <class Run>
auto timed(RunRecord& r, Run&& run) {
  const auto start = Clock::now();
  auto result = run();
  r.wall_ms = bench::millisecondsSince(start);
  return result;
}

Formulation mixedIda(std::shared_ptr<const MixedBasis> mb, IdaFormulation f, const Horizon& h,
                     StateObservable observe) {
  Formulation x;
  const Model& m = mb->model;
  const char* what = f == IdaFormulation::kIndex3   ? "index 3"
                     : f == IdaFormulation::kIndex2 ? "GGL"
                                                    : "index 1 + projection";
  x.name = std::string("mixed basis: IDA ") + what;
  x.n = mixedCoordinates(m);
  const Index norms = m.dimension == 3 ? static_cast<Index>(m.bodies.size()) : 0;
  x.m = str(m.nc) + " + " + str(norms) + " norm";
  x.size = str(MultibodyDae(m, mb->plan, f).layout().size) + " DAE";
  x.run = [mb, f, h, observe](double tol, Trajectory& out) {
    IdaOptions o = sweepOptions<IdaOptions>(h, tol);
    o.formulation = f;
    RunRecord r;
    const State s0 = initialState(mb->model);
    const DynamicsResult d = timed(r, [&] {
      return integrateIda(mb->model, mb->plan, s0, o, collectInto(out, mb->model, observe));
    });
    fillRun(d.status, d.stats, r);
    r.notes = "Jac. " + str(d.stats.jacobian_evaluations);
    if (f == IdaFormulation::kIndex1) r.notes += ", proj. " + str(d.stats.projections);
    return r;
  };
  return x;
}

Formulation mixedGeneralizedAlpha(std::shared_ptr<const MixedBasis> mb, const Horizon& h,
                                  double rho_inf, StateObservable observe) {
  Formulation x;
  const Model& m = mb->model;
  std::ostringstream name;
  name << "mixed basis: generalized-alpha (rho_inf " << rho_inf << ")";
  x.name = name.str();
  x.n = mixedCoordinates(m);
  x.m = str(m.nc);
  x.size = str(m.nv + m.nc) + " Newton";
  x.tol_name = "error_tolerance";
  x.run = [mb, h, rho_inf, observe](double tol, Trajectory& out) {
    GeneralizedAlphaOptions o;
    o.t_end = h.t_end;
    o.output_interval = h.interval;
    o.rho_inf = rho_inf;
    o.error_tolerance = tol;
    // Newton a hundredth of the local error (the library's default stops at 1e-10, above
    // what the tightest settings of the sweep need).
    o.newton_tolerance = std::min(1e-10, 1e-2 * tol);
    RunRecord r;
    const State s0 = initialState(mb->model);
    const DynamicsResult d = timed(r, [&] {
      return integrateGeneralizedAlpha(mb->model, mb->plan, s0, o,
                                       collectInto(out, mb->model, observe));
    });
    fillRun(d.status, d.stats, r);
    r.notes = "fact. " + str(d.stats.factorizations) + ", rejected " + str(d.stats.rejected_steps);
    return r;
  };
  return x;
}

Formulation mixedMcs(std::shared_ptr<const MixedBasis> mb, const Horizon& h,
                     StateObservable observe) {
  Formulation x;
  const Model& m = mb->model;
  x.name = "mixed basis: MCS + ERK DP5(4)";
  x.n = mixedCoordinates(m);
  x.m = str(m.nc);
  x.size = str(m.nq) + " + f ODE";
  x.run = [mb, h, observe](double tol, Trajectory& out) {
    const McsOptions o = sweepOptions<McsOptions>(h, tol);
    RunRecord r;
    const State s0 = initialState(mb->model);
    const auto collect = collectInto(out, mb->model, observe);
    const McsResult d = timed(r, [&] {
      return integrateMcs(mb->model, mb->plan, s0, o,
                          [&](const State& s, const McsSample&) { return collect(s); });
    });
    fillRun(d.dynamics.status, d.dynamics.stats, r);
    r.size = str(mb->model.nq + d.dof) + " ODE";
    r.notes = "RHS " + str(d.mcs.rhs_evaluations) + ", QRCP " + str(d.mcs.factorizations) +
              ", corr. it. " + str(d.mcs.correction_iterations);
    return r;
  };
  return x;
}

using RmObservable = std::function<VecX(const rm::RmModel&, const rm::RmState&)>;

std::string rmConstraints(const rm::RmModel& m) {
  return str(m.m) + " (" + str(m.m_orthogonality) + " orth.)";
}

Formulation rmIda(std::shared_ptr<const rm::RmModel> rmm, const Horizon& h, RmObservable observe) {
  Formulation x;
  x.name = "rotation matrix: IDA GGL (dense)";
  x.n = str(rmm->n);
  x.m = rmConstraints(*rmm);
  x.size = str(rm::rmGglSize(*rmm)) + " DAE";
  x.run = [rmm, h, observe](double tol, Trajectory& out) {
    const auto o = sweepOptions<rm::RmIdaOptions>(h, tol);
    RunRecord r;
    const rm::RmState s0 = rm::initialRmState(*rmm);
    const rm::RmRunResult d =
        timed(r, [&] { return rm::integrateRmIda(*rmm, s0, o, collectInto(out, *rmm, observe)); });
    fillRun(d.status, d.stats, r);
    r.notes = "Jac. " + str(d.stats.jacobian_evaluations);
    return r;
  };
  return x;
}

Formulation rmTwoStep(std::shared_ptr<const rm::RmModel> rmm, const Horizon& h,
                      RmObservable observe) {
  Formulation x;
  x.name = "rotation matrix: two-step + ERK DP5(4)";
  x.n = str(rmm->n);
  x.m = rmConstraints(*rmm);
  x.size = str(2 * rmm->n) + " ODE";
  x.run = [rmm, h, observe](double tol, Trajectory& out) {
    auto o = sweepOptions<rm::RmTwoStepOptions>(h, tol);
    o.projection_tolerance = kAtolFactor * tol;
    RunRecord r;
    const rm::RmState s0 = rm::initialRmState(*rmm);
    const rm::RmRunResult d = timed(
        r, [&] { return rm::integrateRmTwoStep(*rmm, s0, o, collectInto(out, *rmm, observe)); });
    fillRun(d.status, d.stats, r);
    r.notes = "RHS " + str(d.stats.rhs_evaluations) + ", proj. " + str(d.stats.projections);
    return r;
  };
  return x;
}

/// A Lagrangian-facility mechanism (hand-written or from natural coordinates) with its initial
/// guess and the coordinates the consistent projection keeps.
struct LagrangianProblem {
  lg::LagrangianSystem sys;
  VecX q0, v0;
  lg::ConsistencyOptions consistency;
};

using QObservable = std::function<VecX(const VecX& q)>;

Formulation lagrangianIda(const std::string& family, std::shared_ptr<const LagrangianProblem> p,
                          lg::LagrangianForm form, const Horizon& h, QObservable observe) {
  Formulation x;
  const bool ggl = form == lg::LagrangianForm::kStabilizedIndex2;
  x.name = family + ": IDA " + (ggl ? "GGL" : "index 3") + " (dense, AD)";
  x.n = str(p->sys.nq);
  x.m = str(p->sys.nc);
  x.size = str(lg::LagrangianDaeLayout(p->sys, form).size()) + " DAE";
  x.run = [p, form, h, observe](double tol, Trajectory& out) {
    auto o = sweepOptions<lg::LagrangianIdaOptions>(h, tol);
    o.form = form;
    RunRecord r;
    const auto start = Clock::now();
    lg::LagrangianState s0;
    const Status st =
        lg::computeConsistentLagrangianState(p->sys, p->q0, p->v0, p->consistency, s0);
    if (!st.ok()) {
      r.message = st.message;
      return r;
    }
    const lg::LagrangianRunResult d =
        lg::integrateLagrangianIda(p->sys, s0, o, [&](const lg::LagrangianState& s) {
          out.push_back(observe(s.q));
          return true;
        });
    r.wall_ms = bench::millisecondsSince(start);
    fillRun(d.status, d.stats, r);
    r.notes =
        "res. " + str(d.stats.residual_evaluations) + ", Jac. " + str(d.stats.jacobian_evaluations);
    return r;
  };
  return x;
}

struct ADCost {
  double first_us = 0.0, second_us = 0.0;
};

/// Median time of one first- and one second-order evaluation of the problem's derivatives.
ADCost measureADCost(const LagrangianProblem& p, int repeats) {
  constexpr int kCalls = 2000;
  lg::LagrangianFirstOrder d1;
  lg::LagrangianSecondOrder d2;
  d1.resize(p.sys.nq, p.sys.nc);
  d2.resize(p.sys.nq, p.sys.nc);
  std::vector<double> t1, t2;
  for (int k = 0; k < repeats; ++k) {
    auto start = Clock::now();
    for (int i = 0; i < kCalls; ++i) p.sys.evaluateFirst(p.q0, p.v0, d1);
    t1.push_back(1e3 * bench::millisecondsSince(start) / kCalls);
    start = Clock::now();
    for (int i = 0; i < kCalls; ++i) p.sys.evaluateSecond(p.q0, p.v0, d2);
    t2.push_back(1e3 * bench::millisecondsSince(start) / kCalls);
  }
  return {bench::median(t1), bench::median(t2)};
}

/// Both IDA forms of a Lagrangian-facility problem.
void addLagrangian(Case& c, const std::string& family, std::shared_ptr<const LagrangianProblem> p,
                   const QObservable& observe) {
  for (lg::LagrangianForm f : {lg::LagrangianForm::kStabilizedIndex2, lg::LagrangianForm::kIndex3})
    c.formulations.push_back(lagrangianIda(family, p, f, c.horizon, observe));
  c.lagrangians.emplace_back(family, p);
}

/// The five mixed-basis integrators of a model.
void addMixedBasis(Case& c, std::shared_ptr<const MixedBasis> mb, const StateObservable& observe) {
  for (IdaFormulation f :
       {IdaFormulation::kIndex2, IdaFormulation::kIndex3, IdaFormulation::kIndex1})
    c.formulations.push_back(mixedIda(mb, f, c.horizon, observe));
  for (double rho : c.rho_inf)
    c.formulations.push_back(mixedGeneralizedAlpha(mb, c.horizon, rho, observe));
  c.formulations.push_back(mixedMcs(mb, c.horizon, observe));
}

std::shared_ptr<const LagrangianProblem> naturalProblem(const std::string& stem) {
  const natural::NaturalInput in =
      natural::loadNaturalInput(kSource + "/inputs/natural/" + stem + ".yaml");
  auto p = std::make_shared<LagrangianProblem>();
  p->sys =
      natural::makeNaturalLagrangianSystem(std::make_shared<const natural::NaturalModel>(in.model));
  p->q0 = in.problem.q0;
  p->v0 = in.problem.v0;
  p->consistency.fixed = in.problem.fixed;
  return p;
}

template <class Mechanism>
std::shared_ptr<const LagrangianProblem> handWrittenProblem(const Mechanism& mech,
                                                            const std::string& name, VecX q0,
                                                            VecX v0) {
  auto p = std::make_shared<LagrangianProblem>();
  p->sys = lg::makeLagrangianSystem(mech, name);
  p->q0 = std::move(q0);
  p->v0 = std::move(v0);
  return p;
}

// ---------------------------------------------------------------------------------------------
// The examples.

/// An example's case without references and formulations: its key, title, error measure, end
/// time (h.t_end if given, else `t_end`), the target 1e-6, the outputs of h, the output times.
Case newCase(const char* key, const char* title, const char* error_name, double t_end,
             const Horizon& h, const std::vector<double>& rho_inf) {
  Case c;
  c.key = key;
  c.title = title;
  c.error_name = error_name;
  c.horizon.t_end = h.t_end > 0.0 ? h.t_end : t_end;
  c.target = 1e-6;
  c.horizon.interval = h.interval;
  c.rho_inf = rho_inf;
  c.times = outputTimes(c.horizon);
  return c;
}

Case doublePendulumCase(const Horizon& h, const std::vector<double>& rho_inf) {
  constexpr double m = 0.108, l = 0.20, a = 0.02, b = 0.01, g = 9.81;
  constexpr double phi0 = M_PI / 9, psi0 = M_PI / 18;
  Case c = newCase("dp", "the rotation-matrix paper's double pendulum",
                   "max abs angle error vs (26) [rad]", 5.0, h, rho_inf);
  const reference::DoublePendulumSolution ref =
      reference::doublePendulumTwoAngle(m, l, a, g, phi0, psi0, 0.0, 0.0, c.times);
  for (std::size_t k = 0; k < c.times.size(); ++k) {
    VecX x(2);
    x << ref.phi(static_cast<Index>(k)), ref.psi(static_cast<Index>(k));
    c.reference.push_back(x);
  }
  c.distance = [](const VecX& x, const VecX& r) { return (x - r).cwiseAbs().maxCoeff(); };

  // Mixed basis: G_i = r_i, H1 = r_1 + R_1 (l/2, 0, 0) (the marker bar1/H1).
  const auto mb = makeMixedBasis(loadMechanismFile(kSource + "/inputs/double_pendulum.yaml").model);
  addMixedBasis(c, mb, [](const Model& md, const State& s) {
    const Vec3 g1 = s.q.segment<3>(md.qOffset(0)), g2 = s.q.segment<3>(md.qOffset(1));
    return paperAngles(g1, g1 + quaternionMatrix(s.q, md.qOffset(0)) * Vec3(0.5 * l, 0, 0), g2);
  });
  // Rotation matrix: x = T* + R X with X in the reference (initial) configuration.
  const auto rmm =
      std::make_shared<const rm::RmModel>(rm::buildRmDoublePendulum(m, l, a, b, phi0, psi0, g));
  const RmObservable rmAngles = [](const rm::RmModel& md, const rm::RmState& s) {
    auto place = [&](Index body, const Vec3& X) {
      const Index o = md.qOffset(body);
      return Vec3(s.q.segment<3>(o) + Eigen::Map<const Mat3>(s.q.data() + o + 3) * X);
    };
    return paperAngles(place(0, md.bodies[0].com), place(0, md.joints[1].point2),
                       place(1, md.bodies[1].com));
  };
  c.formulations.push_back(rmIda(rmm, c.horizon, rmAngles));
  c.formulations.push_back(rmTwoStep(rmm, c.horizon, rmAngles));
  // Natural coordinates, q = (H1, u1, P2, u2): G1 = H1 / 2, G2 = (H1 + P2) / 2.
  addLagrangian(c, "natural coordinates (YAML)", naturalProblem("bar_double_pendulum"),
                [](const VecX& q) {
                  const Vec3 h1 = q.segment<3>(0), p2 = q.segment<3>(6);
                  return paperAngles(0.5 * h1, h1, 0.5 * (h1 + p2));
                });
  // Hand-written, q = (H1, P2) in the plane.
  VecX q0(4);
  q0 << l * std::cos(phi0), l * std::sin(phi0), l * (std::cos(phi0) + std::cos(psi0)),
      l * (std::sin(phi0) + std::sin(psi0));
  addLagrangian(c, "Lagrangian, hand-written (H1, P2)",
                handWrittenProblem(lg::examples::BarDoublePendulum{m, l, a, g}, "double pendulum",
                                   q0, VecX::Zero(4)),
                [](const VecX& q) {
                  const Vec3 h1(q(0), q(1), 0.0), p2(q(2), q(3), 0.0);
                  return paperAngles(0.5 * h1, h1, 0.5 * (h1 + p2));
                });
  return c;
}

Case mechanism0Case(const Horizon& h, const std::vector<double>& rho_inf) {
  const reference::Mechanism0Params P{};
  Case c = newCase("m0", "Mechanism0 of the natural-coordinates paper",
                   "max norm (A, B) error vs (theta, r, phi) ODE [m]", 5.0, h, rho_inf);
  const Eigen::MatrixXd ref = reference::mechanism0ThetaRPhi(
      P, Vec3(0.0, P.ell, 0.0), Vec3(1.0 / P.L, 0.0, -1.0 / P.ell), c.times);
  for (Index k = 0; k < ref.cols(); ++k) c.reference.push_back(ref.col(k).head(4));
  c.distance = [](const VecX& x, const VecX& r) { return (x - r).norm(); };
  const QObservable positions = [](const VecX& q) { return VecX(q.head(4)); };
  addLagrangian(c, "natural coordinates (YAML)", naturalProblem("mechanism0"), positions);
  VecX q0(4), v0(4);
  q0 << 0.0, -P.L, 0.0, -(P.L + P.ell);
  v0 << 1.0, 0.0, 0.0, 0.0;
  addLagrangian(c, "Lagrangian, hand-written (A, B)",
                handWrittenProblem(lg::examples::Mechanism0{}, "Mechanism0", q0, v0), positions);
  return c;
}

/// Euler's equations of a free rigid body in (R, omega_B): R' = R [omega]x,
/// I omega' = (I omega) x omega; R(0) = I. Returns vec(R) at the times.
Trajectory freeTopReference(const Vec3& I, const Vec3& omega0, const std::vector<double>& times) {
  const Eigen::MatrixXd Y = bench::freeRigidBody(I, omega0, times);
  Trajectory out;
  for (Index k = 0; k < Y.cols(); ++k) out.push_back(Y.col(k).head(9));
  return out;
}

Case freeTopCase(const Horizon& h, const std::vector<double>& rho_inf) {
  const Vec3 I(1.0, 2.0, 3.0), omega0(1.0, 0.3, 1.5);
  Case c = newCase("top", "the free top",
                   "max rotation angle of R_ref^T R vs Euler's equations [rad]", 10.0, h, rho_inf);
  c.reference = freeTopReference(I, omega0, c.times);
  c.distance = [](const VecX& x, const VecX& r) {
    return rotationAngle(unflatten(r), unflatten(x));
  };
  // Mixed basis: the same body (R_WB(0) = identity) held at its centroid by a spherical joint.
  const std::string yaml = R"(
name: free_top
dimension: 3
gravity: [0, 0, 0]
bodies:
  - name: top
    mass: 1.0
    inertia: [1, 2, 3]
    position: [0, 0, 0]
    angular_velocity: [1, 0.3, 1.5]
markers:
  - {name: ground/O, body: ground, position: [0, 0, 0]}
  - {name: top/O, body: top, position: [0, 0, 0]}
joints:
  - {name: O, type: spherical, marker1: top/O, marker2: ground/O}
analysis:
  type: simulate
)";
  const auto mb = makeMixedBasis(loadMechanismString(yaml, "free top (mixed basis)").model);
  addMixedBasis(c, mb,
                [](const Model&, const State& s) { return flatten(quaternionMatrix(s.q, 0)); });
  // Rotation matrix: reference configuration = the initial one, so the attitude is R itself.
  // Its constant mass matrix needs a Poinsot matrix tr(J)/2 I - J that is positive definite,
  // which a lamina (I_w = I_u + I_v, as this top) does not have.
  try {
    const auto rmm = std::make_shared<const rm::RmModel>(rm::rmModelFromCatenaModel(mb->model));
    const RmObservable rmAttitude = [](const rm::RmModel&, const rm::RmState& s) {
      return VecX(s.q.segment<9>(3));
    };
    c.formulations.push_back(rmIda(rmm, c.horizon, rmAttitude));
    c.formulations.push_back(rmTwoStep(rmm, c.horizon, rmAttitude));
  } catch (const Error& e) {
    c.not_run.push_back(std::string("rotation matrix (IDA GGL, two-step): ") + e.what());
  }
  // Natural coordinates and the hand-written FreeTop, q = (u, v).
  const QObservable uv = [](const VecX& q) {
    return flatten(frameOfVectors(q.segment<3>(0), q.segment<3>(3)));
  };
  addLagrangian(c, "natural coordinates (YAML)", naturalProblem("free_top"), uv);
  VecX q0(6), v0(6);
  q0 << Vec3::UnitX(), Vec3::UnitY();
  v0 << omega0.cross(Vec3::UnitX()), omega0.cross(Vec3::UnitY());
  addLagrangian(c, "Lagrangian, hand-written FreeTop (u, v)",
                handWrittenProblem(lg::examples::FreeTop{I(0), I(1), I(2)}, "free top", q0, v0),
                uv);
  return c;
}

// ---------------------------------------------------------------------------------------------
// The sweep.

struct Settings {
  int repeats = 3, per_decade = 2, confirm = 2;
  double tol_max = 1e-4, tol_min = 1e-12, budget = 5.0;
  Horizon horizon{0.0, 0.05};  ///< t_end 0: each example's own; the interval of the outputs
  std::vector<double> rho_inf = {0.5};
  bool sweep_table = false;
  std::vector<std::string> cases = {"dp", "m0", "top"};
  std::string only;  ///< run only the formulations whose name contains this
};

std::vector<double> tolerances(const Settings& s) {
  std::vector<double> t;
  const double decades = std::log10(s.tol_max / s.tol_min);
  const int count = static_cast<int>(std::lround(decades * s.per_decade));
  for (int k = 0; k <= count; ++k) {
    // Round to 3 significant digits, so the table shows 3.16e-06, not 3.1622776601683795e-06.
    const double t_k = s.tol_max * std::pow(10.0, -static_cast<double>(k) / s.per_decade);
    const double p = std::pow(10.0, std::floor(std::log10(t_k)) - 2);
    t.push_back(std::round(t_k / p) * p);
  }
  return t;
}

/// Runs f at tol once and measures its error against the case's reference.
RunRecord measure(const Case& c, const Formulation& f, double tol) {
  Trajectory traj;
  traj.reserve(c.times.size());
  RunRecord r = f.run(tol, traj);
  r.tol = tol;
  if (r.ok && traj.size() != c.times.size()) {
    r.ok = false;
    r.message = "stopped after " + str(static_cast<long>(traj.size())) + " of " +
                str(static_cast<long>(c.times.size())) + " outputs";
  }
  if (r.ok) {
    r.error = 0.0;
    for (std::size_t k = 0; k < traj.size(); ++k)
      r.error = std::max(r.error, c.distance(traj[k], c.reference[k]));
    if (!std::isfinite(r.error)) {
      r.ok = false;
      r.message = "the error is not finite";
    }
  }
  return r;
}

/// Index of the selected run of a sweep: the loosest one that reaches the target with the next
/// `confirm` completed runs reaching it too (fewer if `complete`: the sweep ended at its last
/// tolerance or its budget); -1 if none.
int selectRun(const std::vector<RunRecord>& runs, double target, int confirm, bool complete) {
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i].ok || runs[i].error > target) continue;
    int confirmed = 0;
    bool missed = false;
    for (std::size_t j = i + 1; j < runs.size() && confirmed < confirm; ++j) {
      if (!runs[j].ok) continue;  // a failure says nothing about accuracy
      if (runs[j].error > target) {
        missed = true;
        break;
      }
      ++confirmed;
    }
    if (!missed && (confirmed == confirm || complete)) return static_cast<int>(i);
  }
  return -1;
}

struct Outcome {
  const Formulation* formulation = nullptr;
  std::vector<RunRecord> sweep;
  RunRecord chosen;  ///< wall_ms: median of the repeats
  bool reached = false, any_ok = false;
};

Outcome sweepFormulation(const Case& c, const Formulation& f, const Settings& s) {
  Outcome out;
  out.formulation = &f;
  for (double tol : tolerances(s)) {
    const RunRecord r = measure(c, f, tol);
    out.sweep.push_back(r);
    if (!r.ok) std::cerr << c.key << " / " << f.name << " at " << tol << ": " << r.message << "\n";
    if (selectRun(out.sweep, c.target, s.confirm, false) >= 0) break;
    if (r.ok && r.wall_ms > 1e3 * s.budget) break;
  }
  int pick = selectRun(out.sweep, c.target, s.confirm, true);
  out.reached = pick >= 0;
  if (!out.reached) {  // the smallest error reached
    for (std::size_t i = 0; i < out.sweep.size(); ++i)
      if (out.sweep[i].ok && (pick < 0 || out.sweep[i].error < out.sweep[pick].error))
        pick = static_cast<int>(i);
  }
  out.any_ok = pick >= 0;
  if (!out.any_ok) return out;
  out.chosen = out.sweep[static_cast<std::size_t>(pick)];
  std::vector<double> walls = {out.chosen.wall_ms};
  for (int k = 1; k < s.repeats; ++k) walls.push_back(measure(c, f, out.chosen.tol).wall_ms);
  out.chosen.wall_ms = bench::median(walls);
  return out;
}

void printCase(const Case& c, const std::vector<Outcome>& outcomes, const Settings& s) {
  std::cout << "## " << c.key << ": " << c.title << ", t = 0.." << c.horizon.t_end << " s\n\n"
            << "Target: " << c.error_name << " <= " << sci(c.target, 0)
            << " at every output (every " << c.horizon.interval << " s).\n\n";
  double cheapest = kInf;
  for (const Outcome& o : outcomes)
    if (o.reached) cheapest = std::min(cheapest, o.chosen.wall_ms);
  std::cout << "| formulation | n | m | unknowns | tolerance | steps | Newton it. | wall [ms] "
               "| x cheapest | us/step | error reached | counters |\n"
            << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const Outcome& o : outcomes) {
    const Formulation& f = *o.formulation;
    const RunRecord& r = o.chosen;
    std::cout << "| " << f.name << " | " << f.n << " | " << f.m << " | "
              << (r.size.empty() ? f.size : r.size) << " | ";
    if (!o.any_ok) {
      std::cout << "every run failed | | | | | | | |\n";
      continue;
    }
    std::cout << f.tol_name << " " << sci(r.tol) << " | " << r.steps << " | " << r.newton << " | "
              << bench::fixed(r.wall_ms, 1) << " | "
              << (o.reached ? bench::fixed(r.wall_ms / cheapest, 1) : std::string("-")) << " | "
              << bench::fixed(1e3 * r.wall_ms / static_cast<double>(std::max(1L, r.steps)), 1)
              << " | " << sci(r.error)
              << (o.reached ? "" : " (target not reached: best of the sweep)") << " | " << r.notes
              << " |\n";
  }
  std::cout << "\n";
  for (const std::string& why : c.not_run) std::cout << "Not run: " << why << "\n\n";
  if (!c.lagrangians.empty()) {
    std::cout << "Cost of one evaluation of the Lagrangian's derivatives by AD at the initial "
                 "guess (median of "
              << s.repeats << " x 2000 calls):\n\n"
              << "| mechanism | nq | nc | first order: L_q, L_v, C, C_q [us] | second order: + "
                 "L_qq, L_qv, L_vv, C_qq [us] |\n|---|---|---|---|---|\n";
    for (const auto& [name, p] : c.lagrangians) {
      const ADCost cost = measureADCost(*p, s.repeats);
      std::cout << "| " << name << " | " << p->sys.nq << " | " << p->sys.nc << " | "
                << bench::fixed(cost.first_us, 2) << " | " << bench::fixed(cost.second_us, 2)
                << " |\n";
    }
    std::cout << "\n";
  }
  if (!s.sweep_table) return;
  std::cout << "<details><summary>Every run of the sweeps (" << c.key
            << "; wall time of one run)</summary>\n\n"
            << "| formulation | tolerance | steps | Newton it. | wall [ms] | error | reached |\n"
            << "|---|---|---|---|---|---|---|\n";
  for (const Outcome& o : outcomes)
    for (const RunRecord& r : o.sweep) {
      std::cout << "| " << o.formulation->name << " | " << sci(r.tol) << " | ";
      if (!r.ok) {
        std::string msg = r.message.substr(0, r.message.find_first_of(";\n"));
        if (msg.size() > 100) msg = msg.substr(0, 100) + "...";
        std::cout << "failed: " << msg << " | | | | |\n";
        continue;
      }
      std::cout << r.steps << " | " << r.newton << " | " << bench::fixed(r.wall_ms, 1) << " | "
                << sci(r.error) << " | " << (r.error <= c.target ? "yes" : "no") << " |\n";
    }
  std::cout << "\n</details>\n\n";
}

constexpr const char* kUsage =
    "usage: bench_formulation_comparison [--repeats N] [--cases dp,m0,top]\n"
    "  [--tol-max 1e-4] [--tol-min 1e-12] [--per-decade 2] [--confirm 2]\n"
    "  [--budget SECONDS] [--interval 0.05] [--t-end S] [--rho-inf 0.5,0.9]\n"
    "  [--only NAME-PART] [--sweep]\n";

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  bench::OptionReader(argc, argv, kUsage)
      .readAll({bench::option("--repeats", s.repeats), bench::option("--per-decade", s.per_decade),
                bench::option("--confirm", s.confirm), bench::option("--tol-max", s.tol_max),
                bench::option("--tol-min", s.tol_min), bench::option("--budget", s.budget),
                bench::option("--interval", s.horizon.interval),
                bench::option("--t-end", s.horizon.t_end), bench::option("--rho-inf", s.rho_inf),
                bench::option("--only", s.only), bench::flag("--sweep", s.sweep_table),
                bench::option("--cases", s.cases)});
  s.repeats = std::max(1, s.repeats);
  s.per_decade = std::max(1, s.per_decade);
  s.confirm = std::max(0, s.confirm);
  if (!(s.tol_max > 0.0 && s.tol_min > 0.0 && s.tol_min <= s.tol_max && s.horizon.interval > 0.0)) {
    std::cerr << "need 0 < --tol-min <= --tol-max and --interval > 0\n";
    return 2;
  }
  PetscSession session(nullptr, nullptr);

  std::cout << "# Formulations compared at the same accuracy\n\n"
            << "Tolerance sweep " << sci(s.tol_max, 0) << " .. " << sci(s.tol_min, 0) << ", "
            << s.per_decade << " per decade, atol = " << sci(kAtolFactor, 0)
            << " tol; selected: the loosest tolerance reaching the target with the next "
            << s.confirm << " tighter ones reaching it too; sweeps stop after a run over "
            << s.budget << " s. Wall time: median of " << s.repeats << " runs of the selected "
            << "tolerance (" << bench::cpuModel() << ").\n\n";
  for (const std::string& key : s.cases) {
    Case c;
    if (key == "dp")
      c = doublePendulumCase(s.horizon, s.rho_inf);
    else if (key == "m0")
      c = mechanism0Case(s.horizon, s.rho_inf);
    else if (key == "top")
      c = freeTopCase(s.horizon, s.rho_inf);
    else {
      std::cerr << "unknown case '" << key << "' (dp, m0, top)\n";
      return 2;
    }
    std::vector<Outcome> outcomes;
    for (const Formulation& f : c.formulations) {
      if (f.name.find(s.only) == std::string::npos) continue;
      std::cerr << c.key << ": " << f.name << "\n";
      outcomes.push_back(sweepFormulation(c, f, s));
    }
    printCase(c, outcomes, s);
  }
  return 0;
}
