#include "checkpoint/safetensors.h"

#include "checkpoint/convert.h"
#include "test_util.h"

namespace laya::checkpoint {
namespace {

using namespace testing;

class SafetensorsTest : public ::testing::Test {
 protected:
  TinyCheckpoint ck{11};
  fs::path bad() const { return ck.root / "bad.safetensors"; }
  std::string open_bad(std::initializer_list<std::string> parts) {
    return expect_error([&] { SafetensorsFile::open(bad()); }, ErrorKind::invalid_checkpoint, parts);
  }
  // Edits the first tensor entry (in data order) of the header.
  std::string first_tensor(const RawSafetensors& r) {
    std::string best;
    uint64_t lo = UINT64_MAX;
    for (auto it = r.header.begin(); it != r.header.end(); ++it) {
      if (it.key() == "__metadata__") continue;
      uint64_t b = (*it)["data_offsets"][0];
      if (b < lo) {
        lo = b;
        best = it.key();
      }
    }
    return best;
  }
};

TEST_F(SafetensorsTest, OpensTheSynthFile) {
  auto f = SafetensorsFile::open(ck.weights());
  EXPECT_EQ(f.tensors().size(), 56u);
  EXPECT_EQ(f.file_size(), fs::file_size(ck.weights()));
  EXPECT_EQ(f.header_size() % 8, 0u);
  EXPECT_EQ(f.metadata().at("format"), "pt");
  const auto& t = f.at("temperature");
  EXPECT_EQ(t.dtype, DType::F32);
  EXPECT_EQ(t.shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(to_f32(t), (std::vector<float>{1.0f, 1.0f, 1.0f}));
  EXPECT_EQ(f.at("encoder.embeddings.tok_embeddings.weight").dtype, DType::F16);
  EXPECT_EQ(f.find("nope"), nullptr);
  expect_error([&] { f.at("nope"); }, ErrorKind::invalid_checkpoint, {"nope", "model.safetensors"});
  // Data order: sorted by offset, contiguous.
  const std::byte* prev_end = nullptr;
  for (const auto& v : f.tensors()) {
    if (prev_end) {
      EXPECT_EQ(v.data.data(), prev_end) << v.name;
    }
    prev_end = v.data.data() + v.data.size();
  }
  SafetensorsFile moved = std::move(f);
  EXPECT_EQ(moved.tensors().size(), 56u);
}

TEST_F(SafetensorsTest, MissingFile) { 
  expect_error([&] { SafetensorsFile::open(ck.root / "none.safetensors"); }, ErrorKind::invalid_checkpoint,
               {"none.safetensors", "missing"});
}

TEST_F(SafetensorsTest, EmptyFile) {
  write_bytes(bad(), "");
  open_bad({"bad.safetensors", "empty"});
}

TEST_F(SafetensorsTest, ShorterThanTheLengthField) {
  write_bytes(bad(), "abc");
  open_bad({"bad.safetensors", "truncated"});
}

TEST_F(SafetensorsTest, TruncatedFile) {
  std::string b = read_bytes(ck.weights());
  write_bytes(bad(), b.substr(0, b.size() / 2));
  open_bad({"bad.safetensors", "outside the data section"});
}

TEST_F(SafetensorsTest, TruncatedInsideTheHeader) {
  std::string b = read_bytes(ck.weights());
  write_bytes(bad(), b.substr(0, 100));
  open_bad({"bad.safetensors", "header length", "larger than the file"});
}

TEST_F(SafetensorsTest, HeaderLengthLargerThanFile) {
  std::string b = read_bytes(ck.weights());
  uint64_t n = b.size();  // one more than fits
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(n >> (8 * i));
  write_bytes(bad(), b);
  open_bad({"bad.safetensors", "header length"});
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(0xFF);  // absurd length
  write_bytes(bad(), b);
  open_bad({"bad.safetensors", "header length"});
}

TEST_F(SafetensorsTest, HeaderNotJson) {
  write_bytes(bad(), RawSafetensors::with_header("{\"a\": [1, 2", "xxxx"));
  open_bad({"bad.safetensors", "not valid JSON"});
  write_bytes(bad(), RawSafetensors::with_header("[1, 2, 3]", ""));
  open_bad({"bad.safetensors", "not a JSON object"});
}

TEST_F(SafetensorsTest, OffsetsOutOfRange) {
  auto r = RawSafetensors::load(ck.weights());
  r.header["temperature"]["data_offsets"][1] = r.data.size() + 12;
  r.header["temperature"]["data_offsets"][0] = r.data.size();
  r.save(bad());
  open_bad({"bad.safetensors", "'temperature'", "outside the data section"});
}

TEST_F(SafetensorsTest, OverlappingOffsets) {
  auto r = RawSafetensors::load(ck.weights());
  // Give two equal-sized tensors the same range.
  r.header["head.layers.0.norm1.weight"]["data_offsets"] = r.header["head.layers.0.norm1.bias"]["data_offsets"];
  r.save(bad());
  open_bad({"bad.safetensors", "overlap"});
}

TEST_F(SafetensorsTest, GapBetweenTensors) {
  auto r = RawSafetensors::load(ck.weights());
  // Move the first tensor 4 bytes later by inserting padding bytes before everything else.
  const std::string first = first_tensor(r);
  ASSERT_EQ(first, "temperature");
  r.data.insert(0, 4, '\0');
  for (auto it = r.header.begin(); it != r.header.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    (*it)["data_offsets"][0] = (*it)["data_offsets"][0].get<uint64_t>() + 4;
    (*it)["data_offsets"][1] = (*it)["data_offsets"][1].get<uint64_t>() + 4;
  }
  r.save(bad());
  open_bad({"bad.safetensors", "'temperature'", "gap of 4"});
}

TEST_F(SafetensorsTest, TrailingBytesAfterTheLastTensor) {
  auto r = RawSafetensors::load(ck.weights());
  r.data += "junk";
  r.save(bad());
  open_bad({"bad.safetensors", "trailing"});
}

TEST_F(SafetensorsTest, UnknownDtypeIsNamed) {
  auto r = RawSafetensors::load(ck.weights());
  r.header["temperature"]["dtype"] = "I32";
  r.save(bad());
  open_bad({"bad.safetensors", "'temperature'", "dtype 'I32'"});
  r.header["temperature"]["dtype"] = "F64";
  r.save(bad());
  open_bad({"needs 24 bytes"});  // structure is checked with the dtype's real size
  r.header["temperature"]["dtype"] = "U32";
  r.header["scorer.3.bias"]["dtype"] = "I16";
  r.save(bad());
  open_bad({"'temperature': dtype 'U32'", "'scorer.3.bias': dtype 'I16'", "only F16, BF16, F32"});
  r.header["temperature"]["dtype"] = "Q4_K";
  r.save(bad());
  open_bad({"'temperature'", "unknown dtype 'Q4_K'"});
}

TEST_F(SafetensorsTest, ShapeByteMismatch) {
  auto r = RawSafetensors::load(ck.weights());
  r.header["temperature"]["shape"] = {4};
  r.save(bad());
  open_bad({"bad.safetensors", "'temperature'", "needs 16 bytes", "hold 12"});
}

TEST_F(SafetensorsTest, NegativeOrNonIntegerShape) {
  auto r = RawSafetensors::load(ck.weights());
  r.header["temperature"]["shape"] = {-3};
  r.save(bad());
  open_bad({"'temperature'", "shape"});
  r.header["temperature"]["shape"] = {"3"};
  r.save(bad());
  open_bad({"'temperature'", "shape"});
}

// Found while writing fuzz/safetensors_fuzz (by reading the code): [2^62] x F32 = 2^64 bytes wrapped
// to 0 and matched data_offsets [0, 0]; a 0 dimension hid a later 2^64-1 dimension (stored as -1).
TEST_F(SafetensorsTest, ShapeWhoseByteCountWrapsIsRejected) {
  write_bytes(bad(), RawSafetensors::with_header(
                         R"({"w":{"dtype":"F32","shape":[4611686018427387904],"data_offsets":[0,0]}})", ""));
  open_bad({"bad.safetensors", "'w'", "too large"});
  write_bytes(bad(), RawSafetensors::with_header(
                         R"({"w":{"dtype":"F32","shape":[0,18446744073709551615],"data_offsets":[0,0]}})", ""));
  open_bad({"bad.safetensors", "'w'", "too large"});
}

// Found while writing fuzz/safetensors_fuzz (by reading the code): a deeply nested shape overflowed
// the stack in the error message's nlohmann dump() (ASan stack-overflow) instead of failing cleanly.
TEST_F(SafetensorsTest, DeeplyNestedHeaderIsRejected) {
  const size_t depth = 1000000;
  std::string h = R"({"w":{"dtype":"F32","data_offsets":[0,0],"shape":)" + std::string(depth, '[') +
                  std::string(depth, ']') + "}}";
  write_bytes(bad(), RawSafetensors::with_header(h, ""));
  open_bad({"bad.safetensors", "nests deeper"});
}

TEST_F(SafetensorsTest, MissingFieldsInAnEntry) {
  auto r = RawSafetensors::load(ck.weights());
  r.header["temperature"].erase("data_offsets");
  r.save(bad());
  open_bad({"'temperature'", "data_offsets"});
}

TEST_F(SafetensorsTest, DuplicateNames) {
  auto r = RawSafetensors::load(ck.weights());
  std::string h = r.header.dump();
  // Append a second "temperature" key (textually: JSON libraries would silently keep one).
  auto t = r.header["temperature"].dump();
  h.insert(h.size() - 1, ",\"temperature\":" + t);
  write_bytes(bad(), RawSafetensors::with_header(h, r.data));
  open_bad({"bad.safetensors", "'temperature'", "more than once"});
}

TEST_F(SafetensorsTest, MetadataIsTolerated) {
  auto r = RawSafetensors::load(ck.weights());
  r.header["__metadata__"] = {{"format", "pt"}, {"note", "hello"}};
  r.save(bad());
  auto f = SafetensorsFile::open(bad());
  EXPECT_EQ(f.metadata().at("note"), "hello");
  EXPECT_EQ(f.tensors().size(), 56u);
}

TEST_F(SafetensorsTest, UnalignedHeaderStillReads) {
  // A header of odd length puts the data at an odd address: values are read with memcpy.
  auto r = RawSafetensors::load(ck.weights());
  std::string h = r.header.dump() + " ";
  if ((h.size() + 8) % 2 == 0) h += " ";
  write_bytes(bad(), RawSafetensors::with_header(h, r.data));
  auto f = SafetensorsFile::open(bad());
  EXPECT_EQ(to_f32(f.at("temperature")), (std::vector<float>{1.0f, 1.0f, 1.0f}));
  auto g = SafetensorsFile::open(ck.weights());
  EXPECT_EQ(to_f32(f.at("scorer.1.weight")), to_f32(g.at("scorer.1.weight")));
}

TEST(SafetensorsWriter, RoundTripsAllDtypesAndEmptyTensors) {
  auto dir = laya::test::make_temp_dir("st");
  std::vector<TensorToWrite> ts;
  ts.push_back({"b", DType::BF16, {2}, [](std::span<std::byte> o) {
                  uint16_t v[2] = {f32_to_bf16(1.5f), f32_to_bf16(-2.0f)};
                  std::memcpy(o.data(), v, 4);
                }});
  ts.push_back({"a", DType::F32, {1, 2}, [](std::span<std::byte> o) {
                  float v[2] = {3.25f, -0.0f};
                  std::memcpy(o.data(), v, 8);
                }});
  ts.push_back({"e", DType::F16, {0, 4}, nullptr});
  ts.push_back({"s", DType::F16, {}, [](std::span<std::byte> o) {
                  uint16_t v = f32_to_f16(0.5f);
                  std::memcpy(o.data(), &v, 2);
                }});
  write_safetensors(dir / "x.safetensors", ts);
  auto f = SafetensorsFile::open(dir / "x.safetensors");
  EXPECT_EQ(to_f32(f.at("b")), (std::vector<float>{1.5f, -2.0f}));
  auto a = to_f32(f.at("a"));
  EXPECT_EQ(a[0], 3.25f);
  EXPECT_TRUE(std::signbit(a[1]));
  EXPECT_EQ(f.at("e").numel(), 0);
  EXPECT_EQ(f.at("s").numel(), 1);
  EXPECT_EQ(to_f32(f.at("s"))[0], 0.5f);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace laya::checkpoint
