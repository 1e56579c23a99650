#pragma once
/// @file markdown_table.hpp
/// The tables of the benchmark programs: numbers as cells, the rows of a Markdown table, and
/// the CSV file beside it.

#include <fstream>
#include <string>
#include <vector>

namespace catena::bench {

/// x with `digits` decimals in fixed notation: fixed(3.14159, 2) = "3.14".
std::string fixed(double x, int digits);

/// x with `digits` decimals in scientific notation: sci(0.000123, 2) = "1.23e-04".
std::string sci(double x, int digits = 2);

/// x printed by std::snprintf with a one-number format: formatNumber("%.2f", x).
std::string formatNumber(const char* format, double x);

/// "| a | b | c |\n": one row of cells.
std::string markdownRow(const std::vector<std::string>& cells);

/// The rule under a header, one letter per column: 'r' right-aligned "---:", 'l'
/// left-aligned ":---", '-' unaligned "---". markdownRule("rl-") = "|---:|:---|---|\n".
std::string markdownRule(const std::string& aligns);

/// markdownRow(columns) followed by markdownRule(aligns); aligns has one letter per column.
std::string markdownHeader(const std::vector<std::string>& columns, const std::string& aligns);

/// `path` opened (truncated) for a CSV table, `header` and a newline written; for an empty path
/// a stream that is not open (it converts to false and writes nothing).
/// @throws std::runtime_error if `path` cannot be opened for writing.
std::ofstream openCsv(const std::string& path, const std::string& header);

}  // namespace catena::bench
