#include "checkpoint/integrity.h"

#include "test_util.h"

namespace laya::checkpoint {
namespace {

using namespace testing;

TEST(Integrity, Sha256KnownAnswers) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Integrity, StreamedFileHashMatchesInMemoryHashAndReportsProgress) {
  auto dir = laya::test::make_temp_dir("sha");
  std::string data;
  for (int i = 0; i < (3 << 20) + 17; ++i) data += static_cast<char>(i * 131 % 251);
  write_bytes(dir / "f", data);
  uint64_t last = 0, calls = 0;
  auto h = sha256_file(dir / "f", [&](uint64_t done, uint64_t total) {
    EXPECT_EQ(total, data.size());
    EXPECT_GT(done, last);
    last = done;
    ++calls;
  });
  EXPECT_EQ(h, sha256_hex(data));
  EXPECT_EQ(last, data.size());
  EXPECT_EQ(calls, 4u);  // 1 MiB chunks
  expect_error([&] { sha256_file(dir / "missing"); }, ErrorKind::io, {"missing"});
  fs::remove_all(dir);
}

TEST(Integrity, KnownOfficialHashes) {
  EXPECT_EQ(known_official_file("model.safetensors",
                                "891102d372688fc2a094dac56a384bc537b87c63f21f9f3dac0be2b7cbc8d86c", 842609210),
            "official English model.safetensors");
  EXPECT_EQ(known_official_file("model.safetensors",
                                "891102d372688fc2a094dac56a384bc537b87c63f21f9f3dac0be2b7cbc8d86c", 5), "");
  EXPECT_NE(known_official_file("model.safetensors",
                                "4fa56de72383a9d3efa9cfa78955733c81b9fc8067a587ca4beb82c78107a24e", 842609220), "");
  // The fixture tokenizer is the official file: its full hash matches the published abbreviation.
  EXPECT_NE(known_official_file("tokenizer/tokenizer.json",
                                "6c8aaa9a542084f2457eab775d4eeb51f92a70c0fd9de28d5edb0ddec3c08d30", 3583228), "");
  EXPECT_EQ(known_official_file("tokenizer/tokenizer.json",
                                "6c8aaa9a542084f2457eab775d4eeb51f92a70c0fd9de28d5edb0ddec3c08d31", 3583228), "");
  EXPECT_EQ(known_official_file("encoder/config.json",
                                "6c8aaa9a542084f2457eab775d4eeb51f92a70c0fd9de28d5edb0ddec3c08d30", 1), "");
}

TEST(Integrity, SynthIsModifiedOrUnknown) {
  TinyCheckpoint ck;
  auto r = check_integrity(CheckpointPaths::in(ck.dir));
  ASSERT_EQ(r.files.size(), 5u);
  EXPECT_EQ(r.files[0].role, "model.safetensors");
  EXPECT_EQ(r.files[0].sha256, sha256_file(ck.weights()));
  EXPECT_EQ(r.verdict, "modified or unknown");
  EXPECT_FALSE(r.official_weights);
}

}  // namespace
}  // namespace laya::checkpoint
