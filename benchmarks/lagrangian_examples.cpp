// bench_lagrangian_examples: the Lagrangian facility (docs/lagrangian-facility.md) on its
// examples -- planar and spherical pendulums in Cartesian coordinates, the free top,
// Mechanism0 and the bar double pendulum -- each a templated L(q, q'), C(q) whose momentum-form
// Euler-Lagrange DAE is formed by Eigen AutoDiff and integrated by IDA (GGL index 2 and
// index 3, dense, Newton matrix from AD). For each case, form and rtol (atol = 1e-3 rtol):
// steps, Newton iterations, residual and Jacobian evaluations, median wall time of --repeats
// runs, the largest error against the independent reference (ARKODE Fehlberg 7(8) at rtol
// 1e-12, sampled every 0.01 s), the invariants' drift and the constraint drift. Then the cost
// of one first- and one second-order AD evaluation per example. Prints Markdown.
//
//   bench_lagrangian_examples --repeats 3

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "formulations/lagrangian/lagrangian_ida.hpp"
#include "lagrangian_examples.hpp"
#include "mechanism0_reference.hpp"
#include "reference_odes.hpp"
#include "support/markdown_table.hpp"
#include "support/options.hpp"
#include "support/references.hpp"
#include "support/stamp.hpp"
#include "support/timing.hpp"

using namespace catena;
using namespace catena::lagrangian;

