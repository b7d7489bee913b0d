#include "api/json.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

namespace laya::api {

Json Json::make_bool(bool v) {
  Json j;
  j.type_ = Type::boolean;
  j.bool_ = v;
  return j;
}

Json Json::make_string(std::string s) {
  Json j;
  j.type_ = Type::string;
  j.str_ = std::move(s);
  return j;
}

Json Json::make_number_text(std::string text, bool is_integer, double value) {
  Json j;
  j.type_ = Type::number;
  j.str_ = std::move(text);
  j.int_ = is_integer;
  j.num_ = value;
  return j;
}

Json Json::make_int(int64_t v) {
  return make_number_text(std::to_string(v), true, static_cast<double>(v));
}

Json Json::make_double(double v) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return make_number_text(std::string(buf, res.ptr), false, v);
}

Json Json::make_array(std::vector<Json> items) {
  Json j;
  j.type_ = Type::array;
  j.arr_ = std::move(items);
  return j;
}

Json Json::make_object(std::vector<Member> members) {
  Json j;
  j.type_ = Type::object;
  j.obj_ = std::move(members);
  return j;
}

const Json* Json::find(std::string_view key) const {
  if (type_ != Type::object) return nullptr;
  for (const auto& m : obj_)
    if (m.first == key) return &m.second;
  return nullptr;
}

void Json::set(std::string key, Json value) {
  if (type_ != Type::object) {
    *this = make_object();
  }
  for (auto& m : obj_) {
    if (m.first == key) {
      m.second = std::move(value);
      return;
    }
  }
  obj_.emplace_back(std::move(key), std::move(value));
}

size_t Json::size() const {
  switch (type_) {
    case Type::array: return arr_.size();
    case Type::object: return obj_.size();
    case Type::string: return str_.size();
    default: return 0;
  }
}

std::string_view Json::python_type_name() const {
  switch (type_) {
    case Type::null: return "NoneType";
    case Type::boolean: return "bool";
    case Type::number: return int_ ? "int" : "float";
    case Type::string: return "str";
    case Type::array: return "list";
    case Type::object: return "dict";
  }
  return "object";
}

bool operator==(const Json& a, const Json& b) {
  if (a.type_ != b.type_) return false;
  switch (a.type_) {
    case Json::Type::null: return true;
    case Json::Type::boolean: return a.bool_ == b.bool_;
    case Json::Type::number: return a.int_ == b.int_ && a.str_ == b.str_;
    case Json::Type::string: return a.str_ == b.str_;
    case Json::Type::array: return a.arr_ == b.arr_;
    case Json::Type::object: return a.obj_ == b.obj_;
  }
  return false;
}

namespace {

// Length of the UTF-8 sequence starting at s[i] if valid, else 0.
inline size_t utf8_seq_len(const unsigned char* s, size_t n, size_t i) {
  unsigned char c = s[i];
  if (c < 0x80) return 1;
  if (c < 0xC2) return 0;
  if (c < 0xE0) {
    if (i + 1 >= n || (s[i + 1] & 0xC0) != 0x80) return 0;
    return 2;
  }
  if (c < 0xF0) {
    if (i + 2 >= n) return 0;
    unsigned char c1 = s[i + 1], c2 = s[i + 2];
    if ((c1 & 0xC0) != 0x80 || (c2 & 0xC0) != 0x80) return 0;
    if (c == 0xE0 && c1 < 0xA0) return 0;   // overlong
    if (c == 0xED && c1 >= 0xA0) return 0;  // surrogate
    return 3;
  }
  if (c < 0xF5) {
    if (i + 3 >= n) return 0;
    unsigned char c1 = s[i + 1], c2 = s[i + 2], c3 = s[i + 3];
    if ((c1 & 0xC0) != 0x80 || (c2 & 0xC0) != 0x80 || (c3 & 0xC0) != 0x80) return 0;
    if (c == 0xF0 && c1 < 0x90) return 0;  // overlong
    if (c == 0xF4 && c1 >= 0x90) return 0;  // > U+10FFFF
    return 4;
  }
  return 0;
}

inline void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace

size_t utf8_bom_length(std::string_view text) { return text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0; }

namespace {

class Parser {
 public:
  Parser(std::string_view text, const ParseLimits& limits)
      : s_(reinterpret_cast<const unsigned char*>(text.data())), n_(text.size()), limits_(limits) {}

