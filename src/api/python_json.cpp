#include "api/python_json.h"

#include <utf8proc.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace laya::api {

namespace {

// Decodes one code point of valid UTF-8 at s[i]; advances i.
inline uint32_t next_cp(std::string_view s, size_t& i) {
  auto c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    ++i;
    return c;
  }
  int len = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  uint32_t cp = c & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
  for (int k = 1; k < len && i + k < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  i += len;
  return cp;
}

const char kHex[] = "0123456789abcdef";

void append_python_str_repr(std::string& out, std::string_view s) {
  bool has_single = s.find('\'') != std::string_view::npos;
  bool has_double = s.find('"') != std::string_view::npos;
  char quote = (has_single && !has_double) ? '"' : '\'';
  out.push_back(quote);
  size_t i = 0;
  while (i < s.size()) {
    uint32_t cp = next_cp(s, i);
    if (cp == static_cast<uint32_t>(quote) || cp == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(cp));
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp < 0x20 || cp == 0x7F) {
      out += "\\x";
      out.push_back(kHex[cp >> 4]);
      out.push_back(kHex[cp & 15]);
    } else if (cp < 0x7F) {
      out.push_back(static_cast<char>(cp));
    } else {
      // Py_UNICODE_ISPRINTABLE: not Cc, Cf, Cs, Co, Cn, Zl, Zp, Zs.
      auto cat = utf8proc_category(static_cast<utf8proc_int32_t>(cp));
      bool printable = !(cat == UTF8PROC_CATEGORY_CC || cat == UTF8PROC_CATEGORY_CF || cat == UTF8PROC_CATEGORY_CS ||
                         cat == UTF8PROC_CATEGORY_CO || cat == UTF8PROC_CATEGORY_CN || cat == UTF8PROC_CATEGORY_ZL ||
                         cat == UTF8PROC_CATEGORY_ZP || cat == UTF8PROC_CATEGORY_ZS);
      if (printable) {
        utf8proc_uint8_t buf[4];
        auto n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(cp), buf);
        out.append(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
      } else if (cp <= 0xFF) {
        out += "\\x";
        out.push_back(kHex[cp >> 4]);
        out.push_back(kHex[cp & 15]);
      } else if (cp <= 0xFFFF) {
        out += "\\u";
        for (int sh = 12; sh >= 0; sh -= 4) out.push_back(kHex[(cp >> sh) & 15]);
      } else {
        out += "\\U";
        for (int sh = 28; sh >= 0; sh -= 4) out.push_back(kHex[(cp >> sh) & 15]);
      }
    }
  }
  out.push_back(quote);
}

void append_python_int_text(std::string& out, const std::string& text) {
  if (text == "-0") {
    out.push_back('0');
  } else {
    out += text;
  }
}

void append_repr(std::string& out, const Json& v) {
  switch (v.type()) {
    case Json::Type::null: out += "None"; break;
    case Json::Type::boolean: out += v.as_bool() ? "True" : "False"; break;
    case Json::Type::number: append_python_number(out, v); break;
    case Json::Type::string: append_python_str_repr(out, v.as_string()); break;
    case Json::Type::array: {
      out.push_back('[');
      bool first = true;
      for (const auto& it : v.items()) {
        if (!first) out += ", ";
        first = false;
        append_repr(out, it);
      }
      out.push_back(']');
      break;
    }
    case Json::Type::object: {
      out.push_back('{');
      bool first = true;
      for (const auto& [k, val] : v.members()) {
        if (!first) out += ", ";
        first = false;
        append_python_str_repr(out, k);
        out += ": ";
        append_repr(out, val);
      }
      out.push_back('}');
      break;
    }
  }
}

}  // namespace

void append_python_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  size_t run = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        out += "\\u00";
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 15]);
    }
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

void append_python_float(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "NaN";
    return;
  }
  if (std::isinf(v)) {
    out += v > 0 ? "Infinity" : "-Infinity";
    return;
  }
  if (v == 0.0) {
    out += std::signbit(v) ? "-0.0" : "0.0";
    return;
  }
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  // buf = [-]d[.ddd]e(+|-)XX
  std::string_view sci(buf, static_cast<size_t>(res.ptr - buf));
  bool neg = sci[0] == '-';
  if (neg) sci.remove_prefix(1);
  size_t epos = sci.find('e');
  std::string digits;
  digits.reserve(20);
  for (size_t i = 0; i < epos; ++i)
    if (sci[i] != '.') digits.push_back(sci[i]);
  int exp10 = std::atoi(std::string(sci.substr(epos + 1)).c_str());
  int decpt = exp10 + 1;  // value = 0.DIGITS * 10^decpt
  int nd = static_cast<int>(digits.size());
  if (neg) out.push_back('-');
  if (decpt <= -4 || decpt > 16) {
    out.push_back(digits[0]);
    if (nd > 1) {
      out.push_back('.');
      out.append(digits, 1, std::string::npos);
    }
    out.push_back('e');
    int e = decpt - 1;
    out.push_back(e < 0 ? '-' : '+');
    if (e < 0) e = -e;
    if (e < 10) out.push_back('0');
    out += std::to_string(e);
  } else if (decpt <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-decpt), '0');
    out += digits;
  } else if (decpt >= nd) {
    out += digits;
    out.append(static_cast<size_t>(decpt - nd), '0');
    out += ".0";
  } else {
    out.append(digits, 0, static_cast<size_t>(decpt));
    out.push_back('.');
    out.append(digits, static_cast<size_t>(decpt), std::string::npos);
  }
}

