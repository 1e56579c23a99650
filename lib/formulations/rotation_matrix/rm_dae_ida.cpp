#include "formulations/rotation_matrix/rm_dae_ida.hpp"

#include <algorithm>
#include <chrono>

#include "formulations/rotation_matrix/rm_assembly.hpp"
#include "formulations/rotation_matrix/rm_two_step.hpp"
#include "integrators/sundials/ida.hpp"

namespace catena::rm {

RmGglWorkspace::RmGglWorkspace(const RmModel& model)
    : Cq(model.m, model.n), Cq_v(model.m, model.n), C(model.m) {
  assembleRmMassMatrix(model, M);
  assembleRmForces(model, f);
}

void computeRmGglResidual(const RmModel& model, RmGglWorkspace& ws, const Eigen::Ref<const VecX>& y,
                          const Eigen::Ref<const VecX>& yp, Eigen::Ref<VecX> F) {
  const Index n = model.n, m = model.m;
  assembleRmConstraints(model, y.segment(0, n), &ws.C, &ws.Cq);
  const auto v = y.segment(n, n);
  const auto lambda = y.segment(2 * n, m);
  const auto mu = y.segment(2 * n + m, m);
  F.segment(0, n) = yp.segment(0, n) - v;
  F.segment(0, n).noalias() += ws.Cq.transpose() * mu;
  F.segment(n, n).noalias() = ws.M * yp.segment(n, n);
  F.segment(n, n).noalias() += ws.Cq.transpose() * lambda;
  F.segment(n, n) -= ws.f;
  F.segment(2 * n, m) = ws.C;
  F.segment(2 * n + m, m).noalias() = ws.Cq * v;
}

void computeRmGglJacobian(const RmModel& model, RmGglWorkspace& ws, const Eigen::Ref<const VecX>& y,
                          double c_j, Eigen::Ref<MatX> J) {
  const Index n = model.n, m = model.m;
  assembleRmConstraints(model, y.segment(0, n), nullptr, &ws.Cq);
  // d(C_q v)/dq = C_q at v: the orthogonality rows are quadratic, the joints linear (the joint
  // rows of C_q(v) would add T-like terms, so they are zeroed).
  assembleRmConstraints(model, y.segment(n, n), nullptr, &ws.Cq_v);
  ws.Cq_v.bottomRows(model.m_joints).setZero();
  J.setZero();
  J.block(0, 0, n, n).diagonal().array() += c_j;
  addRmConstraintHessianTimes(model, y.segment(2 * n + m, m), 1.0, J.block(0, 0, n, n));
  J.block(0, n, n, n).diagonal().array() -= 1.0;
  J.block(0, 2 * n + m, n, m) = ws.Cq.transpose();
  addRmConstraintHessianTimes(model, y.segment(2 * n, m), 1.0, J.block(n, 0, n, n));
  J.block(n, n, n, n) = c_j * ws.M;
  J.block(n, 2 * n, n, m) = ws.Cq.transpose();
  J.block(2 * n, 0, m, n) = ws.Cq;
  J.block(2 * n + m, 0, m, n) = ws.Cq_v;
  J.block(2 * n + m, n, m, n) = ws.Cq;
}

// ---------------------------------------------------------------------------------------------
// IDA adapter: the only part of this file that sees SUNDIALS.

namespace {

using Clock = std::chrono::steady_clock;

struct IdaRun {
  IdaRun(const RmModel& m) : model(m), ws(m) {}
  const RmModel& model;
  RmGglWorkspace ws;
  sundials::ErrorLog log;
  sundials::ErrorWeights weights;
  void residual(const Eigen::Ref<const VecX>& y, const Eigen::Ref<const VecX>& yp,
                Eigen::Ref<VecX> F) {
    computeRmGglResidual(model, ws, y, yp, F);
  }
  void jacobian(const Eigen::Ref<const VecX>& y, double c_j, Eigen::Ref<MatX> J) {
    computeRmGglJacobian(model, ws, y, c_j, J);
  }
};

}  // namespace

RmRunResult integrateRmIda(const RmModel& model, const RmState& initial,
                           const RmIdaOptions& options, const RmObserver& observer) {
  const auto start = Clock::now();
  RmRunResult result;
  result.method = "rotation-matrix DAE, IDA index-2 GGL (dense)";
  result.state = initial;
  const Index n = model.n, m = model.m, N = rmGglSize(model);
  IdaRun run(model);
  auto finish = [&](Status st) {
    result.status = std::move(st);
    result.stats.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return result;
  };
  auto observe = [&](const RmState& s) {
    const RmDrift d = computeRmDrift(model, s.q, s.v);
    RmDrift& w = result.stats.max_drift;
    w.orthogonality = std::max(w.orthogonality, d.orthogonality);
    w.joints = std::max(w.joints, d.joints);
    w.velocity = std::max(w.velocity, d.velocity);
    return observer ? observer(s) : true;
  };
  if (!(options.t_end > initial.t))
    return finish(Status::failure(Status::Code::kInvalidInput, "IDA: t_end must exceed t0"));
  VecX vdot, lambda;
  {
    const Status st = computeRmAccelerationsKkt(model, initial.q, initial.v, vdot, lambda);
    if (!st.ok()) return finish(st);
  }
  result.state.lambda = lambda;
  if (!observe(result.state)) return finish(Status::success());

  sundials::IdaObjects ida;
  if (!ida.makeDense(N))
    return finish(Status::failure(Status::Code::kResources, "IDA: out of memory"));
  Eigen::Map<VecX> y = sundials::entries(ida.y), yp = sundials::entries(ida.yp),
                   id = sundials::entries(ida.id);
  y.segment(0, n) = initial.q;
  y.segment(n, n) = initial.v;
  y.segment(2 * n, m) = lambda;  // mu = 0
  yp.segment(0, n) = initial.v;
  yp.segment(n, n) = vdot;
  id.head(2 * n).setOnes();
  run.weights.rtol = options.rtol;
  run.weights.atol = VecX::Constant(N, options.multiplier_atol);
  run.weights.atol.head(2 * n).setConstant(options.atol);

  const sundials::SetupGuard g =
      sundials::startIda(ida, run, sundials::denseResidual<IdaRun>, sundials::denseJacobian<IdaRun>,
                         initial.t, options.max_order, options.max_steps);
  if (!g.ok()) return finish(g.status("rotation-matrix IDA", sundials::idaFlagName, run.log));
  int flag = IDA_SUCCESS;

  double t = initial.t;
  sundials::OutputTimes times{initial.t, options.t_end, options.output_interval};
  while (t < options.t_end) {
    if ((flag = sundials::advance(ida, times, t)) < 0) break;
    RmState& s = result.state;
    s.t = t;
    s.q = y.segment(0, n);
    s.v = y.segment(n, n);
    s.lambda = y.segment(2 * n, m);
    if (!observe(s)) break;
  }
  sundials::IdaCounters(ida.mem.get()).fill(result.stats, &RmRunStats::rhs_evaluations);
  if (flag < 0)
    return finish(run.log.stopped(result.method, t, options.t_end, sundials::idaFlagName(flag)));
  return finish(Status::success());
}

}  // namespace catena::rm
