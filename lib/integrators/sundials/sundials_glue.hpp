#pragma once
/// @file sundials_glue.hpp
/// What the dense SUNDIALS drivers of lib/formulations/ share: the body of a callback, which
/// must not let an exception cross into C, and the owner of a dense IDA run. Include it only
/// from the .cpp files that talk to SUNDIALS.

#include <ida/ida.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

#include <exception>
#include <string>

namespace catena::formulations {

/// Runs `body` (which returns SUNDIALS' 0 or -1) for a callback: an exception becomes -1 with
/// its message in `error` ("unknown exception in <where>" if it is not a std::exception).
template <class Body>
int guardedCallback(std::string& error, const char* where, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::exception& e) {
    error = e.what();
  } catch (...) {
    error = std::string("unknown exception in ") + where;
  }
  return -1;
}

/// Everything one dense IDA run allocates, freed in reverse order.
struct DenseIda {
  SUNContext ctx = nullptr;
  N_Vector y = nullptr, yp = nullptr, id = nullptr, atol = nullptr;
  SUNMatrix J = nullptr;
  SUNLinearSolver ls = nullptr;
  void* mem = nullptr;
  DenseIda() = default;
  DenseIda(const DenseIda&) = delete;
  DenseIda& operator=(const DenseIda&) = delete;
  ~DenseIda() {
    if (mem) IDAFree(&mem);
    if (ls) SUNLinSolFree(ls);
    if (J) SUNMatDestroy(J);
    for (N_Vector v : {y, yp, id, atol})
      if (v) N_VDestroy(v);
    if (ctx) SUNContext_Free(&ctx);
  }
};

}  // namespace catena::formulations
