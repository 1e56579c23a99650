#pragma once
/// @file bench_support.hpp
/// Small pieces the benchmark programs share: the machine's description, statistics of timings,
/// and the exact equilibrium of the discrete catenary chain their checks compare with.

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

namespace catena::bench {

/// "Intel(R) Xeon(R) ..." from /proc/cpuinfo, "unknown" if unavailable.
inline std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  return "unknown";
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Exact static equilibrium of N uniform rigid links of total `length` hung between two
/// supports `span` apart at the same height: a link is parallel to the force it transmits at
/// its mid-point, so tan(theta_k) = c (k + 1/2 - N/2) with c = w l / H, and c follows from
/// sum_k l cos(theta_k) = span (bisection to round-off).
struct DiscreteChain {
  std::vector<double> x, z;  ///< joint points from the first support, m (z up)
  double h_over_w = 0.0;     ///< horizontal tension over the weight per length, m
};

inline DiscreteChain solveDiscreteChain(int N, double span, double length) {
  const double l = length / N;
  auto reach = [&](double c) {
    double s = 0.0;
    for (int k = 0; k < N; ++k) s += l / std::hypot(1.0, c * (k + 0.5 - 0.5 * N));
    return s;
  };
  // reach(0) = length > span, reach decreases to 0 as c grows.
  double lo = 0.0, hi = 1.0;
  while (reach(hi) > span) hi *= 2.0;
  for (int it = 0; it < 200 && hi - lo > 1e-16 * hi; ++it) {
    const double mid = 0.5 * (lo + hi);
    (reach(mid) > span ? lo : hi) = mid;
  }
  const double c = 0.5 * (lo + hi);
  DiscreteChain d;
  d.x.assign(1, 0.0);
  d.z.assign(1, 0.0);
  for (int k = 0; k < N; ++k) {
    const double t = c * (k + 0.5 - 0.5 * N), n = std::hypot(1.0, t);
    d.x.push_back(d.x.back() + l / n);
    d.z.push_back(d.z.back() + l * t / n);
  }
  d.h_over_w = l / c;  // c = w l / H
  return d;
}

}  // namespace catena::bench
