#pragma once
/// @file bindings.hpp
/// What the binding files of the Python module share: NumPy arrays that own Eigen storage
/// (no copy), the Python exceptions, and the Model as Python holds it.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "assembly/plan.hpp"
#include "core/status.hpp"
#include "model/model.hpp"

namespace catena::python {

namespace py = pybind11;

/// A loaded or built mechanism with its assembly plan, and the name messages start with (the
/// file it was read from, as the CLI's).
struct PyModel {
  Model model;
  AssemblyPlan plan;
  std::string source;
  std::vector<std::string> warnings;
};

/// Held while an analysis runs: the GIL released (other Python threads go on), then the one lock
/// of the analyses, since PETSc is not thread-safe as Debian builds it. Analyses started from
/// several threads take turns; two statics at once aborted in MatDestroy (a function list freed
/// twice, python_module's threads test under load).
class AnalysisLock {
 public:
  AnalysisLock();

 private:
  py::gil_scoped_release release_;  // first: a thread waits for the lock without the GIL
  std::unique_lock<std::mutex> lock_;
};

/// A NumPy array viewing `v`'s storage, which it then owns (moved, not copied).
py::array_t<double> toNumpy(VecX&& v);
/// The same for a column-major matrix (rows x cols, Fortran order).
py::array_t<double> toNumpy(MatX&& a);

/// A result object (types.SimpleNamespace): attributes set one by one, documented in
/// docs/python.md.
py::object namespace_();
/// Equal-length vectors as the rows of a NumPy array (rows.size() x cols; one copy).
py::array_t<double> stackRows(const std::vector<VecX>& rows, Index cols);

/// Raises catena.SolverError(message) with attribute `result` (what was computed).
[[noreturn]] void raiseSolverError(const std::string& message, py::object result);

void bindModel(py::module_& m);         // module.cpp: Model, load, loads, matrices
void bindAnalyses(py::module_& m);      // analyses.cpp: statics, modal, mobility, simulate
void bindDistributed(py::module_& m);   // distributed.cpp: MPI rank, size, distributed statics
void bindFormulations(py::module_& m);  // formulations.cpp: natural files, load_natural
void bindBuilder(py::module_& m);       // builder.cpp: Builder (a mechanism built call by call)

/// catena.simulate(model, formulation="rotation_matrix"): the model's bodies in rotation-matrix
/// form (rmModelFromCatenaModel; its refusal raised as catena.InputError), integrated over
/// t_end s by integrator "ida" (GGL DAE) or "two_step" (ARKODE); formulations.cpp.
py::object simulateRotationMatrix(const PyModel& p, double t_end, const std::string& integrator,
                                  double output_interval, double rtol, double atol);

}  // namespace catena::python
