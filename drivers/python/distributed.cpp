/// @file distributed.cpp
/// The MPI rank and size and the distributed analyses under `mpirun python3` (with or without
/// mpi4py): catena-scale's runs (drivers/scale_runs.hpp, the same functions) of the chain and
/// lattice families (catena.scale_run) and of a loaded model (catena.distributed_statics,
/// distributed_modal, distributed_simulate), partitioned as catena-scale partitions them.
/// Collective: every rank calls with the same arguments (and the same model).

#include <mpi.h>
#include <pybind11/stl.h>

#include "../scale_runs.hpp"
#include "bindings.hpp"
#include "core/check.hpp"
#include "io/yaml_loader.hpp"

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

/// Rank 0's line and pass on every rank (the lines are meaningful on rank 0). Collective.
void broadcastResult(RunResult& r) {
  int n = static_cast<int>(r.line.size()), pass = r.pass ? 1 : 0;
  MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Bcast(&pass, 1, MPI_INT, 0, MPI_COMM_WORLD);
  r.line.resize(n);
  MPI_Bcast(r.line.data(), n, MPI_CHAR, 0, MPI_COMM_WORLD);
  r.pass = pass != 0;
}

/// x as a NumPy array on rank 0, None elsewhere.
py::object onRoot(VecX&& x) {
  return commRank() == 0 ? py::object(toNumpy(std::move(x))) : py::object(py::none());
}

/// Runs one study run with the GIL released: statics or modal (runStatics) or dynamics.
RunResult run(ScalingStudy s, const InputModel* input, long size, int repeat, RunArrays& arrays) {
  s.program = "catena (Python module)";  // how its messages on stderr start
  const AnalysisLock lock;
  RunResult r = s.analysis == "dynamics"
                    ? runDynamics(s, input, size, repeat, commSize(), commRank(), {}, &arrays)
                    : runStatics(s, input, size, repeat, commSize(), commRank(), &arrays);
  broadcastResult(r);
  return r;
}

/// The run's record (its JSON line as a dict, the same on every rank) with, on request, the
/// gathered arrays; raises catena.SolverError with the record as `result` where a check failed.
py::dict record(RunResult&& r, RunArrays&& a, const std::string& analysis,
                const std::string& what) {
  py::dict d = py::module_::import("json").attr("loads")(r.line);
  if (a.gather) {
    d["q"] = onRoot(std::move(a.whole.q));
    d["lambda"] = onRoot(std::move(a.whole.lambda));
    if (analysis == "dynamics") {
      d["v"] = onRoot(std::move(a.whole.v));
      d["t"] = a.whole.t;
    }
    if (analysis == "modal")
      d["mode_shapes"] =
          commRank() == 0 ? py::object(toNumpy(std::move(a.mode_shapes))) : py::object(py::none());
  }
  if (!r.pass) {
    std::string message = what + ": ";
    const std::string status = py::str(d["status"]);
    if (status != "ok") {
      message += status;
    } else {
      message += "check failed:";
      for (auto [key, value] : d) {
        const std::string k = py::str(key);
        if (k.starts_with("check_") && k.ends_with("_pass") && !value.cast<bool>())
          message += " " + k;
      }
    }
    raiseSolverError(message, d);
  }
  return d;
}

py::dict scaleRun(const std::string& family, long size, const std::string& analysis, int modes,
                  double t_end, double rtol, const std::string& linear_solver, bool reproducible,
                  int repeat, bool gather) {
  ScalingStudy s;
  s.family = family;
  s.analysis = analysis;
  s.modes = modes;
  s.t_end = t_end;
  s.rtol = rtol;
  s.linear_solver = linear_solver;
  s.reproducible = reproducible;
  s.sizes = {size};
  CATENA_CHECK(family != "model",
               "family: 'chain' or 'lattice' (a loaded model: catena.distributed_statics, "
               "distributed_modal, distributed_simulate)");
  checkScalingStudy(s);
  CATENA_CHECK(size >= commSize(), "size " << size << ": a model needs at least one body per rank ("
                                           << commSize() << " ranks)");
  RunArrays a;
  a.gather = gather;
  RunResult r = run(s, nullptr, size, repeat, a);
  return record(std::move(r), std::move(a), analysis, family + " " + std::to_string(size));
}

/// A run of a loaded model as catena-scale runs an input (family "model"; source as input).
RunResult runModel(const PyModel& p, ScalingStudy& s, RunArrays& a) {
  requireBodies(p.model, p.source);
  s.family = "model";
  s.input = p.source;
  checkScalingStudy(s);
  const InputModel input{p.model, 0.0};
  return run(s, &input, static_cast<long>(p.model.bodies.size()), 0, a);
}

py::dict distributedModal(const PyModel& p, int modes, bool gather) {
  ScalingStudy s;
  s.analysis = "modal";
  s.modes = modes;
  RunArrays a;
  a.gather = gather;
  RunResult r = runModel(p, s, a);
  return record(std::move(r), std::move(a), s.analysis, p.source);
}

