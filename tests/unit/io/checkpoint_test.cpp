// io/checkpoint.hpp: exact numbers survive text, files round-trip, bad input is refused.
#define BOOST_TEST_MODULE io_checkpoint
#include "io/checkpoint.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <bit>
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>

#include "core/check.hpp"

using namespace catena;

namespace {

bool sameBits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

}  // namespace

BOOST_AUTO_TEST_CASE(exact_numbers_round_trip_bit_for_bit) {
  // Random bit patterns cover every exponent, subnormals, both zeros, infinities and NaNs.
  std::mt19937_64 rng(20261124);
  int nans = 0;
  for (int i = 0; i < 100000; ++i) {
    const double x = std::bit_cast<double>(rng());
    const double y = parseExactNumber(exactNumber(x));
    if (std::isnan(x)) {
      ++nans;
      BOOST_TEST(std::isnan(y));  // the payload is not kept; a restart never meets one
    } else {
      BOOST_TEST(sameBits(x, y), exactNumber(x));
    }
  }
  BOOST_TEST(nans > 0);
  for (double x : {0.0, -0.0, 1.0, 0.1, -3.0, std::numeric_limits<double>::denorm_min(),
                   std::numeric_limits<double>::max(), std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity()})
    BOOST_TEST(sameBits(x, parseExactNumber(exactNumber(x))), exactNumber(x));
  BOOST_TEST(exactNumber(3.0) == "1.8p+1");
}

BOOST_AUTO_TEST_CASE(bad_exact_numbers_are_refused) {
  for (const char* bad : {"", "0x1p+1", "1.8p+1 ", "1.8p+1x", "pi", " 1p+0"})
    BOOST_CHECK_THROW(parseExactNumber(bad), Error);
}

BOOST_AUTO_TEST_CASE(files_round_trip_and_other_formats_are_refused) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("catena_checkpoint_test_" + exactNumber(0.5));
  Checkpoint c;
  c.format = "test 1";
  c.add("run", "size=40 repeat=0");
  c.add("x", exactNumber(0.1) + " " + exactNumber(-2.5));
  c.add("run", "second");
  writeCheckpoint(file, c);
  const Checkpoint r = readCheckpoint(file, "test 1");
  BOOST_TEST(r.get("run") == "size=40 repeat=0");
  BOOST_TEST(r.all("run").size() == 2u);
  BOOST_TEST(r.get("x") == c.get("x"));
  BOOST_CHECK_THROW(r.get("missing"), Error);
  BOOST_CHECK_THROW(readCheckpoint(file, "test 2"), Error);
  std::filesystem::remove(file);
  BOOST_CHECK_THROW(readCheckpoint(file, "test 1"), Error);
  BOOST_CHECK_THROW(c.add("two words", "x"), Error);
  BOOST_CHECK_THROW(c.add("key", "two\nlines"), Error);
}

BOOST_AUTO_TEST_CASE(damaged_files_are_refused_with_the_reason) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("catena_checkpoint_damage_" + exactNumber(0.25));
  Checkpoint c;
  c.format = "test 1";
  c.add("x", exactNumber(0.1));
  writeCheckpoint(file, c);
  std::string text;
  {
    std::ifstream in(file, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto refused = [&](const std::string& contents, const std::string& why) {
    {
      std::ofstream out(file, std::ios::binary | std::ios::trunc);
      out << contents;
    }
    try {
      readCheckpoint(file, "test 1");
      BOOST_ERROR("accepted a damaged file: " << why);
    } catch (const Error& e) {
      BOOST_TEST(std::string(e.what()).find(why) != std::string::npos, e.what());
      BOOST_TEST(std::string(e.what()).find(file.string()) != std::string::npos, e.what());
    }
  };
  std::string flipped = text;
  flipped[text.find("x ") + 3] ^= 0x01;  // one bit of the number
  refused(flipped, "checksum mismatch");
  refused(text.substr(0, text.size() / 2), "no end record");
  const std::size_t end = text.rfind("# end ");
  refused(text.substr(0, end) + "y 1\n" + text.substr(end), "the end record says");
  refused(text.substr(0, end), "no end record");
  std::filesystem::remove(file);
}

BOOST_AUTO_TEST_CASE(an_exit_inside_a_library_leaves_the_notice_set) {
  // A child process sets the notice and calls exit() as a library would; its stderr must hold
  // the notice. A notice cleared before exit writes nothing.
  for (const bool cleared : {false, true}) {
    int fd[2];
    BOOST_REQUIRE(pipe(fd) == 0);
    const pid_t child = fork();
    BOOST_REQUIRE(child >= 0);
    if (child == 0) {
      dup2(fd[1], 2);
      close(fd[0]);
      if (cleared) {  // a scope's notice, left before the exit
        const UnexpectedExitNotice notice("prog", "ended inside run 3");
      } else {  // a scope's notice, still in force at the exit
        const UnexpectedExitNotice notice("prog", "ended inside run 3");
        std::exit(255);
      }
      std::exit(255);
    }
    close(fd[1]);
    std::string text;
    char buffer[256];
    for (ssize_t n; (n = read(fd[0], buffer, sizeof buffer)) > 0;) text.append(buffer, n);
    close(fd[0]);
    int status = 0;
    waitpid(child, &status, 0);
    BOOST_TEST(WIFEXITED(status));
    BOOST_TEST(WEXITSTATUS(status) == 255);
    BOOST_TEST(text == (cleared ? "" : "prog: ended inside run 3\n"));
  }
}