  Json run() {
    pos_ = utf8_bom_length({reinterpret_cast<const char*>(s_), n_});
    skip_ws();
    if (pos_ >= n_) fail_syntax("expecting value");
    Json v = parse_value(1);
    skip_ws();
    if (pos_ != n_) fail_syntax("extra data");
    return v;
  }

 private:
  [[noreturn]] void fail(JsonParseError::Reason reason, std::string_view what, bool python_rejects) {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < pos_ && i < n_; ++i) {
      if (s_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    throw JsonParseError(reason, fmt::format("{} at line {} column {} (char {})", what, line, col, pos_), pos_,
                         python_rejects);
  }
  [[noreturn]] void fail_syntax(std::string_view what) { fail(JsonParseError::Reason::syntax, what, true); }

  void skip_ws() {
    while (pos_ < n_) {
      unsigned char c = s_[pos_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
        ++pos_;
      } else {
        break;
      }
    }
  }

  bool match_literal(std::string_view lit) {
    if (n_ - pos_ >= lit.size() && std::memcmp(s_ + pos_, lit.data(), lit.size()) == 0) {
      pos_ += lit.size();
      return true;
    }
    return false;
  }

  Json parse_value(int depth) {
    if (pos_ >= n_) fail_syntax("expecting value");
    unsigned char c = s_[pos_];
    switch (c) {
      case '{': return parse_object(depth);
      case '[': return parse_array(depth);
      case '"': {
        std::string s;
        parse_string(s);
        return Json::make_string(std::move(s));
      }
      case 't':
        if (match_literal("true")) return Json::make_bool(true);
        fail_syntax("expecting value");
      case 'f':
        if (match_literal("false")) return Json::make_bool(false);
        fail_syntax("expecting value");
      case 'n':
        if (match_literal("null")) return Json();
        fail_syntax("expecting value");
      case 'N':
        if (match_literal("NaN")) {
          pos_ -= 3;
          fail(JsonParseError::Reason::non_finite, "NaN is not allowed", false);
        }
        fail_syntax("expecting value");
      case 'I':
        if (match_literal("Infinity")) {
          pos_ -= 8;
          fail(JsonParseError::Reason::non_finite, "Infinity is not allowed", false);
        }
        fail_syntax("expecting value");
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return parse_number();
        fail_syntax("expecting value");
    }
  }

  Json parse_number() {
    size_t start = pos_;
    if (s_[pos_] == '-') {
      ++pos_;
      if (match_literal("Infinity")) {
        pos_ = start;
        fail(JsonParseError::Reason::non_finite, "-Infinity is not allowed", false);
      }
    }
    if (pos_ >= n_ || s_[pos_] < '0' || s_[pos_] > '9') {
      pos_ = start;
      fail_syntax("expecting value");
    }
    if (s_[pos_] == '0') {
      ++pos_;
    } else {
      while (pos_ < n_ && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    }
    size_t int_end = pos_;
    bool is_int = true;
    // Python's scanner only takes a fraction/exponent when digits follow; otherwise the number
    // ends and the next character is a syntax error ("1." -> extra data).
    if (pos_ + 1 < n_ && s_[pos_] == '.' && s_[pos_ + 1] >= '0' && s_[pos_ + 1] <= '9') {
      is_int = false;
      pos_ += 2;
      while (pos_ < n_ && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
    }
    if (pos_ < n_ && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      size_t e = pos_ + 1;
      if (e < n_ && (s_[e] == '+' || s_[e] == '-')) ++e;
      if (e < n_ && s_[e] >= '0' && s_[e] <= '9') {
        is_int = false;
        pos_ = e;
        while (pos_ < n_ && s_[pos_] >= '0' && s_[pos_] <= '9') ++pos_;
      }
    }
    std::string text(reinterpret_cast<const char*>(s_ + start), pos_ - start);
    if (is_int) {
      size_t digits = int_end - start - (s_[start] == '-' ? 1 : 0);
      if (digits > limits_.max_integer_digits) {
        pos_ = start;
        fail(JsonParseError::Reason::integer_too_long,
             fmt::format("integer with {} digits exceeds the limit of {}", digits, limits_.max_integer_digits), true);
      }
    }
    double value = 0.0;
    auto res = std::from_chars(text.data(), text.data() + text.size(), value);
    if (res.ec == std::errc::result_out_of_range) {
      // from_chars reports underflow too; Python turns 1e-400 into 0.0 and 1e400 into inf.
      bool overflow = false;
      {
        // Decide by the decimal exponent: strtod gives +-HUGE_VAL on overflow, tiny on underflow.
        double v = std::strtod(text.c_str(), nullptr);
        overflow = std::isinf(v);
        value = v;
      }
      if (overflow) {
        if (is_int) {
          value = text[0] == '-' ? -HUGE_VAL : HUGE_VAL;  // huge ints stay exact as text
        } else {
          pos_ = start;
          fail(JsonParseError::Reason::non_finite,
               fmt::format("number {} is out of the range of a double (non-finite)",
                           text.size() > 40 ? text.substr(0, 40) + "..." : text),
               false);
        }
      }
    }
    return Json::make_number_text(std::move(text), is_int, value);
  }

  uint32_t parse_hex4() {
    if (n_ - pos_ < 4) fail_syntax("invalid \\uXXXX escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      unsigned char c = s_[pos_ + i];
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= c - '0';
      } else if (c >= 'a' && c <= 'f') {
        v |= c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        v |= c - 'A' + 10;
      } else {
        fail_syntax("invalid \\uXXXX escape");
      }
    }
    pos_ += 4;
    return v;
  }

  void parse_string(std::string& out) {
    ++pos_;  // opening quote
    while (true) {
      // Fast path: copy a run of plain ASCII.
      size_t run = pos_;
      while (run < n_) {
        unsigned char c = s_[run];
        if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80) break;
        ++run;
      }
      out.append(reinterpret_cast<const char*>(s_ + pos_), run - pos_);
      pos_ = run;
      if (pos_ >= n_) fail_syntax("unterminated string starting");
      unsigned char c = s_[pos_];
      if (c == '"') {
        ++pos_;
        return;
      }
      if (c < 0x20) fail_syntax("invalid control character");
      if (c >= 0x80) {
        size_t len = utf8_seq_len(s_, n_, pos_);
        if (len == 0) fail(JsonParseError::Reason::invalid_utf8, "invalid UTF-8", true);
        out.append(reinterpret_cast<const char*>(s_ + pos_), len);
        pos_ += len;
        continue;
      }
      // backslash escape
      if (pos_ + 1 >= n_) fail_syntax("unterminated string starting");
      unsigned char e = s_[pos_ + 1];
      pos_ += 2;
      switch (e) {
        case '"': out.push_back('"'); break;
        case '\\': out.push_back('\\'); break;
        case '/': out.push_back('/'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'n': out.push_back('\n'); break;
        case 'r': out.push_back('\r'); break;
        case 't': out.push_back('\t'); break;
        case 'u': {
          size_t esc = pos_ - 2;
          uint32_t cp = parse_hex4();
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (n_ - pos_ >= 6 && s_[pos_] == '\\' && s_[pos_ + 1] == 'u') {
              size_t save = pos_;
              pos_ += 2;
              uint32_t lo = parse_hex4();
              if (lo >= 0xDC00 && lo <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
              } else {
                pos_ = esc;
                (void)save;
                fail(JsonParseError::Reason::lone_surrogate, "unpaired surrogate escape", false);
              }
            } else {
              pos_ = esc;
              fail(JsonParseError::Reason::lone_surrogate, "unpaired surrogate escape", false);
            }
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            pos_ = esc;
            fail(JsonParseError::Reason::lone_surrogate, "unpaired surrogate escape", false);
          }
          append_utf8(out, cp);
          break;
        }
        default:
          pos_ -= 2;
          fail_syntax("invalid \\escape");
      }
    }
  }

  void check_depth(int depth) {
    if (depth > limits_.max_depth)
      fail(JsonParseError::Reason::too_deep, fmt::format("nesting deeper than {} levels", limits_.max_depth), false);
  }

  Json parse_array(int depth) {
    check_depth(depth);
    ++pos_;
    std::vector<Json> items;
    skip_ws();
    if (pos_ < n_ && s_[pos_] == ']') {
      ++pos_;
      return Json::make_array(std::move(items));
    }
    while (true) {
      skip_ws();
      items.push_back(parse_value(depth + 1));
      skip_ws();
      if (pos_ >= n_) fail_syntax("expecting ',' delimiter");
      if (s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (s_[pos_] == ']') {
        ++pos_;
        return Json::make_array(std::move(items));
      }
      fail_syntax("expecting ',' delimiter");
    }
  }

  Json parse_object(int depth) {
    check_depth(depth);
    ++pos_;
    std::vector<Json::Member> members;
    std::unordered_map<std::string, size_t> index;  // only for large objects
    skip_ws();
    if (pos_ < n_ && s_[pos_] == '}') {
      ++pos_;
      return Json::make_object(std::move(members));
    }
    while (true) {
      skip_ws();
      if (pos_ >= n_ || s_[pos_] != '"') fail_syntax("expecting property name enclosed in double quotes");
      size_t key_pos = pos_;
      std::string key;
      parse_string(key);
      skip_ws();
      if (pos_ >= n_ || s_[pos_] != ':') fail_syntax("expecting ':' delimiter");
      ++pos_;
      skip_ws();
      Json value = parse_value(depth + 1);
      // Duplicate detection: linear for small objects, a hash index once they grow.
      size_t found = SIZE_MAX;
      if (members.size() < 16) {
        for (size_t i = 0; i < members.size(); ++i) {
          if (members[i].first == key) {
            found = i;
            break;
          }
        }
      } else {
        if (index.empty())
          for (size_t i = 0; i < members.size(); ++i) index.emplace(members[i].first, i);
        auto it = index.find(key);
        if (it != index.end()) found = it->second;
      }
      if (found != SIZE_MAX) {
        if (depth == 1 && limits_.reject_top_level_duplicates) {
          pos_ = key_pos;
          fail(JsonParseError::Reason::duplicate_key, fmt::format("duplicate key \"{}\"", key), false);
        }
        members[found].second = std::move(value);  // Python dict: last value, first position
      } else {
        if (!index.empty()) index.emplace(key, members.size());
        members.emplace_back(std::move(key), std::move(value));
      }
      skip_ws();
      if (pos_ >= n_) fail_syntax("expecting ',' delimiter");
      if (s_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (s_[pos_] == '}') {
        ++pos_;
        return Json::make_object(std::move(members));
      }
      fail_syntax("expecting ',' delimiter");
    }
  }

  const unsigned char* s_;
  size_t n_;
  size_t pos_ = 0;
  const ParseLimits& limits_;
};

}  // namespace

Json parse_json(std::string_view text, const ParseLimits& limits) {
  Parser p(text, limits);
  return p.run();
}

size_t find_invalid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    size_t len = utf8_seq_len(p, n, i);
    if (len == 0) return i;
    i += len;
  }
  return std::string_view::npos;
}

}  // namespace laya::api
