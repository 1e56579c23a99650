/// @file module.cpp
/// The Python module `catena` (docs/python.md): exceptions, the PETSc/SLEPc session, the Model,
/// loading, and the assembled matrices as SciPy CSR matrices.

#include <pybind11/stl.h>

#include "assembly/assemble.hpp"
#include "bindings.hpp"
#include "io/yaml_loader.hpp"
#include "model/state.hpp"
#include "parallel/petsc_session.hpp"
#include "solvers/blas_threads.hpp"

namespace catena::python {
namespace {

py::handle solver_error;  // catena.SolverError, set at import (the module owns it)

/// C_q and friends as scipy.sparse.csr_matrix: the CSR arrays are copied once into NumPy.
py::object toScipy(SparseMatrixCSR& A) {
  A.makeCompressed();
  const auto nnz = static_cast<py::ssize_t>(A.nonZeros());
  py::array_t<double> data(nnz, A.valuePtr());
  py::array_t<int> indices(nnz, A.innerIndexPtr());
  py::array_t<int> indptr(static_cast<py::ssize_t>(A.rows()) + 1, A.outerIndexPtr());
  py::object csr = py::module_::import("scipy.sparse").attr("csr_matrix");
  return csr(py::make_tuple(data, indices, indptr), py::make_tuple(A.rows(), A.cols()));
}

VecX vectorOr(const py::object& x, const VecX& fallback, Index size, const char* what) {
  if (x.is_none()) return fallback;
  const auto a = x.cast<py::array_t<double, py::array::c_style | py::array::forcecast>>();
  if (a.ndim() != 1 || a.shape(0) != size)
    throw py::value_error(std::string(what) + ": expected " + std::to_string(size) + " entries");
  return Eigen::Map<const VecX>(a.data(), size);
}

PyModel loadFile(const std::string& path) {
  LoadedInput in = loadMechanismFile(path);
  PyModel p{std::move(in.model), {}, path, std::move(in.warnings)};
  p.plan = buildAssemblyPlan(p.model);
  return p;
}

PyModel loadText(const std::string& text, const std::string& name) {
  LoadedInput in = loadMechanismString(text, name);
  PyModel p{std::move(in.model), {}, name, std::move(in.warnings)};
  p.plan = buildAssemblyPlan(p.model);
  return p;
}

std::mutex& analysisMutex() {
  static std::mutex m;
  return m;
}

}  // namespace

AnalysisLock::AnalysisLock() : lock_(analysisMutex()) {}

py::array_t<double> toNumpy(VecX&& v) {
  auto* owned = new VecX(std::move(v));
  py::capsule owner(owned, [](void* p) { delete static_cast<VecX*>(p); });
  return py::array_t<double>({static_cast<py::ssize_t>(owned->size())}, {sizeof(double)},
                             owned->data(), owner);
}

py::array_t<double> toNumpy(MatX&& a) {
  auto* owned = new MatX(std::move(a));
  py::capsule owner(owned, [](void* p) { delete static_cast<MatX*>(p); });
  const auto rows = static_cast<py::ssize_t>(owned->rows());
  return py::array_t<double>(
      {rows, static_cast<py::ssize_t>(owned->cols())},
      {static_cast<py::ssize_t>(sizeof(double)), static_cast<py::ssize_t>(sizeof(double)) * rows},
      owned->data(), owner);
}

void raiseSolverError(const std::string& message, py::object result) {
  py::object e = solver_error(message);
  e.attr("result") = std::move(result);
  PyErr_SetObject(solver_error.ptr(), e.ptr());
  throw py::error_already_set();
}

void bindModel(py::module_& m) {
  py::class_<PyModel>(m, "Model",
                      "A mechanism (bodies, markers, joints, forces) with its assembly plan.")
      .def_property_readonly("name", [](const PyModel& p) { return p.model.name; })
      .def_readonly("source", &PyModel::source, "the file (or name) it was read from")
      .def_readonly("warnings", &PyModel::warnings,
                    "the loader's remarks, each 'FILE:LINE:COL: warning: ...'")
      .def_property_readonly(
          "n", [](const PyModel& p) { return p.model.nq; }, "position coordinates")
      .def_property_readonly(
          "n_v", [](const PyModel& p) { return p.model.nv; },
          "velocity coordinates (delta r, theta per body)")
      .def_property_readonly(
          "m", [](const PyModel& p) { return p.model.nc; }, "constraint rows")
      .def_property_readonly("bodies",
                             [](const PyModel& p) {
                               std::vector<std::string> names;
                               for (const auto& b : p.model.bodies) names.push_back(b.name);
                               return names;
                             })
      .def_property_readonly("joints",
                             [](const PyModel& p) {
                               std::vector<std::string> names;
                               for (const auto& j : p.model.joints) names.push_back(j.name);
                               return names;
                             })
      .def(
          "row_name", [](const PyModel& p, Index row) { return p.model.rowName(row); },
          "the name of constraint row `row`, e.g. 'hinge.y'")
      .def(
          "initial_q", [](const PyModel& p) { return toNumpy(initialState(p.model).q); },
          "the initial positions q given by the file (n entries; m and unit quaternions)")
      .def(
          "constraints",
          [](const PyModel& p, py::object q, double t) {
            const VecX qq = vectorOr(q, initialState(p.model).q, p.model.nq, "q");
            VecX C(p.model.nc);
            assembleConstraints(p.model, p.plan, qq, t, &C, nullptr);
            return toNumpy(std::move(C));
          },
          py::arg("q") = py::none(), py::arg("t") = 0.0,
          "The constraint residual C(q, t) (m entries; m, or rad for rotations)")
      .def(
          "apply_variation",
          [](const PyModel& p, py::object q, py::object dq, double scale) {
            VecX qq = vectorOr(q, VecX(), p.model.nq, "q");
            const VecX d = vectorOr(dq, VecX(), p.model.nv, "dq");
            applyVariation(p.model, d, scale, qq);
            return toNumpy(std::move(qq));
          },
          py::arg("q"), py::arg("dq"), py::arg("scale") = 1.0,
          "q moved by scale * dq on the manifold (dq: n_v entries, delta r in m and theta in rad\n"
          "per body; quaternions updated by the exponential map): for finite differences")
      .def(
          "matrices",
          [](const PyModel& p, py::object q, py::object lambda_, double t) {
            const State s0 = initialState(p.model);
            const VecX qq = vectorOr(q, s0.q, p.model.nq, "q");
            const VecX ll = vectorOr(lambda_, s0.lambda, p.model.nc, "lambda_");
            // The matrices are refilled into the plan's patterns (assembly/plan.hpp).
            SparseMatrixCSR Cq = p.plan.cq_pattern, Kc = p.plan.body_pattern,
                            M = p.plan.body_pattern, K = p.plan.body_pattern;
            {
              py::gil_scoped_release release;
              assembleConstraintJacobianAndStiffness(p.model, p.plan, qq, t, ll, Cq, Kc);
              assembleMass(p.model, p.plan, qq, M);
              assembleForceStiffness(p.model, p.plan, qq, VecX::Zero(p.model.nv), t, K);
            }
            py::dict d;
            d["C_q"] = toScipy(Cq);
            d["K_c"] = toScipy(Kc);
            d["M"] = toScipy(M);
            d["K"] = toScipy(K);
            return d;
          },
          py::arg("q") = py::none(), py::arg("lambda_") = py::none(), py::arg("t") = 0.0,
          "The assembled matrices at (q, lambda, t) (default: the initial state, lambda = 0) as\n"
          "scipy.sparse.csr_matrix: C_q (m x n_v), K_c = d(C_q^T lambda)/dq (n_v x n_v),\n"
          "M (kg, kg m^2) and K = -df/dq at v = 0 (n_v x n_v).");

  m.def("load", &loadFile, py::arg("path"),
        "Reads and validates a YAML mechanism file (docs/input-format.md). Raises\n"
        "catena.InputError with the CLI's 'FILE:LINE:COL: error: ...' message.");
  m.def("loads", &loadText, py::arg("text"), py::arg("name") = "<string>",
        "The same for YAML text; messages name `name` in place of a file.");
}

struct SolverErrorTag {};

}  // namespace catena::python

PYBIND11_MODULE(catena, m) {
  namespace py = pybind11;
  using namespace catena::python;
  m.doc() = "catena: constrained multibody statics, modes, dynamics and mobility (docs/python.md)";
  // Results independent of the OpenMP thread count, as the CLI's (docs/parallel.md).
  catena::pinBlasToOneThread();
  static py::exception<catena::Error> error(m, "Error", PyExc_RuntimeError);
  static py::exception<catena::InputError> input_error(m, "InputError", error.ptr());
  static py::exception<SolverErrorTag> solver(m, "SolverError", error.ptr());
  solver_error = solver;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const catena::InputError& e) {
      PyErr_SetString(input_error.ptr(), e.what());
    } catch (const catena::Error& e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });
  // One PETSc/SLEPc session for the process (the modes and the PETSc solvers need it), ended
  // when the interpreter exits.
  static catena::PetscSession* session = new catena::PetscSession(nullptr, nullptr);
  py::module_::import("atexit").attr("register")(py::cpp_function([] {
    delete session;
    session = nullptr;
  }));
  bindModel(m);
  bindBuilder(m);
  bindAnalyses(m);
  bindDistributed(m);
  bindFormulations(m);
}
