// drivers/options.hpp: numbers are read whole, finite and in range, integers without overflow;
// a command line's options are checked against its command and the others of the program.
#define BOOST_TEST_MODULE drivers_options
#include "options.hpp"

#include <boost/test/unit_test.hpp>
#include <limits>
#include <string>
#include <vector>

#include "test_support.hpp"

using namespace catena::cli;

namespace {

/// The message of the UsageError that `f` throws, or "" if it throws none.
template <typename F>
std::string refusal(F&& f) {
  return catena::test::messageOf<UsageError>(f);
}

/// A command line as main receives it.
struct Argv {
  explicit Argv(std::vector<std::string> words) : words(std::move(words)) {
    for (std::string& w : this->words) pointers.push_back(w.data());
    pointers.push_back(nullptr);
  }
  int argc() const { return static_cast<int>(words.size()); }
  char** argv() { return pointers.data(); }
  std::vector<std::string> words;
  std::vector<char*> pointers;
};

const std::vector<CommandSpec> kProgram = {
    {"statics", {{"--json", true}, {"--terse"}}},
    {"modal", {{"--json", true}, {"--terse"}, {"--modes", true}}},
    {"simulate", {{"--t-end", true}, {"--vtk", true}}},
    {"mobility", {{"--t-end", true}}},
};

}  // namespace

BOOST_AUTO_TEST_CASE(real_numbers_are_read_whole) {
  const RealRange any;
  BOOST_TEST(parseReal("--x", "1", any) == 1.0);
  BOOST_TEST(parseReal("--x", "+2.5", any) == 2.5);
  BOOST_TEST(parseReal("--x", "-1e-3", any) == -1e-3);
  BOOST_TEST(parseReal("--x", ".5", any) == 0.5);
  BOOST_TEST(parseReal("--x", "1E2", any) == 100.0);
  for (const char* bad : {"", "1abc", " 1", "1 ", "abc", "+", "++1", "+-1", "1,5", "0x10", "1e",
                          "inf", "-inf", "infinity", "nan", "NAN", "1e400", "-1e400"})
    BOOST_TEST(refusal([&] { parseReal("--x", bad, any); }) ==
                   "--x expects a finite number, got '" + std::string(bad) + "'",
               bad);
}

BOOST_AUTO_TEST_CASE(real_ranges_are_checked_and_said) {
  const RealRange positive = RealRange::greaterThan(0.0, "s");
  BOOST_TEST(parseReal("--t-end", "1e-300", positive) == 1e-300);
  BOOST_TEST(refusal([&] { parseReal("--t-end", "inf", positive); }) ==
             "--t-end expects a finite number > 0 s, got 'inf'");
  BOOST_TEST(refusal([&] { parseReal("--t-end", "0", positive); }) ==
             "--t-end expects a finite number > 0 s, got '0'");
  BOOST_TEST(refusal([&] { parseReal("--t-end", "-0", positive); }) ==
             "--t-end expects a finite number > 0 s, got '-0'");
  const RealRange non_negative = RealRange::atLeast(0.0, {}, "0: automatic");
  BOOST_TEST(parseReal("--n", "0", non_negative) == 0.0);
  BOOST_TEST(refusal([&] { parseReal("--n", "-1", non_negative); }) ==
             "--n expects a finite number >= 0 (0: automatic), got '-1'");
  const RealRange fraction = RealRange::open(0.0, 1.0);
  BOOST_TEST(refusal([&] { parseReal("--r", "1", fraction); }) ==
             "--r expects a finite number in (0, 1), got '1'");
  BOOST_TEST(refusal([&] { parseReal("--r", "0", fraction); }) != "");
  const RealRange rho = RealRange::closedOpen(0.0, 1.0);
  BOOST_TEST(parseReal("--rho", "0", rho) == 0.0);
  BOOST_TEST(refusal([&] { parseReal("--rho", "1", rho); }) ==
             "--rho expects a finite number in [0, 1), got '1'");
}

