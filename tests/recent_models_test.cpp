// core::models recent list: the "Open model" dialog's last opened models, newest first, at
// most eight, in a file that may be missing or damaged without harm.
#include "models/formats/recent_models.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace {

namespace fs = std::filesystem;
namespace models = core::models;
using List = std::vector<std::string>;

class RecentModels : public ::testing::Test {
  protected:
    void SetUp() override {
        const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
        root_ = fs::temp_directory_path() /
                ("mha-recent-models-" + std::to_string(getpid()) + "-" + test->name());
        fs::remove_all(root_);
    }
    void TearDown() override { fs::remove_all(root_); }

    std::string path() const { return (root_ / "config" / "recent-models.json").string(); }

    fs::path root_;
};

TEST_F(RecentModels, NewestFirstOnceAndAtMostEight) {
    List recent;
    for (int i = 0; i < 10; ++i) recent = models::withRecentModel(recent, "m" + std::to_string(i));
    EXPECT_EQ(recent, (List{"m9", "m8", "m7", "m6", "m5", "m4", "m3", "m2"}));
    recent = models::withRecentModel(recent, "m5"); // opened again: moves to the front
    EXPECT_EQ(recent, (List{"m5", "m9", "m8", "m7", "m6", "m4", "m3", "m2"}));
}

TEST_F(RecentModels, WrittenAndReadBack) {
    EXPECT_TRUE(models::readRecentModels(path()).empty()); // no file yet
    const List recent = {"/models/gpt2", "openai-community/gpt2", "a \"quoted\" path"};
    models::writeRecentModels(path(), recent); // creates the folder
    EXPECT_EQ(models::readRecentModels(path()), recent);
    int files = 0;
    for (const auto& entry : fs::directory_iterator(fs::path(path()).parent_path()))
        files += entry.is_regular_file() ? 1 : 0;
    EXPECT_EQ(files, 1); // no temporary file left beside it
}

TEST_F(RecentModels, ADamagedFileIsAnEmptyListOrItsGoodEntries) {
    fs::create_directories(fs::path(path()).parent_path());
    for (const char* bad : {"", "{not json", "[\"a\"]", "{\"recent\": \"a\"}", "{\"other\": []}"}) {
        std::ofstream(path(), std::ios::binary) << bad;
        EXPECT_TRUE(models::readRecentModels(path()).empty()) << bad;
    }
    std::ofstream(path(), std::ios::binary)
        << R"({"recent": ["a", 3, "", null, "b", "a", "c", "d", "e", "f", "g", "h", "i"]})";
    EXPECT_EQ(models::readRecentModels(path()), (List{"a", "b", "c", "d", "e", "f", "g", "h"}));
    fs::remove(path());
    fs::create_directories(path()); // a folder where the file should be
    EXPECT_TRUE(models::readRecentModels(path()).empty());
    EXPECT_THROW(models::writeRecentModels(path(), {"a"}), std::runtime_error);
}

} // namespace
