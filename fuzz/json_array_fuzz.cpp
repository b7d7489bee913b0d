// Fuzzes split_json_array (src/server/json_array.h), the batch endpoint's hand-written split of a body
// into its elements' raw text: any byte string must either split or throw laya::Error bad_request.
// Differential check against the full parser: where parse_json accepts the body as an array, the
// split must succeed with as many elements, and each element's text must parse to the same value
// as the corresponding item (the server hands each element to the request parser byte for byte).
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "api/json.h"
#include "common.h"
#include "server/json_array.h"

using namespace laya;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view body(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> parts;
  const bool split = fuzz::guarded([&] { parts = server::split_json_array(body); }, {ErrorKind::bad_request});
  for (std::string_view p : parts) {
    if (p.data() < body.data() || p.data() + p.size() > body.data() + body.size())
      fuzz::fail("an element is not a substring of the body");
  }
  api::Json whole;
  const bool parsed = fuzz::guarded([&] { whole = api::parse_json(body); }, {ErrorKind::bad_request});
  if (!parsed || !whole.is_array()) return 0;
  if (!split) fuzz::fail("parse_json accepts the array, split_json_array rejects it");
  if (parts.size() != whole.items().size()) fuzz::fail("element count differs from parse_json's");
  for (size_t i = 0; i < parts.size(); ++i) {
    api::Json item;
    // An element of an accepted array always parses alone (only the outermost object's duplicate
    // keys are rejected, and an element's object becomes outermost: allow duplicates there).
    api::ParseLimits limits;
    limits.reject_top_level_duplicates = false;
    fuzz::guarded([&] { item = api::parse_json(parts[i], limits); }, {});
    if (!(item == whole.items()[i])) fuzz::fail("an element parses to another value than parse_json's item");
  }
  return 0;
}
