// io/output_file.hpp: files are replaced whole or not at all, links are followed, devices and
// FIFOs written through, directories refused, and every failure names the path and the reason.
#define BOOST_TEST_MODULE io_output_file
#include "io/output_file.hpp"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/test/unit_test.hpp>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/check.hpp"
#include "test_support.hpp"

using namespace catena;
namespace fs = std::filesystem;

namespace {

/// A fresh folder under the system's temporary folder, removed at the end of the test.
struct Folder {
  fs::path path;
  Folder() {
    char name[] = "/tmp/catena_output_file_test_XXXXXX";
    path = ::mkdtemp(name);
  }
  ~Folder() { fs::remove_all(path); }
  fs::path operator/(const std::string& name) const { return path / name; }
};

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void put(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
}

/// The message of the catena::Error that f throws ("" if none).
template <typename F>
std::string errorOf(F&& f) {
  return test::messageOf<Error>(f);
}

/// Files in `folder` whose name contains ".tmp.".
int temporaries(const Folder& folder) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(folder.path))
    n += e.path().filename().string().find(".tmp.") != std::string::npos;
  return n;
}

}  // namespace

BOOST_AUTO_TEST_CASE(replaced_whole_at_commit) {
  Folder d;
  const fs::path file = d / "out.json";
  put(file, "old\n");
  ::chmod(file.c_str(), 0640);
  {
    OutputFile out(file);
    BOOST_TEST(!out.writtenThrough());
    out.stream() << "new\n";
    out.check();
    BOOST_TEST(read(file) == "old\n");  // until commit, the old file is whole
    BOOST_TEST(temporaries(d) == 1);
    out.commit();
  }
  BOOST_TEST(read(file) == "new\n");
  BOOST_TEST(temporaries(d) == 0);
  struct stat st {};
  ::stat(file.c_str(), &st);
  BOOST_TEST((st.st_mode & 0777) == 0640u);  // the replaced file's permissions are kept
}

BOOST_AUTO_TEST_CASE(no_commit_leaves_the_target_as_it_was) {
  Folder d;
  {
    OutputFile out(d / "new.csv");
    out.stream() << "t_s\n0\n";
  }  // an exception on the way: no commit
  BOOST_TEST(!fs::exists(d / "new.csv"));
  put(d / "old.csv", "old\n");
  {
    OutputFile out(d / "old.csv");
    out.stream() << "t_s\n0\n";
  }
  BOOST_TEST(read(d / "old.csv") == "old\n");
  BOOST_TEST(temporaries(d) == 0);
}

BOOST_AUTO_TEST_CASE(a_missing_folder_is_named_with_the_reason) {
  Folder d;
  const fs::path file = d / "missing" / "x.json";
  BOOST_TEST(errorOf([&] { OutputFile out(file); }) ==
             "cannot write " + file.string() + ": No such file or directory");
  BOOST_TEST(!fs::exists(d / "missing"));
}

BOOST_AUTO_TEST_CASE(links_are_followed_and_stay_links) {
  Folder d;
  put(d / "target.json", "old\n");
  fs::create_symlink("target.json", d / "link.json");
  fs::create_symlink("link.json", d / "link2.json");
  writeFileAtomically(d / "link2.json", "new\n");
  BOOST_TEST(fs::is_symlink(d / "link.json"));
  BOOST_TEST(fs::is_symlink(d / "link2.json"));
  BOOST_TEST(read(d / "target.json") == "new\n");
  // A dangling link: its target is made, the link stays.
  fs::create_symlink("made.json", d / "dangling.json");
  writeFileAtomically(d / "dangling.json", "made\n");
  BOOST_TEST(fs::is_symlink(d / "dangling.json"));
  BOOST_TEST(read(d / "made.json") == "made\n");
  // A loop of links is an error, not a hang.
  fs::create_symlink("loop_b", d / "loop_a");
  fs::create_symlink("loop_a", d / "loop_b");
  BOOST_TEST(errorOf([&] { writeFileAtomically(d / "loop_a", "x"); }).find("Too many levels") !=
             std::string::npos);
  BOOST_TEST(temporaries(d) == 0);
}

