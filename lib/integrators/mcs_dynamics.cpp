#include "integrators/mcs_dynamics.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <limits>
#include <sstream>

#include "analysis/scales.hpp"
#include "assembly/assemble.hpp"
#include "core/check.hpp"
#include "integrators/branch_watch.hpp"
#include "integrators/initial_state.hpp"
#include "integrators/sundials/arkode.hpp"
#include "math/rotation.hpp"
#include "mobility/singular_search.hpp"

namespace catena {
namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

void toDense(const SparseMatrixCSR& S, MatX& D) {
  D.setZero(S.rows(), S.cols());
  for (int i = 0; i < S.outerSize(); ++i)
    for (SparseMatrixCSR::InnerIterator it(S, i); it; ++it) D(it.row(), it.col()) = it.value();
}

/// Assembles A = C_q and C_t at (q, t) (quaternions normalized into ws.qn) and factors
/// K = A_p Q1 of the chart.
Status prepareChart(const Model& model, const AssemblyPlan& plan, const McsChart& chart,
                    const VecX& q, double t, McsWorkspace& ws) {
  ws.qn = q;
  normalizeQuaternions(model, ws.qn);
  assembleConstraints(model, plan, ws.qn, t, nullptr, &ws.Cq);
  toDense(ws.Cq, ws.A);
  assembleConstraintTimeDerivative(model, plan, ws.qn, t, ws.Ct);
  const TangentFactors& F = chart.factors;
  const Index r = F.rank, f = chart.T.cols();
  ws.K.resize(r, r);
  ws.ApT.resize(r, f);
  for (Index i = 0; i < r; ++i) {
    ws.K.row(i).noalias() = ws.A.row(F.pivot_rows[i]) * F.Q1;
    ws.ApT.row(i).noalias() = ws.A.row(F.pivot_rows[i]) * chart.T;
  }
  if (r == 0) return Status::success();
  ws.lu.compute(ws.K);
  // The chart covers q while A_p Q1 is invertible; it fails only far from the chart's origin
  // or on a singular configuration hit exactly.
  const double rcond = ws.lu.rcond();
  if (!(rcond > 1e-14)) {
    std::ostringstream os;
    os << "the chart's A_p Q1 is singular at t = " << t << " (reciprocal condition " << rcond
       << "): the configuration is singular or too far from the step's start";
    return Status::failure(Status::Code::kSingular, os.str());
  }
  return Status::success();
}

/// v = T u + Q1 pi after prepareChart.
void chartVelocity(const McsChart& chart, const VecX& u, McsWorkspace& ws, VecX& v) {
  const TangentFactors& F = chart.factors;
  const Index r = F.rank;
  v.noalias() = chart.T * u;
  if (r == 0) return;
  ws.rhs.resize(r);
  ws.rhs.noalias() = -(ws.ApT * u);
  for (Index i = 0; i < r; ++i) ws.rhs(i) -= ws.Ct(F.pivot_rows[i]);
  ws.pi = ws.lu.solve(ws.rhs);
  v.noalias() += F.Q1 * ws.pi;
}

}  // namespace

McsWorkspace::McsWorkspace(const Model& model, const AssemblyPlan& plan)
    : Cq(makeConstraintMatrix(plan)),
      M(makeBodyMatrix(plan)),
      A(model.nc, model.nv),
      Md(model.nv, model.nv),
      qn(model.nq),
      C(model.nc),
      Ct(model.nc),
      gamma(model.nc),
      force(model.nv),
      beta(model.nv),
      Mb(model.nv) {}

Status computeMcsVelocity(const Model& model, const AssemblyPlan& plan, const McsChart& chart,
                          const VecX& q, const VecX& u, double t, McsWorkspace& ws, VecX& v) {
  const Status st = prepareChart(model, plan, chart, q, t, ws);
  if (!st.ok()) return st;
  chartVelocity(chart, u, ws, v);
  return Status::success();
}

