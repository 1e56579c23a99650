#pragma once
/// @file integrator_choice.hpp
/// The integration `catena simulate` runs, as its options choose it, shared by the CLI
/// (drivers/simulate.cpp) and the Python module (drivers/python/analyses.cpp): generalized-alpha,
/// IDA on the index-3, index-2 (GGL) or index-1 DAE, explicit Runge-Kutta on the index-1 form
/// with projection, or the minimal-coordinate (MCS) dynamics.

#include <functional>
#include <memory>
#include <string>

#include "analysis/scales.hpp"
#include "integrators/accuracy_control.hpp"
#include "integrators/generalized_alpha.hpp"
#include "integrators/ida_dynamics.hpp"
#include "integrators/mcs_passages.hpp"
#include "integrators/rk_dynamics.hpp"
#include "mobility/constraint_rank.hpp"
#include "output_split.hpp"

namespace catena {

/// The integrator and its settings (the CLI's option of each name; units s).
struct IntegratorChoice {
  std::string integrator = "gen-alpha";  ///< gen-alpha | ida | rk
  std::string rk_table = "verner65";     ///< rk: dp54 | verner65 | fehlberg78
  std::string formulation = "index2";    ///< index3 | index2 | index1 (ida) | mcs
  std::string linear_solver = "klu";     ///< ida: klu | petsc
  double t_end = 1.0;                    ///< s, the duration from the initial state's t
  double dt = 1e-2;                      ///< s: gen-alpha's largest step; mcs: the fixed step
  double output_interval = 0.0;          ///< s
  double rho_inf = 0.5, rtol = 1e-6, atol = 1e-8, newton_tolerance = 0.0;
  /// gen-alpha's local error tolerance. The command's default, 1e-8, keeps the global position
  /// error within 3.6e-6..1.0e-4 of the size on the six problems of
  /// benchmarks/results/tolerance_calibration.md (the library's 1e-5: 2.2e-4..1.5e-2), at 3-10
  /// times the steps (docs/accuracy.md, "Defaults").
  double tolerance = 1e-8;
  bool kc = true, fixed_step = false, full_newton = false;
  std::string continuation = "on", continuation_map = "exponential";  ///< mcs
  double rank_tolerance = kDefaultRankTolerance;                      ///< mcs
  bool align_basis = false;                                           ///< mcs
  /// ida, rk: > 0, the wanted global position error relative to the mechanism's size
  /// (integrators/accuracy_control.hpp); rtol and atol are then chosen by the ladder.
  double accuracy = 0.0;
  double max_step = 0.0;  ///< ida, rk: s, 0: none (set by the accuracy ladder)
};

namespace detail {

/// One run of `c` from `initial`, its outputs every c.output_interval as the integrator makes
/// them (integrateChoice's dispatch).
inline DynamicsResult integrateOnce(const Model& m, const AssemblyPlan& plan, const State& initial,
                                    const IntegratorChoice& c, const TrajectoryObserver& observer,
                                    const std::function<void(const McsSample&)>& on_mcs_sample,
                                    std::unique_ptr<McsResult>* mcs) {
  if (c.formulation == "mcs") {
    McsOptions o;
    o.t_end = initial.t + c.t_end;
    o.output_interval = c.output_interval;
    o.rtol = c.rtol;
    o.atol = c.atol;
    o.fixed_step = c.fixed_step ? c.dt : 0.0;
    o.continuation = c.continuation == "on";
    o.map = c.continuation_map == "cayley"       ? ContinuationMap::kCayley
            : c.continuation_map == "projection" ? ContinuationMap::kProjection
                                                 : ContinuationMap::kExponential;
    o.rank_tolerance = c.rank_tolerance;
    o.align_initial_basis = c.align_basis;
    o.assemble_initial_state = false;  // the caller's
    auto r = std::make_unique<McsResult>(
        integrateMcsWithPassages(m, plan, initial, o, [&](const State& s, const McsSample& x) {
          if (on_mcs_sample) on_mcs_sample(x);
          return observer(s);
        }));
    DynamicsResult d = r->dynamics;
    if (mcs) *mcs = std::move(r);
    return d;
  }
  if (c.integrator == "ida") {
    IdaOptions o;
    o.formulation = c.formulation == "index3"   ? IdaFormulation::kIndex3
                    : c.formulation == "index1" ? IdaFormulation::kIndex1
                                                : IdaFormulation::kIndex2;
    o.t_end = initial.t + c.t_end;
    o.output_interval = c.output_interval;
    o.rtol = c.rtol;
    o.atol = c.atol;
    o.linear_solver = c.linear_solver == "petsc" ? IdaLinearSolver::kPetsc : IdaLinearSolver::kKlu;
    o.max_step = c.max_step;
    o.assemble_initial_state = false;  // the caller's
    return integrateIda(m, plan, initial, o, observer);
  }
  if (c.integrator == "rk") {
    RkOptions o;
    o.table = parseRkTable(c.rk_table);
    o.t_end = initial.t + c.t_end;
    o.output_interval = c.output_interval;
    o.rtol = c.rtol;
    o.atol = c.atol;
    o.max_step = c.max_step;
    o.assemble_initial_state = false;  // the caller's
    return integrateRungeKutta(m, plan, initial, o, observer);
  }
  GeneralizedAlphaOptions o;
  o.t_end = initial.t + c.t_end;
  o.step = c.dt;
  o.output_interval = c.output_interval;
  o.rho_inf = c.rho_inf;
  o.constraint_stiffness = c.kc;
  o.error_tolerance = c.fixed_step ? 0.0 : c.tolerance;
  o.reuse_iteration_matrix = !c.full_newton;
  o.newton_tolerance = c.newton_tolerance;
  return integrateGeneralizedAlpha(m, plan, initial, o, observer);
}

}  // namespace detail

/// Integrates from `initial` (consistent: integrators/initial_state.hpp) over c.t_end; the
/// observer gets every output time (of c.output_interval and t_end; the run itself outputs
/// outputSplit times as often, for its checks). An MCS run also hands each sample to
/// `on_mcs_sample` (may be empty) and its whole result to *mcs (if mcs is not null). With
/// c.accuracy > 0 (ida, rk) the accuracy ladder runs and its record goes to *ladder (if not null).
/// Failures are in the Status.
inline DynamicsResult integrateChoice(const Model& m, const AssemblyPlan& plan,
                                      const State& initial, const IntegratorChoice& c,
                                      const TrajectoryObserver& observer,
                                      const std::function<void(const McsSample&)>& on_mcs_sample,
                                      std::unique_ptr<McsResult>* mcs,
                                      AccuracyResult* ladder = nullptr) {
  if (c.accuracy > 0.0 && (c.integrator == "ida" || c.integrator == "rk")) {
    // rtol = the ladder's tolerance; atol a hundredth of it times the mechanism's size.
    const double length = lengthScale(m);
    AccuracyOptions a;
    a.accuracy = c.accuracy;
    AccuracyResult r = integrateToAccuracy(
        m, a,
        [&](double tol, double max_step, const TrajectoryObserver& obs) {
          IntegratorChoice one = c;
          one.accuracy = 0.0;
          one.max_step = max_step;
          one.rtol = tol;
          one.atol = 1e-2 * tol * length;
          return integrateChoice(m, plan, initial, one, obs, on_mcs_sample, mcs);
        },
        observer);
    if (ladder) *ladder = r;
    return r.dynamics;
  }
  const int split = c.output_interval > 0.0 ? outputSplit(c.output_interval, c.dt) : 1;
  if (split == 1) return detail::integrateOnce(m, plan, initial, c, observer, on_mcs_sample, mcs);
  IntegratorChoice fine = c;
  fine.output_interval = c.output_interval / split;
  const RequestedOutputs requested{initial.t, initial.t + c.t_end, c.output_interval};
  long flips = 0;  // sign flips of T over the samples not handed on
  return detail::integrateOnce(
      m, plan, initial, fine,
      [&](const State& s) { return !requested(s.t) || !observer || observer(s); },
      [&](const McsSample& x) {
        flips += x.flips;
        if (!on_mcs_sample || !requested(x.t)) return;
        McsSample out = x;
        out.flips = flips;
        flips = 0;
        on_mcs_sample(out);
      },
      mcs);
}

}  // namespace catena