BOOST_AUTO_TEST_CASE(directories_and_fifos_without_reader_are_refused) {
  Folder d;
  fs::create_directory(d / "folder");
  BOOST_TEST(errorOf([&] { writeFileAtomically(d / "folder", "x"); }) ==
             "cannot write " + (d / "folder").string() + ": it is a directory");
  BOOST_TEST(fs::is_directory(d / "folder"));
  BOOST_TEST(fs::is_empty(d / "folder"));
  BOOST_REQUIRE(::mkfifo((d / "fifo").c_str(), 0600) == 0);
  BOOST_TEST(errorOf([&] { writeFileAtomically(d / "fifo", "x"); }) ==
             "cannot write " + (d / "fifo").string() + ": it is a FIFO that no process reads");
  BOOST_TEST(fs::is_fifo(d / "fifo"));
  BOOST_TEST(temporaries(d) == 0);
}

BOOST_AUTO_TEST_CASE(character_devices_are_written_through) {
  {
    OutputFile out("/dev/null");
    BOOST_TEST(out.writtenThrough());
    out.stream() << "nothing\n";
    out.commit();
  }
  BOOST_TEST(fs::is_character_file("/dev/null"));
  OutputFile full("/dev/full");
  full.stream() << "x";
  BOOST_TEST(errorOf([&] { full.commit(); }) == "cannot write /dev/full: No space left on device");
  BOOST_TEST(fs::is_character_file("/dev/full"));
}

BOOST_AUTO_TEST_CASE(a_write_that_fails_partway_leaves_nothing) {
  // The file size limit makes write() fail (EFBIG) once 100000 bytes are written, as a disk
  // filling up during a run would.
  Folder d;
  const fs::path file = d / "history.csv";
  rlimit old{};
  ::getrlimit(RLIMIT_FSIZE, &old);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = 100000;
  BOOST_REQUIRE(::setrlimit(RLIMIT_FSIZE, &small) == 0);
  std::string message;
  long rows = 0;
  {
    OutputFile out(file);
    message = errorOf([&] {
      for (; rows < 100000; ++rows) {
        out.stream() << rows << ",0.123456789012345678,0.123456789012345678\n";
        out.check();
      }
      out.commit();
    });
  }
  ::setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  BOOST_TEST(message == "cannot write " + file.string() + ": File too large");
  BOOST_TEST(rows > 1000);    // it failed partway, after writing some rows
  BOOST_TEST(rows < 100000);  // and check() saw it before the end
  BOOST_TEST(!fs::exists(file));
  BOOST_TEST(temporaries(d) == 0);
}

BOOST_AUTO_TEST_CASE(output_folders) {
  Folder d;
  createOutputDirectory(d / "a" / "b");
  BOOST_TEST(fs::is_directory(d / "a" / "b"));
  createOutputDirectory(d / "a" / "b");  // already there
  put(d / "plain", "a file\n");
  BOOST_TEST(errorOf([&] { createOutputDirectory(d / "plain" / "vtk"); }) ==
             "cannot create the output folder " + (d / "plain" / "vtk").string() +
                 ": Not a directory");
  BOOST_TEST(errorOf([&] { createOutputDirectory(d / "plain"); }) ==
             "cannot create the output folder " + (d / "plain").string() + ": Not a directory");
}

BOOST_AUTO_TEST_CASE(stale_temporaries_of_dead_processes_are_removed) {
  Folder d;
  // A process id that no process has: a child that has exited and been waited for.
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  const std::string dead = std::to_string(child), live = std::to_string(::getpid());
  const fs::path out = d / "out.json";
  put(out, "old");
  const std::vector<std::string> stale = {"out.json.tmp." + dead};
  const std::vector<std::string> kept = {"out.json.tmp." + live,          "out.json.tmp.x" + dead,
                                         "out.json.tmpx." + dead,         "other.json.tmp." + dead,
                                         "out.json.tmp." + dead + ".bak", "out.json"};
  for (const auto& n : stale) put(d / n, "partial");
  for (const auto& n : kept)
    if (n != "out.json") put(d / n, "keep");
  const std::vector<fs::path> removed = removeStaleTemporaries(out);
  BOOST_TEST(removed.size() == stale.size());
  for (const auto& n : stale) BOOST_TEST(!fs::exists(d / n), n);
  for (const auto& n : kept) BOOST_TEST(fs::exists(d / n), n);
  // Through a link: the temporaries sit next to its target.
  fs::create_directory(d / "real");
  put(d / "real" / "t.json", "x");
  fs::create_symlink(d / "real" / "t.json", d / "link.json");
  put(d / "real" / ("t.json.tmp." + dead), "partial");
  BOOST_TEST(removeStaleTemporaries(d / "link.json").size() == 1u);
  BOOST_TEST(!fs::exists(d / "real" / ("t.json.tmp." + dead)));
}
