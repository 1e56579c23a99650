// bench_double_pendulum_formulations: the rotation-matrix paper's double pendulum (two bars
// 0.108 kg, 0.20 x 0.02 x 0.01 m, spherical joints, phi0 = 20 deg, psi0 = 10 deg, at rest) by
// three formulations at the same tolerances (docs/rotation-matrix-bodies.md):
//   - rotation-matrix DAE (T*, R; 9 elements of R as coordinates), IDA GGL index 2, dense;
//   - rotation-matrix two-step elimination (the paper's sec. 5), ARKODE ERKStep
//     Dormand-Prince 5(4) with projection;
//   - catena's mixed basis (position, quaternion), IDA GGL index 2, KLU (integrators/ida_dynamics).
// For each rtol (atol = 1e-2 rtol): sizes, steps, Newton iterations, RHS/residual evaluations,
// median wall time of --repeats runs, and the largest centre-of-mass error against the
// two-angle reference ODE (26) (ARKODE Fehlberg 7(8), rtol 1e-12), sampled every 0.01 s.
// Prints a Markdown table.
//
//   bench_double_pendulum_formulations --t-end 5 --repeats 5

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "assembly/plan.hpp"
#include "formulations/mixed_basis/multibody_dae.hpp"
#include "formulations/rotation_matrix/rm_dae_ida.hpp"
#include "formulations/rotation_matrix/rm_two_step.hpp"
#include "integrators/ida_dynamics.hpp"
#include "io/yaml_loader.hpp"
#include "parallel/petsc_session.hpp"
#include "reference_odes.hpp"
#include "support/options.hpp"
#include "support/stamp.hpp"
#include "support/timing.hpp"

using namespace catena;

namespace {

constexpr double kMass = 0.108, kLength = 0.20, kA = 0.02, kB = 0.01, kG = 9.81;
constexpr double kInterval = 0.01;

struct Row {
  std::string formulation;
  double rtol = 0.0;
  std::string sizes;  // n, m, unknowns
  long steps = 0, newton = 0, rhs = 0, jacobians = 0, projections = 0;
  double wall_ms = 0.0, error = 0.0;
  bool ok = true;
};

using bench::Clock;

}  // namespace

