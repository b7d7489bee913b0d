#include "backends/cuda/cluster_rule.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

namespace laya::cuda {

bool SingleCtaClusterRange::contains(int32_t m, int32_t n, int32_t k) const {
  return m >= from && m <= to && (nk.empty() || std::find(nk.begin(), nk.end(), std::pair{n, k}) != nk.end());
}

bool SingleCtaClusterRule::contains(int32_t m, int32_t n, int32_t k) const {
  return std::any_of(ranges.begin(), ranges.end(), [&](const auto& r) { return r.contains(m, n, k); });
}

namespace {

// Reads a positive decimal number at the front of s and drops it (and nothing else) from s.
bool take_number(std::string_view& s, int32_t& out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  if (ec != std::errc{} || end == s.data() || out < 1) return false;
  s.remove_prefix(static_cast<size_t>(end - s.data()));
  return true;
}

bool take(std::string_view& s, char c) {
  if (s.empty() || s.front() != c) return false;
  s.remove_prefix(1);
  return true;
}

}  // namespace

std::optional<SingleCtaClusterRule> SingleCtaClusterRule::parse(std::string_view spec) {
  SingleCtaClusterRule rule;
  if (spec.empty() || spec == "none") return rule;
  while (true) {
    SingleCtaClusterRange r;
    if (!take_number(spec, r.from) || !take(spec, '-') || !take_number(spec, r.to) || r.to < r.from) return {};
    if (take(spec, ':')) {
      do {
        int32_t n = 0, k = 0;
        if (!take_number(spec, n) || !take(spec, 'x') || !take_number(spec, k)) return {};
        r.nk.emplace_back(n, k);
      } while (take(spec, '+'));
    }
    rule.ranges.push_back(std::move(r));
    if (spec.empty()) return rule;
    if (!take(spec, ';')) return {};
  }
}

std::string SingleCtaClusterRule::to_string() const {
  if (ranges.empty()) return "none";
  std::string s;
  for (const auto& r : ranges) {
    s += fmt::format("{}{}-{}", s.empty() ? "" : ";", r.from, r.to);
    for (size_t i = 0; i < r.nk.size(); ++i)
      s += fmt::format("{}{}x{}", i == 0 ? ":" : "+", r.nk[i].first, r.nk[i].second);
  }
  return s;
}

SingleCtaClusterRule default_single_cta_cluster_rule(int32_t d, int32_t inter) {
  const std::pair<int32_t, int32_t> mlp_in{2 * inter, d}, attn_out{d, d};
  if (d >= 1024) return {{{1, 64, {}}, {129, 768, {mlp_in, attn_out}}, {769, 1535, {}}}};
  return {{{1, 64, {}}, {129, 256, {mlp_in, attn_out}}, {257, 512, {attn_out}}, {513, 768, {mlp_in, attn_out}}, {769, 1535, {}}}};
}

}  // namespace laya::cuda
