#include "io/yaml_reader.hpp"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include <charconv>
#include <cmath>
#include <numbers>
#include <sstream>
#include <unordered_set>

#include "io/yaml_loader.hpp"

namespace catena::io {
namespace {

/// Quoted scalars ("15", '15') and !!str are strings, never numbers or booleans.
bool isQuotedString(const YAML::Node& node) {
  return node.Tag() == "!" || node.Tag() == "tag:yaml.org,2002:str";
}

std::string join(const std::vector<std::string_view>& words) {
  std::string out;
  for (std::string_view w : words) {
    if (!out.empty()) out += ", ";
    out += w;
  }
  return out;
}

bool contains(Keys keys, std::string_view key) {
  for (std::string_view k : keys)
    if (k == key) return true;
  return false;
}

/// The text of a plain scalar that should hold a number, or a failure naming what came.
const std::string& numberText(const Reader& r, const YAML::Node& node, const std::string& what,
                              const YAML::Mark& at, const char* expected) {
  if (!node.IsScalar() || isQuotedString(node))
    r.fail(markOr(node, at), what + " must be " + expected + ", got " + describe(node));
  return node.Scalar();
}

/// Where one document of the event stream starts and whether it holds anything but a null.
class DocumentProbe : public YAML::EventHandler {
 public:
  YAML::Mark start;
  bool content = false;

