#include "integrators/ida_dynamics.hpp"

#include <algorithm>
#include <cmath>

#include "integrators/ida_driver.hpp"
#include "integrators/redundant_rows.hpp"
#include "integrators/singular_passage.hpp"
#include "math/rotation.hpp"

namespace catena {

// The BDF1 local error of the positions, h^2/2 |q''|, at a tenth of the tolerance, q'' from v'
// (r'' = v'_lin, rho'' = 1/2 rho (0, w') - |w|^2/4 rho). IDA's own estimate, 0.5 / |y'|_WRMS,
// takes the first-order change of y to half the tolerance, which at rtol 1e-8 means ~1e-9 s:
// below the step where index-3 multipliers drown in round-off (their Newton corrections carry
// ~ eps m L / h^2), and costly after every index-1 restart. At most 1e-3 of the run's span,
// like IDA's.
double initialIdaStep(const Model& m, Index bodies, const State& s, const VecX& vdot,
                      const IdaOptions& o, double span, double coordinates,
                      const std::function<double(const std::vector<double>&)>& total) {
  std::vector<double> squares;
  auto add = [&](double value, double x) {
    const double e = x / (o.rtol * std::abs(value) + o.atol);
    squares.push_back(e * e);
  };
  for (Index b = 0; b < bodies; ++b) {
    const Index qo = m.qOffset(b), vo = m.vOffset(b);
    for (int k = 0; k < 3; ++k) add(s.q(qo + k), vdot(vo + k));
    if (m.dimension != 3) continue;
    const Quat rho(s.q(qo + 3), s.q(qo + 4), s.q(qo + 5), s.q(qo + 6));
    const Vec3 w = s.v.segment<3>(vo + 3), wd = vdot.segment<3>(vo + 3);
    const Quat half = rho * Quat(0.0, 0.5 * wd.x(), 0.5 * wd.y(), 0.5 * wd.z());
    const double c = -0.25 * w.squaredNorm();
    add(rho.w(), half.w() + c * rho.w());
    add(rho.x(), half.x() + c * rho.x());
    add(rho.y(), half.y() + c * rho.y());
    add(rho.z(), half.z() + c * rho.z());
  }
  const double norm = std::sqrt(total(squares) / std::max(coordinates, 1.0));
  double h = 1e-3 * span;
  if (norm > 0.0) h = std::min(h, std::sqrt(0.2 / norm));
  if (o.max_step > 0.0) h = std::min(h, o.max_step);
  return h;
}

IdaResult integrateIda(const Model& model, const AssemblyPlan& plan, const State& initial,
                       const IdaOptions& o, const TrajectoryObserver& observer) {
  return withSingularPassages<IdaResult>(
      model, plan, initial, o.t_end, passageOptions(o.rtol, o.output_interval), observer,
      [&](const State& start, bool resumed, double t_end, const TrajectoryObserver& segment) {
        IdaOptions part = o;
        part.t_end = t_end;
        if (resumed) part.assemble_initial_state = true;  // the bridge's velocities drift
        return withIndependentRows<IdaResult>(
            model, plan, start, segment,
            [&](const Model& m, const AssemblyPlan& p, const State& s,
                const TrajectoryObserver& obs, bool rerun) {
              IdaOptions run = part;
              if (rerun) run.assemble_initial_state = false;  // s is the assembled start
              const std::unique_ptr<IdaSystem> system = makeSerialIdaSystem(m, p, run);
              return runIda(*system, s, run, obs);
            });
      });
}

}  // namespace catena
