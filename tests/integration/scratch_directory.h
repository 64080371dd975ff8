// A fresh folder per test for the files a test writes (journals, exported kernels, stores), named after the suite,
// the process and the test; removed at the end unless the test failed, so that what it wrote can be looked at.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <utility>

namespace mdh::testing {

class ScratchDirectoryTest : public ::testing::Test {
 protected:
  explicit ScratchDirectoryTest(std::string prefix) : prefix_(std::move(prefix)) {}
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / (prefix_ + "_" + std::to_string(::getpid()) + "_" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) std::filesystem::remove_all(dir_);
  }

  std::filesystem::path dir_;

 private:
  std::string prefix_;
};

}  // namespace mdh::testing
