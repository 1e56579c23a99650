#include "support/options.hpp"

#include <cstdlib>
#include <iostream>
#include <sstream>
#include <type_traits>

namespace catena::bench {

std::string PetscArgs::joined() const {
  std::string s;
  for (std::size_t i = 1; i < args_.size(); ++i) {
    if (i > 1) s += ' ';
    s += args_[i];
  }
  return s;
}

int* PetscArgs::argc() {
  if (!argv_) {
    terminated_ = args_;
    terminated_.push_back(nullptr);
    argc_ = static_cast<int>(args_.size());
    argv_ = terminated_.data();
  }
  return &argc_;
}

char*** PetscArgs::argv() {
  argc();
  return &argv_;
}

OptionReader::OptionReader(int argc, char** argv, Usage usage, Others others)
    : argc_(argc), argv_(argv), usage_(std::move(usage)), others_(others) {
  petsc_.add(argv[0]);
}

void OptionReader::readAll(std::initializer_list<Binding> bindings) {
  while (next())
    if (!read(bindings)) other();
}

bool OptionReader::read(std::initializer_list<Binding> bindings) {
  for (const Binding& b : bindings) {
    if (arg_ != b.name) continue;
    std::visit(
        [&](auto* target) {
          using T = std::remove_pointer_t<decltype(target)>;
          if constexpr (std::is_same_v<T, bool>)
            *target = b.flag_value;
          else if constexpr (std::is_same_v<T, int>)
            *target = intValue();
          else if constexpr (std::is_same_v<T, long>)
            *target = longValue();
          else if constexpr (std::is_same_v<T, unsigned>)
            *target = static_cast<unsigned>(std::stoul(value()));
          else if constexpr (std::is_same_v<T, double>)
            *target = doubleValue();
          else if constexpr (std::is_same_v<T, std::string>)
            *target = value();
          else if constexpr (std::is_same_v<T, std::vector<int>>)
            *target = intList();
          else if constexpr (std::is_same_v<T, std::vector<long>>)
            *target = longList();
          else if constexpr (std::is_same_v<T, std::vector<double>>)
            *target = doubleList();
          else
            *target = stringList();
        },
        b.target);
    return true;
  }
  return false;
}

OptionReader::OptionReader(int argc, char** argv, const std::string& usage_text, Others others)
    : OptionReader(
          argc, argv,
          [usage_text](const char*, int code) {
            (code == 0 ? std::cout : std::cerr) << usage_text;
            std::exit(code);
          },
          others) {}

bool OptionReader::next() {
  if (++i_ >= argc_) return false;
  arg_ = argv_[i_];
  return true;
}

void OptionReader::fail(const std::string& message) const {
  std::cerr << message << "\n";
  usage_(argv_[0], 2);
  std::exit(2);  // a usage that returns
}

std::string OptionReader::value() {
  if (i_ + 1 >= argc_) fail("missing value after " + arg_);
  return argv_[++i_];
}

int OptionReader::intValue() {
  return std::stoi(value());
}

long OptionReader::longValue() {
  return std::stol(value());
}

double OptionReader::doubleValue() {
  return std::stod(value());
}

namespace {

template <typename T>
std::vector<T> numbers(const std::string& text) {
  std::vector<T> out;
  for (double x : numberList(text)) out.push_back(static_cast<T>(x));
  return out;
}

}  // namespace

std::vector<int> OptionReader::intList() {
  return numbers<int>(value());
}

std::vector<long> OptionReader::longList() {
  return numbers<long>(value());
}

std::vector<double> OptionReader::doubleList() {
  return numberList(value());
}

std::vector<std::string> OptionReader::stringList() {
  std::vector<std::string> out;
  for (const std::string& item : split(value()))
    if (!item.empty()) out.push_back(item);
  return out;
}

void OptionReader::other() {
  if (arg_ == "--help" || arg_ == "-h") {
    usage_(argv_[0], 0);
    std::exit(0);
  }
  if (others_ == kNoPetscOptions || arg_.rfind("--", 0) == 0) fail("unknown option " + arg_);
  petsc_.add(argv_[i_]);  // a PETSc option; its value (if any) follows
  if (i_ + 1 < argc_ && argv_[i_ + 1][0] != '-') petsc_.add(argv_[++i_]);
}

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> items;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, separator)) items.push_back(item);
  return items;
}

std::vector<double> numberList(const std::string& text) {
  std::vector<double> out;
  for (const std::string& item : split(text))
    if (!item.empty()) out.push_back(std::stod(item));
  return out;
}

}  // namespace catena::bench