Status computeMcsRates(const Model& model, const AssemblyPlan& plan, const McsChart& chart,
                       const VecX& q, const VecX& u, double t, McsWorkspace& ws, VecX& v,
                       VecX& vdot, VecX& udot, VecX* lambda) {
  const Status st = prepareChart(model, plan, chart, q, t, ws);
  if (!st.ok()) return st;
  chartVelocity(chart, u, ws, v);
  const TangentFactors& F = chart.factors;
  const Index r = F.rank, f = chart.T.cols();
  assembleGamma(model, plan, ws.qn, v, t, ws.gamma);
  assembleMass(model, plan, ws.qn, ws.M);
  toDense(ws.M, ws.Md);
  assembleForces(model, plan, ws.qn, v, t, ws.force);
  // J = T - Q1 (A_p Q1)^{-1} A_p T spans the tangent space at q; beta'' = Q1 (A_p Q1)^{-1}
  // gamma_p is the normal acceleration the constraints demand (eq. 14).
  ws.J = chart.T;
  ws.beta.setZero(model.nv);
  if (r > 0) {
    ws.J.noalias() -= F.Q1 * ws.lu.solve(ws.ApT);
    ws.rhs.resize(r);
    for (Index i = 0; i < r; ++i) ws.rhs(i) = ws.gamma(F.pivot_rows[i]);
    ws.beta.noalias() = F.Q1 * ws.lu.solve(ws.rhs);
  }
  ws.Mb.noalias() = ws.Md * ws.beta;
  udot.resize(f);
  if (f > 0) {
    ws.Mr.noalias() = ws.J.transpose() * ws.Md * ws.J;
    ws.llt.compute(ws.Mr);
    if (ws.llt.info() != Eigen::Success)
      return Status::failure(
          Status::Code::kSingular,
          "the reduced mass matrix J^T M J is not positive definite at t = " + std::to_string(t) +
              ": the mass matrix is singular on the admissible motions (a "
              "point mass whose rotation no joint fixes?)");
    udot = ws.llt.solve(ws.J.transpose() * (ws.force - ws.Mb));
  }
  vdot.noalias() = ws.J * udot;
  vdot += ws.beta;
  if (!vdot.allFinite())
    return Status::failure(Status::Code::kSingular,
                           "non-finite accelerations at t = " + std::to_string(t));
  if (lambda) {
    lambda->setZero(model.nc);
    if (r > 0) {
      // f - M v' lies in the range of A_p^T (the Maggi equations say it is normal to J).
      const VecX y = F.Q1.transpose() * (ws.force - ws.Md * vdot);
      const VecX lp = ws.lu.transpose().solve(y);
      for (Index i = 0; i < r; ++i) (*lambda)(F.pivot_rows[i]) = lp(i);
    }
  }
  return Status::success();
}

namespace {

/// A step end kept for the singular-configuration search, with the basis there.
struct McsStepRecord {
  PathSample sample;
  MatX T;
};

/// Everything the ARKODE callbacks share (their user data).
struct Run {
  Run(const Model& m, const AssemblyPlan& p, const McsOptions& opt)
      : model(m), plan(p), o(opt), ws(m, p), length_scale(lengthScale(m)), C(m.nc) {}
  const Model& model;
  const AssemblyPlan& plan;
  const McsOptions& o;
  McsWorkspace ws;
  McsChart chart;
  Index rank = 0, f = 0, numerical_rank = 0;
  double length_scale = 1.0;
  // The chart's origin: time, A, u; and the velocity at the last step end.
  double t_k = 0.0;
  MatX A_k;
  VecX u_k, v;
  VecX qmin;  ///< minimal coordinates (integral of q')
  long flips_since_output = 0;
  McsStats stats;
  DynamicsStats steps;
  std::deque<McsStepRecord> records;
  std::vector<SingularEvent> events;
  sundials::ErrorLog log;  ///< ARKODE's last error; log.callback: a callback's failure
  // Buffers of the callbacks.
  VecX q_buf, u_buf, v_buf, vdot_buf, udot_buf, C;

