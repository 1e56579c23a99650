#pragma once
/// @file output_file.hpp
/// Every file catena writes goes through OutputFile (DESIGN.md "Outputs", docs/reliability.md):
///   - a regular file, or a path where nothing is yet, is written to PATH.tmp.<pid> in the same
///     directory, synced to disk and renamed over PATH by commit(): a reader sees the old file
///     or the new one whole, never a part of it;
///   - a symbolic link is followed and its final target replaced that way; the link stays;
///   - a character device or a FIFO that a process reads (/dev/null, /dev/stdout, a pipe) is
///     written through, never replaced (and so is a file this process has open, reached by a
///     link in /proc such as /dev/stdout);
///   - anything else (a directory, a block device, a socket, a FIFO nobody reads) is refused;
///   - every write, the sync, the close and the rename are checked: a failure throws
///     catena::Error "cannot write PATH: REASON" (errno's text) and removes the temporary, so
///     that a failed write leaves the target as it was, never an empty or truncated file.
/// A file written during a run (a time history) goes to the temporary as the run goes, is
/// checked after every row (check()), and is renamed when the run ends, also when it failed.

#include <filesystem>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace catena {

class OutputFile {
 public:
  /// Decides how `path` is written (see above) and opens the temporary or the device. Throws
  /// catena::Error naming `path` and the reason if it cannot, or if `path` is refused.
  explicit OutputFile(const std::filesystem::path& path);
  /// Without a successful commit(): closes and removes the temporary; the target is untouched.
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  /// The text or bytes of the file (buffered; failures are remembered for check and commit).
  std::ostream& stream() { return stream_; }
  /// Throws catena::Error "cannot write PATH: REASON" if a write so far failed. The buffer is
  /// written out when full, so a failure shows up within 64 KiB of where it happened.
  void check() const;
  /// Writes out the buffer, syncs and closes the file and renames it over the target. Throws as
  /// check() on any failure, the temporary removed. Called once.
  void commit();
  /// The path as given (what messages name).
  const std::filesystem::path& path() const { return path_; }
  /// True when the path is written through (a device, a FIFO), false when it is replaced.
  bool writtenThrough() const { return temporary_.empty(); }

 private:
  class Buffer;
  std::filesystem::path path_;       ///< as given
  std::filesystem::path target_;     ///< what is replaced: path_, or a link's final target
  std::filesystem::path temporary_;  ///< target_.tmp.<pid>; empty when written through
  int fd_ = -1;
  std::unique_ptr<Buffer> buffer_;
  std::ostream stream_;
  bool committed_ = false;
};

/// Writes `contents` to `path` through an OutputFile (atomically, unless it is a device or a
/// FIFO). Throws catena::Error "cannot write PATH: REASON" on failure.
void writeFileAtomically(const std::filesystem::path& path, const std::string& contents);

/// Removes the temporaries that an OutputFile of `path` left when its process was killed: the
/// files named exactly <target>.tmp.<pid> (target: `path`, or its links' final target), <pid>
/// all digits and no process with that id alive on this machine. Other files, and temporaries of
/// live processes, are left alone. Returns the paths removed; a file that cannot be removed is
/// skipped (never throws). Call it before writing `path` again, e.g. at a restart.
std::vector<std::filesystem::path> removeStaleTemporaries(const std::filesystem::path& path);

/// Creates the folder `dir` and its parents if they are missing. Throws catena::Error "cannot
/// create the output folder DIR: REASON" if it cannot, or if `dir` exists and is not a folder.
void createOutputDirectory(const std::filesystem::path& dir);

/// The folder, relative to the current directory, where the outputs that the command line does
/// not name go (--output-dir changes it; docs/reliability.md "Where outputs go").
inline constexpr const char* kDefaultOutputFolder = "out";

/// `folder`/`name`, the folder created first if missing (createOutputDirectory): the path of an
/// output the command line did not name. Throws catena::Error as createOutputDirectory.
std::string defaultOutputPath(const std::filesystem::path& folder, const std::string& name);

}  // namespace catena
