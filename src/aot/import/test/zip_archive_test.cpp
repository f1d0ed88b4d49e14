// ZipArchive and MappedFile on archives written at test time by minizip, laid
// out as PyTorch writes .pt2 files, and on damaged copies of them.
#include "aot/import/zip_archive.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstring>
#include <functional>

#include "aot/import/mapped_file.h"
#include "aot/import/test/zip_writer_util.h"
#include "aot/ir/error.h"
#include "aot/ir/testing/aot_testing.h"

namespace kiln::aot {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using zip_test::find_header;
using zip_test::put_le;
using zip_test::read_file;
using zip_test::write_file;
using zip_test::zip_bytes;
using zip_test::ZipEntrySpec;
using zip_test::ZipLayout;

using testing::error_of;

std::string text_of(std::span<const std::byte> bytes) {
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

std::string weight_bytes(size_t size) {
  std::string bytes(size, '\0');
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>(i * 7 + 1);
  return bytes;
}

std::shared_ptr<std::vector<std::byte>> heap_copy(const std::string& bytes) {
  auto copy = std::make_shared<std::vector<std::byte>>(bytes.size());
  if (!bytes.empty()) std::memcpy(copy->data(), bytes.data(), bytes.size());
  return copy;
}

// The shape of a small .pt2 archive, in the order torch writes it.
std::vector<ZipEntrySpec> pt2_entries() {
  return {
      {"foo/data/weights/weight_0", weight_bytes(100)},
      {"foo/data/weights/weight_1", weight_bytes(3)},
      {"foo/data/constants/tensor_0", ""},  // torch writes fake tensors as empty records
      {"foo/models/model.json", R"({"graph_module": {}})"},
      {"foo/archive_format", "pt2"},
      {"foo/.data/version", "6\n"},
  };
}

class ZipArchiveReadTest : public ::testing::Test {
 protected:
  std::string write(const std::string& file, const std::string& bytes) {
    const std::string path = dir_.file(file);
    write_file(path, bytes);
    return path;
  }
  std::string write_pt2(ZipLayout layout = {}) { return write("foo.pt2", zip_bytes(pt2_entries(), layout)); }

  zip_test::TempDir dir_;
};

using MappedFileTest = ZipArchiveReadTest;

TEST_F(ZipArchiveReadTest, ListsEntriesRelativeToTheTopFolder) {
  const ZipArchive archive = ZipArchive::open(write_pt2());
  EXPECT_EQ(archive.prefix(), "foo/");
  EXPECT_THAT(archive.entries(), ElementsAre(".data/version", "archive_format", "data/constants/tensor_0",
                                             "data/weights/weight_0", "data/weights/weight_1", "models/model.json"));
  EXPECT_TRUE(archive.contains("models/model.json"));
  EXPECT_FALSE(archive.contains("foo/models/model.json"));
  EXPECT_FALSE(archive.contains("models"));
  EXPECT_EQ(archive.path(), dir_.file("foo.pt2"));
}

TEST_F(ZipArchiveReadTest, ReadsEntriesInPlaceAlignedTo64Bytes) {
  const ZipArchive archive = ZipArchive::open(write_pt2());
  for (const ZipEntrySpec& spec : pt2_entries()) {
    const std::string name = spec.name.substr(4);
    SCOPED_TRACE(name);
    EXPECT_EQ(text_of(archive.data(name)), spec.data);
    EXPECT_EQ(archive.data_offset(name) % 64, 0u);
  }
  EXPECT_EQ(archive.read_text("archive_format"), "pt2");
  EXPECT_EQ(archive.read_text("models/model.json"), R"({"graph_module": {}})");
  EXPECT_TRUE(archive.data("data/constants/tensor_0").empty());
}

TEST_F(ZipArchiveReadTest, DataIsAViewIntoTheMapping) {
  const ZipArchive archive = ZipArchive::open(write_pt2());
  const auto whole = archive.bytes();
  EXPECT_EQ(whole.size(), read_file(dir_.file("foo.pt2")).size());
  const auto weight = archive.data("data/weights/weight_0");
  EXPECT_EQ(weight.data(), whole.data() + archive.data_offset("data/weights/weight_0"));
  EXPECT_LE(weight.data() + weight.size(), whole.data() + whole.size());
  EXPECT_EQ(archive.data("data/weights/weight_0").data(), weight.data());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(weight.data()) % 64, 0u);  // the mapping is page-aligned
  const auto storage = archive.storage("data/weights/weight_0");
  EXPECT_EQ(storage->data, weight.data());
  EXPECT_EQ(storage->nbytes, 100u);
}

TEST_F(ZipArchiveReadTest, ReadsZip64Entries) {
  const ZipArchive archive = ZipArchive::open(write_pt2({.align = true, .zip64 = true}));
  const std::string zip = read_file(archive.path());
  // minizip puts a zip64 field after the alignment field: the data offset
  // must come from the local header's whole extra field.
  const size_t local = find_header(zip, std::string_view("PK\3\4", 4), "foo/data/weights/weight_1");
  EXPECT_EQ(zip.compare(local + 30 + 25, 2, "FB"), 0);
  for (const ZipEntrySpec& spec : pt2_entries()) {
    const std::string name = spec.name.substr(4);
    SCOPED_TRACE(name);
    EXPECT_EQ(text_of(archive.data(name)), spec.data);
    EXPECT_EQ(archive.data_offset(name) % 64, 0u);
  }
}

TEST_F(ZipArchiveReadTest, ReadsAZip64EndOfCentralDirectory) {
  // As torch writes it: a reader that ignored the zip64 record would find
  // 0xffff entries at offset 0xffffffff in the classic one.
  for (const bool zip64_entries : {false, true}) {
    SCOPED_TRACE(zip64_entries ? "zip64 entries" : "classic entries");
    const ZipArchive archive = ZipArchive::open(write_pt2({.zip64 = zip64_entries, .zip64_end = true}));
    ASSERT_EQ(archive.entries().size(), pt2_entries().size());
    for (const ZipEntrySpec& spec : pt2_entries()) {
      const std::string name = spec.name.substr(4);
      EXPECT_EQ(text_of(archive.data(name)), spec.data) << name;
      EXPECT_EQ(archive.data_offset(name) % 64, 0u) << name;
    }
  }
}

TEST_F(ZipArchiveReadTest, StorageKeepsTheMappingAlive) {
  std::shared_ptr<Storage> storage;
  {
    const ZipArchive archive = ZipArchive::open(write_pt2());
    storage = archive.storage("data/weights/weight_0");
  }
  ASSERT_EQ(storage->nbytes, 100u);
  EXPECT_EQ(std::string(static_cast<const char*>(storage->data), storage->nbytes), weight_bytes(100));
}

TEST_F(ZipArchiveReadTest, WritesThroughStorageNeverReachTheFile) {
  const std::string path = write_pt2();
  const std::string before = read_file(path);
  const ZipArchive archive = ZipArchive::open(path);
  const auto storage = archive.storage("data/weights/weight_0");
  std::memset(storage->data, 0x5a, storage->nbytes);
  EXPECT_EQ(text_of(archive.data("data/weights/weight_0")), std::string(100, 0x5a));  // seen in this process
  EXPECT_EQ(read_file(path), before);
  EXPECT_EQ(text_of(ZipArchive::open(path).data("data/weights/weight_0")), weight_bytes(100));
}

TEST_F(ZipArchiveReadTest, ReadsAnArchiveInMemory) {
  const auto bytes = heap_copy(zip_bytes(pt2_entries()));
  const ZipArchive archive = ZipArchive::from_memory(*bytes, bytes, "<memory>");
  EXPECT_EQ(archive.prefix(), "foo/");
  EXPECT_EQ(archive.read_text("archive_format"), "pt2");
  EXPECT_EQ(archive.data("models/model.json").data(), bytes->data() + archive.data_offset("models/model.json"));
  EXPECT_EQ(archive.storage("archive_format")->owner, bytes);
}

TEST_F(ZipArchiveReadTest, ReadsAnArchiveWithBytesBeforeIt) {
  // Offsets in the file are then relative to the archive's start, as in a
  // self-extracting archive; readers (Python's zipfile too) allow for it.
  const ZipArchive archive = ZipArchive::open(write("sfx.pt2", "#!/bin/sh\n" + zip_bytes(pt2_entries())));
  EXPECT_EQ(archive.read_text("models/model.json"), R"({"graph_module": {}})");
  EXPECT_EQ(text_of(archive.data("data/weights/weight_0")), weight_bytes(100));
  EXPECT_EQ(archive.data_offset("data/weights/weight_0") % 64, 10u);
}

TEST_F(ZipArchiveReadTest, OpensFlatArchivesByFullNames) {
  const std::string path =
      write("arrays.npz", zip_bytes({{"a.npy", "AAAA"}, {"b.npy", "BB"}, {"c.npy", "cc", true}}, {.align = false}));
  const ZipArchive archive = ZipArchive::open_flat(path);
  EXPECT_EQ(archive.prefix(), "");
  EXPECT_THAT(archive.entries(), ElementsAre("a.npy", "b.npy", "c.npy"));
  EXPECT_EQ(archive.read_text("b.npy"), "BB");
  EXPECT_THAT(error_of([&] { archive.data("c.npy"); }),
              HasSubstr("entry 'c.npy' is compressed (method 8); Kiln reads stored entries only"));
  EXPECT_THAT(error_of([&] { ZipArchive::open(path); }), HasSubstr("entry 'a.npy' is not inside a top folder"));
}

TEST_F(ZipArchiveReadTest, SkipsDirectoryEntries) {
  const ZipArchive archive =
      ZipArchive::open(write("dirs.pt2", zip_bytes({{"foo/", ""}, {"foo/data/", ""}, {"foo/data/x", "x"}})));
  EXPECT_EQ(archive.prefix(), "foo/");
  EXPECT_THAT(archive.entries(), ElementsAre("data/x"));
}

TEST_F(ZipArchiveReadTest, MissingEntryIsNamed) {
  const ZipArchive archive = ZipArchive::open(write_pt2());
  EXPECT_THAT(error_of([&] { archive.data("data/weights/weight_7"); }),
              HasSubstr("foo.pt2: missing entry 'data/weights/weight_7'"));
  EXPECT_THAT(error_of([&] { archive.storage("nope"); }), HasSubstr("missing entry 'nope'"));
  EXPECT_THAT(error_of([&] { archive.data_offset("nope"); }), HasSubstr("missing entry 'nope'"));
}

TEST_F(ZipArchiveReadTest, CompressedEntriesAreListedButNotMapped) {
  auto entries = pt2_entries();
  entries.push_back({"foo/data/weights/weight_2", std::string(4096, 'w'), /*deflate=*/true});
  const ZipArchive archive = ZipArchive::open(write("foo.pt2", zip_bytes(entries)));
  EXPECT_TRUE(archive.contains("data/weights/weight_2"));
  const std::string expected =
      "entry 'data/weights/weight_2' is compressed (method 8); Kiln reads stored entries only (.pt2 entries must be "
      "stored)";
  EXPECT_THAT(error_of([&] { archive.data("data/weights/weight_2"); }), HasSubstr(expected));
  EXPECT_THAT(error_of([&] { archive.storage("data/weights/weight_2"); }), HasSubstr(expected));
  EXPECT_THAT(error_of([&] { archive.read_text("data/weights/weight_2"); }), HasSubstr(expected));
  EXPECT_EQ(archive.read_text("archive_format"), "pt2");
}

TEST_F(ZipArchiveReadTest, EncryptedEntriesAreRefused) {
  std::string zip = zip_bytes(pt2_entries());
  const size_t central = find_header(zip, std::string_view("PK\1\2", 4), "foo/archive_format");
  zip[central + 8] = static_cast<char>(zip[central + 8] | 1);
  const ZipArchive archive = ZipArchive::open(write("foo.pt2", zip));
  EXPECT_THAT(error_of([&] { archive.data("archive_format"); }), HasSubstr("entry 'archive_format' is encrypted"));
}

TEST_F(ZipArchiveReadTest, EveryTruncationIsAnError) {
  for (const ZipLayout layout : {ZipLayout{}, ZipLayout{.zip64 = true, .zip64_end = true}}) {
    const std::string zip = zip_bytes(pt2_entries(), layout);
    for (size_t cut = 0; cut < zip.size(); ++cut) {
      SCOPED_TRACE("cut at " + std::to_string(cut) + " of " + std::to_string(zip.size()));
      // On the heap, sized exactly, so that AddressSanitizer sees any read past the cut.
      const auto bytes = heap_copy(zip.substr(0, cut));
      EXPECT_THROW(ZipArchive::from_memory(*bytes, bytes, "cut"), AotError);
    }
  }
}

TEST_F(ZipArchiveReadTest, TruncationMessagesNameTheFile) {
  const std::string zip = zip_bytes(pt2_entries());
  const size_t central = find_header(zip, std::string_view("PK\1\2", 4), "foo/models/model.json");
  const size_t weight = find_header(zip, std::string_view("PK\3\4", 4), "foo/data/weights/weight_0");
  const std::string not_a_zip = "not a zip archive, or a truncated one";
  EXPECT_THAT(error_of([&] { ZipArchive::open(write("a.pt2", zip.substr(0, central + 10))); }),
              HasSubstr("a.pt2: " + not_a_zip));
  EXPECT_THAT(error_of([&] { ZipArchive::open(write("b.pt2", zip.substr(0, weight + 120))); }),
              HasSubstr("b.pt2: " + not_a_zip));
  EXPECT_THAT(error_of([&] { ZipArchive::open(write("c.pt2", zip.substr(0, 10))); }), HasSubstr("c.pt2: " + not_a_zip));
  EXPECT_THAT(error_of([&] { ZipArchive::open(write("d.pt2", "")); }), HasSubstr("d.pt2: the file is empty"));
}

TEST_F(ZipArchiveReadTest, EntryReachingPastTheEndIsNamed) {
  std::string zip = zip_bytes(pt2_entries());
  const size_t local = find_header(zip, std::string_view("PK\3\4", 4), "foo/data/weights/weight_0");
  const size_t central = find_header(zip, std::string_view("PK\1\2", 4), "foo/data/weights/weight_0");
  for (size_t field : {local + 18, local + 22, central + 20, central + 24}) put_le(zip, field, 1u << 30, 4);
  EXPECT_THAT(error_of([&] { ZipArchive::open(write("foo.pt2", zip)); }),
              HasSubstr("foo.pt2: entry 'data/weights/weight_0' reaches past the end of the file (truncated?)"));
}

TEST_F(ZipArchiveReadTest, StoredEntryWithUnequalSizesIsRefused) {
  std::string zip = zip_bytes(pt2_entries());
  const size_t central = find_header(zip, std::string_view("PK\1\2", 4), "foo/data/weights/weight_1");
  put_le(zip, central + 24, 7, 4);
  EXPECT_THAT(error_of([&] { ZipArchive::open(write("foo.pt2", zip)); }),
              HasSubstr("entry 'data/weights/weight_1' is stored but its sizes differ (3 and 7 bytes)"));
}

TEST_F(ZipArchiveReadTest, CorruptLocalHeaderIsNamed) {
  std::string zip = zip_bytes(pt2_entries());
  zip.replace(find_header(zip, std::string_view("PK\3\4", 4), "foo/models/model.json"), 4, "XXXX");
  EXPECT_THAT(error_of([&] { ZipArchive::open(write("foo.pt2", zip)); }),
              HasSubstr("foo.pt2: entry 'models/model.json' has a corrupt local header"));
}

TEST_F(ZipArchiveReadTest, CorruptCentralDirectoryIsAnError) {
  std::string zip = zip_bytes(pt2_entries());
  zip.replace(find_header(zip, std::string_view("PK\1\2", 4), "foo/models/model.json"), 4, "XXXX");
  EXPECT_THAT(error_of([&] { ZipArchive::open(write("foo.pt2", zip)); }),
              HasSubstr("foo.pt2: corrupt or truncated central directory: entry 3 of 6 is unreadable"));
}

TEST_F(ZipArchiveReadTest, EveryFlippedByteIsReadSafelyOrRefused) {
  const std::string zip = zip_bytes(pt2_entries(), {.zip64 = true, .zip64_end = true});
  for (size_t at = 0; at < zip.size(); ++at) {
    const auto bytes = heap_copy(zip);
    (*bytes)[at] ^= std::byte{0xff};
    try {
      const ZipArchive archive = ZipArchive::from_memory(*bytes, bytes, "flipped");
      for (const std::string& name : archive.entries()) {
        try {
          const auto data = archive.data(name);
          EXPECT_GE(data.data(), bytes->data());
          EXPECT_LE(data.data() + data.size(), bytes->data() + bytes->size());
        } catch (const AotError&) {
        }
      }
    } catch (const AotError&) {
    }
  }
}

TEST_F(ZipArchiveReadTest, EntriesOutsideTheTopFolderAreRefused) {
  const std::string path = write("mixed.pt2", zip_bytes({{"foo/a", "a"}, {"bar/b", "b"}}));
  EXPECT_THAT(error_of([&] { ZipArchive::open(path); }),
              HasSubstr("mixed.pt2: entry 'bar/b' is outside the archive's top folder 'foo/'"));
  const std::string root = write("root.pt2", zip_bytes({{"foo/a", "a"}, {"version", "1"}}));
  EXPECT_THAT(error_of([&] { ZipArchive::open(root); }),
              HasSubstr("entry 'version' is outside the archive's top folder 'foo/'"));
}

TEST_F(ZipArchiveReadTest, DuplicateNamesAreRefused) {
  const std::string path = write("dup.pt2", zip_bytes({{"foo/a", "1"}, {"foo/b", "2"}, {"foo/a", "3"}}));
  EXPECT_THAT(error_of([&] { ZipArchive::open(path); }), HasSubstr("dup.pt2: entry 'a' appears twice"));
}

TEST_F(ZipArchiveReadTest, NonZipFilesAreRefused) {
  const std::string text = write("model.json", std::string(2000, '{'));
  EXPECT_THAT(error_of([&] { ZipArchive::open(text); }), HasSubstr(text + ": not a zip archive, or a truncated one"));
  const std::string missing = dir_.file("missing.pt2");
  EXPECT_THAT(error_of([&] { ZipArchive::open(missing); }),
              HasSubstr(missing + ": cannot open: No such file or directory"));
  EXPECT_THAT(error_of([&] { ZipArchive::open(dir_.path()); }),
              HasSubstr(dir_.path() + ": cannot open: Is a directory"));
}

TEST_F(ZipArchiveReadTest, EmptyArchiveIsRefused) {
  // minizip takes an end record at offset 0 for none at all.
  for (const ZipLayout layout : {ZipLayout{}, ZipLayout{.zip64_end = true}}) {
    EXPECT_THAT(error_of([&] { ZipArchive::open(write("empty.pt2", zip_bytes({}, layout))); }),
                HasSubstr("empty.pt2: not a zip archive"));
  }
  // With something before it, the record is found, and holds no entries.
  EXPECT_THAT(error_of([&] { ZipArchive::open(write("sfx.pt2", "#!/bin/sh\n" + zip_bytes({}))); }),
              HasSubstr("sfx.pt2: the archive has no entries"));
}

TEST_F(MappedFileTest, MapsTheWholeFileCopyOnWrite) {
  const std::string path = write("bytes.bin", "0123456789");
  const auto file = MappedFile::open(path);
  EXPECT_EQ(file->path(), path);
  ASSERT_EQ(file->size(), 10u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(file->data()), file->size()), "0123456789");
  file->data()[0] = std::byte{'X'};
  EXPECT_EQ(read_file(path), "0123456789");
  EXPECT_THAT(error_of([&] { MappedFile::open(write("empty.bin", "")); }), HasSubstr("empty.bin: the file is empty"));
  const std::string fifo = dir_.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_THAT(error_of([&] { MappedFile::open(fifo); }), HasSubstr(fifo + ": cannot open: not a regular file"));
}

#ifdef KILN_SOURCE_DIR
TEST(ZipArchiveTorchFileTest, ReadsAnArchiveWrittenByTorch) {
  const ZipArchive archive = ZipArchive::open(KILN_SOURCE_DIR "/tests/fixtures/small_cnn/model.pt2");
  EXPECT_EQ(archive.prefix(), "model/");
  EXPECT_EQ(archive.read_text("archive_format"), "pt2");
  EXPECT_TRUE(archive.contains("models/model.json"));
  for (const std::string& name : archive.entries()) EXPECT_EQ(archive.data_offset(name) % 64, 0u) << name;
}
#endif

}  // namespace
}  // namespace kiln::aot