  void OnDocumentStart(const YAML::Mark& mark) override { start = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override { content = true; }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {
    content = true;
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {
    content = true;
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {
    content = true;
  }
  void OnMapEnd() override {}
};

enum class Documents { kOne, kStuck, kMore };

/// Walks the documents after the first. yaml-cpp 0.7's LoadAll never returns on inputs such as
/// ", 0" (jbeder/yaml-cpp#1040): its parser then reports the same empty document at the same
/// position forever. A document that does not start after the previous one is that case.
Documents scanDocuments(const std::string& text, YAML::Mark& where) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentProbe first;
  if (!parser.HandleNextDocument(first)) return Documents::kOne;
  where = first.start;
  for (;;) {
    DocumentProbe next;
    if (!parser.HandleNextDocument(next)) return Documents::kOne;
    const bool progress = next.start.pos > where.pos;
    where = next.start;
    if (!progress) return Documents::kStuck;
    if (next.content) return Documents::kMore;
  }
}

}  // namespace

YAML::Node parseSingleDocument(const Reader& reader, const std::string& text) {
  YAML::Mark where;
  Documents documents = Documents::kOne;
  YAML::Node root;
  try {
    documents = scanDocuments(text, where);
    if (documents == Documents::kOne) root.reset(YAML::Load(text));
  } catch (const YAML::DeepRecursion& e) {
    reader.fail(e.mark,
                "the YAML text nests more than " + std::to_string(e.depth() - 1) + " levels deep");
  } catch (const YAML::ParserException& e) {
    reader.fail(e.mark, "YAML syntax error: " + e.msg);
  } catch (const YAML::Exception& e) {
    reader.fail(e.mark, "the YAML text could not be read: " + e.msg);
  } catch (const std::exception& e) {
    reader.fail(YAML::Mark(), std::string("the YAML text could not be read: ") + e.what());
  }
  if (documents == Documents::kStuck)
    reader.fail(where, "YAML syntax error: unexpected token (a ',' outside [ ] or { }?)");
  if (documents == Documents::kMore)
    reader.fail(where, "a mechanism file holds one YAML document; a second one starts here");
  return root;
}

std::string quote(const std::string& text) {
  constexpr std::size_t kMaxQuoted = 40;
  std::string out = "'";
  for (std::size_t i = 0; i < text.size() && i < kMaxQuoted; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    out += c < 0x20 || c == 0x7f ? '?' : text[i];
  }
  if (text.size() > kMaxQuoted) out += "...";
  return out + "'";
}

void Reader::fail(const YAML::Mark& mark, const std::string& message) const {
  if (mark.is_null() || !positions_) throw InputError(file_, 0, 0, message);
  throw InputError(file_, mark.line + 1, mark.column + 1, message);
}

void Reader::warn(const YAML::Mark& mark, const std::string& message) {
  if (!positions_) {
    warnings_.push_back(file_ + ": warning: " + message);
    return;
  }
  const int line = mark.is_null() ? 0 : mark.line + 1;
  const int column = mark.is_null() ? 0 : mark.column + 1;
  warnings_.push_back(file_ + ":" + std::to_string(line) + ":" + std::to_string(column) +
                      ": warning: " + message);
}

double Reader::number(const YAML::Node& node, const std::string& what, const YAML::Mark& at) const {
  const std::string& text = numberText(*this, node, what, at, "a number");
  // from_chars takes no leading '+'; YAML's .inf/.nan spellings are mapped to its own.
  std::string_view digits = text;
  if (digits.size() > 1 && digits[0] == '+' && digits[1] != '-') digits.remove_prefix(1);
  const std::string_view body = !digits.empty() && digits[0] == '-' ? digits.substr(1) : digits;
  if (body == ".inf" || body == ".Inf" || body == ".INF" || body == ".nan" || body == ".NaN" ||
      body == ".NAN")
    fail(markOr(node, at), what + " must be a finite number, got " + quote(text));
  double value = 0.0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec == std::errc::result_out_of_range)
    fail(markOr(node, at), what + " is out of the range of a double: " + quote(text));
  if (ec != std::errc() || end != digits.data() + digits.size())
    fail(markOr(node, at), what + " must be a number, got " + describe(node));
  if (!std::isfinite(value))
    fail(markOr(node, at), what + " must be a finite number, got " + quote(text));
  return value;
}

long long Reader::integer(const YAML::Node& node, const std::string& what, const YAML::Mark& at,
                          long long lo, long long hi) const {
  const std::string& text = numberText(*this, node, what, at, "an integer");
  std::string_view digits = text;
  if (digits.size() > 1 && digits[0] == '+' && digits[1] != '-') digits.remove_prefix(1);
  long long value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  const bool whole = ec != std::errc::invalid_argument && end == digits.data() + digits.size();
  if (!whole) fail(markOr(node, at), what + " must be an integer, got " + describe(node));
  if (ec == std::errc::result_out_of_range)
    fail(markOr(node, at), what + " is out of the range of an integer: " + quote(text));
  if (value < lo || value > hi)
    fail(markOr(node, at), what + " must be between " + std::to_string(lo) + " and " +
                               std::to_string(hi) + ", got " + quote(text));
  return value;
}

bool Reader::boolean(const YAML::Node& node, const std::string& what, const YAML::Mark& at) const {
  if (node.IsScalar() && !isQuotedString(node)) {
    const std::string& s = node.Scalar();
    if (s == "true" || s == "True" || s == "TRUE") return true;
    if (s == "false" || s == "False" || s == "FALSE") return false;
  }
  fail(markOr(node, at), what + " must be true or false, got " + describe(node));
}

std::string Reader::string(const YAML::Node& node, const std::string& what,
                           const YAML::Mark& at) const {
  if (!node.IsScalar()) fail(markOr(node, at), what + " must be a string, got " + describe(node));
  return node.Scalar();
}

VecX Reader::numbers(const YAML::Node& node, int n, const std::string& what,
                     const YAML::Mark& at) const {
  const std::string shape = std::to_string(n) + (n == 1 ? " number" : " numbers");
  if (!node.IsSequence())
    fail(markOr(node, at), what + " must be a sequence of " + shape + ", got " + describe(node));
  if (node.size() != static_cast<std::size_t>(n))
    fail(markOr(node, at), what + " must have " + shape + ", got " + std::to_string(node.size()));
  VecX v(n);
  int i = 0;
  for (const YAML::Node& item : node) {
    v[i] = number(item, what + "[" + std::to_string(i) + "]", node.Mark());
    ++i;
  }
  return v;
}

Vec3 Reader::vector(const YAML::Node& node, int n, const std::string& what,
                    const YAML::Mark& at) const {
  Vec3 v = Vec3::Zero();
  v.head(n) = numbers(node, n, what, at);
  return v;
}

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Scalar:
      return quote(node.Scalar());
    case YAML::NodeType::Sequence:
      return "a sequence of " + std::to_string(node.size()) +
             (node.size() == 1 ? " entry" : " entries");
    case YAML::NodeType::Map:
      return "a mapping";
    default:
      return "nothing";
  }
}

std::string elementLabel(std::string_view kind, const YAML::Node& node, std::size_t index) {
  if (node.IsMap())
    for (const auto& entry : node)
      if (entry.first.IsScalar() && entry.first.Scalar() == "name" && entry.second.IsScalar())
        return std::string(kind) + " " + quote(entry.second.Scalar());
  return std::string(kind) + " #" + std::to_string(index + 1);
}

YAML::Mark markOr(const YAML::Node& node, const YAML::Mark& fallback) {
  if (node.IsDefined() && !node.IsNull() && !node.Mark().is_null()) return node.Mark();
  return fallback.is_null() ? node.Mark() : fallback;
}

