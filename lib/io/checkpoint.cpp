#include "io/checkpoint.hpp"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string_view>
#include <system_error>

#include "core/check.hpp"
#include "io/output_file.hpp"

namespace catena {
namespace {

/// The notice written on the first signal: two buffers, the handler reads the one `g_notice`
/// names (a lock-free atomic), setTerminationNotice fills the other and then switches.
struct Notice {
  char prefix[256] = {};
  char suffix[1024] = {};
};
Notice g_notices[2];
std::atomic<int> g_notice{-1};

void writeAll(const char* text) {
  std::size_t left = std::strlen(text);
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, text, left);
    if (n <= 0) return;
    text += n;
    left -= static_cast<std::size_t>(n);
  }
}

extern "C" void onTerminationSignal(int sig) {
  const bool first = !terminationRequested();
  noteTerminationSignal(sig);
  const int k = g_notice.load();
  if (!first || k < 0) return;
  const int saved = errno;
  writeAll(g_notices[k].prefix);
  writeAll(sig == SIGTERM   ? ": SIGTERM received"
           : sig == SIGINT  ? ": SIGINT received"
           : sig == SIGUSR1 ? ": SIGUSR1 received"
                            : ": a signal received");
  writeAll(g_notices[k].suffix);
  writeAll("\n");
  errno = saved;
}

[[noreturn]] void failCheckpoint(const std::filesystem::path& path, const std::string& what) {
  throw Error("checkpoint '" + path.string() + "': " + what);
}

constexpr const char* kEnd = "# end ";

/// FNV-1a, 64 bits: catches truncation, flipped bytes and edits; not meant against forgery.
std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string hex(std::uint64_t x) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(x));
  return buf;
}

}  // namespace

void Checkpoint::add(const std::string& key, const std::string& value) {
  CATENA_CHECK(!key.empty() && key.find_first_of(" \t\n") == std::string::npos,
               "a checkpoint key is one word, got '" << key << "'");
  CATENA_CHECK(value.find('\n') == std::string::npos,
               "a checkpoint value is one line (key '" << key << "')");
  records.emplace_back(key, value);
}

const std::string& Checkpoint::get(const std::string& key) const {
  for (const auto& [k, v] : records)
    if (k == key) return v;
  throw Error("checkpoint (" + format + "): no record '" + key + "'");
}

std::vector<std::string> Checkpoint::all(const std::string& key) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : records)
    if (k == key) out.push_back(v);
  return out;
}

std::string exactNumber(double x) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::hex);
  return std::string(buf, r.ptr);
}

double parseExactNumber(const std::string& text) {
  double x = 0.0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), x, std::chars_format::hex);
  CATENA_CHECK(r.ec == std::errc() && r.ptr == text.data() + text.size() && !text.empty(),
               "expected a hexadecimal float such as 1.8p+1, got '" << text << "'");
  return x;
}

void writeCheckpoint(const std::filesystem::path& path, const Checkpoint& c) {
  std::ostringstream os;
  os << "# checkpoint " << c.format << "\n";
  for (const auto& [k, v] : c.records) os << k << " " << v << "\n";
  const std::string body = os.str();
  writeFileAtomically(path,
                      body + kEnd + std::to_string(body.size()) + " " + hex(fnv1a(body)) + "\n");
}

Checkpoint readCheckpoint(const std::filesystem::path& path, const std::string& format) {
  std::ifstream in(path, std::ios::binary);
  if (!in) failCheckpoint(path, "cannot be read (" + std::string(std::strerror(errno)) + ")");
  std::ostringstream all;
  all << in.rdbuf();
  if (in.bad()) failCheckpoint(path, "cannot be read (" + std::string(std::strerror(errno)) + ")");
  const std::string text = all.str();
  const std::string header = "# checkpoint " + format;
  const std::string first = text.substr(0, text.find('\n'));
  if (first != header)
    failCheckpoint(path, "expected the header '" + header + "', found '" + first + "'");
  // The last line holds the length and checksum of everything before it.
  const std::size_t end = text.size() > 1 ? text.rfind('\n', text.size() - 2) : std::string::npos;
  if (end == std::string::npos || text.back() != '\n' ||
      text.compare(end + 1, std::strlen(kEnd), kEnd) != 0)
    failCheckpoint(path, "no end record (the file is truncated or was not written by catena)");
  const std::string_view body(text.data(), end + 1);
  std::istringstream trailer(text.substr(end + 1 + std::strlen(kEnd)));
  std::size_t length = 0;
  std::string sum;
  trailer >> length >> sum;
  if (!trailer || length != body.size())
    failCheckpoint(path, "its length is " + std::to_string(body.size()) +
                             " bytes, the end record says " + std::to_string(length) +
                             " (truncated or edited)");
  if (sum != hex(fnv1a(body)))
    failCheckpoint(path, "checksum mismatch (the contents were damaged or edited)");
  std::istringstream lines{std::string(body)};
  Checkpoint c;
  std::string line;
  std::getline(lines, line);
  c.format = format;
  int number = 1;
  while (std::getline(lines, line)) {
    ++number;
    if (line.empty()) continue;
    const std::size_t space = line.find(' ');
    if (space == 0) failCheckpoint(path, "line " + std::to_string(number) + " has no key");
    if (space == std::string::npos)
      c.records.emplace_back(line, "");
    else
      c.records.emplace_back(line.substr(0, space), line.substr(space + 1));
  }
  return c;
}

void installTerminationHandler() {
  struct sigaction action {};
  action.sa_handler = onTerminationSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;  // system calls resume; the flag is polled at safe points
  for (int sig : {SIGTERM, SIGINT, SIGUSR1}) sigaction(sig, &action, nullptr);
}

std::string signalName(int sig) {
  switch (sig) {
    case SIGTERM:
      return "SIGTERM";
    case SIGINT:
      return "SIGINT";
    case SIGUSR1:
      return "SIGUSR1";
    default:
      return "signal " + std::to_string(sig);
  }
}

void setTerminationNotice(const std::string& program, const std::string& text) {
  if (text.empty()) {
    g_notice.store(-1);
    return;
  }
  const int k = g_notice.load() == 0 ? 1 : 0;
  Notice& n = g_notices[k];
  std::snprintf(n.prefix, sizeof n.prefix, "%s", program.c_str());
  std::snprintf(n.suffix, sizeof n.suffix, "%s", text.c_str());
  g_notice.store(k);
}

namespace {
/// setUnexpectedExitNotice's text (a plain buffer: nothing to destroy before the handler runs).
char g_exit_notice[1024] = "";
}  // namespace

void setUnexpectedExitNotice(const std::string& program, const std::string& text) {
  static const bool installed = [] {
    return std::atexit([] {
             if (g_exit_notice[0] != '\0') std::fprintf(stderr, "%s\n", g_exit_notice);
           }) == 0;
  }();
  (void)installed;
  if (text.empty())
    g_exit_notice[0] = '\0';
  else
    std::snprintf(g_exit_notice, sizeof g_exit_notice, "%s: %s", program.c_str(), text.c_str());
}

}  // namespace catena
