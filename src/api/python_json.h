// Python-compatible rendering of Json values, byte for byte.
//
// - python_dumps(x)          == json.dumps(x, ensure_ascii=False)               (", " and ": ")
// - python_dumps_compact(x)  == json.dumps(x, ensure_ascii=False, separators=(",", ":"))
//                               (what Starlette's JSONResponse sends)
// - python_float_repr(d)     == repr(float(d))  ("1e-05", "1e+16", "0.1", "-0.0", "100000.0")
// - python_repr(x)           == repr(x) of the Python value json.loads makes ("{'a': [1, None]}")
// Numbers: integers are written as spelled (big ones verbatim, "-0" as "0" like int("-0")); floats
// as Python's repr of the double they denote ("1e5" -> "100000.0", "1E-7" -> "1e-07").
#pragma once

#include <string>
#include <string_view>

#include "api/json.h"

namespace laya::api {

enum class JsonSeparators { python_default, compact };

std::string python_dumps(const Json& value);
std::string python_dumps_compact(const Json& value);
void append_python_json(std::string& out, const Json& value, JsonSeparators seps);

// A JSON string literal with Python's ensure_ascii=False escaping (quotes included).
void append_python_json_string(std::string& out, std::string_view utf8);

// repr(float): shortest round-trip digits, fixed notation for 1e-4 <= |x| < 1e16.
std::string python_float_repr(double v);
void append_python_float(std::string& out, double v);
// A number Json as Python's json.dumps writes the value json.loads made of it.
void append_python_number(std::string& out, const Json& number);

// Python round(x, 4) (correctly rounded, half-even on the exact binary value).
double python_round(double x, int ndigits);

// repr() of the Python object (str() of a dict/list is the same as repr()).
std::string python_repr(const Json& value);
// repr() of a Python str.
std::string python_repr_string(std::string_view utf8);
// len() of a Python str (code points of valid UTF-8).
size_t python_len(std::string_view utf8);

// Python str.strip() (Unicode whitespace as str.isspace()).
std::string_view python_strip(std::string_view utf8);
// Python str.lower() (per code point; special multi-character lowerings are approximated).
std::string python_lower(std::string_view utf8);

}  // namespace laya::api
