// An ordered JSON value and a strict, hand-written parser for request bodies.
//
// Why not simdjson/nlohmann: the response and the prompt text must be rendered exactly as Python's
// json module would render the value json.loads made of the body. That needs member order, the
// Python "last value wins, first position kept" rule for duplicate keys, integers of any size kept
// verbatim, and the int/float distinction of the original spelling ("1e5" is a float, "10" an int).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "laya/errors.h"

namespace laya::api {

class Json {
 public:
  enum class Type : uint8_t { null, boolean, number, string, array, object };
  using Member = std::pair<std::string, Json>;

  Json() = default;  // null
  static Json make_bool(bool v);
  static Json make_string(std::string s);
  // A number from its JSON spelling (must be valid JSON number syntax; not re-checked).
  static Json make_number_text(std::string text, bool is_integer, double value);
  static Json make_int(int64_t v);
  static Json make_double(double v);  // finite; rendered with Python float repr
  static Json make_array(std::vector<Json> items = {});
  static Json make_object(std::vector<Member> members = {});

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::null; }
  bool is_bool() const { return type_ == Type::boolean; }
  bool is_number() const { return type_ == Type::number; }
  bool is_string() const { return type_ == Type::string; }
  bool is_array() const { return type_ == Type::array; }
  bool is_object() const { return type_ == Type::object; }

  bool as_bool() const { return bool_; }
  const std::string& as_string() const { return str_; }  // string content (UTF-8)
  // Numbers: the spelling as written (or generated) and whether Python reads it as an int.
  bool is_integer() const { return int_; }
  const std::string& number_text() const { return str_; }
  double as_double() const { return num_; }

  const std::vector<Json>& items() const { return arr_; }
  std::vector<Json>& items() { return arr_; }
  const std::vector<Member>& members() const { return obj_; }
  std::vector<Member>& members() { return obj_; }

  // Object member lookup (nullptr when absent or not an object).
  const Json* find(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key) != nullptr; }
  // Sets or replaces (keeping the position) a member of an object.
  void set(std::string key, Json value);
  void push_back(Json value) { arr_.push_back(std::move(value)); }

  // Element count of an array/object, byte length of a string, else 0.
  size_t size() const;

  // Python type name as `type(x).__name__` reports it ("dict", "list", "str", "int", "float",
  // "bool", "NoneType").
  std::string_view python_type_name() const;

  friend bool operator==(const Json& a, const Json& b);

 private:
  Type type_ = Type::null;
  bool bool_ = false;
  bool int_ = false;
  double num_ = 0.0;
  std::string str_;
  std::vector<Json> arr_;
  std::vector<Member> obj_;
};

struct ParseLimits {
  int max_depth = 128;                     // nesting depth of arrays/objects (top value = depth 1)
  size_t max_integer_digits = 4300;        // CPython's int-string conversion limit (ValueError)
  bool reject_top_level_duplicates = true;  // duplicate keys of the outermost object
};

// Why a document was rejected. `python_rejects` tells whether Python's json.loads rejects the same
// bytes too (syntax errors): callers answering like the official server use its generic text then.
class JsonParseError : public Error {
 public:
  enum class Reason {
    syntax,           // anything json.loads also rejects
    non_finite,       // NaN, Infinity, -Infinity, or a float literal that overflows (1e400)
    lone_surrogate,   // \ud800 without its pair (json.loads accepts it; nothing downstream can)
    invalid_utf8,     // bytes that are not UTF-8 (including UTF-8-encoded surrogates)
    too_deep,         // nesting deeper than ParseLimits::max_depth
    duplicate_key,    // a duplicate key of the top-level object
    integer_too_long  // more digits than ParseLimits::max_integer_digits (json.loads: ValueError)
  };
  JsonParseError(Reason reason, std::string message, size_t offset, bool python_rejects)
      : Error(ErrorKind::bad_request, std::move(message)), reason_(reason), offset_(offset),
        python_rejects_(python_rejects) {}
  Reason reason() const { return reason_; }
  size_t offset() const { return offset_; }
  bool python_rejects() const { return python_rejects_; }

 private:
  Reason reason_;
  size_t offset_;
  bool python_rejects_;
};

// Strict RFC 8259 parser (plus an optional leading UTF-8 BOM, which json.loads(bytes) accepts).
// Duplicate keys below the top level follow Python dict semantics: the last value wins and keeps
// the position of the first occurrence. Throws JsonParseError; never recurses past max_depth.
Json parse_json(std::string_view text, const ParseLimits& limits = {});

// 3 if `text` starts with a UTF-8 byte order mark (which parse_json, as json.loads(bytes), skips),
// else 0: shared with the batch route's array split so both accept the same bodies.
size_t utf8_bom_length(std::string_view text);

// Checks UTF-8 validity (no overlongs, no surrogates, <= U+10FFFF); returns the offset of the first
// invalid byte or npos.
size_t find_invalid_utf8(std::string_view s);

}  // namespace laya::api
