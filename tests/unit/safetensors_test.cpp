// safetensors headers and model folders, with small files written here (header + zero data).
#include "trainbudget/io/safetensors.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "trainbudget/io/model_loader.hpp"
#include "trainbudget/spec/error.hpp"

namespace tb::io {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

std::string length_prefix(std::uint64_t n) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>(n >> (8 * i));
  return out;
}

// Writes a safetensors file: the header as given, then `data_bytes` zero bytes.
void write_file(const fs::path& file, const std::string& header, std::size_t data_bytes) {
  std::ofstream out(file, std::ios::binary);
  out << length_prefix(header.size()) << header << std::string(data_bytes, '\0');
}

class Safetensors : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("tb_safetensors_" +
            std::string{::testing::UnitTest::GetInstance()->current_test_info()->name()});
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string error_of(const std::string& header, std::size_t data_bytes) {
    const fs::path f = dir_ / "model.safetensors";
    write_file(f, header, data_bytes);
    try {
      (void)read_safetensors_header(f);
    } catch (const DataError& e) {
      EXPECT_EQ(e.file(), f.string());
      return e.what();
    }
    ADD_FAILURE() << "no DataError for " << header;
    return {};
  }

  fs::path dir_;
};

constexpr const char* kTwoTensors =
    R"({"__metadata__": {"format": "pt"},
        "b": {"dtype": "F32", "shape": [2, 3], "data_offsets": [8, 32]},
        "a": {"dtype": "BF16", "shape": [4], "data_offsets": [0, 8]}})";

TEST_F(Safetensors, ReadsShapesDtypesAndOffsets) {
  write_file(dir_ / "m.safetensors", kTwoTensors, 32);
  const SafetensorsHeader h = read_safetensors_header(dir_ / "m.safetensors");
  ASSERT_EQ(h.tensors.size(), 2U);
  EXPECT_EQ(h.tensors[0].name, "a");
  EXPECT_EQ(h.tensors[0].elements, 4);
  EXPECT_EQ(h.tensors[1].dtype, "F32");
  EXPECT_EQ(h.tensors[1].shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(h.data_bytes, 32U);
  EXPECT_EQ(h.metadata.at("format"), "pt");
}

TEST_F(Safetensors, SubByteAndScalarTensors) {
  // F4 packs two values per byte; a scalar (shape []) has one element.
  write_file(dir_ / "m.safetensors",
             R"({"q": {"dtype": "F4", "shape": [3, 4], "data_offsets": [0, 6]},
                 "s": {"dtype": "F32", "shape": [], "data_offsets": [6, 10]}})",
             10);
  const SafetensorsHeader h = read_safetensors_header(dir_ / "m.safetensors");
  EXPECT_EQ(h.tensors[0].elements, 12);
  EXPECT_EQ(h.tensors[1].elements, 1);
}

TEST_F(Safetensors, TruncatedOrLyingLengthsAreErrors) {
  const fs::path f = dir_ / "short.safetensors";
  std::ofstream(f, std::ios::binary) << "abc";
  EXPECT_THROW((void)read_safetensors_header(f), DataError);
  // A length past the end of the file.
  std::ofstream(f, std::ios::binary) << length_prefix(1000) << "{}";
  try {
    (void)read_safetensors_header(f);
    FAIL();
  } catch (const DataError& e) {
    EXPECT_THAT(e.what(), HasSubstr("header length 1000 runs past the end of the 10-byte file"));
  }
  // An absurd length.
  std::ofstream(f, std::ios::binary) << length_prefix(std::uint64_t{1} << 62) << "{}";
  try {
    (void)read_safetensors_header(f);
    FAIL();
  } catch (const DataError& e) {
    EXPECT_THAT(e.what(), HasSubstr("is absurd"));
  }
}

