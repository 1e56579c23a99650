#pragma once
/// @file status.hpp
/// Outcome of a numerical procedure: solvers return a Status instead of throwing, and say why
/// they failed (which residual, how far they got).

#include <string>

namespace catena {

struct Status {
  enum class Code {
    kOk,
    kNotConverged,
    kSingular,
    kResources,  ///< out of memory or of a solver's workspace: the problem itself may be fine
    kInvalidInput,
    kInterrupted  ///< stopped on request (a termination signal, core/termination.hpp)
  };
  Code code = Code::kOk;
  std::string message;  ///< Empty when ok; otherwise a complete sentence for the user.

  bool ok() const { return code == Code::kOk; }
  static Status success() { return {}; }
  static Status failure(Code c, std::string msg) { return {c, std::move(msg)}; }
};

}  // namespace catena
