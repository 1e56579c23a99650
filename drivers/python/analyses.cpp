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
#include "integrators/mobility_history.hpp"
#include "io/yaml_loader.hpp"
#include "mobility/block_tree.hpp"
#include "mobility/blockwise_rank.hpp"
#include "mobility/constraint_rank.hpp"
#include "report/run_report.hpp"

namespace catena::python {

py::object namespace_() {
  return py::module_::import("types").attr("SimpleNamespace")();
}

py::array_t<double> stackRows(const std::vector<VecX>& rows, Index cols) {
  MatX a(static_cast<Index>(rows.size()), cols);
  for (std::size_t k = 0; k < rows.size(); ++k) a.row(static_cast<Index>(k)) = rows[k].transpose();
  return toNumpy(std::move(a));
}

namespace {

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
    const AnalysisLock lock;
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
    const AnalysisLock lock;
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

/// The rank along a simulation as Python sees it: arrays of the samples, the rank changes and
/// the singular configurations met (docs/python.md).
py::object historyObject(const Model& m, const MobilityHistory& h) {
  const auto k = static_cast<Index>(h.samples.size());
  VecX t(k), smallest(k), dropped(k);
  std::vector<Index> rank(static_cast<std::size_t>(k));
  for (Index i = 0; i < k; ++i) {
    const MobilitySample& s = h.samples[static_cast<std::size_t>(i)];
    t(i) = s.t;
    rank[static_cast<std::size_t>(i)] = s.rank;
    smallest(i) = s.smallest_retained;
    dropped(i) = s.largest_dropped;
  }
  py::object r = namespace_();
  r.attr("path") = h.path;
  r.attr("ok") = h.run.dynamics.status.ok();
  r.attr("message") = h.run.dynamics.status.message;
  r.attr("times") = toNumpy(std::move(t));
  r.attr("rank") = py::array_t<Index>(static_cast<py::ssize_t>(k), rank.data());
  r.attr("smallest_retained") = toNumpy(std::move(smallest));
  r.attr("largest_dropped") = toNumpy(std::move(dropped));
  py::list changes;
  for (Index i : h.rank_change_at) {
    const MobilitySample &a = h.samples[static_cast<std::size_t>(i - 1)],
                         &b = h.samples[static_cast<std::size_t>(i)];
    changes.append(py::make_tuple(a.t, b.t, a.rank, b.rank));
  }
  r.attr("rank_changes") = changes;
  py::list events;
  for (const SingularEvent& e : h.run.singular_events) {
    py::object ev = namespace_();
    ev.attr("t") = e.t;
    ev.attr("margin") = e.margin;
    std::vector<std::string> names;
    for (Index row : e.rows) names.push_back(m.rowName(row));
    ev.attr("rows") = names;
    ev.attr("row_indices") = e.rows;
    // The block-wise path keeps no tangent bases: its new motions are the rank drop (as the
    // CLI's report, report/mobility_report.cpp).
    ev.attr("motions") =
        e.new_motions.cols() > 0 ? e.new_motions.cols() : static_cast<Index>(e.vanished.size());
    ev.attr("new_motions") = e.new_motions.cols() > 0 ? py::object(toNumpy(MatX(e.new_motions)))
                                                      : py::object(py::none());
    events.append(ev);
  }
  r.attr("singular") = events;
  return r;
}

py::object mobility(const PyModel& p, double tolerance, py::object blockwise_arg,
                    py::object t_end_arg, py::object interval_arg, double margin) {
  requireBodies(p.model, p.source);
  const Model& m = p.model;
  const bool forced_dense = !blockwise_arg.is_none() && !blockwise_arg.cast<bool>();
  const bool blockwise =
      usesBlockwiseRank(m, !blockwise_arg.is_none() && blockwise_arg.cast<bool>());
  if (forced_dense && blockwise)
    throw py::value_error("blockwise=False: the dense rank takes up to " +
                          std::to_string(kDenseRankMaxCoordinates) +
                          " velocity coordinates; this model has " + std::to_string(m.nv));
  MobilityRunOptions ro;
  ro.rank_tolerance = tolerance;
  ro.margin = margin;
  ro.blockwise = blockwise;
  const bool along = !t_end_arg.is_none();
  if (along) {
    ro.duration = t_end_arg.cast<double>();
    if (!(ro.duration > 0.0)) throw py::value_error("t_end: expected a positive duration in s");
  }
  if (!interval_arg.is_none()) {
    ro.interval = interval_arg.cast<double>();
    if (!(ro.interval > 0.0)) throw py::value_error("interval: expected a positive time in s");
  }
  if (!(margin > 0.0)) throw py::value_error("margin: expected a positive number");
  if (!(tolerance > 0.0 && tolerance < 1.0))
    throw py::value_error("rank_tolerance: expected a number in (0, 1)");
  MobilityStart start;
  ConstraintRank cr;
  BlockwiseRank br;
  MobilityHistory h;
  {
    const AnalysisLock lock;
    start = computeMobilityStart(m, p.plan, blockwise);
    if (blockwise) {
      BlockwiseRankOptions o;
      o.tolerance = tolerance;
      br = analyzeBlockwiseRank(m, p.plan, start.state.q, start.state.t, blockTreeForModel(m), o);
    } else {
      cr = analyzeConstraintRank(m, p.plan, start.state.q, start.state.t, tolerance);
    }
    if (along && start.assembled) h = mobilityAlongSimulation(m, p.plan, start.state, ro);
  }
  py::object r = namespace_();
  r.attr("blockwise") = blockwise;
  r.attr("where") = start.where;
  std::vector<Index> rows;
  if (blockwise) {
    r.attr("n") = br.n;
    r.attr("m") = br.m;
    r.attr("rank") = br.rank;
    r.attr("dof") = br.dof();
    rows = br.redundant_rows;
    r.attr("smallest_retained") = br.smallest_retained;
    r.attr("largest_dropped") = br.largest_dropped;
    r.attr("blocking") = br.blocking;
    r.attr("pivots") = py::none();
    r.attr("tangent") = py::none();
  } else {
    r.attr("n") = cr.n;
    r.attr("m") = cr.m;
    r.attr("rank") = cr.rank;
    r.attr("dof") = cr.dof();
    rows = cr.redundantRows();
    r.attr("smallest_retained") = cr.smallestRetained();
    r.attr("largest_dropped") = cr.largestDropped();
    r.attr("blocking") = "";
    r.attr("pivots") = toNumpy(std::move(cr.pivots));
    r.attr("tangent") = toNumpy(std::move(cr.tangent));
  }
  std::vector<std::string> names;
  for (Index row : rows) names.push_back(m.rowName(row));
  r.attr("redundant_rows") = names;
  r.attr("redundant_row_indices") = rows;
  r.attr("history") = py::none();
  if (!along) return r;
  if (!start.assembled)
    throw Error(p.source +
                ": mobility --t-end: no simulation from an initial state that could not be "
                "assembled (" +
                start.where + ")");
  r.attr("history") = historyObject(m, h);
  if (!h.run.dynamics.status.ok())
    raiseSolverError(p.source + ": " + h.run.dynamics.status.message, r);
  return r;
}

py::object simulate(const PyModel& p, double t_end, const std::string& integrator,
                    const std::string& formulation, double dt, double output_interval,
                    double rho_inf, double rtol, double atol, bool kc, bool fixed_step,
                    double tolerance, const std::string& linear_solver, const std::string& rk_table,
                    double accuracy) {
  requireBodies(p.model, p.source);
  if (!(t_end > 0.0)) throw py::value_error("t_end: expected a positive duration in s");
  if (formulation == "rotation_matrix")
    return simulateRotationMatrix(
        p, t_end, integrator, output_interval > 0.0 ? output_interval : t_end / 1000.0, rtol, atol);
  if (integrator != "gen-alpha" && integrator != "ida" && integrator != "rk")
    throw py::value_error("integrator: 'gen-alpha', 'ida' or 'rk'");
  if (rk_table != "dp54" && rk_table != "verner65" && rk_table != "fehlberg78")
    throw py::value_error("rk_table: 'dp54', 'verner65' or 'fehlberg78'");
  if (linear_solver != "klu" && linear_solver != "petsc")
    throw py::value_error("linear_solver: 'klu' or 'petsc'");
  if (formulation != "index3" && formulation != "index2" && formulation != "index1" &&
      formulation != "mcs")
    throw py::value_error("formulation: 'index3', 'index2', 'index1', 'mcs' or 'rotation_matrix'");
  const Model& m = p.model;
  IntegratorChoice c;  // the CLI's defaults where an argument has none
  c.integrator = integrator;
  c.formulation = formulation;
  c.linear_solver = linear_solver;
  c.rk_table = rk_table;
  if (accuracy < 0.0 || accuracy > 0.1) throw py::value_error("accuracy: in (0, 0.1], or 0");
  if (accuracy > 0.0 && integrator != "ida" && integrator != "rk")
    throw py::value_error("accuracy: for integrator 'ida' or 'rk'");
  c.accuracy = accuracy;
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
    const AnalysisLock lock;
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
  py::object out = namespace_();
  out.attr("ok") = r.status.ok();
  out.attr("message") = r.status.message;
  out.attr("method") = r.method;
  out.attr("t") = toNumpy(VecX(Eigen::Map<const VecX>(times.data(), rows)));
  out.attr("q") = stackRows(qs, m.nq);
  out.attr("v") = stackRows(vs, m.nv);
  out.attr("lambda_") = stackRows(ls, m.nc);
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
        py::arg("blockwise") = py::none(), py::arg("t_end") = py::none(),
        py::arg("interval") = py::none(), py::arg("margin") = 0.05,
        "Rank of C_q by QRCP at the assembled initial configuration, as `catena mobility\n"
        "[--blockwise] [--t-end T --interval H --margin M]`: n, m, rank, dof, redundant_rows\n"
        "(names), redundant_row_indices, smallest_retained, largest_dropped; dense (up to 2000\n"
        "velocity coordinates, the default there): pivots (|R_ii| / max), tangent (n_v x dof,\n"
        "orthonormal, C_q T = 0); block-wise (blockwise=True, the default above): blocking.\n"
        "With t_end (s): history along a simulation (times, rank, smallest_retained,\n"
        "largest_dropped arrays; rank_changes; singular: t, margin, rows, motions).");
  m.def("simulate", &simulate, py::arg("model"), py::arg("t_end"),
        py::arg("integrator") = "gen-alpha", py::arg("formulation") = "index2",
        py::arg("dt") = 1e-2, py::arg("output_interval") = 0.0, py::arg("rho_inf") = 0.5,
        py::arg("rtol") = 1e-6, py::arg("atol") = 1e-8, py::arg("kc") = true,
        py::arg("fixed_step") = false, py::arg("tolerance") = IntegratorChoice{}.tolerance,
        py::arg("linear_solver") = "klu", py::arg("rk_table") = IntegratorChoice{}.rk_table,
        py::arg("accuracy") = 0.0,
        "Time integration over t_end s from the assembled initial state, as `catena simulate`:\n"
        "integrator 'gen-alpha' (dt, rho_inf, tolerance, fixed_step, kc) or 'ida' (formulation\n"
        "'index3' | 'index2' | 'index1', rtol, atol, linear_solver) or 'rk' (explicit, index 1\n"
        "with projection: rk_table 'verner65' | 'dp54' | 'fehlberg78', rtol, atol); formulation\n"
        "'mcs': the minimal-coordinate dynamics; accuracy > 0 (ida, rk): the run to that global\n"
        "position error relative to the size (docs/accuracy.md); formulation 'rotation_matrix':\n"
        "bodies as (T*, R), integrator 'ida' or 'two_step' (spherical joints and gravity only;\n"
        "also returns centres, energy).\n"
        "Returns t (s), q, v, lambda_ (one row per output time), steps, method. A failed run\n"
        "raises catena.SolverError with .result up to the failure.");
}

}  // namespace catena::python