namespace {

using bench::Clock;
constexpr double kInterval = 0.01;

struct Samples {
  std::vector<double> t;
  std::vector<VecX> q, v;
};

/// One example: its system, initial guess, horizon, and the error/invariant measures of a run.
struct Case {
  std::string name;
  LagrangianSystem sys;
  VecX q0, v0;
  double t_end;
  std::string error_label, invariant_label;
  std::function<double(const Samples&)> error = {};      ///< vs the reference
  std::function<double(const Samples&)> invariant = {};  ///< max drift of the invariants
};

double maxOver(const Samples& s, const std::function<double(std::size_t)>& f) {
  double w = 0.0;
  for (std::size_t k = 0; k < s.t.size(); ++k) w = std::max(w, f(k));
  return w;
}

/// The largest |E - E0| over a run's samples, E0 the energy of its first sample.
std::function<double(const Samples&)> energyDrift(const LagrangianSystem& sys) {
  return [sys](const Samples& s) {
    const double E0 = computeLagrangianEnergy(sys, s.q[0], s.v[0]);
    return maxOver(s, [&](std::size_t k) {
      return std::abs(computeLagrangianEnergy(sys, s.q[k], s.v[k]) - E0);
    });
  };
}

std::vector<Case> buildCases() {
  using namespace examples;
  std::vector<Case> cases;
  {  // planar pendulum, theta0 = 1 rad, at rest
    const double m = 1.0, l = 1.0, g = 9.81, th0 = 1.0;
    Case c{"planar pendulum (Cartesian)",
           makeLagrangianSystem(PointPendulum<2>{m, l, g}, "planar"),
           l * Vec2(std::sin(th0), -std::cos(th0)),
           Vec2::Zero(),
           10.0,
           "max abs theta err [rad]",
           "max abs(E - E0) [J]"};
    c.error = [=](const Samples& s) {
      const auto ref = reference::planarPendulum(l, g, th0, 0.0, s.t);
      return maxOver(s, [&](std::size_t k) {
        return std::abs(std::atan2(s.q[k](0), -s.q[k](1)) - ref.theta(static_cast<Index>(k)));
      });
    };
    c.invariant = energyDrift(c.sys);
    cases.push_back(c);
  }
  {  // spherical pendulum
    const double m = 0.7, l = 1.1, g = 9.81, th = 1.0, ph = 0.3;
    const Vec3 r0 =
        l * Vec3(std::sin(th) * std::cos(ph), std::sin(th) * std::sin(ph), -std::cos(th));
    const Vec3 v0 = 2.0 * Vec3(-std::sin(ph), std::cos(ph), 0.0);
    Case c{"spherical pendulum (Cartesian)",
           makeLagrangianSystem(PointPendulum<3>{m, l, g}, "spherical"),
           r0,
           v0,
           10.0,
           "max norm r err [m]",
           "max abs dE, abs dLz"};
    c.error = [=](const Samples& s) {
      const auto ref = reference::sphericalPendulum(m, l, g, r0, v0, s.t);
      return maxOver(s, [&](std::size_t k) {
        return (Vec3(s.q[k]) - ref.r.col(static_cast<Index>(k))).norm();
      });
    };
    c.invariant = [=](const Samples& s) {
      const double E0 = reference::sphericalPendulumEnergy(m, g, r0, v0);
      const double L0 = reference::sphericalPendulumAngularMomentumZ(m, r0, v0);
      return maxOver(s, [&](std::size_t k) {
        return std::max(
            std::abs(reference::sphericalPendulumEnergy(m, g, s.q[k], s.v[k]) - E0),
            std::abs(reference::sphericalPendulumAngularMomentumZ(m, s.q[k], s.v[k]) - L0));
      });
    };
    cases.push_back(c);
  }
  {  // free top near its intermediate axis
    const FreeTop top{1.0, 2.0, 3.5};
    const Vec3 Om(0.2, 2.0, 0.3), I(top.Iu, top.Iv, top.Iw);
    VecX q0(6), v0(6);
    q0 << Vec3::UnitX(), Vec3::UnitY();
    v0 << Om.cross(Vec3::UnitX()), Om.cross(Vec3::UnitY());
    Case c{"free top (u, v)",
           makeLagrangianSystem(top, "free top"),
           q0,
           v0,
           10.0,
           "max norm (u, v) err vs Euler eqs",
           "max abs dE, norm dH"};
    c.error = [=](const Samples& s) {
      const Eigen::MatrixXd ref = bench::freeRigidBody(I, Om, s.t);
      return maxOver(s, [&](std::size_t k) {
        return (s.q[k] - ref.col(static_cast<Index>(k)).head(6)).norm();
      });
    };
    const LagrangianSystem sys = c.sys;
    c.invariant = [=](const Samples& s) {
      const double E0 = computeLagrangianEnergy(sys, q0, v0);
      const Vec3 H0 = top.angularMomentum(q0, v0);
      return maxOver(s, [&](std::size_t k) {
        return std::max(std::abs(computeLagrangianEnergy(sys, s.q[k], s.v[k]) - E0),
                        (top.angularMomentum(s.q[k], s.v[k]) - H0).norm());
      });
    };
    cases.push_back(c);
  }
  {  // Mechanism0, the paper's IVP, over the range of its Fig. 4
    const reference::Mechanism0Params P{};
    VecX q0(4), v0(4);
    q0 << 0.0, -P.L, 0.0, -(P.L + P.ell);
    v0 << 1.0, 0.0, 0.0, 0.0;
    Case c{"Mechanism0 (A, B)",
           makeLagrangianSystem(Mechanism0{}, "Mechanism0"),
           q0,
           v0,
           10.0,
           "max norm (A, B, A', B') err vs (theta, r, phi) ODE",
           "max abs(E - E0) [J]"};
    c.error = [=](const Samples& s) {
      const Eigen::MatrixXd ref = reference::mechanism0ThetaRPhi(
          P, Vec3(0.0, P.ell, 0.0), Vec3(1.0 / P.L, 0.0, -1.0 / P.ell), s.t);
      return maxOver(s, [&](std::size_t k) {
        VecX x(8);
        x << s.q[k], s.v[k];
        return (x - ref.col(static_cast<Index>(k))).norm();
      });
    };
    c.invariant = energyDrift(c.sys);
    cases.push_back(c);
  }
  {  // the rotation-matrix paper's double pendulum in bar end points
    const BarDoublePendulum dp{};
    const double phi0 = M_PI / 9, psi0 = M_PI / 18;
    VecX q0(4);
    q0 << dp.l * std::cos(phi0), dp.l * std::sin(phi0), dp.l * (std::cos(phi0) + std::cos(psi0)),
        dp.l * (std::sin(phi0) + std::sin(psi0));
    Case c{"bar double pendulum (H1, P2)",
           makeLagrangianSystem(dp, "double pendulum"),
           q0,
           VecX::Zero(4),
           5.0,
           "max abs angle err vs (26) [rad]",
           "max abs(E - E_ref) [J]"};
    c.error = [=](const Samples& s) {
      const auto ref =
          reference::doublePendulumTwoAngle(dp.m, dp.l, dp.a, dp.g, phi0, psi0, 0, 0, s.t);
      return maxOver(s, [&](std::size_t k) {
        const VecX& q = s.q[k];
        const Index c = static_cast<Index>(k);
        return std::max(std::abs(std::atan2(q(1), q(0)) - ref.phi(c)),
                        std::abs(std::atan2(q(3) - q(1), q(2) - q(0)) - ref.psi(c)));
      });
    };
    const LagrangianSystem sys = c.sys;
    c.invariant = [=](const Samples& s) {
      const double E0 = reference::doublePendulumEnergy(dp.m, dp.l, dp.a, dp.g, phi0, psi0, 0, 0);
      return maxOver(s, [&](std::size_t k) {
        return std::abs(computeLagrangianEnergy(sys, s.q[k], s.v[k]) - E0);
      });
    };
    cases.push_back(c);
  }
  return cases;
}

}  // namespace

