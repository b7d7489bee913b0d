#include "backends/cuda/cluster_rule.h"

#include <algorithm>
#include <charconv>
#include <span>

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
  // 129-768 rows, bucket by bucket (each bucket size is one M; measured at every one, items 151 and
  // 153): which GEMMs run without clusters, by the last row count of each step. At d = 768 the QKV
  // GEMM and the unfused MLP input GEMM have the same (N, K), so mlp_in covers both there.
  struct Step {
    int32_t to;
    bool mlp_in, attn_out, qkv, mlp_out;
  };
  static constexpr Step kEnglish[] = {  // d >= 1,024
      {144, true, true, false, false},  {160, true, true, false, true},   {176, true, false, false, false},
      {192, true, false, true, false},  {224, true, true, false, false},  {240, true, true, false, true},
      {288, true, true, false, false},  {320, true, true, true, true},    {352, true, false, false, false},
      {384, true, true, false, false},  {448, true, true, true, true},    {512, true, true, false, false},
      {576, true, true, true, false},   {640, true, true, false, false},  {704, true, true, false, true},
      {768, true, true, false, false}};
  static constexpr Step kSmaller[] = {  // d < 1,024 (measured at d = 768)
      {256, true, true, false, false}, {288, false, true, false, false}, {320, true, true, false, false},
      {384, false, true, false, false}, {448, true, true, false, false}, {512, false, true, false, false},
      {768, true, true, false, false}};
  const std::pair<int32_t, int32_t> mlp_in{2 * inter, d}, attn_out{d, d}, qkv{3 * d, d}, mlp_out{d, inter};
  SingleCtaClusterRule rule{{{1, 64, {}}}};
  int32_t from = 129;
  auto add = [](SingleCtaClusterRange& r, bool on, std::pair<int32_t, int32_t> nk) {
    if (on && std::find(r.nk.begin(), r.nk.end(), nk) == r.nk.end()) r.nk.push_back(nk);
  };
  for (const Step& s : d >= 1024 ? std::span<const Step>(kEnglish) : std::span<const Step>(kSmaller)) {
    SingleCtaClusterRange r{from, s.to, {}};
    add(r, s.mlp_in, mlp_in);
    add(r, s.attn_out, attn_out);
    add(r, s.qkv, qkv);
    add(r, s.mlp_out, mlp_out);
    if (!r.nk.empty()) rule.ranges.push_back(std::move(r));  // an empty list would mean every GEMM
    from = s.to + 1;
  }
  rule.ranges.push_back({769, 1535, {}});
  return rule;
}

}  // namespace laya::cuda
