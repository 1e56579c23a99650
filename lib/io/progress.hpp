#pragma once
/// @file progress.hpp
/// Progress of a long run on stderr (DESIGN.md "Outputs"), one facility for every command. On a
/// terminal: one line "[catena] ..." rewritten in place at most every 0.5 s. Otherwise (a batch
/// job's log): a full line at most every 5 s, or every CATENA_PROGRESS_SECONDS seconds when
/// that is set to a positive number (the tests lower it). Nothing is printed before the first
/// interval has passed, so short runs stay quiet. The analyses report through their callbacks
/// (StaticsOptions::on_iteration, the integrators' observers); the drivers own the Progress.

#include <chrono>
#include <iosfwd>
#include <string>

namespace catena {

/// The interval between lines when stderr is not a terminal: CATENA_PROGRESS_SECONDS if it is
/// a positive number, else 5 s.
double batchProgressSeconds();

class Progress {
 public:
  /// enabled = false: prints nothing (--terse). `terminal`: whether `os` is a terminal (the
  /// default: whether stderr is).
  explicit Progress(bool enabled);
  Progress(bool enabled, std::ostream& os, bool terminal);
  /// Erases the terminal line.
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// True when a line is due: enabled, and the interval has passed since the last line.
  bool due() const;
  /// Prints the line that make() returns when one is due (make is not called otherwise).
  template <typename Make>
  void update(Make&& make) {
    if (due()) print(make());
  }
  /// A phase boundary ("eigensolve started"): printed when the run has gone on for at least one
  /// interval, whatever the time since the last line, so a long run's log shows its phases.
  void milestone(const std::string& message);
  /// Erases the terminal line (before printing results on the terminal); no-op otherwise.
  void clear();
  /// Seconds since construction.
  double elapsed() const;

 private:
  void print(const std::string& message);
  bool enabled_, terminal_;
  std::ostream& os_;
  double interval_;
  std::chrono::steady_clock::time_point start_, last_;
  bool line_open_ = false;  ///< terminal: a line is shown that clear() must erase
};

}  // namespace catena
