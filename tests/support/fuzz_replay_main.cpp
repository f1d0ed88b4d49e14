// Replays a libFuzzer entry point on files, one gtest test per file: what the
// fuzzers were seeded with and what they found (tests/fixtures/fuzz) must each
// be handled, accepted or refused, without a crash. The sanitizer build runs
// these with AddressSanitizer and UndefinedBehaviorSanitizer, so a read past
// an input's end or a leak fails the test as it would fail the fuzzer.
//
// Usage: NAME_replay FILE... [gtest flags]
#include <gtest/gtest.h>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

class ReplayTest : public ::testing::Test {
 public:
  explicit ReplayTest(std::string path) : path_(std::move(path)) {}
  void TestBody() override {
    std::ifstream file(path_, std::ios::binary);
    ASSERT_TRUE(file) << "cannot open " << path_;
    const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
    EXPECT_EQ(LLVMFuzzerTestOneInput(bytes.data(), bytes.size()), 0);
  }

 private:
  std::string path_;
};

// "tests/fixtures/mlp/model.pt2" -> "tests_fixtures_mlp_model_pt2".
std::string test_name(const std::string& path) {
  std::string name;
  for (char c : path) name += (std::isalnum(static_cast<unsigned char>(c)) ? c : '_');
  return name;
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE... (the inputs to replay)\n", argv[0]);
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    const std::string path = argv[i];
    ::testing::RegisterTest("Replay", test_name(path).c_str(), nullptr, path.c_str(), __FILE__, __LINE__,
                            [path]() -> ::testing::Test* { return new ReplayTest(path); });
  }
  return RUN_ALL_TESTS();
}