std::string python_float_repr(double v) {
  std::string s;
  append_python_float(s, v);
  return s;
}

void append_python_number(std::string& out, const Json& number) {
  if (number.is_integer()) {
    append_python_int_text(out, number.number_text());
  } else {
    append_python_float(out, number.as_double());
  }
}

double python_round(double x, int ndigits) {
  if (!std::isfinite(x)) return x;
  char buf[512];
  int n = std::snprintf(buf, sizeof buf, "%.*f", ndigits, x);
  if (n <= 0 || n >= static_cast<int>(sizeof buf)) return x;
  double r = std::strtod(buf, nullptr);
  // round() keeps the sign of zero results (round(-0.00001, 4) == -0.0).
  if (r == 0.0) return std::copysign(0.0, x);
  return r;
}

void append_python_json(std::string& out, const Json& v, JsonSeparators seps) {
  const char* item_sep = seps == JsonSeparators::compact ? "," : ", ";
  const char* key_sep = seps == JsonSeparators::compact ? ":" : ": ";
  switch (v.type()) {
    case Json::Type::null: out += "null"; break;
    case Json::Type::boolean: out += v.as_bool() ? "true" : "false"; break;
    case Json::Type::number: append_python_number(out, v); break;
    case Json::Type::string: append_python_json_string(out, v.as_string()); break;
    case Json::Type::array: {
      out.push_back('[');
      bool first = true;
      for (const auto& it : v.items()) {
        if (!first) out += item_sep;
        first = false;
        append_python_json(out, it, seps);
      }
      out.push_back(']');
      break;
    }
    case Json::Type::object: {
      out.push_back('{');
      bool first = true;
      for (const auto& [k, val] : v.members()) {
        if (!first) out += item_sep;
        first = false;
        append_python_json_string(out, k);
        out += key_sep;
        append_python_json(out, val, seps);
      }
      out.push_back('}');
      break;
    }
  }
}

std::string python_dumps(const Json& value) {
  std::string s;
  append_python_json(s, value, JsonSeparators::python_default);
  return s;
}

std::string python_dumps_compact(const Json& value) {
  std::string s;
  append_python_json(s, value, JsonSeparators::compact);
  return s;
}

std::string python_repr(const Json& value) {
  std::string s;
  append_repr(s, value);
  return s;
}

std::string python_repr_string(std::string_view utf8) {
  std::string s;
  append_python_str_repr(s, utf8);
  return s;
}

size_t python_len(std::string_view s) {
  size_t n = 0;
  for (char c : s)
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  return n;
}

namespace {
bool is_python_space(uint32_t cp) {
  switch (cp) {
    case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D:
    case 0x1C: case 0x1D: case 0x1E: case 0x1F: case 0x20:
    case 0x85: case 0xA0: case 0x1680:
    case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000:
      return true;
    default:
      return cp >= 0x2000 && cp <= 0x200A;
  }
}
}  // namespace

std::string_view python_strip(std::string_view s) {
  size_t begin = 0;
  while (begin < s.size()) {
    size_t i = begin;
    uint32_t cp = next_cp(s, i);
    if (!is_python_space(cp)) break;
    begin = i;
  }
  size_t end = s.size();
  while (end > begin) {
    size_t start = end - 1;
    while (start > begin && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
    size_t i = start;
    uint32_t cp = next_cp(s, i);
    if (!is_python_space(cp)) break;
    end = start;
  }
  return s.substr(begin, end - begin);
}

std::string python_lower(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    uint32_t cp = next_cp(s, i);
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp >= 'A' && cp <= 'Z' ? cp + 32 : cp));
      continue;
    }
    auto lo = utf8proc_tolower(static_cast<utf8proc_int32_t>(cp));
    if (cp == 0x130) {  // 'İ'.lower() == 'i̇'
      out += "i\xCC\x87";
      continue;
    }
    utf8proc_uint8_t buf[4];
    auto n = utf8proc_encode_char(lo, buf);
    out.append(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
  }
  return out;
}

}  // namespace laya::api