BOOST_AUTO_TEST_CASE(integers_are_read_whole_without_overflow) {
  BOOST_TEST(parseInteger("--modes", "4", 1, 100) == 4);
  BOOST_TEST(parseInteger("--modes", "+4", 1, 100) == 4);
  BOOST_TEST(parseInteger("--n", "9223372036854775807") == std::numeric_limits<long long>::max());
  for (const char* bad : {"2.5", "1e3", "3x", " 3", "", "+", "0x10", "101", "0", "-1", "4294967297",
                          "99999999999999999999"})
    BOOST_TEST(refusal([&] { parseInteger("--modes", bad, 1, 100); }) ==
                   "--modes expects an integer in [1, 100], got '" + std::string(bad) + "'",
               bad);
  BOOST_TEST(refusal([&] { parseInteger("--k", "-1", 1); }) ==
             "--k expects an integer >= 1, got '-1'");
  BOOST_TEST(refusal([&] { parseInteger("--k", "9223372036854775808", 0); }) ==
             "--k expects an integer >= 0, got '9223372036854775808'");
}

BOOST_AUTO_TEST_CASE(integer_lists) {
  BOOST_TEST(parseIntegerList("--sizes", "40", 1, 100) == std::vector<long long>{40});
  BOOST_TEST(parseIntegerList("--sizes", "2,40,100", 1, 100) ==
             (std::vector<long long>{2, 40, 100}));
  BOOST_TEST(refusal([] { parseIntegerList("--sizes", "4294967298", 1, 100000000); }) ==
             "--sizes expects integers in [1, 100000000] separated by commas, got '4294967298'");
  BOOST_TEST(refusal([] { parseIntegerList("--sizes", "40,4x", 1, 100); }) ==
             "--sizes expects integers in [1, 100] separated by commas, got '4x' in '40,4x'");
  for (const char* bad : {"", ",", "40,", ",40", "40,,42", "40;42", "0"})
    BOOST_TEST(refusal([&] { parseIntegerList("--sizes", bad, 1, 100); }) != "", bad);
}

BOOST_AUTO_TEST_CASE(command_lines) {
  Argv a({"catena", "modal", "--modes", "3", "f.yaml", "-eps_type", "krylovschur", "-log_view",
          "--json", "-weird.json", "--terse"});
  const CommandLine l = parseCommandLine(a.argc(), a.argv(), 2, "modal", kProgram);
  BOOST_TEST(!l.help);
  BOOST_TEST(l.options.size() == 3u);
  BOOST_TEST(l.options[0].first == "--modes");
  BOOST_TEST(l.options[0].second == "3");
  BOOST_TEST(l.options[1].second == "-weird.json");  // a value, whatever it looks like
  BOOST_TEST(l.has("--terse"));
  BOOST_TEST(!l.has("--vtk"));
  BOOST_TEST(l.arguments == std::vector<std::string>{"f.yaml"});
  BOOST_TEST(l.petscArgc() == 4);
  BOOST_TEST(std::string(l.petsc[0]) == "catena");
  BOOST_TEST(std::string(l.petsc[2]) == "krylovschur");
  BOOST_TEST(l.petsc[4] == nullptr);
  BOOST_TEST(l.petscOptions() == (std::vector<std::string>{"-eps_type", "-log_view"}));
}

BOOST_AUTO_TEST_CASE(options_of_other_commands_are_named) {
  auto refused = [](std::vector<std::string> words, const char* command) {
    Argv a(std::move(words));
    return refusal([&] { parseCommandLine(a.argc(), a.argv(), 2, command, kProgram); });
  };
  BOOST_TEST(refused({"catena", "statics", "--modes", "3", "f"}, "statics") ==
             "--modes is an option of modal, not of statics");
  BOOST_TEST(refused({"catena", "statics", "--t-end", "1", "f"}, "statics") ==
             "--t-end is an option of simulate and mobility, not of statics");
  BOOST_TEST(refused({"catena", "mobility", "--json", "x", "f"}, "mobility") ==
             "--json is an option of statics and modal, not of mobility");
  BOOST_TEST(refused({"catena", "statics", "--bogus", "f"}, "statics") ==
             "unknown option '--bogus'");
  BOOST_TEST(refused({"catena", "modal", "f", "--modes"}, "modal") == "--modes needs a value");
}

BOOST_AUTO_TEST_CASE(help_wins) {
  for (const char* flag : {"--help", "-h"}) {
    Argv a({"catena", "statics", "--modes", "x", flag});
    BOOST_TEST(parseCommandLine(a.argc(), a.argv(), 2, "statics", kProgram).help);
  }
}