TEST_F(Safetensors, BadHeadersNameTheTensorAndField) {
  EXPECT_THAT(error_of("not json", 0), HasSubstr("header is not valid JSON"));
  EXPECT_THAT(error_of("[1]", 0), HasSubstr("not a JSON object"));
  EXPECT_THAT(error_of(R"({"a": 9e99999})", 0), HasSubstr("header is not valid JSON"));
  EXPECT_THAT(error_of(R"({"w": {"dtype": "F17", "shape": [1], "data_offsets": [0, 2]}})", 2),
              HasSubstr("tensor \"w\": dtype: unknown \"F17\""));
  EXPECT_THAT(error_of(R"({"w": {"dtype": "F16", "shape": [2], "data_offsets": [0, 2]}})", 2),
              HasSubstr("tensor \"w\": data_offsets: 2 bytes, but [2] x F16 needs 4"));
  EXPECT_THAT(error_of(R"({"w": {"dtype": "F16", "shape": [2], "data_offsets": [0, 4]}})", 2),
              HasSubstr("end 4 is past the 2-byte data buffer"));
  EXPECT_THAT(error_of(R"({"w": {"dtype": "F16", "shape": [-2], "data_offsets": [0, 4]}})", 4),
              HasSubstr("shape: -2 is not a non-negative integer"));
  EXPECT_THAT(error_of(R"({"w": {"dtype": "F16", "shape": [2]}})", 4),
              HasSubstr("data_offsets: missing"));
  EXPECT_THAT(error_of(R"({"w": {"dtype": "U8", "shape": [4294967296, 4294967296],
                                 "data_offsets": [0, 1]}})",
                       1),
              HasSubstr("is absurd"));
  EXPECT_THAT(error_of(R"({"__metadata__": {"n": 1}})", 0), HasSubstr("__metadata__.n"));
}

TEST_F(Safetensors, OverlapsHolesAndLeftoverDataAreErrors) {
  EXPECT_THAT(error_of(R"({"a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]},
                          "b": {"dtype": "U8", "shape": [4], "data_offsets": [2, 6]}})",
                       6),
              HasSubstr("tensor \"b\": data_offsets [2, 6] overlap tensor \"a\""));
  EXPECT_THAT(error_of(R"({"a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]},
                          "b": {"dtype": "U8", "shape": [2], "data_offsets": [6, 8]}})",
                       8),
              HasSubstr("leaves a hole after byte 4"));
  EXPECT_THAT(error_of(R"({"a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]}})", 9),
              HasSubstr("the tensors cover 4 bytes of a 9-byte data buffer"));
}