Map::Map(const Reader& reader, const YAML::Node& node, std::string element, std::string path,
         const YAML::Mark& at)
    : reader_(&reader),
      mark_(markOr(node, at)),
      element_(std::move(element)),
      path_(std::move(path)) {
  const std::string what =
      path_.empty() ? element_ : element_ + ": " + path_.substr(0, path_.size() - 1);
  if (!node.IsMap()) reader.fail(mark_, what + " must be a mapping, got " + describe(node));
  std::unordered_set<std::string> seen;
  // Not it->first: yaml-cpp's operator-> returns a proxy that dies with the full expression.
  for (const auto& entry : node) {
    const YAML::Node& key = entry.first;
    if (!key.IsScalar())
      reader.fail(markOr(key, mark_), what + ": keys must be plain names, got " + describe(key));
    if (!seen.insert(key.Scalar()).second)
      reader.fail(key.Mark(), what + ": duplicate key " + quote(key.Scalar()));
    entries_.push_back({key.Scalar(), key, entry.second});
  }
}

void Map::nameElement(std::string_view kind) {
  const YAML::Node* name = find("name");
  if (name && name->IsScalar()) element_ = std::string(kind) + " " + quote(name->Scalar());
}

void Map::allowKeys(Keys common, Keys only3d, Keys only2d) const {
  const bool planar = reader_->dimension == 2;
  const Keys& own = planar ? only2d : only3d;
  const Keys& other = planar ? only3d : only2d;
  for (const Entry& e : entries_) {
    if (contains(common, e.key) || contains(own, e.key)) continue;
    const std::string where = path_.empty() ? "" : " in " + path_.substr(0, path_.size() - 1);
    if (contains(other, e.key))
      reader_->fail(e.key_node.Mark(),
                    element_ + ": key " + quote(e.key) + where + " is only valid in " +
                        (planar ? "3D models (dimension: 3)" : "2D models (dimension: 2)"));
    std::vector<std::string_view> allowed(common);
    allowed.insert(allowed.end(), own.begin(), own.end());
    reader_->fail(e.key_node.Mark(), element_ + ": unknown key " + quote(e.key) + where +
                                         "; allowed keys: " + join(allowed));
  }
}

const YAML::Node* Map::find(std::string_view key) const {
  for (const Entry& e : entries_)
    if (e.key == key) return &e.value;
  return nullptr;
}

const YAML::Node& Map::require(std::string_view key) const {
  const YAML::Node* node = find(key);
  if (!node) {
    const std::string where = path_.empty() ? "" : " in " + path_.substr(0, path_.size() - 1);
    reader_->fail(mark_, element_ + ": missing required key '" + std::string(key) + "'" + where);
  }
  return *node;
}

YAML::Mark Map::markOf(std::string_view key) const {
  for (const Entry& e : entries_)
    if (e.key == key) return markOr(e.value, e.key_node.Mark());
  return mark_;
}

void Map::fail(std::string_view key, const std::string& message) const {
  reader_->fail(markOf(key), element_ + ": " + message);
}

void Map::exclusive(std::string_view a, std::string_view b) const {
  if (has(a) && has(b))
    fail(b,
         "give either " + path_ + std::string(a) + " or " + path_ + std::string(b) + ", not both");
}

double Map::number(std::string_view key) const {
  return reader_->number(require(key), what(key), markOf(key));
}

double Map::number(std::string_view key, double fallback) const {
  return has(key) ? number(key) : fallback;
}

long long Map::integer(std::string_view key, long long lo, long long hi, long long fallback) const {
  return has(key) ? reader_->integer(require(key), what(key), markOf(key), lo, hi) : fallback;
}

bool Map::boolean(std::string_view key, bool fallback) const {
  return has(key) ? reader_->boolean(require(key), what(key), markOf(key)) : fallback;
}

std::string Map::string(std::string_view key) const {
  return reader_->string(require(key), what(key), markOf(key));
}

std::string Map::string(std::string_view key, const std::string& fallback) const {
  return has(key) ? string(key) : fallback;
}

Vec3 Map::vector(std::string_view key, const Vec3& fallback) const {
  return vector(key, reader_->dimension, fallback);
}

Vec3 Map::vector(std::string_view key, int n, const Vec3& fallback) const {
  return has(key) ? reader_->vector(require(key), n, what(key), markOf(key)) : fallback;
}

VecX Map::numbers(std::string_view key, int n) const {
  return reader_->numbers(require(key), n, what(key), markOf(key));
}

double Map::angle(std::string_view key, double fallback) const {
  const std::string deg = std::string(key) + "_deg";
  exclusive(key, deg);
  if (has(key)) return number(key);
  if (has(deg)) return number(deg) * std::numbers::pi / 180.0;
  return fallback;
}

Map Map::map(std::string_view key) const {
  return Map(*reader_, require(key), element_, path_ + std::string(key) + ".", markOf(key));
}

}  // namespace catena::io
