#include "io/progress.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <iostream>

namespace catena {

double batchProgressSeconds() {
  const char* s = std::getenv("CATENA_PROGRESS_SECONDS");
  if (s && *s) {
    char* end = nullptr;
    const double x = std::strtod(s, &end);
    if (*end == '\0' && std::isfinite(x) && x > 0.0) return x;
  }
  return 5.0;
}

Progress::Progress(bool enabled) : Progress(enabled, std::cerr, isatty(STDERR_FILENO) == 1) {}

Progress::Progress(bool enabled, std::ostream& os, bool terminal)
    : enabled_(enabled),
      terminal_(terminal),
      os_(os),
      interval_(terminal ? 0.5 : batchProgressSeconds()),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

Progress::~Progress() {
  clear();
}

double Progress::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

bool Progress::due() const {
  return enabled_ &&
         std::chrono::duration<double>(std::chrono::steady_clock::now() - last_).count() >=
             interval_;
}

void Progress::milestone(const std::string& message) {
  if (enabled_ && elapsed() >= interval_) print(message);
}

void Progress::clear() {
  if (!line_open_) return;
  os_ << "\r" << std::string(79, ' ') << "\r" << std::flush;
  line_open_ = false;
}

void Progress::print(const std::string& message) {
  last_ = std::chrono::steady_clock::now();
  if (terminal_) {
    clear();
    os_ << "\r[catena] " << message.substr(0, 69) << std::flush;
    line_open_ = true;
  } else {
    os_ << "[catena] " << message << std::endl;
  }
}

}  // namespace catena
