/// @file analyses.cpp
/// catena.statics, modal, mobility and simulate: the library's analyses as the CLI runs them
/// (drivers/catena.cpp, drivers/simulate.cpp), the GIL released while they run. Results are
/// plain Python objects whose arrays are NumPy arrays owning the solver's storage (no copy).

#include <pybind11/complex.h>
#include <pybind11/stl.h>

#include <algorithm>

#include "../integrator_choice.hpp"
#include "../modes_at_equilibrium.hpp"
#include "bindings.hpp"
#include "integrators/initial_state.hpp"
#include "io/yaml_loader.hpp"
#include "mobility/blockwise_rank.hpp"
#include "mobility/constraint_rank.hpp"
#include "report/run_report.hpp"

namespace catena::python {
namespace {

/// A result: attributes set one by one (types.SimpleNamespace), documented in docs/python.md.
py::object namespace_() {
  return py::module_::import("types").attr("SimpleNamespace")();
}

py::object staticsObject(const Model& m, StaticsResult&& st, const EquilibriumSummary& eq) {
  py::object r = namespace_();
  r.attr("converged") = st.status.ok();
  r.attr("message") = st.status.message;
  r.attr("iterations") = static_cast<int>(st.history.size()) - 1;
  MatX history(st.history.size(), 3);
  for (std::size_t k = 0; k < st.history.size(); ++k)
    history.row(static_cast<Index>(k)) << st.history[k].force_residual,
        st.history[k].position_residual, st.history[k].step;
  r.attr("history") = toNumpy(std::move(history));
  r.attr("q") = toNumpy(std::move(st.state.q));
  r.attr("lambda_") = toNumpy(std::move(st.state.lambda));
  r.attr("force_scale") = st.force_scale;
  r.attr("length_scale") = st.length_scale;
  r.attr("linear_solver") = st.linear_solver;
  r.attr("worst_rows") = st.worst_rows;
  r.attr("redundant_rows") = st.redundant_rows;
  r.attr("warnings") = st.warnings;
  r.attr("sag") = eq.sag;
  r.attr("lowest_joint") = eq.lowest_joint;
  r.attr("lowest_point") = toNumpy(VecX(eq.lowest_point));
  const auto nj = static_cast<Index>(eq.reactions.size());
  MatX force(nj, 3), torque(nj, 3);
  for (Index j = 0; j < nj; ++j) {
    force.row(j) = eq.reactions[j].force_world.transpose();
    torque.row(j) = eq.reactions[j].torque_world.transpose();
  }
  r.attr("reaction_forces") = toNumpy(std::move(force));
  r.attr("reaction_torques") = toNumpy(std::move(torque));
  std::vector<std::string> joints;
  for (const auto& j : m.joints) joints.push_back(j.name);
  r.attr("joints") = joints;
  return r;
}

struct StaticsRun {
  StaticsWithIndependentRows reduced;
  EquilibriumSummary eq;
};

StaticsRun runStatics(const PyModel& p, bool kc) {
  requireBodies(p.model, p.source);
  StaticsOptions so;
  so.constraint_stiffness = kc;
  StaticsRun run;
  run.reduced = solveStaticsWithIndependentRows(p.model, p.plan, initialState(p.model), so);
  run.eq = summarizeEquilibrium(p.model, p.plan, run.reduced.result.state);
  return run;
}

py::object statics(const PyModel& p, bool kc) {
  StaticsRun run;
  {
    py::gil_scoped_release release;
    run = runStatics(p, kc);
  }
  const Status status = run.reduced.result.status;
  py::object r = staticsObject(p.model, std::move(run.reduced.result), run.eq);
  if (!status.ok()) raiseSolverError(p.source + ": " + status.message, r);
  return r;
}

py::object modal(const PyModel& p, int modes, double target_hz, bool kc, bool damped) {
  if (modes < 1) throw py::value_error("modes: expected at least 1");
  StaticsRun run;
  ModalResult mr;
  {
    py::gil_scoped_release release;
    run = runStatics(p, kc);
    if (run.reduced.result.status.ok()) {
      ModalOptions mo;
      mo.modes = modes;
      mo.target_hz = target_hz;
      mo.constraint_stiffness = kc;
      mo.damped = damped;
      mr = solveModesAtEquilibrium(p.model, p.plan, run.reduced, mo);
    }
  }
  const Status st_status = run.reduced.result.status;
  py::object r = namespace_();
  r.attr("statics") = staticsObject(p.model, std::move(run.reduced.result), run.eq);
  if (!st_status.ok()) raiseSolverError(p.source + ": " + st_status.message, r);
  r.attr("ok") = mr.status.ok();
  r.attr("message") = mr.status.message;
  r.attr("dof") = mr.dof;
  r.attr("note") = mr.note;
  r.attr("method") = mr.method;
  const auto k = static_cast<Index>(mr.modes.size());
  const Index nv = k > 0 ? static_cast<Index>(mr.modes[0].shape_re.size()) : p.model.nv;
  VecX f(k), fn(k), zeta(k);
  Eigen::VectorXcd s(k);
  MatX re(nv, k), im(nv, k), mn(nv, k);
  std::vector<std::string> directions;
  std::vector<int> nodes;
  for (Index i = 0; i < k; ++i) {
    const Mode& md = mr.modes[i];
    f(i) = md.frequency_hz;
    fn(i) = md.natural_frequency_hz;
    zeta(i) = md.damping_ratio;
    s(i) = md.s;
    re.col(i) = md.shape_re;
    im.col(i) = md.shape_im;
    mn.col(i) = md.mass_normalized.size() == nv ? md.mass_normalized : VecX::Zero(nv);
    directions.push_back(md.direction);
    nodes.push_back(md.nodes);
  }
  r.attr("frequencies") = toNumpy(std::move(f));
  r.attr("natural_frequencies") = toNumpy(std::move(fn));
  r.attr("damping_ratios") = toNumpy(std::move(zeta));
  r.attr("s") = py::cast(std::vector<std::complex<double>>(s.data(), s.data() + k));
  r.attr("shapes") = toNumpy(std::move(re));
  r.attr("shapes_imag") = toNumpy(std::move(im));
  r.attr("shapes_mass_normalized") = toNumpy(std::move(mn));
  r.attr("directions") = directions;
  r.attr("nodes") = nodes;
  if (!mr.status.ok()) raiseSolverError(p.source + ": " + mr.status.message, r);
  return r;
}

py::object mobility(const PyModel& p, double tolerance) {
  requireBodies(p.model, p.source);
  ConstraintRank cr;
  std::string where;
  {
    py::gil_scoped_release release;
    if (p.model.nv > kDenseRankMaxCoordinates)
      throw Error(p.source + ": mobility from Python: dense rank up to " +
                  std::to_string(kDenseRankMaxCoordinates) +
                  " velocity coordinates (use the CLI's block-wise rank above)");
    State s0 = initialState(p.model);
    const InitialStateResult init = assembleInitialState(p.model, p.plan, s0);
    where = init.status.ok() ? "at the assembled initial configuration"
                             : "at the initial configuration as given (it could not be "
                               "assembled: " +
                                   init.status.message + ")";
    if (init.status.ok()) s0 = init.state;
    cr = analyzeConstraintRank(p.model, p.plan, s0.q, s0.t, tolerance);
  }
  py::object r = namespace_();
  r.attr("n") = cr.n;
  r.attr("m") = cr.m;
  r.attr("rank") = cr.rank;
  r.attr("dof") = cr.dof();
  r.attr("where") = where;
  const std::vector<Index> rows = cr.redundantRows();
  std::vector<std::string> names;
  for (Index row : rows) names.push_back(p.model.rowName(row));
  r.attr("redundant_rows") = names;
  r.attr("redundant_row_indices") = rows;
  r.attr("pivots") = toNumpy(std::move(cr.pivots));
  r.attr("tangent") = toNumpy(std::move(cr.tangent));
  return r;
}

py::object simulate(const PyModel& p, double t_end, const std::string& integrator,
                    const std::string& formulation, double dt, double output_interval,
                    double rho_inf, double rtol, double atol, bool kc, bool fixed_step,
                    double tolerance, const std::string& linear_solver) {
  requireBodies(p.model, p.source);
  if (!(t_end > 0.0)) throw py::value_error("t_end: expected a positive duration in s");
  if (integrator != "gen-alpha" && integrator != "ida")
    throw py::value_error("integrator: 'gen-alpha' or 'ida'");
  if (linear_solver != "klu" && linear_solver != "petsc")
    throw py::value_error("linear_solver: 'klu' or 'petsc'");
  if (formulation != "index3" && formulation != "index2" && formulation != "index1" &&
      formulation != "mcs")
    throw py::value_error("formulation: 'index3', 'index2', 'index1' or 'mcs'");
  const Model& m = p.model;
  IntegratorChoice c;  // the CLI's defaults where an argument has none
  c.integrator = integrator;
  c.formulation = formulation;
  c.linear_solver = linear_solver;
  c.t_end = t_end;
  c.dt = dt;
  c.output_interval = output_interval > 0.0 ? output_interval : std::max(dt, t_end / 1000.0);
  c.rho_inf = rho_inf;
  c.rtol = rtol;
  c.atol = atol;
  c.kc = kc;
  c.fixed_step = fixed_step;
  c.tolerance = tolerance;
  std::vector<double> times;
  std::vector<VecX> qs, vs, ls;
  DynamicsResult r;
  InitialStateResult init;
  {
    py::gil_scoped_release release;
    init = assembleInitialState(m, p.plan, initialState(m));
    if (init.status.ok()) {
      auto observer = [&](const State& s) {
        times.push_back(s.t);
        qs.push_back(s.q);
        vs.push_back(s.v);
        ls.push_back(s.lambda);
        return true;
      };
      r = integrateChoice(m, p.plan, init.state, c, observer, {}, nullptr);
    }
  }
  if (!init.status.ok())
    throw Error(p.source + ": the initial state is not consistent: " + init.status.message);
  const auto rows = static_cast<Index>(times.size());
  auto stack = [&](const std::vector<VecX>& xs, Index cols) {
    MatX a(rows, cols);
    for (Index k = 0; k < rows; ++k) a.row(k) = xs[k].transpose();
    return toNumpy(std::move(a));
  };
  py::object out = namespace_();
  out.attr("ok") = r.status.ok();
  out.attr("message") = r.status.message;
  out.attr("method") = r.method;
  out.attr("t") = toNumpy(VecX(Eigen::Map<const VecX>(times.data(), rows)));
  out.attr("q") = stack(qs, m.nq);
  out.attr("v") = stack(vs, m.nv);
  out.attr("lambda_") = stack(ls, m.nc);
  out.attr("steps") = r.stats.steps;
  out.attr("rejected_steps") = r.stats.rejected_steps;
  out.attr("worst_rows") = r.worst_rows;
  out.attr("redundant_rows") = r.redundant_rows;
  if (!r.status.ok()) raiseSolverError(p.source + ": " + r.status.message, out);
  return out;
}

}  // namespace

void bindAnalyses(py::module_& m) {
  m.def("statics", &statics, py::arg("model"), py::arg("kc") = true,
        "Static equilibrium from the initial state (Newton with K_c unless kc=False), as\n"
        "`catena statics`. Returns converged, iterations, history (iterations+1 x 3: force\n"
        "residual, position residual, step), q (n; m, quaternions), lambda_ (m; N, N m in each\n"
        "joint's F2 basis), sag (m), lowest_joint, reaction_forces (joints x 3, N, world),\n"
        "reaction_torques (joints x 3, N m, world), joints, redundant_rows, warnings. A failure\n"
        "raises catena.SolverError('FILE: message') with .result holding the last iterate.");
  m.def("modal", &modal, py::arg("model"), py::arg("modes") = 4, py::arg("target") = 0.0,
        py::arg("kc") = true, py::arg("damped") = false,
        "Statics, then `modes` modes nearest `target` Hz, as `catena modal`. Returns statics,\n"
        "frequencies (Hz), natural_frequencies (Hz), damping_ratios, s (rad/s, complex),\n"
        "shapes (n_v x modes: delta r in m, theta in rad per body; unit 2-norm), shapes_imag,\n"
        "shapes_mass_normalized (phi^T M phi = 1), directions, nodes, dof.");
  m.def("mobility", &mobility, py::arg("model"), py::arg("rank_tolerance") = kDefaultRankTolerance,
        "Rank of C_q by QRCP at the assembled initial configuration, as `catena mobility`:\n"
        "n, m, rank, dof, redundant_rows (names), redundant_row_indices, pivots (|R_ii| /\n"
        "max), tangent (n_v x dof, orthonormal, C_q T = 0).");
  m.def("simulate", &simulate, py::arg("model"), py::arg("t_end"),
        py::arg("integrator") = "gen-alpha", py::arg("formulation") = "index2",
        py::arg("dt") = 1e-2, py::arg("output_interval") = 0.0, py::arg("rho_inf") = 0.5,
        py::arg("rtol") = 1e-6, py::arg("atol") = 1e-8, py::arg("kc") = true,
        py::arg("fixed_step") = false, py::arg("tolerance") = IntegratorChoice{}.tolerance,
        py::arg("linear_solver") = "klu",
        "Time integration over t_end s from the assembled initial state, as `catena simulate`:\n"
        "integrator 'gen-alpha' (dt, rho_inf, tolerance, fixed_step, kc) or 'ida' (formulation\n"
        "'index3' | 'index2' | 'index1', rtol, atol, linear_solver); formulation 'mcs': the\n"
        "minimal-coordinate dynamics. Returns t (s), q, v, lambda_ (one row per output time),\n"
        "steps, method. A failed run raises catena.SolverError with .result up to the failure.");
}

}  // namespace catena::python
