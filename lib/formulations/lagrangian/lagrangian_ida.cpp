#include "formulations/lagrangian/lagrangian_ida.hpp"

#include <algorithm>
#include <chrono>

#include "integrators/sundials/ida.hpp"

namespace catena::lagrangian {

namespace {

using Clock = std::chrono::steady_clock;

struct IdaRun {
  IdaRun(const LagrangianSystem& s, LagrangianForm form) : sys(s), layout(s, form), ws(s) {}
  const LagrangianSystem& sys;
  LagrangianDaeLayout layout;
  LagrangianDaeWorkspace ws;
  sundials::ErrorLog log;
  sundials::ErrorWeights weights;
  void residual(const Eigen::Ref<const VecX>& y, const Eigen::Ref<const VecX>& yp,
                Eigen::Ref<VecX> F) {
    computeLagrangianDaeResidual(sys, layout, ws, y, yp, F);
  }
  void jacobian(const Eigen::Ref<const VecX>& y, double c_j, Eigen::Ref<MatX> J) {
    computeLagrangianDaeJacobian(sys, layout, ws, y, c_j, J);
  }
};

}  // namespace

LagrangianRunResult integrateLagrangianIda(const LagrangianSystem& sys,
                                           const LagrangianState& initial,
                                           const LagrangianIdaOptions& options,
                                           const LagrangianObserver& observer) {
  const auto start = Clock::now();
  LagrangianRunResult result;
  const bool ggl = options.form == LagrangianForm::kStabilizedIndex2;
  result.method = std::string("Lagrangian (AD) momentum form, IDA ") +
                  (ggl ? "index-2 GGL" : "index-3") + " (dense)";
  result.state = initial;
  IdaRun run(sys, options.form);
  const LagrangianDaeLayout& ly = run.layout;
  const Index n = ly.n, m = ly.m, N = ly.size();
  auto finish = [&](Status st) {
    result.status = std::move(st);
    result.stats.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
  };
  LagrangianFirstOrder drift;
  drift.resize(n, m);
  auto observe = [&](const LagrangianState& s) {
    sys.evaluateFirst(s.q, s.v, drift);
    if (m > 0) {
      LagrangianRunStats& st = result.stats;
      st.max_position_drift = std::max(st.max_position_drift, drift.C.cwiseAbs().maxCoeff());
      st.max_velocity_drift =
          std::max(st.max_velocity_drift, (drift.C_q * s.v).cwiseAbs().maxCoeff());
    }
    return observer ? observer(s) : true;
  };
  if (initial.q.size() != n || initial.v.size() != n || initial.p.size() != n ||
      initial.lambda.size() != m || initial.vdot.size() != n || initial.pdot.size() != n)
    return finish(Status::failure(Status::Code::kInvalidInput,
                                  "IDA: the initial state does not match the system's sizes "
                                  "(use computeConsistentLagrangianState)"));
  if (!(options.t_end > initial.t))
    return finish(Status::failure(Status::Code::kInvalidInput, "IDA: t_end must exceed t0"));
  if (!observe(result.state)) return finish(Status::success());

  sundials::IdaObjects ida;
  if (!ida.makeDense(N))
    return finish(Status::failure(Status::Code::kResources, "IDA: out of memory"));
  Eigen::Map<VecX> y = sundials::entries(ida.y), yp = sundials::entries(ida.yp),
                   id = sundials::entries(ida.id);
  y.segment(ly.q(), n) = initial.q;
  y.segment(ly.v(), n) = initial.v;
  y.segment(ly.p(), n) = initial.p;
  y.segment(ly.lambda(), m) = initial.lambda;  // mu = 0
  yp.segment(ly.q(), n) = initial.v;
  yp.segment(ly.v(), n) = initial.vdot;
  yp.segment(ly.p(), n) = initial.pdot;
  // id marks the components in the error test (IDASetSuppressAlg); IDACalcIC is not used (the
  // DAE has index 2 or 3; the consistent point comes from computeConsistentLagrangianState).
  id.segment(ly.q(), n).setOnes();
  if (ggl) id.segment(ly.v(), 2 * n).setOnes();
  sundials::ErrorWeights& w = run.weights;
  w.rtol = options.rtol;
  w.atol = VecX::Constant(N, options.atol);
  w.atol.segment(ly.lambda(), N - ly.lambda()).setConstant(options.multiplier_atol);
  // Index 3: v and p are index-2 variables whose Newton corrections are O(1/h) inaccurate near
  // t0; with a tight atol the corrector never converges (TOOLCHAIN.md, pitfall 7).
  if (!ggl) w.atol.segment(ly.v(), 2 * n).setConstant(options.multiplier_atol);

  sundials::SetupGuard g =
      sundials::startIda(ida, run, sundials::denseResidual<IdaRun>, sundials::denseJacobian<IdaRun>,
                         initial.t, options.max_order, options.max_steps);
  void* mem = ida.mem.get();
  if (options.initial_step >= 0.0)
    CATENA_SUNDIALS_CALL(
        g, IDASetInitStep(mem, options.initial_step > 0.0 ? options.initial_step
                                                          : 1e-6 * (options.t_end - initial.t)));
  if (!g.ok()) return finish(g.status("Lagrangian IDA", sundials::idaFlagName, run.log));
  int flag = IDA_SUCCESS;

  double t = initial.t;
  sundials::OutputTimes times{initial.t, options.t_end, options.output_interval};
  while (t < options.t_end) {
    if ((flag = sundials::advance(ida, times, t)) < 0) break;
    LagrangianState& s = result.state;
    s.t = t;
    s.q = y.segment(ly.q(), n);
    s.v = y.segment(ly.v(), n);
    s.p = y.segment(ly.p(), n);
    s.lambda = y.segment(ly.lambda(), m);
    s.vdot = yp.segment(ly.v(), n);
    s.pdot = yp.segment(ly.p(), n);
    if (!observe(s)) break;
  }
  sundials::IdaCounters(mem).fill(result.stats, &LagrangianRunStats::residual_evaluations);
  if (flag < 0)
    return finish(run.log.stopped(result.method, t, options.t_end, sundials::idaFlagName(flag)));
  return finish(Status::success());
}

}  // namespace catena::lagrangian
