#pragma once
/// @file context.hpp
/// The SUNDIALS layer of catena (docs/dynamics-ida.md, "The SUNDIALS layer"): the owners of a
/// run's SUNDIALS objects. Internal to lib/integrators and lib/formulations: include it only from
/// the .cpp files that call SUNDIALS, never from a public header (SUNDIALS types stay out of
/// them). The other pieces: error_log.hpp (error log, guarded callbacks, set-up guard), ida.hpp
/// (IDA: objects, weights, start, counters), arkode.hpp (ERKStep), reproducible_nvector.hpp
/// (MPI-parallel vectors).

#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>
#include <sundials/sundials_nvector.h>

#include <memory>
#include <type_traits>
#include <utility>

#include "core/types.hpp"

namespace catena::sundials {

/// Owner of a SUNContext: the only place in lib/ that creates one. Serial by default; the
/// distributed IDA passes its MPI communicator, of which the context keeps a copy whose address
/// SUNDIALS holds. Check ok(): creation fails only when memory is exhausted.
class Context {
 public:
  Context() { create(nullptr); }
  /// Comm: MPI_Comm (a template, so that this header needs no MPI).
  template <class Comm>
  requires(!std::is_same_v<std::decay_t<Comm>, Context>) explicit Context(Comm comm)
      : comm_(std::make_shared<Comm>(comm)) {
    create(comm_.get());
  }
  Context(Context&& o) noexcept : ctx_(std::exchange(o.ctx_, nullptr)), comm_(std::move(o.comm_)) {}
  Context& operator=(Context&&) = delete;
  ~Context() {
    if (ctx_) SUNContext_Free(&ctx_);
  }
  bool ok() const { return ctx_ != nullptr; }
  SUNContext get() const { return ctx_; }

 private:
  void create(void* comm) {
    if (SUNContext_Create(comm, &ctx_) != 0) ctx_ = nullptr;
  }
  SUNContext ctx_ = nullptr;
  std::shared_ptr<void> comm_;  ///< the communicator SUNDIALS points to (empty: serial)
};

struct VectorFree {
  void operator()(N_Vector v) const { N_VDestroy(v); }
};
struct MatrixFree {
  void operator()(SUNMatrix A) const { SUNMatDestroy(A); }
};
struct LinearSolverFree {
  void operator()(SUNLinearSolver S) const { SUNLinSolFree(S); }
};

/// Sole owners of an N_Vector, a SUNMatrix and a SUNLinearSolver (null: none). Declare them
/// after the Context they were made in, so that they are freed before it.
using Vector = std::unique_ptr<std::remove_pointer_t<N_Vector>, VectorFree>;
using Matrix = std::unique_ptr<std::remove_pointer_t<SUNMatrix>, MatrixFree>;
using LinearSolver = std::unique_ptr<std::remove_pointer_t<SUNLinearSolver>, LinearSolverFree>;

/// A serial vector of n entries (NVECTOR_SERIAL), null if memory is exhausted.
inline Vector serialVector(Index n, const Context& ctx) {
  return Vector(N_VNew_Serial(static_cast<sunindextype>(n), ctx.get()));
}

/// The entries of a serial vector v as an Eigen map.
inline Eigen::Map<VecX> entries(const Vector& v) {
  return {N_VGetArrayPointer(v.get()), static_cast<Index>(N_VGetLength(v.get()))};
}

}  // namespace catena::sundials
