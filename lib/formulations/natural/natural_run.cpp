#include "formulations/natural/natural_run.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "formulations/lagrangian/lagrangian_ida.hpp"
#include "formulations/natural/natural_kinematics_run.hpp"
#include "formulations/natural/natural_mechanism.hpp"

namespace catena::natural {
namespace {

NaturalRun runDynamics(const NaturalInput& in, const NaturalRunOptions& o,
                       const NaturalRunObserver& observer) {
  NaturalRun run;
  const auto model = std::make_shared<const NaturalModel>(in.model);
  const lagrangian::LagrangianSystem sys = makeNaturalLagrangianSystem(model);
  lagrangian::LagrangianState s0;
  lagrangian::ConsistencyOptions copt;
  copt.fixed = in.problem.fixed;
  run.status = computeConsistentLagrangianState(sys, in.problem.q0, in.problem.v0, copt, s0);
  run.method = std::string("IDA on the Lagrangian DAE (momentum form, AD), ") +
               (o.index3 ? "index 3" : "stabilized index 2 (GGL)");
  run.t_reached = in.problem.t0;
  if (!run.status.ok()) {
    run.status.message = "the initial state is not consistent: " + run.status.message;
    return run;
  }
  s0.t = in.problem.t0;
  lagrangian::LagrangianIdaOptions io;
  io.form = o.index3 ? lagrangian::LagrangianForm::kIndex3
                     : lagrangian::LagrangianForm::kStabilizedIndex2;
  io.t_end = o.t_end;
  io.output_interval = o.output_interval;
  io.rtol = o.rtol;
  io.atol = o.atol;
  lagrangian::LagrangianFirstOrder first;
  first.resize(sys.nq, sys.nc);
  const lagrangian::LagrangianRunResult r =
      integrateLagrangianIda(sys, s0, io, [&](const lagrangian::LagrangianState& s) {
        sys.evaluateFirst(s.q, s.v, first);
        const double e = computeLagrangianEnergy(sys, s.q, s.v);
        if (std::isnan(run.energy_initial)) run.energy_initial = e;
        run.energy_final = e;
        // T = (v . L_v - L + V) / ... : for L = T - V with T quadratic in v, T = v . L_v / 2.
        run.max_kinetic = std::max(run.max_kinetic, 0.5 * s.v.dot(first.L_v));
        return observer(s.t, s.q, s.v, e, first.C.size() ? first.C.lpNorm<Eigen::Infinity>() : 0.0,
                        first.C.size() ? (first.C_q * s.v).lpNorm<Eigen::Infinity>() : 0.0);
      });
  run.status = r.status;
  run.t_reached = r.state.t;
  run.steps = r.stats.steps;
  run.newton_iterations = r.stats.newton_iterations;
  run.residual_evaluations = r.stats.residual_evaluations;
  run.jacobian_evaluations = r.stats.jacobian_evaluations;
  run.error_test_failures = r.stats.error_test_failures;
  run.convergence_failures = r.stats.convergence_failures;
  if (!r.status.ok() && r.state.q.size() == sys.nq) {
    sys.evaluateFirst(r.state.q, r.state.v, first);
    run.worst_rows.clear();
    for (Index i = 0; i < sys.nc; ++i)
      if (std::abs(first.C(i)) > 1e-6)
        run.worst_rows.push_back(in.model.constraintName(i) + ": residual " +
                                 std::to_string(first.C(i)));
  }
  return run;
}

NaturalRun runKinematics(const NaturalInput& in, const NaturalRunOptions& o,
                         const NaturalRunObserver& observer) {
  NaturalRun run;
  run.method =
      "kinematics (no mass): the problem's fixed coordinates driven at their given "
      "velocities, the others by Newton on C(q) = 0";
  NaturalKinematicsOptions ko;
  ko.t_end = o.t_end;
  ko.output_interval = o.output_interval;
  VecX C;
  MatX C_q;
  const NaturalKinematicsResult r =
      runNaturalKinematics(in.model, in.problem, ko, [&](double t, const VecX& q, const VecX& v) {
        computeNaturalConstraints(in.model, q, C, C_q);
        return observer(t, q, v, 0.0, C.size() ? C.lpNorm<Eigen::Infinity>() : 0.0,
                        C.size() ? (C_q * v).lpNorm<Eigen::Infinity>() : 0.0);
      });
  run.status = r.status;
  run.t_reached = r.t;
  run.steps = r.stats.steps;
  run.newton_iterations = r.stats.newton_iterations;
  run.rank = r.stats.rank;
  run.free_dof = r.stats.free_dof;
  run.worst_rows = r.worst_rows;
  return run;
}

}  // namespace

NaturalRunOptions naturalRunOptions(const NaturalProblem& problem, double duration,
                                    double output_interval) {
  NaturalRunOptions o;
  const double d = duration > 0.0 ? duration : problem.t_end - problem.t0;
  o.t_end = problem.t0 + d;
  o.output_interval = output_interval > 0.0 ? output_interval : d / 500.0;
  return o;
}

NaturalRun runNaturalSimulation(const NaturalInput& input, const NaturalRunOptions& options,
                                const NaturalRunObserver& observer) {
  return isMassless(input.model) ? runKinematics(input, options, observer)
                                 : runDynamics(input, options, observer);
}

}  // namespace catena::natural