int main(int argc, char** argv) {
  double t_end = 5.0;
  int repeats = 3;
  bench::OptionReader r(argc, argv,
                        "usage: bench_double_pendulum_formulations [--t-end S] [--repeats N]\n");
  r.readAll({bench::option("--t-end", t_end), bench::option("--repeats", repeats)});
  PetscSession session(nullptr, nullptr);

  // 1. The reference and the three models.
  std::vector<double> times;
  for (int k = 0; k * kInterval <= t_end + 1e-12; ++k) times.push_back(k * kInterval);
  const auto ref = reference::doublePendulumTwoAngle(kMass, kLength, kA, kG, M_PI / 9, M_PI / 18,
                                                     0.0, 0.0, times);
  auto refError = [&](std::size_t k, const Vec3& g1, const Vec3& g2) {
    const auto p = reference::doublePendulumPoints(kLength, ref.phi(k), ref.psi(k));
    return std::max((g1.head<2>() - p.g1).norm(), (g2.head<2>() - p.g2).norm());
  };
  const rm::RmModel rmm =
      rm::buildRmDoublePendulum(kMass, kLength, kA, kB, M_PI / 9, M_PI / 18, kG);
  const Model qm =
      loadMechanismFile(std::string(CATENA_SOURCE_DIR) + "/inputs/double_pendulum.yaml").model;
  const AssemblyPlan plan = buildAssemblyPlan(qm);
  const Index q_unknowns = MultibodyDae(qm, plan, IdaFormulation::kIndex2).layout().size;
  auto rmCentres = [&](const rm::RmState& s, Vec3& g1, Vec3& g2) {
    auto place = [&](Index b) {
      const Index o = rmm.qOffset(b);
      return Vec3(s.q.segment<3>(o) +
                  Eigen::Map<const Mat3>(s.q.data() + o + 3) * rmm.bodies[b].com);
    };
    g1 = place(0);
    g2 = place(1);
  };

  // 2. The runs.
  std::vector<Row> rows;
  for (double rtol : {1e-6, 1e-8, 1e-10}) {
    for (int f = 0; f < 3; ++f) {
      Row row;
      row.rtol = rtol;
      std::vector<double> walls;
      for (int rep = 0; rep < repeats; ++rep) {
        double worst = 0.0;
        std::size_t k = 0;
        const auto start = Clock::now();
        if (f < 2) {
          const rm::RmObserver obs = [&](const rm::RmState& s) {
            Vec3 g1, g2;
            rmCentres(s, g1, g2);
            worst = std::max(worst, refError(k++, g1, g2));
            return true;
          };
          rm::RmRunResult r;
          if (f == 0) {
            rm::RmIdaOptions o;
            o.t_end = t_end;
            o.output_interval = kInterval;
            o.rtol = rtol;
            o.atol = 1e-2 * rtol;
            r = rm::integrateRmIda(rmm, rm::initialRmState(rmm), o, obs);
            row.formulation = "rotation matrix, IDA GGL (dense)";
            std::ostringstream os;
            os << rmm.n << " | " << rmm.m << " | " << rm::rmGglSize(rmm);
            row.sizes = os.str();
          } else {
            rm::RmTwoStepOptions o;
            o.t_end = t_end;
            o.output_interval = kInterval;
            o.rtol = rtol;
            o.atol = 1e-2 * rtol;
            o.projection_tolerance = 1e-2 * rtol;
            r = rm::integrateRmTwoStep(rmm, rm::initialRmState(rmm), o, obs);
            row.formulation = "rotation matrix, two-step + ERK DP5(4)";
            std::ostringstream os;
            os << rmm.n << " | " << rmm.m << " | " << 2 * rmm.n << " (ODE)";
            row.sizes = os.str();
          }
          row.ok = r.status.ok();
          if (!row.ok) std::cerr << row.formulation << ": " << r.status.message << "\n";
          row.steps = r.stats.steps;
          row.newton = r.stats.newton_iterations;
          row.rhs = r.stats.rhs_evaluations;
          row.jacobians = r.stats.jacobian_evaluations;
          row.projections = r.stats.projections;
        } else {
          IdaOptions o;
          o.t_end = t_end;
          o.output_interval = kInterval;
          o.rtol = rtol;
          o.atol = 1e-2 * rtol;
          const DynamicsResult r = integrateIda(qm, plan, initialState(qm), o, [&](const State& s) {
            worst = std::max(
                worst, refError(k++, s.q.segment<3>(qm.qOffset(0)), s.q.segment<3>(qm.qOffset(1))));
            return true;
          });
          row.formulation = "mixed basis (quaternion), IDA GGL (KLU)";
          std::ostringstream os;
          os << qm.nq << " (nv " << qm.nv << ") | " << qm.nc << " | " << q_unknowns;
          row.sizes = os.str();
          row.ok = r.status.ok();
          if (!row.ok) std::cerr << row.formulation << ": " << r.status.message << "\n";
          row.steps = r.stats.steps;
          row.newton = r.stats.newton_iterations;
          row.rhs = -1;  // IDA's residual count is not in DynamicsStats
          row.jacobians = r.stats.jacobian_evaluations;
        }
        walls.push_back(bench::millisecondsSince(start));
        row.error = worst;
      }
      row.wall_ms = bench::median(walls);
      rows.push_back(row);
    }
  }

  // 3. The table.
  std::cout << "Double pendulum of the rotation-matrix paper, t = 0.." << t_end
            << " s, atol = 1e-2 rtol, outputs every " << kInterval << " s; wall time: median of "
            << repeats << " runs (" << bench::cpuModel() << ")\n\n";
  std::cout << "| formulation | rtol | n | m | unknowns | steps | Newton it. | RHS/residual evals "
               "| Jacobians | projections | wall [ms] | max CoM error vs (26) [m] |\n";
  std::cout << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const Row& r : rows) {
    std::cout << "| " << r.formulation << (r.ok ? "" : " (FAILED)") << " | " << r.rtol << " | "
              << r.sizes << " | " << r.steps << " | " << r.newton << " | "
              << (r.rhs >= 0 ? std::to_string(r.rhs) : std::string("-")) << " | " << r.jacobians
              << " | " << r.projections << " | " << std::fixed << std::setprecision(1) << r.wall_ms
              << std::defaultfloat << std::setprecision(6) << " | " << std::scientific
              << std::setprecision(2) << r.error << std::defaultfloat << std::setprecision(6)
              << " |\n";
  }
  return 0;
}
