#pragma once
/// @file yaml_reader.hpp
/// Checked access to a parsed YAML tree for the mechanism loader (yaml_loader.cpp): every
/// conversion either returns a valid value or throws InputError with the file, the line and the
/// column of the offending node. Private to catena_io (it includes yaml-cpp).
///
/// yaml-cpp 0.7 pitfalls this header hides:
///  - it accepts duplicate keys in a mapping (Map rejects them);
///  - Node::operator= on an existing node rewrites the node it refers to, so nodes are only ever
///    copy-constructed here, never assigned;
///  - a missing value (`mass:`) is a null node whose mark is the next token, so messages about a
///    null value point at its key instead.

#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "core/types.hpp"

namespace catena::io {

using Keys = std::initializer_list<std::string_view>;

/// One load: the source name used in messages, the model dimension (2 or 3) and the warnings
/// collected so far.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}
  const std::string& file() const { return file_; }
  /// Names the source of what follows (element_loader.hpp: one call per element); positions
  /// false: messages name it alone, without the line and column (text made by a program).
  void setSource(std::string file, bool positions) {
    file_ = std::move(file);
    positions_ = positions;
  }

  int dimension = 3;

  /// Throws InputError "file:line:col: error: message" (line and column from a 0-based mark).
  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& message) const;
  /// Records "file:line:col: warning: message".
  void warn(const YAML::Mark& mark, const std::string& message);
  std::vector<std::string>& warnings() { return warnings_; }

  // Conversions of one node; `what` names the value in messages ("body 'bob': mass") and `at`
  // is where to report when the node itself has no usable mark.
  double number(const YAML::Node& node, const std::string& what, const YAML::Mark& at) const;
  long long integer(const YAML::Node& node, const std::string& what, const YAML::Mark& at,
                    long long lo, long long hi) const;
  bool boolean(const YAML::Node& node, const std::string& what, const YAML::Mark& at) const;
  std::string string(const YAML::Node& node, const std::string& what, const YAML::Mark& at) const;
  /// A sequence of exactly n numbers.
  VecX numbers(const YAML::Node& node, int n, const std::string& what, const YAML::Mark& at) const;
  /// A sequence of exactly n <= 3 numbers; the entries after the n-th are zero.
  Vec3 vector(const YAML::Node& node, int n, const std::string& what, const YAML::Mark& at) const;

 private:
  std::string file_;
  bool positions_ = true;
  std::vector<std::string> warnings_;
};

/// Parses the first YAML document of the text (a null node if there is none). Fails on syntax
/// errors and on a second document that is not empty.
YAML::Node parseSingleDocument(const Reader& reader, const std::string& text);

/// 'text' for messages: one line, at most 40 characters (the text comes from untrusted input).
std::string quote(const std::string& text);
/// Short description of a node for "got ..." in messages: "'abc'", "a mapping", "nothing", ...
std::string describe(const YAML::Node& node);
/// The node's mark, or `fallback` when the node is null or has no mark (see the file comment).
YAML::Mark markOr(const YAML::Node& node, const YAML::Mark& fallback);

/// "<kind> '<name>'" for an element of a list that has a scalar `name`, else "<kind> #<index+1>".
std::string elementLabel(std::string_view kind, const YAML::Node& node, std::size_t index);

/// A mapping whose keys are known to be unique scalars. It names its element in messages
/// ("body 'bob'") and the path of nested mappings ("orientation.").
class Map {
 public:
  /// Fails unless node is a mapping with unique scalar keys; `at` is where to report if the
  /// node is null. `path` is "" or ends in '.'.
  Map(const Reader& reader, const YAML::Node& node, std::string element, std::string path = "",
      const YAML::Mark& at = YAML::Mark::null_mark());

  const std::string& element() const { return element_; }
  /// Renames the element "<kind> '<name>'" if it has a scalar `name` (no error otherwise).
  void nameElement(std::string_view kind);
  YAML::Mark mark() const { return mark_; }

  /// Fails on the first key that is not in `common` or in the list of the reader's dimension;
  /// the message lists the keys allowed in that dimension.
  void allowKeys(Keys common, Keys only3d = {}, Keys only2d = {}) const;
  bool has(std::string_view key) const { return find(key) != nullptr; }
  /// nullptr if the key is absent.
  const YAML::Node* find(std::string_view key) const;
  /// Fails with "missing required key" at the mapping if the key is absent.
  const YAML::Node& require(std::string_view key) const;
  /// Where to report a problem with the value of `key` (the key itself for a null value).
  YAML::Mark markOf(std::string_view key) const;
  /// "path.key": where a value sits inside the element.
  std::string path(std::string_view key) const { return path_ + std::string(key); }
  /// "element: path.key", the name of a value in messages.
  std::string what(std::string_view key) const { return element_ + ": " + path(key); }
  /// Fails with "element: message" at the value of `key` (at the mapping if it is absent).
  [[noreturn]] void fail(std::string_view key, const std::string& message) const;
  /// At most one of the keys may be given.
  void exclusive(std::string_view a, std::string_view b) const;

  double number(std::string_view key) const;
  double number(std::string_view key, double fallback) const;
  long long integer(std::string_view key, long long lo, long long hi, long long fallback) const;
  bool boolean(std::string_view key, bool fallback) const;
  std::string string(std::string_view key) const;
  std::string string(std::string_view key, const std::string& fallback) const;
  /// A vector with `dimension` entries (the rest zero), or `fallback` if absent.
  Vec3 vector(std::string_view key, const Vec3& fallback = Vec3::Zero()) const;
  /// A vector of exactly n entries.
  Vec3 vector(std::string_view key, int n, const Vec3& fallback) const;
  /// Exactly n numbers (required).
  VecX numbers(std::string_view key, int n) const;
  /// An angle in radians from `key` (rad) or `key_deg` (degrees), or `fallback` if neither.
  double angle(std::string_view key, double fallback) const;
  /// The mapping under `key` (required).
  Map map(std::string_view key) const;

  const Reader& reader() const { return *reader_; }

 private:
  struct Entry {
    std::string key;
    YAML::Node key_node;
    YAML::Node value;
  };
  const Reader* reader_;
  YAML::Mark mark_;
  std::string element_, path_;
  std::vector<Entry> entries_;
};

/// Calls f(item, index) for each item of a sequence; a null node is an empty sequence.
template <typename F>
void forEachItem(const Reader& reader, const YAML::Node& node, const std::string& what,
                 const YAML::Mark& at, F&& f) {
  if (node.IsNull()) return;
  if (!node.IsSequence())
    reader.fail(markOr(node, at), what + " must be a sequence, got " + describe(node));
  std::size_t index = 0;
  for (const YAML::Node& item : node) f(item, index++);
}

}  // namespace catena::io
