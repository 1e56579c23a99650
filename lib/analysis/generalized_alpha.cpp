#include "analysis/generalized_alpha.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "analysis/scales.hpp"
#include "assembly/assemble.hpp"
#include "core/check.hpp"
#include "solvers/saddle_point.hpp"

namespace catena {
namespace {

/// The four parameters of the method from rho_inf (Chung & Hulbert; Arnold & Brüls).
struct Parameters {
  double alpha_m, alpha_f, gamma, beta;
  explicit Parameters(double rho) {
    alpha_m = (2.0 * rho - 1.0) / (rho + 1.0);
    alpha_f = rho / (rho + 1.0);
    gamma = 0.5 + alpha_f - alpha_m;
    beta = 0.25 * (gamma + 0.5) * (gamma + 0.5);
  }
};

/// Everything a step needs, allocated once.
struct Workspace {
  SparseMatrixCSR Cq, M, K, D, Kc, S;
  VecX C, gamma, f, r;
  Workspace(const Model& m, const AssemblyPlan& plan)
      : Cq(makeConstraintMatrix(plan)),
        M(makeBodyMatrix(plan)),
        K(makeBodyMatrix(plan)),
        D(makeBodyMatrix(plan)),
        Kc(makeBodyMatrix(plan)),
        S(makeBodyMatrix(plan)),
        C(m.nc),
        gamma(m.nc),
        f(m.nv),
        r(m.nv) {}
};

/// The integrator's state at a step: the State plus the accelerations of the method.
struct StepState {
  State s;
  VecX vdot;  ///< dv/dt
  VecX a;     ///< the method's acceleration-like variable
};

/// Consistent accelerations and multipliers at a consistent (q, v, t):
/// [M C_q^T; C_q 0] [vdot; lambda] = [f; gamma].
Status initialAccelerations(const Model& m, const AssemblyPlan& plan, const std::string& prefix,
                            Workspace& w, StepState& x) {
  assembleMass(m, plan, x.s.q, w.M);
  assembleForces(m, plan, x.s.q, x.s.v, x.s.t, w.f);
  assembleConstraints(m, plan, x.s.q, x.s.t, nullptr, &w.Cq);
  assembleGamma(m, plan, x.s.q, x.s.v, x.s.t, w.gamma);
  SaddlePointSolver kkt(w.M, w.Cq, prefix);
  Status st = kkt.factor(w.M, w.Cq, 1.0);
  if (st.ok()) st = kkt.solve(w.f, w.gamma, x.vdot, x.s.lambda);
  if (!st.ok())
    st.message = "generalized-alpha: the initial accelerations could not be computed (" +
                 st.message + "): is every free motion carrying mass?";
  x.a = x.vdot;
  return st;
}

/// The residual scale of the balance of forces: the largest applied or inertial force.
double forceScale(const Workspace& w, const StepState& x) {
  const double inertial = (w.M * x.vdot).cwiseAbs().maxCoeff();
  return std::max({w.f.cwiseAbs().maxCoeff(), inertial, 1e-300});
}

}  // namespace

DynamicsResult integrateGeneralizedAlpha(const Model& m, const AssemblyPlan& plan,
                                         const State& initial, const GeneralizedAlphaOptions& o,
                                         const TrajectoryObserver& observer) {
  DynamicsResult out;
  CATENA_CHECK(
      o.rho_inf >= 0.0 && o.rho_inf < 1.0,
      "generalized-alpha: rho_inf = "
          << o.rho_inf
          << " is outside [0, 1): at 1 the "
             "index-3 scheme does not damp the multipliers and diverges (Arnold & Brüls 2007)");
  CATENA_CHECK(o.step > 0.0 && o.min_step > 0.0 && o.t_end > initial.t,
               "generalized-alpha: the step, the smallest step and t_end - t0 must be positive");
  const Parameters p(o.rho_inf);
  {
    std::ostringstream os;
    os << "generalized-alpha (Lie group, index 3), rho_inf = " << o.rho_inf
       << (o.constraint_stiffness ? "" : ", K_c off");
    out.method = os.str();
  }
  Workspace w(m, plan);
  StepState x{initial, VecX::Zero(m.nv), VecX::Zero(m.nv)};
  if (x.s.lambda.size() != m.nc) x.s.lambda = VecX::Zero(m.nc);
  out.status = initialAccelerations(m, plan, o.petsc_prefix, w, x);
  out.state = x.s;
  if (!out.status.ok()) return out;
  if (observer && !observer(x.s)) return out;

  const double ls = lengthScale(m);
  SaddlePointSolver kkt(w.S, w.Cq, o.petsc_prefix);
  DynamicsStats& stats = out.stats;
  double h_try = o.step;
  int successes_since_cut = 0;
  const double t_end = o.t_end;
  const double interval = o.output_interval > 0.0 ? o.output_interval : 0.0;
  double next_output = interval > 0.0 ? initial.t + interval : t_end;
  long output_count = 1;

  while (x.s.t < t_end - 1e-12 * std::max(1.0, std::abs(t_end))) {
    if (stats.steps >= o.max_steps) {
      std::ostringstream os;
      os << "generalized-alpha: " << o.max_steps << " steps taken and t = " << x.s.t
         << " s has not reached t_end = " << t_end << " s";
      out.status = Status::failure(Status::Code::kNotConverged, os.str());
      break;
    }
    const double target = interval > 0.0 ? std::min(next_output, t_end) : t_end;
    double h = std::min(h_try, target - x.s.t);
    if (target - x.s.t - h < 1e-9 * h) h = target - x.s.t;  // land on the output time

    // Predictor (Brüls, Cardona & Arnold 2012, algorithm 1).
    StepState y = x;
    y.s.t = x.s.t + h;
    y.vdot.setZero();
    y.a = (p.alpha_f * x.vdot - p.alpha_m * x.a) / (1.0 - p.alpha_m);
    y.s.v = x.s.v + h * (1.0 - p.gamma) * x.a + h * p.gamma * y.a;
    const VecX dq = x.s.v + h * (0.5 - p.beta) * x.a + h * p.beta * y.a;
    applyVariation(m, dq, h, y.s.q);
    const double beta_p = (1.0 - p.alpha_m) / (p.beta * h * h * (1.0 - p.alpha_f));
    const double gamma_p = p.gamma / (p.beta * h);

    // Newton corrector on the configuration.
    bool converged = false;
    double correction = INFINITY, position = INFINITY, force = INFINITY;
    Status linear = Status::success();
    for (int it = 0; it <= o.max_newton_iterations; ++it) {
      assembleMass(m, plan, y.s.q, w.M);
      assembleForces(m, plan, y.s.q, y.s.v, y.s.t, w.f);
      assembleConstraints(m, plan, y.s.q, y.s.t, &w.C, &w.Cq);
      w.r = w.M * y.vdot - w.f;
      w.r.noalias() += w.Cq.transpose() * y.s.lambda;
      position = w.C.cwiseAbs().maxCoeff() / ls;
      force = w.r.cwiseAbs().maxCoeff() / forceScale(w, y);
      if (it > 0 && correction <= o.newton_tolerance && position <= o.newton_tolerance) {
        converged = true;
        break;
      }
      if (it == o.max_newton_iterations) break;
      assembleForceJacobians(m, plan, y.s.q, y.s.v, y.s.t, &y.vdot, w.K, w.D);
      values(w.S) = beta_p * values(w.M) + gamma_p * values(w.D) + values(w.K);
      if (o.constraint_stiffness) {
        assembleConstraintStiffness(m, plan, y.s.q, y.s.t, y.s.lambda, w.Kc);
        values(w.S) += values(w.Kc);
      }
      // Constraint rows scaled to the iteration matrix (Bottasso et al.): the conditioning
      // does not grow like 1/h^2.
      linear = kkt.factor(w.S, w.Cq, constraintRowScale(w.S, w.Cq));
      ++stats.jacobian_evaluations;
      ++stats.factorizations;
      VecX dx, dl;
      if (linear.ok()) linear = kkt.solve(VecX(-w.r), VecX(-w.C), dx, dl);
      ++stats.linear_solves;
      ++stats.newton_iterations;
      if (!linear.ok() || !dx.allFinite()) break;
      applyVariation(m, dx, 1.0, y.s.q);
      y.s.v += gamma_p * dx;
      y.vdot += beta_p * dx;
      y.s.lambda += dl;
      correction = naturalNorm(m, dx, ls);
    }

    if (!converged) {
      ++stats.convergence_failures;
      ++stats.rejected_steps;
      successes_since_cut = 0;
      if (linear.code == Status::Code::kResources || 0.5 * h < o.min_step) {
        std::ostringstream os;
        os << "generalized-alpha: Newton did not converge at t = " << x.s.t << " s with the step "
           << h << " s";
        if (!linear.ok())
          os << " (linear solver: " << linear.message << ")";
        else
          os << " (correction " << correction << ", constraint residual " << position
             << " of the length scale " << ls << " m, force residual " << force << ")";
        os << "; the smallest step allowed is " << o.min_step << " s";
        out.status = Status::failure(Status::Code::kNotConverged, os.str());
        out.worst_rows = worstRows(m, w.C, 5);
        break;
      }
      h_try = 0.5 * h;
      continue;
    }

    // The method's acceleration; with error control, the local error decides.
    y.a += (1.0 - p.alpha_f) / (1.0 - p.alpha_m) * y.vdot;
    double growth = 0.0;  // next step over this one; 0: the fixed-step rule below
    if (o.error_tolerance > 0.0) {
      const double error =
          h * h * std::abs(p.beta - 1.0 / 6.0) * naturalMaxNorm(m, VecX(y.a - x.a), ls);
      const double factor = 0.9 * std::cbrt(o.error_tolerance / std::max(error, 1e-300));
      if (error > o.error_tolerance) {
        ++stats.error_test_failures;
        ++stats.rejected_steps;
        if (h * std::max(0.2, std::min(factor, 0.9)) < o.min_step) {
          std::ostringstream os;
          os << "generalized-alpha: the local error " << error << " exceeds the tolerance "
             << o.error_tolerance << " at t = " << x.s.t << " s even with the step " << h
             << " s; the smallest step allowed is " << o.min_step << " s";
          out.status = Status::failure(Status::Code::kNotConverged, os.str());
          break;
        }
        h_try = h * std::max(0.2, std::min(factor, 0.9));
        continue;
      }
      growth = std::clamp(factor, 0.2, 2.0);
    }
    x = std::move(y);
    ++stats.steps;
    stats.last_step = h;
    stats.smallest_step = stats.steps == 1 ? h : std::min(stats.smallest_step, h);
    stats.largest_step = std::max(stats.largest_step, h);
    if (growth > 0.0) {
      h_try = std::min(o.step, growth * h);
    } else if (h_try < o.step && ++successes_since_cut >= 4) {
      h_try = std::min(o.step, 2.0 * h_try);
      successes_since_cut = 0;
    }
    const bool at_output = interval > 0.0 ? x.s.t >= next_output - 1e-9 * h : true;
    if (at_output) {
      if (interval > 0.0) next_output = initial.t + interval * static_cast<double>(++output_count);
      if (observer && !observer(x.s)) break;
    }
  }
  out.state = x.s;
  return out;
}

}  // namespace catena
