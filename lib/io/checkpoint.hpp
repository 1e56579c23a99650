#pragma once
/// @file checkpoint.hpp
/// Restartable files for long batch runs (DESIGN.md "Outputs"), independent of MPI:
///   - a Checkpoint is a list of text records "key value" (keys without blanks, values on one
///     line; a key may repeat, order is kept) under a header line naming the format;
///   - writeCheckpoint writes it atomically through io/output_file.hpp: to a temporary file in
///     the same directory, flushed to disk, then renamed over the old one, so a reader sees the
///     old or the new file whole; its last line "# end <bytes> <checksum>" (FNV-1a, 64 bits, of
///     everything before it) lets readCheckpoint refuse a truncated or damaged file, naming why;
///   - a termination handler turns SIGTERM (which Slurm sends before a time limit), SIGINT and
///     SIGUSR1 into a flag that the run polls at its safe points, where it writes a checkpoint
///     and exits with a message;
/// With MPI, the ranks must agree on the flag before acting on it (a reduction at the safe
/// point): the signal may reach them at different times.

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/termination.hpp"

namespace catena {

struct Checkpoint {
  std::string format;  ///< what wrote the file, e.g. "catena-scale 1"; checked on reading
  std::vector<std::pair<std::string, std::string>> records;

  /// Appends a record. Throws catena::Error if key is empty or has blanks, or value has a
  /// newline.
  void add(const std::string& key, const std::string& value);
  /// The value of the first record named key; throws catena::Error (naming key) if none.
  const std::string& get(const std::string& key) const;
  /// The values of every record named key, in order.
  std::vector<std::string> all(const std::string& key) const;
};

/// A double as exact text (hexadecimal significand, std::chars_format::hex: "1.8p+1" is 3),
/// so that a restart continues from the very values, and back. parseExactNumber throws
/// catena::Error if the whole text is not such a number.
std::string exactNumber(double x);
double parseExactNumber(const std::string& text);

/// Writes c atomically: "# checkpoint <format>" then one "key value" line per record.
void writeCheckpoint(const std::filesystem::path& path, const Checkpoint& c);

/// Reads a file written by writeCheckpoint. Throws catena::Error naming the file and the reason
/// if it cannot be read, if its header is not "# checkpoint <format>" for the expected format, or
/// if its end record is missing or does not match its length and checksum.
Checkpoint readCheckpoint(const std::filesystem::path& path, const std::string& format);

/// Installs handlers that set the termination flag on SIGTERM, SIGINT and SIGUSR1 (idempotent).
void installTerminationHandler();
// terminationRequested(), terminationSignal(): core/termination.hpp.
/// "SIGTERM", "SIGINT", "SIGUSR1", else "signal N".
std::string signalName(int sig);
/// What the handler writes to stderr when the first signal arrives (async-signal-safe write(2)),
/// between "<program>: SIGTERM received" and a newline; empty (the default): nothing is written.
/// So a signal is acknowledged at once even if the process is killed before its safe point.
void setTerminationNotice(const std::string& program, const std::string& text);

/// What to write to stderr if the process ends through exit() while it is set: a library that
/// calls exit() (MUMPS' PORD ordering does, after "malloc failed on line ... of file graph.c"
/// or "ddcreate.c", with status 255) would otherwise end a run without a word of catena's.
/// "<program>: <text>"; empty text (set it so before a normal return): nothing. The first call
/// installs the handler.
void setUnexpectedExitNotice(const std::string& program, const std::string& text);

/// The known cause, for the notices' texts.
inline constexpr const char* kLibraryExitCause =
    "MUMPS' PORD ordering does so when it cannot allocate memory, after printing 'malloc failed "
    "on line ... of file ...'";

/// The notice's text for a command under mpirun that writes nothing until it ends: which rank
/// was ended, by what.
inline std::string libraryExitText(int rank, int ranks) {
  return "the process was ended by exit() inside a library on rank " + std::to_string(rank) +
         " of " + std::to_string(ranks) + " (" + kLibraryExitCause + "); no output was written";
}

/// The notice above for a scope: set on construction, cleared on destruction (a return or an
/// exception leaves the scope; a library's exit() does not).
class UnexpectedExitNotice {
 public:
  UnexpectedExitNotice(const std::string& program, const std::string& text) : program_(program) {
    setUnexpectedExitNotice(program, text);
  }
  ~UnexpectedExitNotice() { setUnexpectedExitNotice(program_, ""); }
  UnexpectedExitNotice(const UnexpectedExitNotice&) = delete;
  UnexpectedExitNotice& operator=(const UnexpectedExitNotice&) = delete;

 private:
  std::string program_;
};

}  // namespace catena
