#include "io/checkpoint.hpp"

#include <cerrno>
#include <charconv>
#include <csignal>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

#include "core/check.hpp"
#include "io/output_file.hpp"

namespace catena {
namespace {

volatile std::sig_atomic_t g_signal = 0;

extern "C" void onTerminationSignal(int sig) {
  g_signal = sig;
}

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
  throw Error("checkpoint '" + path.string() + "': " + what);
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
  writeFileAtomically(path, os.str());
}

Checkpoint readCheckpoint(const std::filesystem::path& path, const std::string& format) {
  std::ifstream in(path);
  if (!in) fail(path, "cannot be read (" + std::string(std::strerror(errno)) + ")");
  Checkpoint c;
  std::string line;
  const std::string header = "# checkpoint " + format;
  if (!std::getline(in, line) || line != header)
    fail(path, "expected the header '" + header + "', found '" + line + "'");
  c.format = format;
  int number = 1;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    const std::size_t space = line.find(' ');
    if (space == 0) fail(path, "line " + std::to_string(number) + " has no key");
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

bool terminationRequested() {
  return g_signal != 0;
}

int terminationSignal() {
  return g_signal;
}

CheckpointSchedule::CheckpointSchedule(double interval_seconds)
    : interval_(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
          std::chrono::duration<double>(interval_seconds))),
      last_(std::chrono::steady_clock::now()) {}

bool CheckpointSchedule::due() const {
  return std::chrono::steady_clock::now() - last_ >= interval_;
}

void CheckpointSchedule::written() {
  last_ = std::chrono::steady_clock::now();
}

}  // namespace catena
