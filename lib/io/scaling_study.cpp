#include "io/scaling_study.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/check.hpp"
#include "io/yaml_loader.hpp"
#include "io/yaml_reader.hpp"

namespace catena {

ScalingStudy readScalingStudy(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw InputError(file, 0, 0, "cannot open the study file");
  std::ostringstream text;
  text << in.rdbuf();
  io::Reader reader(file);
  const YAML::Node root = io::parseSingleDocument(reader, text.str());
  const io::Map map(reader, root, "study");
  map.allowKeys({"family", "input", "analysis", "modes", "t_end", "rtol", "segment", "reproducible",
                 "linear_solver", "sizes", "repeats", "json", "checkpoint"});
  ScalingStudy s;
  s.family = map.string("family", s.family);
  s.input = map.string("input", s.input);
  if (!s.input.empty()) {
    s.input = (std::filesystem::path(file).parent_path() / s.input).lexically_normal().string();
    if (!map.has("family")) s.family = "model";
  }
  s.analysis = map.string("analysis", s.analysis);
  s.modes = static_cast<int>(map.integer("modes", 1, 1000000, s.modes));
  s.t_end = map.number("t_end", s.t_end);
  s.rtol = map.number("rtol", s.rtol);
  s.segment = map.number("segment", s.segment);
  s.reproducible = map.boolean("reproducible", s.reproducible);
  s.linear_solver = map.string("linear_solver", s.linear_solver);
  if (s.input.empty() || map.has("sizes")) {  // an input's sizes are refused by checkScalingStudy
    const YAML::Node& sizes = map.require("sizes");
    if (!sizes.IsSequence() || sizes.size() == 0)
      map.fail("sizes",
               "expected a list of sizes such as [10000, 100000], got " + io::describe(sizes));
    for (const YAML::Node& n : sizes)
      s.sizes.push_back(static_cast<long>(
          reader.integer(n, "study: sizes", map.markOf("sizes"), 2, 1000000000000LL)));
  }
  s.repeats = static_cast<int>(map.integer("repeats", 1, 1000000, s.repeats));
  s.json = map.string("json", s.json);
  s.checkpoint = map.string("checkpoint", s.checkpoint);
  return s;
}

void checkScalingStudy(const ScalingStudy& s) {
  CATENA_CHECK(s.family == "chain" || s.family == "lattice" || s.family == "model",
               "family: expected 'chain' or 'lattice' (or 'model', with an input file), got '"
                   << s.family << "'");
  CATENA_CHECK(
      s.input.empty() == (s.family != "model"),
      (s.input.empty() ? "family 'model': expected an input file (--input FILE.yaml)"
                       : "input: a mechanism file is the family 'model', not '" + s.family + "'"));
  CATENA_CHECK(s.input.empty() || s.sizes.empty(),
               "sizes: an input model has one size, its number of bodies; give --input or "
               "--sizes, not both");
  CATENA_CHECK(s.analysis == "statics" || s.analysis == "modal" || s.analysis == "dynamics",
               "analysis: expected 'statics', 'modal' or 'dynamics', got '" << s.analysis << "'");
  CATENA_CHECK(s.modes >= 1, "modes: expected an integer >= 1, got " << s.modes);
  CATENA_CHECK(s.t_end > 0.0 && std::isfinite(s.t_end),
               "t_end: expected a simulated time > 0 s, got " << s.t_end);
  CATENA_CHECK(s.rtol > 0.0 && s.rtol < 1.0,
               "rtol: expected a tolerance in (0, 1), got " << s.rtol);
  CATENA_CHECK(s.segment >= 0.0 && std::isfinite(s.segment),
               "segment: expected a simulated time >= 0 s, got " << s.segment);
  CATENA_CHECK(s.segment == 0.0 || s.analysis == "dynamics",
               "segment: restartable segments are for 'dynamics', not '" << s.analysis << "'");
  CATENA_CHECK(!s.reproducible || (s.analysis == "dynamics" && s.family != "lattice"),
               "reproducible: bitwise runs are for the dynamics of the chain or an input model "
               "(the generated lattice has no halo parts; give it as an input), not the "
                   << s.family << "'s " << s.analysis);
  CATENA_CHECK(
      s.linear_solver == "direct" || s.linear_solver == "iterative" || s.linear_solver == "schur",
      "linear_solver: expected 'direct', 'iterative' or 'schur', got '" << s.linear_solver << "'");
  CATENA_CHECK(s.linear_solver != "iterative" || s.analysis != "dynamics",
               "linear_solver: the distributed dynamics solves directly (MUMPS or 'schur'); "
               "'iterative' is for statics and modal's statics");
  CATENA_CHECK(!s.sizes.empty() || !s.input.empty(), "sizes: expected at least one size, got none");
  for (long n : s.sizes) {
    if (s.family == "chain")
      CATENA_CHECK(n >= 2 && n % 2 == 0 && n <= kMaxChainLinks,
                   "sizes: a chain's number of links is even and between 2 and " << kMaxChainLinks
                                                                                 << ", got " << n);
    else
      CATENA_CHECK(n >= 1 && n <= 20000,
                   "sizes: a lattice's size K (K x K cells) is between 1 and 20000, got " << n);
  }
  CATENA_CHECK(s.repeats >= 1, "repeats: expected an integer >= 1, got " << s.repeats);
}

}  // namespace catena
