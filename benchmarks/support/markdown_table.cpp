#include "support/markdown_table.hpp"

#include <cstdio>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace catena::bench {

std::string fixed(double x, int digits) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(digits) << x;
  return os.str();
}

std::string sci(double x, int digits) {
  std::ostringstream os;
  os << std::scientific << std::setprecision(digits) << x;
  return os.str();
}

std::string formatNumber(const char* format, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, x);
  return buf;
}

std::string markdownRow(const std::vector<std::string>& cells) {
  std::string row = "|";
  for (const std::string& c : cells) row += " " + c + " |";
  return row + "\n";
}

std::string markdownRule(const std::string& aligns) {
  std::string rule = "|";
  for (char a : aligns) {
    if (a == 'r')
      rule += "---:|";
    else if (a == 'l')
      rule += ":---|";
    else if (a == '-')
      rule += "---|";
    else
      throw std::invalid_argument(std::string("markdownRule: alignment '") + a +
                                  "' is none of r, l, -");
  }
  return rule + "\n";
}

std::string markdownHeader(const std::vector<std::string>& columns, const std::string& aligns) {
  if (columns.size() != aligns.size())
    throw std::invalid_argument("markdownHeader: " + std::to_string(columns.size()) + " columns, " +
                                std::to_string(aligns.size()) + " alignments");
  return markdownRow(columns) + markdownRule(aligns);
}

std::ofstream openCsv(const std::string& path, const std::string& header) {
  std::ofstream csv;
  if (path.empty()) return csv;
  csv.open(path);
  if (!csv) throw std::runtime_error("cannot write " + path);
  csv << header << "\n";
  return csv;
}

}  // namespace catena::bench
