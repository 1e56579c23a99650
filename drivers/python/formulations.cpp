/// @file formulations.cpp
/// The formulations beside the mixed basis (docs/python.md): `formulation: natural` files
/// (catena.load_natural, catena.simulate on them: the CLI's run, formulations/natural/
/// natural_run.hpp) and rotation-matrix bodies (catena.simulate(model,
/// formulation="rotation_matrix"): formulations/rotation_matrix), the GIL released while they run.

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "formulations/natural/natural_kinematics_run.hpp"
#include "formulations/natural/natural_run.hpp"
#include "formulations/natural/natural_yaml.hpp"
#include "formulations/rotation_matrix/rm_dae_ida.hpp"
#include "formulations/rotation_matrix/rm_two_step.hpp"

namespace catena::python {
namespace {

/// A NumPy copy of `x`, in storage the array owns.
py::array_t<double> vector(const std::vector<double>& x) {
  return toNumpy(VecX(Eigen::Map<const VecX>(x.data(), static_cast<Index>(x.size()))));
}

/// A `formulation: natural` file as read by the CLI (natural_yaml.hpp).
struct PyNaturalModel {
  natural::NaturalInput input;
  std::string source;
};

PyNaturalModel loadNatural(const std::string& path) {
  return {natural::loadNaturalInput(path), path};
}

py::object simulateNatural(const PyNaturalModel& p, py::object t_end, const std::string& integrator,
                           const std::string& formulation, double output_interval, double rtol,
                           double atol) {
  if (integrator != "ida")
    throw py::value_error(
        "integrator: natural coordinates are integrated by IDA (the Lagrangian facility), not " +
        integrator);
  if (formulation != "index2" && formulation != "index3")
    throw py::value_error("formulation: natural coordinates take 'index2' (GGL) or 'index3', not " +
                          formulation);
  const double duration = t_end.is_none() ? 0.0 : t_end.cast<double>();
  if (!t_end.is_none() && !(duration > 0.0))
    throw py::value_error("t_end: expected a positive duration in s");
  if (output_interval < 0.0) throw py::value_error("output_interval: expected >= 0 s");
  natural::NaturalRunOptions o = naturalRunOptions(p.input.problem, duration, output_interval);
  o.index3 = formulation == "index3";
  o.rtol = rtol;
  o.atol = atol;
  std::vector<double> times, energy, max_c, max_cv;
  std::vector<VecX> qs, vs;
  natural::NaturalRun run;
  {
    const AnalysisLock lock;
    run = runNaturalSimulation(
        p.input, o, [&](double t, const VecX& q, const VecX& v, double e, double c, double cv) {
          times.push_back(t);
          qs.push_back(q);
          vs.push_back(v);
          energy.push_back(e);
          max_c.push_back(c);
          max_cv.push_back(cv);
          return true;
        });
  }
  const Index nq = p.input.model.nq;
  py::object r = namespace_();
  r.attr("ok") = run.status.ok();
  r.attr("message") = run.status.message;
  r.attr("method") = run.method;
  r.attr("kinematic") = natural::isMassless(p.input.model);
  r.attr("coordinates") = p.input.model.coordinate_names;
  r.attr("t") = vector(times);
  r.attr("q") = stackRows(qs, nq);
  r.attr("v") = stackRows(vs, nq);
  r.attr("energy") = vector(energy);
  r.attr("max_abs_C") = vector(max_c);
  r.attr("max_abs_Cq_qdot") = vector(max_cv);
  r.attr("t_reached") = run.t_reached;
  r.attr("steps") = run.steps;
  r.attr("newton_iterations") = run.newton_iterations;
  r.attr("energy_initial") = run.energy_initial;
  r.attr("energy_final") = run.energy_final;
  r.attr("rank") = run.rank;
  r.attr("free_dof") = run.free_dof;
  r.attr("worst_rows") = run.worst_rows;
  if (!run.status.ok()) raiseSolverError(p.source + ": " + run.status.message, r);
  return r;
}

}  // namespace

py::object simulateRotationMatrix(const PyModel& p, double t_end, const std::string& integrator,
                                  double output_interval, double rtol, double atol) {
  if (integrator != "ida" && integrator != "two_step")
    throw py::value_error(
        "integrator: formulation 'rotation_matrix' takes 'ida' (GGL DAE) or 'two_step' (ARKODE), "
        "not '" +
        integrator + "'");
  rm::RmModel model;
  try {
    model = rm::rmModelFromCatenaModel(p.model);
  } catch (const Error& e) {
    throw InputError(p.source, 0, 0, e.what());  // the library's refusal, naming the file
  }
  std::vector<double> times, energy;
  std::vector<VecX> qs, vs, ls, centres;
  const rm::RmObserver observe = [&](const rm::RmState& s) {
    times.push_back(s.t);
    qs.push_back(s.q);
    vs.push_back(s.v);
    ls.push_back(s.lambda);
    energy.push_back(rm::computeRmEnergy(model, s.q, s.v).total());
    // Centre of mass of each body, x_G = T* + R X_G (rm_model.hpp).
    VecX g(3 * static_cast<Index>(model.bodies.size()));
    for (std::size_t b = 0; b < model.bodies.size(); ++b) {
      const Index o = model.qOffset(static_cast<Index>(b));
      g.segment<3>(3 * static_cast<Index>(b)) =
          s.q.segment<3>(o) + Eigen::Map<const Mat3>(s.q.data() + o + 3) * model.bodies[b].com;
    }
    centres.push_back(std::move(g));
    return true;
  };
  rm::RmRunResult r;
  {
    const AnalysisLock lock;
    const rm::RmState initial = rm::initialRmState(model);
    const auto run = [&](auto o, const auto& integrate) {
      o.t_end = initial.t + t_end;
      o.output_interval = output_interval;
      o.rtol = rtol;
      o.atol = atol;
      return integrate(model, initial, o, observe);
    };
    r = integrator == "ida" ? run(rm::RmIdaOptions{}, rm::integrateRmIda)
                            : run(rm::RmTwoStepOptions{}, rm::integrateRmTwoStep);
  }
  py::object out = namespace_();
  out.attr("ok") = r.status.ok();
  out.attr("message") = r.status.message;
  out.attr("method") = r.method;
  out.attr("t") = vector(times);
  out.attr("q") = stackRows(qs, model.n);
  out.attr("v") = stackRows(vs, model.n);
  out.attr("lambda_") = stackRows(ls, model.m);
  out.attr("centres") = stackRows(centres, 3 * static_cast<Index>(model.bodies.size()));
  out.attr("energy") = vector(energy);
  out.attr("steps") = r.stats.steps;
  out.attr("rejected_steps") = r.stats.error_test_failures;
  if (!r.status.ok()) raiseSolverError(p.source + ": " + r.status.message, out);
  return out;
}

void bindFormulations(py::module_& m) {
  py::class_<PyNaturalModel>(m, "NaturalModel",
                             "A `formulation: natural` mechanism with its initial-value problem "
                             "(docs/natural-coordinates.md).")
      .def_property_readonly("title", [](const PyNaturalModel& p) { return p.input.model.title; })
      .def_readonly("source", &PyNaturalModel::source, "the file it was read from")
      .def_property_readonly(
          "n", [](const PyNaturalModel& p) { return p.input.model.nq; }, "coordinates")
      .def_property_readonly(
          "m", [](const PyNaturalModel& p) { return p.input.model.nc; }, "constraint rows")
      .def_property_readonly(
          "coordinates", [](const PyNaturalModel& p) { return p.input.model.coordinate_names; },
          "the coordinates' names, e.g. 'A.x'")
      .def_property_readonly(
          "massless", [](const PyNaturalModel& p) { return natural::isMassless(p.input.model); },
          "True: simulate runs the kinematics under the problem's drivers");
  m.def("load_natural", &loadNatural, py::arg("path"),
        "Reads a `formulation: natural` YAML file (docs/natural-coordinates.md) as `catena\n"
        "simulate` does. Raises catena.InputError with 'FILE:LINE:COL: error: ...'.");
  m.def("simulate", &simulateNatural, py::arg("model"), py::arg("t_end") = py::none(),
        py::arg("integrator") = "ida", py::arg("formulation") = "index2",
        py::arg("output_interval") = 0.0, py::arg("rtol") = 1e-6, py::arg("atol") = 1e-8,
        "On a NaturalModel, as `catena simulate` on its file: IDA on the Lagrangian DAE\n"
        "(formulation 'index2' GGL or 'index3'), or the kinematics of a massless mechanism.\n"
        "t_end: duration in s (None: the file's); output_interval 0: a 500th of it. Returns t\n"
        "(s), q, v (rows x n), energy (J), max_abs_C, max_abs_Cq_qdot, method, steps.");
}

}  // namespace catena::python
