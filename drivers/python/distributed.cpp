/// @file distributed.cpp
/// catena.distributed_statics and the MPI rank and size: the distributed statics
/// (statics/distributed_statics.hpp) of a model every rank loaded, partitioned as catena-scale
/// partitions an input (drivers/scale_model.hpp), run under `mpirun python3` (with or without
/// mpi4py). Collective: every rank calls with the same model.

#include <mpi.h>
#include <pybind11/stl.h>

#include "../scale_model.hpp"
#include "bindings.hpp"
#include "io/yaml_loader.hpp"
#include "parallel/distributed_model.hpp"
#include "statics/distributed_statics.hpp"
#include "statics/redundant_statics.hpp"

namespace catena::python {
namespace {

int commRank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int commSize() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

py::object distributedStatics(const PyModel& p, bool gather) {
  StaticsResult r;
  State whole;
  Index owned_bodies = 0;
  {
    py::gil_scoped_release release;
    requireBodies(p.model, p.source);
    // Without the rows redundant at the start (the distributed saddle-point matrices are
    // singular on them), as catena-scale runs an input; they must hold at the equilibrium.
    const IndependentRows rows = independentInputRows(p.model);
    InputNumbering numbering;
    const DistributedLatticePart part = partitionInputModel(rows.model, p.source, &numbering);
    const DistributedModel dm(part.part);
    DistributedAssembly as(dm);
    r = solveDistributedStatics(as);
    owned_bodies = part.part.owned_bodies;
    if (gather) whole = gatherWholeState(dm, numbering, rows.model, r.state);
    if (gather && !rows.dropped.empty() && r.status.ok())
      checkRowsLeftOut(p.model, p.plan, rows, whole, r);
  }
  py::object out = py::module_::import("types").attr("SimpleNamespace")();
  out.attr("converged") = r.status.ok();
  out.attr("message") = r.status.message;
  out.attr("iterations") = static_cast<int>(r.history.size()) - 1;
  out.attr("rank") = commRank();
  out.attr("size") = commSize();
  out.attr("owned_bodies") = owned_bodies;
  out.attr("q_local") = toNumpy(std::move(r.state.q));
  out.attr("lambda_local") = toNumpy(std::move(r.state.lambda));
  if (gather) {
    out.attr("q") = toNumpy(std::move(whole.q));
    out.attr("lambda_") = toNumpy(std::move(whole.lambda));
  }
  if (!r.status.ok()) raiseSolverError(p.source + ": " + r.status.message, out);
  return out;
}

}  // namespace

void bindDistributed(py::module_& m) {
  m.def("mpi_rank", &commRank, "this process's rank in MPI_COMM_WORLD (0 without mpirun)");
  m.def("mpi_size", &commSize, "the number of ranks in MPI_COMM_WORLD (1 without mpirun)");
  m.def("distributed_statics", &distributedStatics, py::arg("model"), py::arg("gather") = true,
        "Static equilibrium of `model` split over the MPI ranks (graph partition of its\n"
        "bodies; models with springs are refused), equal to catena.statics to round-off.\n"
        "Collective: every rank calls it with the same model. Returns converged, iterations,\n"
        "rank, size, owned_bodies, q_local and lambda_local (this rank's part: owned bodies\n"
        "then ghosts; owned rows) and, with gather=True, q (n) and lambda_ (m) of the whole\n"
        "model, in the model's numbering, on every rank (lambda_: of the rows kept, all rows\n"
        "when none is redundant at the start).");
}

}  // namespace catena::python
