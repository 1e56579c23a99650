#include "report/mcs_writer.hpp"

#include <iomanip>

#include "core/check.hpp"

namespace catena {

McsCsvWriter::McsCsvWriter(const std::string& path, const Model& model)
    : model_(model), out_(path) {
  out_.stream() << std::setprecision(12);
}

void McsCsvWriter::write(const McsSample& s) {
  std::ostream& out = out_.stream();
  const Index f = s.qdot.size(), k = s.r1_diagonal.size();
  if (names_.empty()) {
    names_ = {"t", "rank", "flips"};
    for (Index j = 1; j <= f; ++j) names_.push_back("qdot_" + std::to_string(j));
    for (Index j = 1; j <= f; ++j) names_.push_back("q_" + std::to_string(j));
    for (Index i = 1; i <= k; ++i) names_.push_back("R1_" + std::to_string(i));
    static const char* k2[] = {"x", "y", "theta"};
    static const char* k3[] = {"vx", "vy", "vz", "wx", "wy", "wz"};
    for (Index j = 1; j <= f; ++j)
      for (std::size_t b = 0; b < model_.bodies.size(); ++b)
        for (int c = 0; c < model_.nv_body; ++c) {
          std::string name = "T";  // appended piece by piece (GCC 12 -Wrestrict on operator+)
          name.append(std::to_string(j)).append("_").append(model_.bodies[b].name).append("_");
          name.append(model_.dimension == 3 ? k3[c] : k2[c]);
          names_.push_back(std::move(name));
        }
    for (std::size_t i = 0; i < names_.size(); ++i) out << (i ? "," : "") << names_[i];
    out << "\n";
  }
  CATENA_CHECK(
      static_cast<std::size_t>(3 + 2 * f + k + f * s.T.rows()) == names_.size(),
      "McsCsvWriter: a sample with f = " << f << " and " << k << " pivots does not fit the header");
  out << s.t << "," << s.rank << "," << s.flips;
  for (Index j = 0; j < f; ++j) out << "," << s.qdot(j);
  for (Index j = 0; j < f; ++j) out << "," << s.q(j);
  for (Index i = 0; i < k; ++i) out << "," << s.r1_diagonal(i);
  for (Index j = 0; j < f; ++j)
    for (Index i = 0; i < s.T.rows(); ++i) out << "," << s.T(i, j);
  out << "\n";
  out_.check();
}

}  // namespace catena