  Status completeStep(double t, double* y);
  void searchSingular();
};

Status Run::completeStep(double t, double* y) {
  const double h = t - t_k;
  Eigen::Map<VecX> yq(y, model.nq), yu(y + model.nq, f);
  q_buf = yq;
  u_buf = yu;
  normalizeQuaternions(model, q_buf);
  const TangentFactors& F = chart.factors;
  const Index r = rank;

  // 1. Positions back onto C = 0 by Newton on p along Q1_k (eqs. 17-19).
  const auto c0 = Clock::now();
  int it = 0;
  for (;; ++it) {
    assembleConstraints(model, plan, q_buf, t, &C, &ws.Cq);
    const double worst = maxAbs(C);
    if (worst <= o.position_tolerance * length_scale) break;
    if (it == o.max_correction_iterations || !std::isfinite(worst)) {
      std::ostringstream os;
      os << "the position correction (Newton on p, eqs. 17-19) did not reach |C| <= "
         << o.position_tolerance * length_scale << " in " << it << " iterations at t = " << t
         << " s (|C|_inf = " << worst << ")";
      return Status::failure(Status::Code::kNotConverged, os.str());
    }
    toDense(ws.Cq, ws.A);
    ws.K.resize(r, r);
    ws.rhs.resize(r);
    for (Index i = 0; i < r; ++i) {
      ws.K.row(i).noalias() = ws.A.row(F.pivot_rows[i]) * F.Q1;
      ws.rhs(i) = -C(F.pivot_rows[i]);
    }
    ws.lu.compute(ws.K);
    applyVariation(model, F.Q1 * ws.lu.solve(ws.rhs), 1.0, q_buf);
  }
  if (it > 0) ++stats.corrections;
  stats.correction_iterations += it;
  // v at the corrected positions with the same u = T_k^T v.
  Status st = computeMcsVelocity(model, plan, chart, q_buf, u_buf, t, ws, v);
  if (!st.ok()) return st;
  const MatX A_new = ws.A;
  const auto c1 = Clock::now();
  stats.seconds_correction += seconds(c0, c1);

  // 2. The new factorization.
  TangentFactors fresh = factorTangent(A_new, o.rank_tolerance);
  ++stats.factorizations;
  numerical_rank = fresh.rank;
  if (fresh.rank > r) {
    std::ostringstream os;
    os << "the rank of C_q rose from " << r << " to " << fresh.rank << " at t = " << t
       << " s: the run started on a singular configuration (or the rank tolerance "
       << o.rank_tolerance << " is too loose); the MCS charts keep the rank of t0, start the run "
       << "away from the singular configuration";
    return Status::failure(Status::Code::kSingular, os.str());
  }
  // A step end on a singular configuration (to the rank tolerance): keep the chart's size; the
  // singular search reports it.
  if (fresh.rank < r) fresh = factorTangent(A_new, o.rank_tolerance, r);
  const auto c2 = Clock::now();
  stats.seconds_factorization += seconds(c1, c2);

  // 3. The basis of the next step.
  MatX T_new;
  if (o.continuation) {
    const MatX T_ev = evolveTangent(F, chart.T, (A_new - A_k) / h, h, o.map);
    ContinuedTangent ct = continueTangent(fresh.Q1, fresh.T, T_ev);
    if (!ct.status.ok())
      return Status::failure(ct.status.code,
                             "the tangent continuation failed at t = " + std::to_string(t) +
                                 " s: " + ct.status.message + " (reduce the step)");
    T_new = std::move(ct.T);
  } else {
    T_new = fresh.T;
  }
  stats.seconds_continuation += seconds(c2, Clock::now());
  const long flips = countSignFlips(chart.T, T_new);
  stats.flips += flips;
  flips_since_output += flips;

  // 4. Minimal coordinates (trapezoid in the step's chart: u is T_k^T v at both ends), then
  //    the new chart with u re-expressed so that v is continuous.
  qmin += 0.5 * h * (u_k + u_buf);
  u_k = T_new.transpose() * v;
  yq = q_buf;
  yu = u_k;
  chart.factors = std::move(fresh);
  chart.T = std::move(T_new);
  A_k = A_new;
  t_k = t;
  ++steps.steps;
  steps.last_step = h;
  steps.smallest_step = std::min(steps.smallest_step, h);
  steps.largest_step = std::max(steps.largest_step, h);

  // 5. Singular configurations.
  records.push_back({{t, q_buf, v, r > 0 ? chart.factors.pivots(r - 1) : 1.0}, chart.T});
  if (records.size() > 3) records.pop_front();
  searchSingular();
  return Status::success();
}

void Run::searchSingular() {
  if (records.size() < 3 || rank == 0) return;
  const PathSample &a = records[0].sample, &b = records[1].sample, &c = records[2].sample;
  if (!bracketsSingular(a, b, c, o.singular_margin)) return;
  // The relative pivot r - 1 along the interpolated path; the last evaluation leaves ws.A at
  // the minimum.
  const PathMinimum minimum = minimizeAlongPath(model, a, b, c, [&](double tau, const VecX& q) {
    assembleConstraints(model, plan, q, tau, nullptr, &ws.Cq);
    toDense(ws.Cq, ws.A);
    ++stats.factorizations;
    return analyzeConstraintRank(ws.A, o.rank_tolerance).pivots(rank - 1);
  });
  const double ts = minimum.t, margin = minimum.value;
  const TangentFactors F = factorTangent(ws.A, o.singular_tolerance);
  if (F.rank >= rank) return;  // a near miss: no rank drop at the tolerance
  SingularEvent e;
  e.t = ts;
  e.margin = margin;
  e.sampled_margin = b.smallest;
  for (Index i = F.rank; i < rank; ++i) {
    e.vanished.push_back(i);
    e.rows.push_back(F.pivot_rows[i]);
  }
  const McsStepRecord& s0 = ts <= b.t ? records[0] : records[1];
  const McsStepRecord& s1 = ts <= b.t ? records[1] : records[2];
  const double w = (ts - s0.sample.t) / (s1.sample.t - s0.sample.t);
  const VecX vs = (1.0 - w) * s0.sample.v + w * s1.sample.v;
  if (o.continuation) {
    // The motion continued through the step ends on both sides, blended to ts; Procrustes onto
    // the larger tangent space splits off the new motions (N3).
    const MatX T_target = (1.0 - w) * s0.T + w * s1.T;
    const ContinuedTangent ct = continueTangent(F.Q1, F.T, T_target);
    e.continued = ct.T.leftCols(f);
    e.new_motions = ct.T.rightCols(ct.T.cols() - f);
    e.cosines = ct.cosines;
  } else {
    e.continued = F.T.leftCols(f);
    e.new_motions = F.T.rightCols(F.T.cols() - f);
  }
  e.qdot_continued = e.continued.transpose() * vs;
  e.qdot_new = e.new_motions.transpose() * vs;
  events.push_back(std::move(e));
}

// Callbacks catch everything (STYLE.md rule 6): 0 ok, -1 fatal (the reason kept in run.log).
int mcsRhsCallback(sunrealtype t, N_Vector y, N_Vector ydot, void* user) {
  auto* run = static_cast<Run*>(user);
  return sundials::guarded(run->log.callback, "the RHS", [&] {
    const auto c0 = Clock::now();
    const Model& m = run->model;
    const double* yv = N_VGetArrayPointer(y);
    double* dv = N_VGetArrayPointer(ydot);
    run->q_buf = Eigen::Map<const VecX>(yv, m.nq);
    run->u_buf = Eigen::Map<const VecX>(yv + m.nq, run->f);
    const Status st = computeMcsRates(m, run->plan, run->chart, run->q_buf, run->u_buf, t, run->ws,
                                      run->v_buf, run->vdot_buf, run->udot_buf);
    if (!st.ok()) {
      run->log.callback = st;
      return -1;
    }
    positionRates(m, yv, run->v_buf, dv);
    Eigen::Map<VecX>(dv + m.nq, run->f) = run->udot_buf;
    run->stats.seconds_rhs += seconds(c0, Clock::now());
    return 0;
  });
}

int mcsPostprocessCallback(sunrealtype t, N_Vector y, void* user) {
  auto* run = static_cast<Run*>(user);
  return sundials::guarded(run->log.callback, "a step's completion", [&] {
    if (sundials::interruptedAt(run->log.callback, "MCS", t)) return -1;
    const Status st = run->completeStep(t, N_VGetArrayPointer(y));
    if (st.ok()) return 0;
    run->log.callback = st;
    return -1;
  });
}

}  // namespace

