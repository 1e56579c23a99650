#include "options.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <iostream>
#include <sstream>
#include <system_error>

namespace catena::cli {

namespace {

/// "> 0 s", "in (0, 1)", "" (no bound).
std::string describeBounds(const RealRange& r) {
  std::ostringstream os;
  const bool lo = std::isfinite(r.min), hi = std::isfinite(r.max);
  if (lo && hi)
    os << " in " << (r.min_open ? "(" : "[") << r.min << ", " << r.max << (r.max_open ? ")" : "]");
  else if (lo)
    os << (r.min_open ? " > " : " >= ") << r.min;
  else if (hi)
    os << (r.max_open ? " < " : " <= ") << r.max;
  if (!r.unit.empty()) os << " " << r.unit;
  if (!r.note.empty()) os << " (" << r.note << ")";
  return os.str();
}

/// " >= 1", " in [1, 100]", "" (any).
std::string describeBounds(long long min, long long max) {
  constexpr long long lowest = std::numeric_limits<long long>::min();
  constexpr long long highest = std::numeric_limits<long long>::max();
  std::ostringstream os;
  if (min != lowest && max != highest)
    os << " in [" << min << ", " << max << "]";
  else if (min != lowest)
    os << " >= " << min;
  else if (max != highest)
    os << " <= " << max;
  return os.str();
}

[[noreturn]] void refuse(std::string_view option, const std::string& expected,
                         std::string_view text) {
  throw UsageError(std::string(option) + " expects " + expected + ", got '" + std::string(text) +
                   "'");
}

/// The text a number is read from: a leading '+' dropped when a digit or '.' follows (strtod
/// and stoi took it; from_chars does not).
std::string_view unsigned_part(std::string_view text) {
  if (text.size() > 1 && text[0] == '+' &&
      (std::isdigit(static_cast<unsigned char>(text[1])) || text[1] == '.'))
    text.remove_prefix(1);
  return text;
}

}  // namespace

double parseReal(std::string_view option, std::string_view text, const RealRange& range) {
  const std::string_view t = unsigned_part(text);
  double x = 0.0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), x);
  const bool read = !t.empty() && ec == std::errc{} && end == t.data() + t.size();
  const bool inside = read && std::isfinite(x) &&
                      (range.min_open ? x > range.min : x >= range.min) &&
                      (range.max_open ? x < range.max : x <= range.max);
  if (!inside) refuse(option, "a finite number" + describeBounds(range), text);
  return x;
}

long long parseInteger(std::string_view option, std::string_view text, long long min,
                       long long max) {
  const std::string_view t = unsigned_part(text);
  long long n = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
  const bool read = !t.empty() && ec == std::errc{} && end == t.data() + t.size();
  if (!read || n < min || n > max) refuse(option, "an integer" + describeBounds(min, max), text);
  return n;
}

std::vector<long long> parseIntegerList(std::string_view option, std::string_view text,
                                        long long min, long long max) {
  std::vector<long long> out;
  std::string_view rest = text;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    try {
      out.push_back(parseInteger(option, item, min, max));
    } catch (const UsageError&) {
      std::string got = "'" + std::string(item) + "'";
      if (item != text) got += " in '" + std::string(text) + "'";
      throw UsageError(std::string(option) + " expects integers" + describeBounds(min, max) +
                       " separated by commas, got " + got);
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

bool CommandLine::has(std::string_view option) const {
  return std::any_of(options.begin(), options.end(),
                     [&](const auto& o) { return o.first == option; });
}

std::vector<std::string> CommandLine::petscOptions() const {
  std::vector<std::string> out;
  for (std::size_t k = 1; k < petsc.size() && petsc[k]; ++k)
    if (petsc[k][0] == '-') out.emplace_back(petsc[k]);
  return out;
}

namespace {

const OptionSpec* findOption(const CommandSpec& c, std::string_view name) {
  for (const OptionSpec& o : c.options)
    if (o.name == name) return &o;
  return nullptr;
}

/// "--modes is an option of modal, not of statics", or "unknown option '--x'".
std::string notAnOption(std::string_view name, std::string_view command,
                        const std::vector<CommandSpec>& program) {
  std::vector<std::string_view> owners;
  for (const CommandSpec& c : program)
    if (c.name != command && findOption(c, name)) owners.push_back(c.name);
  if (owners.empty()) return "unknown option '" + std::string(name) + "'";
  std::string list;
  for (std::size_t k = 0; k < owners.size(); ++k)
    list += (k == 0 ? "" : k + 1 == owners.size() ? " and " : ", ") + std::string(owners[k]);
  return std::string(name) + " is an option of " + list + ", not of " + std::string(command);
}

}  // namespace

CommandLine parseCommandLine(int argc, char** argv, int first, std::string_view command,
                             const std::vector<CommandSpec>& program) {
  CommandLine line;
  // Help wins over any error elsewhere on the line.
  for (int i = first; i < argc; ++i) {
    const std::string_view s = argv[i];
    if (s == "-h" || s == "--help") {
      line.help = true;
      return line;
    }
  }
  const auto own = std::find_if(program.begin(), program.end(),
                                [&](const CommandSpec& c) { return c.name == command; });
  if (own == program.end()) throw UsageError("unknown command '" + std::string(command) + "'");
  line.petsc.push_back(argv[0]);
  for (int i = first; i < argc; ++i) {
    const std::string_view s = argv[i];
    if (s.starts_with("--")) {
      const OptionSpec* spec = findOption(*own, s);
      if (!spec) throw UsageError(notAnOption(s, command, program));
      std::string value;
      if (spec->takes_value) {
        if (i + 1 >= argc) throw UsageError(std::string(s) + " needs a value");
        value = argv[++i];
      }
      line.options.emplace_back(s, value);
    } else if (s.size() > 1 && s[0] == '-') {
      line.petsc.push_back(argv[i]);  // a PETSc option; its value (if any) follows
      if (i + 1 < argc && argv[i + 1][0] != '-') line.petsc.push_back(argv[++i]);
    } else {
      line.arguments.emplace_back(s);
    }
  }
  line.petsc.push_back(nullptr);
  return line;
}

void warnUnusedPetscOptions(std::string_view program, const std::vector<std::string>& options) {
  for (const std::string& o : options)
    std::cerr << program << ": warning: PETSc option " << o << " was not used\n";
}

UnusedPetscOptionsWarning::~UnusedPetscOptionsWarning() {
  try {
    warnUnusedPetscOptions(program_, unused_());
  } catch (...) {  // a warning is not worth an exception out of a destructor
  }
}

}  // namespace catena::cli