// A Llama-shaped toy: 2 layers, hidden 8, MLP 16, vocab 10, untied, plus the inv_freq buffers
// older conversions store. Written shard by shard with an index, as a real folder is.
TEST_F(Safetensors, ModelFolderCrossChecksTheConfig) {
  std::ofstream(dir_ / "config.json") << R"({"model_type": "llama", "hidden_size": 8,
      "num_hidden_layers": 2, "intermediate_size": 16, "vocab_size": 10,
      "num_attention_heads": 2})";
  std::string shard1 = "{";
  std::string shard2 = "{";
  std::string weight_map;
  std::uint64_t off1 = 0;
  std::uint64_t off2 = 0;
  const auto add = [&](int shard, const std::string& name, std::vector<int> shape) {
    std::int64_t n = 1;
    std::string dims;
    for (int d : shape) {
      n *= d;
      dims += (dims.empty() ? "" : ",") + std::to_string(d);
    }
    std::string& h = shard == 1 ? shard1 : shard2;
    std::uint64_t& off = shard == 1 ? off1 : off2;
    const std::string dtype = name.ends_with("inv_freq") ? "F32" : "BF16";
    const std::uint64_t bytes = static_cast<std::uint64_t>(n) * (dtype == "F32" ? 4 : 2);
    if (h.size() > 1) h += ",";
    h += "\"" + name + "\": {\"dtype\": \"" + dtype + "\", \"shape\": [" + dims +
         "], \"data_offsets\": [" + std::to_string(off) + ", " + std::to_string(off + bytes) + "]}";
    off += bytes;
    if (!weight_map.empty()) weight_map += ",";
    weight_map +=
        "\"" + name + "\": \"model-0000" + std::to_string(shard) + "-of-00002.safetensors\"";
  };
  add(1, "model.embed_tokens.weight", {10, 8});
  for (int l = 0; l < 2; ++l) {
    const int shard = l + 1;
    const std::string p = "model.layers." + std::to_string(l) + ".";
    for (const char* m : {"q_proj", "k_proj", "v_proj", "o_proj"}) {
      add(shard, p + "self_attn." + m + ".weight", {8, 8});
    }
    add(shard, p + "self_attn.rotary_emb.inv_freq", {2});
    add(shard, p + "mlp.gate_proj.weight", {16, 8});
    add(shard, p + "mlp.up_proj.weight", {16, 8});
    add(shard, p + "mlp.down_proj.weight", {8, 16});
    add(shard, p + "input_layernorm.weight", {8});
    add(shard, p + "post_attention_layernorm.weight", {8});
  }
  add(2, "model.norm.weight", {8});
  add(2, "lm_head.weight", {10, 8});
  write_file(dir_ / "model-00001-of-00002.safetensors", shard1 + "}", off1);
  write_file(dir_ / "model-00002-of-00002.safetensors", shard2 + "}", off2);
  std::ofstream(dir_ / "model.safetensors.index.json")
      << "{\"metadata\": {\"total_size\": " << off1 + off2 << "}, \"weight_map\": {" << weight_map
      << "}}";

  const ModelSource m = load_model(dir_.string(), dir_);
  EXPECT_EQ(m.kind, "folder");
  ASSERT_TRUE(m.checkpoint.has_value());
  EXPECT_EQ(m.checkpoint->files.size(), 2U);
  EXPECT_EQ(m.checkpoint->buffer_elements, 4);
  // 2 * (4 * 64 + 3 * 128 + 16) + 80 + 8 + 80 by hand.
  EXPECT_EQ(m.counts->total, 2 * (4 * 64 + 3 * 128 + 16) + 80 + 8 + 80);
  EXPECT_EQ(m.checkpoint->parameter_elements(), m.counts->total);
  EXPECT_TRUE(m.warnings.empty()) << m.warnings.front();

  // A config that disagrees with the headers is reported, not silently trusted.
  std::ofstream(dir_ / "config.json") << R"({"model_type": "llama", "hidden_size": 8,
      "num_hidden_layers": 2, "intermediate_size": 16, "vocab_size": 10,
      "num_attention_heads": 2, "tie_word_embeddings": true})";
  const ModelSource tied = load_model(dir_.string(), dir_);
  ASSERT_EQ(tied.warnings.size(), 1U);
  EXPECT_THAT(tied.warnings[0], HasSubstr("difference 80"));

  // An index naming a shard that is not there.
  std::ofstream(dir_ / "model.safetensors.index.json")
      << R"({"weight_map": {"x": "model-00003-of-00003.safetensors"}})";
  EXPECT_THROW((void)load_model(dir_.string(), dir_), DataError);
  std::ofstream(dir_ / "model.safetensors.index.json") << R"({"weight_map": {"x": "../etc"}})";
  EXPECT_THROW((void)load_model(dir_.string(), dir_), DataError);
}

TEST_F(Safetensors, FolderWithoutConfigIsAnError) {
  write_file(dir_ / "model.safetensors", kTwoTensors, 32);
  try {
    (void)load_model(dir_.string(), dir_);
    FAIL();
  } catch (const DataError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no config.json"));
  }
}

TEST_F(Safetensors, UnknownModelSpecListsPresets) {
  std::ofstream(dir_ / "tiny.toml") << "";
  try {
    (void)load_model("no-such-model", dir_);
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_THAT(e.what(), HasSubstr("model: 'no-such-model' is not a config.json"));
    EXPECT_THAT(e.what(), HasSubstr("tiny"));
  }
}

}  // namespace
}  // namespace tb::io