int main(int argc, char** argv) {
  int repeats = 3;
  bench::OptionReader r(argc, argv, "usage: bench_lagrangian_examples [--repeats N]\n");
  r.readAll({bench::option("--repeats", repeats)});
  repeats = std::max(1, repeats);
  const std::vector<Case> cases = buildCases();
  std::cout << "Lagrangian facility examples, outputs every " << kInterval
            << " s, atol = 1e-3 rtol (q, v, p), multipliers out of the error test; wall time: "
               "median of "
            << repeats << " runs (" << bench::cpuModel() << ")\n\n";
  std::cout << "| example | form | rtol | nq | nc | unknowns | t_end [s] | steps | Newton it. | "
               "residuals | Jacobians | wall [ms] | error vs reference | invariant drift | "
               "max abs C | max abs C_q v |\n";
  std::cout << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  struct Run {
    LagrangianForm form;
    double rtol;
  };
  const std::vector<Run> runs = {{LagrangianForm::kStabilizedIndex2, 1e-6},
                                 {LagrangianForm::kStabilizedIndex2, 1e-8},
                                 {LagrangianForm::kStabilizedIndex2, 1e-10},
                                 {LagrangianForm::kIndex3, 1e-6},
                                 {LagrangianForm::kIndex3, 1e-8}};
  for (const Case& c : cases) {
    LagrangianState s0;
    const Status st = computeConsistentLagrangianState(c.sys, c.q0, c.v0, {}, s0);
    if (!st.ok()) {
      std::cerr << c.name << ": " << st.message << "\n";
      return 1;
    }
    for (const Run& r : runs) {
      LagrangianIdaOptions opt;
      opt.form = r.form;
      opt.rtol = r.rtol;
      opt.atol = 1e-3 * r.rtol;
      opt.t_end = c.t_end;
      opt.output_interval = kInterval;
      const LagrangianDaeLayout ly(c.sys, r.form);
      std::vector<double> wall;
      Samples s;
      LagrangianRunResult res;
      for (int k = 0; k < repeats; ++k) {
        s = Samples{};
        res = integrateLagrangianIda(c.sys, s0, opt, [&s](const LagrangianState& x) {
          s.t.push_back(x.t);
          s.q.push_back(x.q);
          s.v.push_back(x.v);
          return true;
        });
        wall.push_back(res.stats.wall_seconds);
      }
      const char* form = r.form == LagrangianForm::kIndex3 ? "index 3" : "GGL index 2";
      std::cout << "| " << c.name << " | " << form << " | " << bench::sci(r.rtol) << " | "
                << c.sys.nq << " | " << c.sys.nc << " | " << ly.size() << " | "
                << std::setprecision(6) << c.t_end << " | ";
      if (!res.status.ok()) {
        std::string msg = res.status.message.substr(0, res.status.message.find(';'));
        std::cout << "failed: " << msg << " | | | | | | | | |\n";
        continue;
      }
      const LagrangianRunStats& x = res.stats;
      std::cout << x.steps << " | " << x.newton_iterations << " | " << x.residual_evaluations
                << " | " << x.jacobian_evaluations << " | " << std::fixed << std::setprecision(1)
                << 1e3 * bench::median(wall) << std::defaultfloat << " | " << bench::sci(c.error(s))
                << " (" << c.error_label << ") | " << bench::sci(c.invariant(s)) << " ("
                << c.invariant_label << ") | " << bench::sci(x.max_position_drift) << " | "
                << bench::sci(x.max_velocity_drift) << " |\n";
    }
  }
  // Cost of the AD evaluations (Eigen AutoDiffScalar, fixed-size derivatives).
  std::cout << "\nCost of one AD evaluation at the initial state (median of " << repeats
            << " x 2000 calls)\n\n| example | nq | nc | first order (L_q, L_v, C, C_q) [us] | "
               "second order (+ L_qq, L_qv, L_vv, C_qq) [us] |\n|---|---|---|---|---|\n";
  for (const Case& c : cases) {
    LagrangianFirstOrder d1;
    LagrangianSecondOrder d2;
    d1.resize(c.sys.nq, c.sys.nc);
    d2.resize(c.sys.nq, c.sys.nc);
    std::vector<double> t1, t2;
    const int calls = 2000;
    for (int k = 0; k < repeats; ++k) {
      auto a = Clock::now();
      for (int i = 0; i < calls; ++i) c.sys.evaluateFirst(c.q0, c.v0, d1);
      auto b = Clock::now();
      for (int i = 0; i < calls; ++i) c.sys.evaluateSecond(c.q0, c.v0, d2);
      auto e = Clock::now();
      t1.push_back(std::chrono::duration<double>(b - a).count() / calls);
      t2.push_back(std::chrono::duration<double>(e - b).count() / calls);
    }
    std::cout << "| " << c.name << " | " << c.sys.nq << " | " << c.sys.nc << " | " << std::fixed
              << std::setprecision(2) << 1e6 * bench::median(t1) << " | " << 1e6 * bench::median(t2)
              << std::defaultfloat << " |\n";
  }
  return 0;
}
