#include "runtime/busy_poll.h"

#include <charconv>

#include "laya/errors.h"

namespace laya::runtime {

std::chrono::microseconds resolve_busy_poll(std::string_view value, std::string_view backend) {
  if (value == "auto") return backend == "cuda" ? kAutoBusyPollCuda : std::chrono::microseconds{0};
  long long us = -1;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), us);
  LAYA_REQUIRE(!value.empty() && ec == std::errc() && end == value.data() + value.size() && us >= 0 &&
                   us <= kMaxBusyPoll.count(),
               ErrorKind::bad_request, "invalid --busy-poll-us/LAYA_BUSY_POLL_US '{}': use auto or 0-{} (microseconds)",
               value, kMaxBusyPoll.count());
  return std::chrono::microseconds{us};
}

}  // namespace laya::runtime
