// Inputs npz_fuzz found that crashed the .npy reader (`kiln run --inputs`),
// each now refused with an AotError naming the problem.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "aot/import/npz.h"
#include "aot/ir/error.h"

namespace kiln::aot {
namespace {

using ::testing::HasSubstr;

// A version 1.0 .npy file: magic, version, header length, `header`, `data`.
std::string npy(const std::string& header, const std::string& data) {
  std::string bytes = "\x93NUMPY";
  bytes += '\x01';
  bytes += '\x00';
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  return bytes + header + data;
}

std::string error_parsing(const std::string& bytes) {
  try {
    parse_npy(bytes.data(), bytes.size(), "x.npy");
  } catch (const AotError& error) {
    return error.what();
  }
  return "no error";
}

TEST(NpzFuzzRegression, AnEmptyDescrIsAnError) {
  // Was std::out_of_range from substr (the process terminated).
  EXPECT_THAT(error_parsing(npy("{'descr':, 'fortran_order': False, 'shape': (3,), }\n", "")),
              HasSubstr("x.npy: the .npy header's descr is not a quoted string"));
}

TEST(NpzFuzzRegression, AShapeLargerThanTheDataIsRefusedBeforeAllocating) {
  // Was an allocation of 400 GB (std::bad_alloc, or an out-of-memory abort).
  EXPECT_THAT(error_parsing(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (100000000000,), }\n",
                                std::string(16, '\0'))),
              HasSubstr("x.npy: holds 16 bytes of data, but shape (100000000000,) of <f4 needs 400000000000"));
}

TEST(NpzFuzzRegression, AShapeWhoseByteCountOverflowsIsAnError) {
  EXPECT_THAT(error_parsing(npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }\n",
                                "")),
              HasSubstr("x.npy: shape (4294967296, 4294967296) overflows"));
}

TEST(NpzFuzzRegression, AnArrayThatFitsStillReads) {
  const std::string bytes =
      npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }\n", std::string("\x07\0\0\0\x09\0\0\0", 8));
  const HostTensor tensor = parse_npy(bytes.data(), bytes.size(), "x.npy");
  ASSERT_EQ(tensor.numel(), 2);
  EXPECT_EQ(tensor.data<int32_t>()[0], 7);
  EXPECT_EQ(tensor.data<int32_t>()[1], 9);
}

}  // namespace
}  // namespace kiln::aot