py::dict distributedSimulate(const PyModel& p, double t_end, double rtol, bool gather) {
  ScalingStudy s;
  s.analysis = "dynamics";
  s.t_end = t_end;
  s.rtol = rtol;
  RunArrays a;
  a.gather = gather;
  RunResult r = runModel(p, s, a);
  return record(std::move(r), std::move(a), s.analysis, p.source);
}

/// x (on rank 0) on every rank. Collective.
VecX broadcast(VecX x) {
  long n = static_cast<long>(x.size());
  MPI_Bcast(&n, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  x.conservativeResize(n);
  MPI_Bcast(x.data(), static_cast<int>(n), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return x;
}

py::object distributedStatics(const PyModel& p, bool gather) {
  ScalingStudy s;
  RunArrays a;
  a.gather = gather;
  RunResult r = runModel(p, s, a);
  VecX q, lambda;
  if (gather) {
    const AnalysisLock lock;
    q = broadcast(std::move(a.whole.q));
    lambda = broadcast(std::move(a.whole.lambda));
  }
  py::dict d = py::module_::import("json").attr("loads")(r.line);
  const std::string status = py::str(d["status"]);
  py::object out = py::module_::import("types").attr("SimpleNamespace")();
  out.attr("converged") = status == "ok";
  out.attr("message") = status == "ok" ? std::string() : status;
  out.attr("iterations") = d["newton_iterations"];
  out.attr("rank") = commRank();
  out.attr("size") = commSize();
  out.attr("owned_bodies") = a.owned_bodies;
  out.attr("q_local") = toNumpy(std::move(a.local.q));
  out.attr("lambda_local") = toNumpy(std::move(a.local.lambda));
  out.attr("record") = d;
  if (gather) {
    out.attr("q") = toNumpy(std::move(q));
    out.attr("lambda_") = toNumpy(std::move(lambda));
  }
  if (status != "ok") raiseSolverError(p.source + ": " + status, out);
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
        "then ghosts; owned rows), record (catena-scale's JSON line as a dict) and, with\n"
        "gather=True, q (n) and lambda_ (m) of the whole model, in the model's numbering, on\n"
        "every rank (lambda_: of the rows kept, all rows when none is redundant at the start).");
  m.def("scale_run", &scaleRun, py::kw_only(), py::arg("family"), py::arg("size"),
        py::arg("analysis") = "statics", py::arg("modes") = 4, py::arg("t_end") = 0.1,
        py::arg("rtol") = 1e-6, py::arg("linear_solver") = "direct",
        py::arg("reproducible") = false, py::arg("repeat") = 0, py::arg("gather") = false,
        "One run of catena-scale (docs/scaling.md) over the MPI ranks: family 'chain' (size:\n"
        "links, even) or 'lattice' (size: K for K x K cells), each rank building only its part;\n"
        "analysis 'statics', 'modal' (statics, then `modes` modes) or 'dynamics' (released at\n"
        "rest, distributed IDA to t_end s at rtol). Collective. Returns catena-scale's JSON line\n"
        "as a dict (times in s, checks, residuals; the same on every rank) and, with\n"
        "gather=True, 'q', 'lambda' (and modal: 'mode_shapes', n_v x modes; dynamics: 'v', 't')\n"
        "of the whole model as NumPy arrays on rank 0 (None elsewhere). A failed check raises\n"
        "catena.SolverError with the dict as `result`.");
  m.def("distributed_modal", &distributedModal, py::arg("model"), py::arg("modes") = 4,
        py::arg("gather") = false,
        "The statics, then the lowest `modes` undamped modes, of `model` split over the MPI\n"
        "ranks, as `catena-scale --input FILE --analysis modal`. Collective. Returns the record\n"
        "(dict; 'frequencies_hz', 'mode_residuals', checks) and, with gather=True, 'q',\n"
        "'lambda' and 'mode_shapes' (n_v x modes, the model's numbering) on rank 0 (None\n"
        "elsewhere). A failed check raises catena.SolverError with the dict as `result`.");
  m.def("distributed_simulate", &distributedSimulate, py::arg("model"), py::arg("t_end") = 0.1,
        py::arg("rtol") = 1e-6, py::arg("gather") = false,
        "`model` from its initial state (consistent) integrated to t_end s by distributed IDA\n"
        "(index-2 GGL, rtol; redundant rows left out as catena simulate leaves them out), as\n"
        "`catena-scale --input FILE --analysis dynamics`. Collective. Returns the record (dict)\n"
        "and, with gather=True, 'q', 'v', 'lambda' and 't' at t_end on rank 0 (None\n"
        "elsewhere). A failed check raises catena.SolverError with the dict as `result`.");
}

}  // namespace catena::python
