#pragma once
/// @file check.hpp
/// Three tiers of checks (STYLE.md rule 6):
///  - CATENA_ASSERT: debug-only invariant of catena itself;
///  - CATENA_CHECK:  always-on precondition on user input or API use; throws catena::Error
///                   with what was expected and what came;
///  - Status (status.hpp): numerical failure reported by a solver, never thrown.

#include <cassert>
#include <sstream>
#include <stdexcept>
#include <string>

namespace catena {

/// Error raised for bad input or API misuse. what() is a complete, user-facing sentence.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

namespace detail {
// The message is the whole user-facing sentence; the condition text and source line of the check
// would only confuse a user reading it, so they are not appended.
[[noreturn]] inline void throwCheck(const std::string& msg) {
  throw Error(msg);
}
}  // namespace detail

}  // namespace catena

#define CATENA_ASSERT(cond) assert(cond)

/// CATENA_CHECK(cond, stream-expression): throws catena::Error if cond is false.
#define CATENA_CHECK(cond, msg)                             \
  do {                                                      \
    if (!(cond)) {                                          \
      std::ostringstream catena_check_os_;                  \
      catena_check_os_ << msg;                              \
      ::catena::detail::throwCheck(catena_check_os_.str()); \
    }                                                       \
  } while (false)
