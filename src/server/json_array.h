// Splits a JSON array into the raw text of its elements without re-serialising them: each element
// goes to the request parser byte for byte (numbers, key order and escapes untouched), exactly as a
// single request body would.
#pragma once

#include <string_view>
#include <vector>

namespace laya::server {

// Returns the elements of a top-level JSON array (after an optional UTF-8 BOM). Only the array
// structure is checked (brackets, strings, commas); each element is validated later by the request
// parser. Throws laya::Error(bad_request) when `body` is not a JSON array.
std::vector<std::string_view> split_json_array(std::string_view body);

}  // namespace laya::server