McsResult integrateMcs(const Model& model, const AssemblyPlan& plan, const State& initial,
                       const McsOptions& o, const McsObserver& observer) {
  CATENA_CHECK(o.t_end > initial.t,
               "MCS: t_end must be after the initial time " << initial.t << " s, got " << o.t_end);
  CATENA_CHECK(o.rtol > 0.0 && o.atol > 0.0,
               "MCS: rtol and atol must be positive, got " << o.rtol << ", " << o.atol);
  CATENA_CHECK(o.output_interval >= 0.0 && o.fixed_step >= 0.0,
               "MCS: output_interval and fixed_step must not be negative");
  CATENA_CHECK(o.rank_tolerance > 0.0 && o.rank_tolerance < 1.0 && o.singular_tolerance > 0.0 &&
                   o.singular_tolerance < 1.0 && o.singular_margin > 0.0,
               "MCS: rank_tolerance and singular_tolerance must be in (0, 1), singular_margin "
               "positive");
  CATENA_CHECK(o.position_tolerance > 0.0 && o.max_correction_iterations >= 1 && o.max_steps > 0,
               "MCS: position_tolerance, max_correction_iterations and max_steps must be positive");
  CATENA_CHECK(!model.bodies.empty(), "MCS: the model has no bodies");
  CATENA_CHECK(model.nv <= o.max_coordinates,
               "MCS dynamics factors C_q^T with a dense QR every step (O(n^3)): the model has n = "
                   << model.nv
                   << " velocity coordinates, more than max_coordinates = " << o.max_coordinates
                   << "; integrate large models with IDA or generalized-alpha (sparse)");
  CATENA_CHECK(initial.q.size() == model.nq && initial.v.size() == model.nv,
               "MCS: the initial state has " << initial.q.size() << " positions and "
                                             << initial.v.size() << " velocities, the model "
                                             << model.nq << " and " << model.nv);

  McsResult out;
  DynamicsResult& dyn = out.dynamics;
  dyn.method = std::string("MCS QR projection, ARKODE Dormand-Prince 5(4), ") +
               (o.continuation ? std::string("continuation (") + continuationMapName(o.map) + ")"
                               : std::string("traditional (fresh QR every step)"));
  State s = initial;
  s.lambda = VecX::Zero(model.nc);
  auto fail = [&](Status::Code code, const std::string& message, const State& at) {
    dyn.status = Status::failure(code, message);
    dyn.state = at;
    dyn.worst_rows = worstRowsAt(model, plan, at.q, at.t, 5);
    return out;
  };

  // 1. Consistent initial state and the first chart (both modes start from the factorization's
  //    own basis, as the papers do).
  if (o.assemble_initial_state) {
    InitialStateResult r = assembleInitialState(model, plan, s);
    if (!r.status.ok()) {
      dyn.status = Status::failure(r.status.code, "MCS: " + r.status.message);
      dyn.state = r.state;
      dyn.worst_rows = r.worst_rows;
      return out;
    }
    s = r.state;
    s.lambda = VecX::Zero(model.nc);
  }
  Run run(model, plan, o);
  {
    assembleConstraints(model, plan, s.q, s.t, nullptr, &run.ws.Cq);
    toDense(run.ws.Cq, run.ws.A);
    run.A_k = run.ws.A;
    run.chart.factors = factorTangent(run.A_k, o.rank_tolerance);
    run.chart.T = run.chart.factors.T;
    run.stats.factorizations = 1;
  }
  run.rank = run.numerical_rank = run.chart.factors.rank;
  run.f = model.nv - run.rank;
  out.rank = run.rank;
  out.dof = run.f;
  run.t_k = s.t;
  run.qmin = VecX::Zero(run.f);
  run.u_k = run.chart.T.transpose() * s.v;
  if (o.align_initial_basis && run.f > 0 && run.u_k.norm() > 0.0) {
    // The Householder reflection that maps e1 to u / |u| (a reflection: the basis is an
    // arbitrary one anyway).
    VecX z = run.u_k / run.u_k.norm();
    z(0) -= 1.0;
    if (z.norm() > 1e-14) {
      const MatX H = MatX::Identity(run.f, run.f) - 2.0 * z * z.transpose() / z.squaredNorm();
      run.chart.T = run.chart.T * H;
      run.u_k = run.chart.T.transpose() * s.v;
    }
  }
  {
    const Status st = computeMcsVelocity(model, plan, run.chart, s.q, run.u_k, s.t, run.ws, run.v);
    if (!st.ok()) return fail(st.code, "MCS: the initial chart failed: " + st.message, s);
  }
  run.steps.smallest_step = std::numeric_limits<double>::infinity();
  run.records.push_back(
      {{s.t, s.q, run.v, run.rank > 0 ? run.chart.factors.pivots(run.rank - 1) : 1.0},
       run.chart.T});

  // Output: the state with v and lambda at the current step end, and the sample; every output
  // state passes the branch watch before the observer sees it.
  BranchWatch branch(model, plan);
  auto emit = [&](double t, const VecX& q) {
    State so;
    so.t = t;
    so.q = q;
    normalizeQuaternions(model, so.q);
    VecX vdot, udot, lambda;
    ++run.stats.output_evaluations;
    const Status st = computeMcsRates(model, plan, run.chart, so.q, run.u_k, t, run.ws, so.v, vdot,
                                      udot, &lambda);
    so.lambda = st.ok() ? lambda : VecX::Zero(model.nc);
    McsSample sample;
    sample.t = t;
    sample.qdot = run.u_k;
    sample.q = run.qmin;
    sample.r1_diagonal = run.chart.factors.r1_diagonal;
    sample.T = run.chart.T;
    sample.rank = run.numerical_rank;
    sample.flips = run.flips_since_output;
    run.flips_since_output = 0;
    dyn.state = so;
    return branch.add(so) && (observer ? observer(so, sample) : true);
  };

  // 2. ARKODE ERKStep, Dormand-Prince 5(4); the chart changes in the post-processing hook.
  sundials::ErkObjects ark;
  if (!ark.makeSerialState(model.nq + run.f))
    return fail(Status::Code::kResources, "MCS: out of memory for the state", s);
  Eigen::Map<VecX> y = sundials::entries(ark.y);
  y.head(model.nq) = s.q;
  y.tail(run.f) = run.u_k;
  const sundials::SetupGuard g =
      sundials::startErk(ark, run, mcsRhsCallback, mcsPostprocessCallback, s.t,
                         {ARKODE_DORMAND_PRINCE_7_4_5, o.rtol, o.atol, o.max_steps, o.fixed_step});
  if (!g.ok()) {
    const Status st = g.status("MCS", sundials::arkodeFlagName, run.log);
    return fail(st.code, st.message, s);
  }
  void* mem = ark.mem.get();
  int flag = ARK_SUCCESS;

  auto finish = [&](bool ok_status) {
    long n = 0;
    if (ERKStepGetNumRhsEvals(mem, &n) == ARK_SUCCESS) run.stats.rhs_evaluations = n;
    if (ERKStepGetNumErrTestFails(mem, &n) == ARK_SUCCESS) {
      run.steps.rejected_steps = n;
      run.steps.error_test_failures = n;
    }
    run.steps.newton_iterations = run.stats.correction_iterations;
    run.steps.projections = run.stats.corrections;
    run.steps.factorizations = run.stats.factorizations;
    if (run.steps.steps == 0) run.steps.smallest_step = 0.0;
    dyn.stats = run.steps;
    out.mcs = run.stats;
    out.singular_events = run.events;
    if (ok_status) dyn.status = branch.status();  // success unless the watch saw a jump
    return out;
  };
  auto arkode_failure = [&](int code, double t) {
    finish(false);
    const Status stopped = run.log.stopped("MCS", t, o.t_end, sundials::arkodeFlagName(code));
    State at = dyn.state;
    at.q = y.head(model.nq);
    at.t = run.t_k;
    normalizeQuaternions(model, at.q);
    at.v = run.v;
    return fail(stopped.code, stopped.message, at);
  };

  // 3. Steps: to every output time (a stop time, so outputs are step ends, never interpolated
  //    across charts), or one step at a time.
  if (!emit(s.t, s.q)) return finish(true);
  const double t0 = s.t, dt = o.output_interval;
  long next_index = 1;
  double t = t0;
  while (t < o.t_end) {
    if (run.steps.steps >= o.max_steps) {
      finish(false);
      std::ostringstream os;
      os << "MCS stopped at t = " << t << " s after max_steps = " << o.max_steps
         << " accepted steps (t_end = " << o.t_end << " s): raise max_steps or loosen rtol/atol";
      State at = dyn.state;
      return fail(Status::Code::kNotConverged, os.str(), at);
    }
    double tout = o.t_end;
    if (dt > 0.0) {
      tout = t0 + static_cast<double>(next_index) * dt;
      if (tout >= o.t_end - 1e-12 * std::max(1.0, std::abs(o.t_end))) tout = o.t_end;
    }
    if ((flag = ERKStepSetStopTime(mem, tout)) != ARK_SUCCESS) return arkode_failure(flag, t);
    sunrealtype tret = t;
    flag = ERKStepEvolve(mem, tout, ark.y.get(), &tret, dt > 0.0 ? ARK_NORMAL : ARK_ONE_STEP);
    if (flag < 0) return arkode_failure(flag, run.t_k);
    t = tret;
    if (dt > 0.0) ++next_index;
    if (!emit(t, y.head(model.nq))) return finish(true);
  }
  return finish(true);
}

}  // namespace catena
