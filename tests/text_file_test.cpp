// The one reader of whole files (core/io/text_file.h): the bytes as they are, and a missing,
// unreadable or over-cap file refused by kind, reading at most a byte past the cap.
#include "io/text_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;

class TextFileTest : public ::testing::Test {
  protected:
    void SetUp() override {
        dir_ =
            fs::temp_directory_path() /
            ("mha-text-file-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
             "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    std::string write(const std::string& name, const std::string& bytes) const {
        const fs::path path = dir_ / name;
        std::ofstream(path, std::ios::binary) << bytes;
        return path.string();
    }
    fs::path dir_;
};

TEST_F(TextFileTest, ReadsEveryByteAsItIs) {
    const std::string bytes("a\0b\r\n\xff", 6);
    const core::TextFile file = core::readTextFile(write("f", bytes), core::kSettingsFileCap);
    EXPECT_TRUE(file.ok());
    EXPECT_EQ(file.text, bytes);
    EXPECT_TRUE(core::readTextFile(write("empty", ""), core::kSettingsFileCap).ok());
}

TEST_F(TextFileTest, AFileAtItsCapIsReadAndOneBytePastIsRefused) {
    const core::FileCap cap{"test file", 100};
    EXPECT_TRUE(core::readTextFile(write("at", std::string(100, 'x')), cap).ok());
    const core::TextFile over = core::readTextFile(write("over", std::string(101, 'x')), cap);
    EXPECT_EQ(over.problem, core::FileProblem::TooLarge);
    EXPECT_TRUE(over.text.empty());
    EXPECT_EQ(core::describeProblem(over.problem, core::kSceneFileCap),
              "larger than the 16 MB a scene may be");
}

TEST_F(TextFileTest, MissingFoldersAndEndlessFilesAreRefusedByName) {
    EXPECT_EQ(core::readTextFile((dir_ / "none").string(), core::kListFileCap).problem,
              core::FileProblem::Missing);
    EXPECT_EQ(core::readTextFile(dir_.string(), core::kListFileCap).problem,
              core::FileProblem::Unreadable);
    EXPECT_EQ(core::readTextFile("/dev/zero", core::kListFileCap).problem,
              core::FileProblem::TooLarge); // its size says 0; reading stops past the cap
    EXPECT_EQ(core::describeProblem(core::FileProblem::Missing, core::kListFileCap),
              "no such file");
}

} // namespace
