// The headers nearly every test file reads, precompiled once for all test binaries
// (tests/CMakeLists.txt): GoogleTest, nlohmann::json and Eigen were most of a test file's compile.
#pragma once

#include <Eigen/Core>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>
