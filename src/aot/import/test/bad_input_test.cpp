// Bad .pt2 files: each must give an AotError that names the entry, node or
// field, never a crash. The files are made at test time by rewriting a good
// fixture: truncating it, dropping or replacing entries, editing its JSON.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <minizip/zip.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "aot/import/pt2_reader.h"
#include "aot/import/zip_archive.h"
#include "aot/ir/error.h"

namespace kiln::aot {
namespace {

using ::testing::HasSubstr;
using nlohmann::json;

const std::string kGood = KILN_SOURCE_DIR "/tests/fixtures/mlp/model.core.pt2";

std::string temp_path(const std::string& name) {
  return (std::filesystem::path(::testing::TempDir()) / ("kiln_bad_" + name)).string();
}

// Copies the good archive with `edit` applied to each entry: it returns the
// new contents, or nullopt to drop the entry. `method` 8 deflates entries.
std::string rewrite(const std::string& name,
                    const std::function<std::optional<std::string>(const std::string&, const std::string&)>& edit,
                    int method = 0) {
  const ZipArchive good = ZipArchive::open(kGood);
  const std::string path = temp_path(name);
  zipFile zip = zipOpen64(path.c_str(), APPEND_STATUS_CREATE);
  EXPECT_NE(zip, nullptr);
  for (const std::string& entry : good.entries()) {
    const std::optional<std::string> contents = edit(entry, good.read_text(entry));
    if (!contents) continue;
    zip_fileinfo info{};
    const std::string full = good.prefix() + entry;
    EXPECT_EQ(zipOpenNewFileInZip64(zip, full.c_str(), &info, nullptr, 0, nullptr, 0, nullptr, method, method ? 6 : 0, 0),
              ZIP_OK);
    EXPECT_EQ(zipWriteInFileInZip(zip, contents->data(), static_cast<unsigned>(contents->size())), ZIP_OK);
    EXPECT_EQ(zipCloseFileInZip(zip), ZIP_OK);
  }
  EXPECT_EQ(zipClose(zip, nullptr), ZIP_OK);
  return path;
}

// The good archive with models/model.json passed through `edit`.
std::string with_program(const std::string& name, const std::function<void(json&)>& edit) {
  return rewrite(name, [&](const std::string& entry, const std::string& text) -> std::optional<std::string> {
    if (entry != "models/model.json") return text;
    json program = json::parse(text);
    edit(program);
    return program.dump();
  });
}

std::string error_loading(const std::string& path) {
  try {
    load_pt2(path);
  } catch (const AotError& error) {
    return error.what();
  }
  return "(loaded without error)";
}

TEST(BadPt2Test, TheUnmodifiedCopyLoads) {
  const std::string path = rewrite("copy.pt2", [](const std::string&, const std::string& text) { return text; });
  EXPECT_NO_THROW(load_pt2(path));
}

TEST(BadPt2Test, TruncatedAnywhereGivesAnErrorNotACrash) {
  std::ifstream in(kGood, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (size_t cut : {size_t{0}, size_t{10}, size_t{100}, bytes.size() / 3, bytes.size() / 2, bytes.size() - 200,
                     bytes.size() - 30, bytes.size() - 1}) {
    const std::string path = temp_path("truncated.pt2");
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(cut));
    const std::string message = error_loading(path);
    EXPECT_THAT(message, HasSubstr(path)) << "cut at " << cut;
    EXPECT_THAT(message, ::testing::Not(HasSubstr("loaded without error"))) << "cut at " << cut;
  }
}

TEST(BadPt2Test, MissingFileAndNotAZip) {
  EXPECT_THAT(error_loading("/nonexistent/model.pt2"), HasSubstr("/nonexistent/model.pt2: cannot open"));
  const std::string path = temp_path("text.pt2");
  std::ofstream(path) << "this is not a zip archive";
  EXPECT_THAT(error_loading(path), HasSubstr("not a zip archive"));
}

TEST(BadPt2Test, MissingProgramEntry) {
  const std::string path = rewrite("no_program.pt2", [](const std::string& entry, const std::string& text) {
    return entry == "models/model.json" ? std::nullopt : std::optional<std::string>(text);
  });
  EXPECT_THAT(error_loading(path), HasSubstr("the archive has no program (no models/<name>.json entry)"));
}

TEST(BadPt2Test, MissingWeightEntryIsNamed) {
  const std::string path = rewrite("no_weight.pt2", [](const std::string& entry, const std::string& text) {
    return entry == "data/weights/weight_0" ? std::nullopt : std::optional<std::string>(text);
  });
  EXPECT_THAT(error_loading(path), HasSubstr("missing entry 'data/weights/weight_0'"));
}

TEST(BadPt2Test, WeightFileShorterThanItsConfig) {
  const std::string path = rewrite("short_weight.pt2", [](const std::string& entry, const std::string& text) {
    return entry == "data/weights/weight_0" ? text.substr(0, text.size() / 2) : text;
  });
  const std::string message = error_loading(path);
  EXPECT_THAT(message, HasSubstr("(entry 'data/weights/weight_0')"));
  EXPECT_THAT(message, HasSubstr("reaches past its storage"));
}

TEST(BadPt2Test, WeightSizesThatOverflow) {
  const std::string path = rewrite("overflow.pt2", [](const std::string& entry, const std::string& text) {
    if (entry != "data/weights/model_weights_config.json") return text;
    json config = json::parse(text);
    for (auto& [name, weight] : config["config"].items()) {
      weight["tensor_meta"]["sizes"] = json::parse(R"([{"as_int": 4611686018427387904}, {"as_int": 8}])");
      weight["tensor_meta"]["strides"] = json::parse(R"([{"as_int": 8}, {"as_int": 1}])");
      break;
    }
    return config.dump();
  });
  EXPECT_THAT(error_loading(path), HasSubstr("overflow"));
}

TEST(BadPt2Test, CompressedEntries) {
  const std::string path = rewrite("deflated.pt2", [](const std::string&, const std::string& text) { return text; }, 8);
  EXPECT_THAT(error_loading(path), HasSubstr("is compressed (method 8); Kiln reads stored entries only"));
}

TEST(BadPt2Test, UnknownSchemaMajorVersion) {
  const std::string path = with_program("major.pt2", [](json& p) { p["schema_version"]["major"] = 9; });
  EXPECT_THAT(error_loading(path), HasSubstr("models/model.json: schema major version 9 is not supported"));
}

TEST(BadPt2Test, UnknownOpNamesTheNode) {
  const std::string path = with_program("unknown_op.pt2", [](json& p) {
    p["graph_module"]["graph"]["nodes"][0]["target"] = "torch.ops.aten.frobnicate.default";
  });
  EXPECT_THAT(error_loading(path), HasSubstr("node 'permute': unknown op 'aten::frobnicate.default'"));
}

TEST(BadPt2Test, WrongDtypeCodeNamesTheValue) {
  const std::string path = with_program("dtype.pt2", [](json& p) {
    p["graph_module"]["graph"]["tensor_values"]["addmm"]["dtype"] = 250;
  });
  EXPECT_THAT(error_loading(path), HasSubstr("value 'addmm': unknown or unsupported dtype code 250"));
}

TEST(BadPt2Test, MalformedJson) {
  const std::string path = rewrite("json.pt2", [](const std::string& entry, const std::string& text) {
    return entry == "models/model.json" ? text.substr(0, text.size() / 2) : text;
  });
  EXPECT_THAT(error_loading(path), HasSubstr("entry 'models/model.json' is not valid JSON"));
}

TEST(BadPt2Test, AWeightThatDisagreesWithItsPlaceholder) {
  const std::string path = rewrite("shape.pt2", [](const std::string& entry, const std::string& text) {
    if (entry != "data/weights/model_weights_config.json") return text;
    json config = json::parse(text);
    config["config"]["fc1.bias"]["tensor_meta"]["sizes"] = json::parse(R"([{"as_int": 16}])");
    return config.dump();
  });
  EXPECT_THAT(error_loading(path), HasSubstr("placeholder 'p_fc1_bias' (PARAMETER 'fc1.bias') is f32[32] but the state dict holds f32[16]"));
}

TEST(ZipArchiveTest, MapsEntriesInPlaceAlignedAsTorchWritesThem) {
  const ZipArchive archive = ZipArchive::open(kGood);
  EXPECT_EQ(archive.prefix(), "model.core/");
  EXPECT_TRUE(archive.contains("models/model.json"));
  for (const std::string& entry : archive.entries()) {
    if (entry.rfind("data/weights/weight_", 0) == 0) {
      EXPECT_EQ(archive.data_offset(entry) % 64, 0u) << entry;
    }
  }
  const auto first = archive.data("data/weights/weight_0");
  EXPECT_EQ(first.data(), archive.data("data/weights/weight_0").data());  // the same bytes, not a copy
  auto storage = archive.storage("data/weights/weight_0");
  EXPECT_EQ(storage->data, static_cast<const void*>(first.data()));
}

TEST(ZipArchiveTest, StorageOutlivesTheArchiveAndWritesStayInMemory) {
  std::shared_ptr<Storage> storage;
  std::string before;
  {
    const ZipArchive archive = ZipArchive::open(kGood);
    storage = archive.storage("data/weights/weight_0");
    before = archive.read_text("data/weights/weight_0");
  }
  static_cast<char*>(storage->data)[0] ^= 0x55;  // the mapping is private: the file keeps its bytes
  const ZipArchive again = ZipArchive::open(kGood);
  EXPECT_EQ(again.read_text("data/weights/weight_0"), before);
}

}  // namespace
}  // namespace kiln::aot
