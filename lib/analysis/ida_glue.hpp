#pragma once
/// @file ida_glue.hpp
/// What every SUNDIALS IDA driver of catena needs around IDA, in one place: the owner of a run's
/// SUNDIALS objects, the error handler that keeps IDA's last message for the user, and the name
/// of a return flag. Used by analysis/ida_dynamics.cpp and parallel/distributed_dynamics.cpp
/// (the only files that include it: DESIGN.md, SUNDIALS stays behind the adapters).

#include <ida/ida.h>
#include <sundials/sundials_context.h>
#include <sundials/sundials_linearsolver.h>
#include <sundials/sundials_matrix.h>
#include <sundials/sundials_nvector.h>

#include <cstdlib>
#include <string>

namespace catena::ida_glue {

/// Owner of the SUNDIALS objects of one run, freed in reverse order of creation. A parallel run
/// passes SUNContext_Create a pointer to its communicator, which must outlive this owner
/// (declare it first).
struct IdaObjects {
  SUNContext ctx = nullptr;
  void* mem = nullptr;
  N_Vector y = nullptr, yp = nullptr, id = nullptr, atol = nullptr, work = nullptr;
  SUNMatrix J = nullptr;
  SUNLinearSolver ls = nullptr;
  IdaObjects() = default;
  IdaObjects(const IdaObjects&) = delete;
  IdaObjects& operator=(const IdaObjects&) = delete;
  ~IdaObjects() {
    if (mem) IDAFree(&mem);
    if (ls) SUNLinSolFree(ls);
    if (J) SUNMatDestroy(J);
    for (N_Vector v : {y, yp, id, atol, work})
      if (v) N_VDestroy(v);
    if (ctx) SUNContext_Free(&ctx);
  }
};

/// IDA's error handler: keeps "function: message" of the last error in data->ida_message
/// (Data: the driver's callback data, user argument of IDASetErrHandlerFn). Warnings
/// (code >= 0) are not failures.
template <class Data>
void keepIdaError(int code, const char* /*module*/, const char* function, char* msg, void* user) {
  if (code >= 0) return;
  static_cast<Data*>(user)->ida_message =
      std::string(function ? function : "IDA") + ": " + (msg ? msg : "");
}

/// IDA's name of a return flag (IDA_CONV_FAIL, ...), or the number.
inline std::string idaFlagName(int flag) {
  char* name = IDAGetReturnFlagName(flag);  // allocated by SUNDIALS
  std::string s = name ? name : std::to_string(flag);
  std::free(name);
  return s;
}

/// "IDA failed at t = T with NAME (FLAG)", then IDA's own last message and a callback's, if any.
inline std::string idaFailureMessage(double t, int flag, const std::string& ida_message,
                                     const std::string& callback_message) {
  std::string s = "IDA failed at t = " + std::to_string(t) + " with " + idaFlagName(flag) + " (" +
                  std::to_string(flag) + ")";
  if (!ida_message.empty()) s += "; " + ida_message;
  if (!callback_message.empty()) s += "; " + callback_message;
  return s;
}

}  // namespace catena::ida_glue
