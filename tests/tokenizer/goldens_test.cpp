// Every per_question[].input_ids row of the official goldens, rebuilt from head_text, options and
// serialized_state with the layout of spec §3.3 (a test-only reconstruction: the real row builder
// lives in src/prompt/).
#include <fstream>
#include <nlohmann/json.hpp>

#include "test_util.h"
#include "tokenizer/special_tokens.h"

namespace laya::tokenizer::test {
namespace {

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  std::size_t pos = 0;
  while ((pos = s.find(from, pos)) != std::string::npos) {
    s.replace(pos, from.size(), to);
    pos += to.size();
  }
  return s;
}

struct Layout {
  int32_t cls, sep, mask;
  std::string mask_token;
  std::size_t max_len = 1024, head_max_len = 256;
};

std::vector<int32_t> build_row(const Tokenizer& tok, const Layout& l, const nlohmann::json& q, const std::vector<int32_t>& state_ids,
                               bool state_is_list) {
  std::vector<int32_t> head = tok.encode(replace_all(q.at("head_text").get<std::string>(), l.mask_token, " "));
  std::vector<std::vector<int32_t>> opts;
  for (const auto& o : q.at("options")) {
    auto ids = tok.encode(" " + replace_all(o.get<std::string>(), l.mask_token, " "));
    if (ids.size() > 48) ids.resize(48);
    ids.insert(ids.begin(), l.mask);
    opts.push_back(std::move(ids));
  }
  auto total = [&] {
    std::size_t t = 0;
    for (const auto& o : opts) t += o.size();
    return t;
  };
  long budget = long(l.head_max_len) - long(total());
  if (budget < 16) {
    const std::size_t per = std::max<long>(4, (long(l.head_max_len) - 16) / long(opts.size()));
    for (auto& o : opts)
      if (o.size() > per) o.resize(per);
    budget = long(l.head_max_len) - long(total());
  }
  const std::size_t head_keep = std::size_t(std::max<long>(8, budget));
  if (head.size() > head_keep) head.resize(head_keep);
  std::vector<int32_t> ids{l.cls};
  ids.insert(ids.end(), head.begin(), head.end());
  ids.push_back(l.sep);
  for (const auto& o : opts) ids.insert(ids.end(), o.begin(), o.end());
  ids.push_back(l.sep);
  const std::size_t room = l.max_len > ids.size() + 1 ? l.max_len - ids.size() - 1 : 0;
  if (state_ids.size() <= room) {
    ids.insert(ids.end(), state_ids.begin(), state_ids.end());
  } else if (state_is_list) {
    ids.insert(ids.end(), state_ids.end() - long(room), state_ids.end());
  } else {
    ids.insert(ids.end(), state_ids.begin(), state_ids.begin() + long(room));
  }
  ids.push_back(l.sep);
  if (ids.size() > l.max_len) ids.resize(l.max_len);
  return ids;
}

void check_goldens(const Tokenizer& tok, const Layout& layout, const std::string& set) {
  const auto dir = laya::test::require_fixtures() / "goldens" / set;
  std::size_t rows = 0, files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const auto name = entry.path().filename().string();
    if (name.rfind("case_", 0) != 0) continue;
    ++files;
    std::ifstream in(entry.path());
    const auto j = nlohmann::json::parse(in);
    const auto state_ids = tok.encode(replace_all(j.at("serialized_state").get<std::string>(), layout.mask_token, " "));
    const bool is_list = j.at("state").is_array();
    for (const auto& q : j.at("per_question")) {
      const auto want = q.at("input_ids").get<std::vector<int32_t>>();
      const auto got = build_row(tok, layout, q, state_ids, is_list);
      ++rows;
      if (got != want) {
        std::size_t k = 0;
        while (k < got.size() && k < want.size() && got[k] == want[k]) ++k;
        ADD_FAILURE() << set << "/" << name << " question " << q.at("id") << ": first difference at position " << k << " of "
                      << want.size() << " (got " << got.size() << " ids)";
      }
    }
  }
  EXPECT_GE(files, 14u) << dir;
  EXPECT_GT(rows, 20u);
}

TEST(TokenizerGoldens, TypedDecisionsRowsReproduced) {
  auto tok = modernbert();
  const auto st = load_special_tokens(laya::test::require_fixtures() / "tokenizer-modernbert/original/tokenizer_config.json", *tok);
  EXPECT_EQ(st.cls_id, 50281);
  EXPECT_EQ(st.sep_id, 50282);
  EXPECT_EQ(st.pad_id, 50283);
  EXPECT_EQ(st.mask_id, 50284);
  EXPECT_EQ(st.unk_id, 50280);
  EXPECT_EQ(st.mask_token, "[MASK]");
  check_goldens(*tok, Layout{st.cls_id, st.sep_id, st.mask_id, st.mask_token}, "typed-decisions");
}

TEST(TokenizerGoldens, MultilingualRowsReproducedWithStandin) {
  auto tok = standin();
  EXPECT_EQ(tok->token_to_id("<bos>"), 2);
  EXPECT_EQ(tok->token_to_id("<eos>"), 1);
  EXPECT_EQ(tok->token_to_id("<mask>"), 4);
  check_goldens(*tok, Layout{2, 1, 4, "<mask>"}, "multilingual");
}

TEST(TokenizerGoldens, WorkedExampleOfSpec) {
  // spec §3.6: "choice question: Which department should handle this?"
  EXPECT_EQ(modernbert()->encode("choice question: Which department should handle this?"),
            (std::vector<int32_t>{22122, 1953, 27, 6758, 7811, 943, 6016, 436, 32}));
  EXPECT_EQ(modernbert()->encode("noul question:"), (std::vector<int32_t>{79, 3941, 1953, 27}));
}

}  // namespace
}  // namespace laya::tokenizer::test
