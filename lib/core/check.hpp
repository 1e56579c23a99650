#pragma once
/// @file check.hpp
/// Three tiers of checks (STYLE.md rule 6):
///  - CATENA_ASSERT: debug-only invariant of catena itself;
///  - CATENA_CHECK:  always-on precondition on user input or API use; throws catena::Error
///                   with what was expected and what came;
///  - Status (status.hpp): numerical failure reported by a solver, never thrown.

#include <cassert>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace catena {

/// Error raised for bad input or API misuse. what() is a complete, user-facing sentence.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A failed allocation that catena itself detected (PETSc's malloc failing, say): a
/// std::bad_alloc, so that one handler catches it with the standard library's, whose what()
/// says where it happened.
class OutOfMemory : public std::bad_alloc {
 public:
  explicit OutOfMemory(std::string where) : what_(std::move(where)) {}
  const char* what() const noexcept override { return what_.c_str(); }

 private:
  std::string what_;
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
