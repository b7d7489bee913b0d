// Bounded busy-polling at the server's own hand-offs (`serve --busy-poll-us`).
//
// A thread that blocks (condition variable, epoll) while its CPU goes idle pays a wake-up when work
// arrives: on a VM whose idle vCPUs halt to the hypervisor that is ~40-45 us per hand-off
// (docs/benchmarks/http.md). The executor and the I/O threads can instead keep polling for a short,
// bounded time before they block, yielding the CPU between checks so that a thread queued behind
// a poller (no core free) is not kept waiting. This costs CPU, so it is on by default only where
// it pays and where the forward does not need every core: the CUDA backend (whose forward waits
// on the GPU), not the CPU backend (whose forward uses all cores).
#pragma once

#include <chrono>
#include <string_view>

namespace laya::runtime {

// Upper bound of --busy-poll-us: beyond a few milliseconds a poller is a spinning idle thread.
inline constexpr std::chrono::microseconds kMaxBusyPoll{10000};
// What `auto` gives the CUDA backend: longer than the gap the executor sees between two requests
// of one closed-loop client over loopback (reply hop to the client, its next write, read, prepare:
// ~100-150 us on a VM in its slow regime), so that gap is spent polling.
inline constexpr std::chrono::microseconds kAutoBusyPollCuda{250};

// Parses --busy-poll-us: "auto" (kAutoBusyPollCuda for the cuda backend, 0 for the others) or
// microseconds 0..kMaxBusyPoll (0: off). Throws laya::Error(bad_request) otherwise.
std::chrono::microseconds resolve_busy_poll(std::string_view value, std::string_view backend);

// The polite spin-loop hint (x86 PAUSE, Arm YIELD): lets a sibling hyper-thread run and saves power.
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

}  // namespace laya::runtime
