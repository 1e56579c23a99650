#include "io/output_file.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <streambuf>
#include <system_error>
#include <vector>

#include "core/check.hpp"

namespace catena {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const fs::path& path, const std::string& reason) {
  throw Error("cannot write " + path.string() + ": " + reason);
}

[[noreturn]] void failErrno(const fs::path& path, int error) {
  fail(path, std::strerror(error));
}

/// How a path is written: replaced (the final target of its links) or written through.
struct Plan {
  bool through = false;
  fs::path target;
};

/// Follows the links from `path` to the name that is replaced. A link in /proc (/dev/stdout is
/// /proc/self/fd/1) names a file this process has open: it is written through, not replaced.
Plan followLinks(const fs::path& path) {
  fs::path p = path;
  for (int links = 0; links <= 40; ++links) {
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0) {
      if (errno == ENOENT) return {false, p};  // a new file (a missing folder: open says so)
      failErrno(path, errno);
    }
    if (!S_ISLNK(st.st_mode)) return {false, p};
    std::error_code ec;
    const fs::path folder = fs::canonical(p.has_parent_path() ? p.parent_path() : ".", ec);
    if (!ec && folder.string().rfind("/proc/", 0) == 0) return {true, path};
    const fs::path to = fs::read_symlink(p, ec);
    if (ec) fail(path, ec.message());
    p = to.is_absolute() ? to : p.parent_path() / to;
  }
  failErrno(path, ELOOP);
}

Plan planFor(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return followLinks(path);  // nothing there, or a dangling link
    failErrno(path, errno);
  }
  if (S_ISREG(st.st_mode)) return followLinks(path);
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return {true, path};
  if (S_ISDIR(st.st_mode)) fail(path, "it is a directory");
  fail(path, "it is neither a regular file nor a character device or FIFO; not replaced");
}

}  // namespace

/// A std::streambuf over a file descriptor whose writes are checked: the first failure's errno
/// is kept, and the stream goes bad (later writes are dropped).
class OutputFile::Buffer : public std::streambuf {
 public:
  explicit Buffer(int fd) : fd_(fd), data_(1 << 16) { reset(); }
  int error() const { return error_; }

  /// Writes the buffered bytes; false (and error() set) on failure.
  bool drain() {
    const char* p = pbase();
    std::size_t left = static_cast<std::size_t>(pptr() - pbase());
    while (left > 0 && error_ == 0) {
      const ssize_t n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR) continue;  // a signal arrived (SIGINT: the run stops later)
      if (n <= 0) {
        error_ = n < 0 ? errno : EIO;
        break;
      }
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    reset();
    return error_ == 0;
  }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  void reset() { setp(data_.data(), data_.data() + data_.size()); }
  int fd_;
  std::vector<char> data_;
  int error_ = 0;
};

OutputFile::OutputFile(const fs::path& path) : path_(path), stream_(nullptr) {
  const Plan plan = planFor(path);
  target_ = plan.target;
  if (plan.through) {
    // A FIFO without a reader would block open() forever: O_NONBLOCK makes it fail (ENXIO).
    fd_ = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_TRUNC);
    if (fd_ < 0 && errno == ENXIO) fail(path, "it is a FIFO that no process reads");
    if (fd_ < 0) failErrno(path, errno);
    const int flags = ::fcntl(fd_, F_GETFL);
    if (flags != -1) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
  } else {
    temporary_ = target_;
    temporary_ += ".tmp." + std::to_string(::getpid());
    for (int attempt = 0; attempt < 2 && fd_ < 0; ++attempt) {
      fd_ = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      // Left by an earlier process with this id that was killed: ours to replace.
      if (fd_ < 0 && errno == EEXIST && attempt == 0) ::unlink(temporary_.c_str());
    }
    if (fd_ < 0) failErrno(path, errno);
    // A replaced file keeps its permissions.
    struct stat st {};
    if (::stat(target_.c_str(), &st) == 0) ::fchmod(fd_, st.st_mode & 07777);
  }
  buffer_ = std::make_unique<Buffer>(fd_);
  stream_.rdbuf(buffer_.get());
}

OutputFile::~OutputFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temporary_.empty()) ::unlink(temporary_.c_str());
}

void OutputFile::check() const {
  if (buffer_->error() != 0) failErrno(path_, buffer_->error());
  if (!stream_) failErrno(path_, EIO);
}

void OutputFile::commit() {
  CATENA_ASSERT(fd_ >= 0 && !committed_);
  int error = stream_.flush() ? 0 : (buffer_->error() ? buffer_->error() : EIO);
  // Some file systems report a full disk only at the sync or the close. Devices and pipes are
  // not synced (fsync fails there with EINVAL).
  if (error == 0 && !temporary_.empty() && ::fsync(fd_) != 0) error = errno;
  if (::close(fd_) != 0 && error == 0) error = errno;
  fd_ = -1;
  if (error == 0 && !temporary_.empty() && ::rename(temporary_.c_str(), target_.c_str()) != 0)
    error = errno;
  if (error != 0) failErrno(path_, error);  // the destructor removes the temporary
  committed_ = true;
}

void writeFileAtomically(const fs::path& path, const std::string& contents) {
  OutputFile file(path);
  file.stream().write(contents.data(), static_cast<std::streamsize>(contents.size()));
  file.commit();
}

std::vector<fs::path> removeStaleTemporaries(const fs::path& path) {
  std::vector<fs::path> removed;
  try {
    const Plan plan = planFor(path);
    if (plan.through) return removed;
    const std::string prefix = plan.target.filename().string() + ".tmp.";
    const fs::path folder = plan.target.has_parent_path() ? plan.target.parent_path() : ".";
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(folder, ec)) {
      const std::string name = e.path().filename().string();
      if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
      const std::string pid = name.substr(prefix.size());
      if (pid.size() > 9 || pid.find_first_not_of("0123456789") != std::string::npos) continue;
      if (::kill(static_cast<pid_t>(std::stol(pid)), 0) == 0 || errno != ESRCH) continue;
      std::error_code regular;
      if (!e.is_regular_file(regular) || e.is_symlink(regular)) continue;
      if (fs::remove(e.path(), regular)) removed.push_back(e.path());
    }
  } catch (const std::exception&) {  // a path that cannot be planned: nothing to clean
  }
  return removed;
}

void createOutputDirectory(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (!ec && !fs::is_directory(dir, ec)) ec = std::make_error_code(std::errc::not_a_directory);
  if (ec) throw Error("cannot create the output folder " + dir.string() + ": " + ec.message());
}

std::string defaultOutputPath(const fs::path& folder, const std::string& name) {
  createOutputDirectory(folder);
  return (folder / name).string();
}

}  // namespace catena
