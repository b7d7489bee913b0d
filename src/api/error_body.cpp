#include "api/error_body.h"

#include "api/python_json.h"

namespace laya::api {

std::string error_body(std::string_view detail) {
  std::string out = "{\"detail\":";
  append_python_json_string(out, detail);
  out.push_back('}');
  return out;
}

std::string error_body(const Error& error) {
  if (error.kind() == ErrorKind::internal) return error_body("inference failed");
  return error_body(error.what());
}

}  // namespace laya::api
