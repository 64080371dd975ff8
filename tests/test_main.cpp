// The main of every test program: the tests run with TMPDIR set to a folder of their own, which is removed when they
// pass, so that nothing they or the mdh processes they start write under TMPDIR (scratch folders, kernels, journals,
// Open MPI's session) is left in the machine's /tmp. CTest runs each test in a process of its own: a folder per test.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const char* outer = std::getenv("TMPDIR");
  std::string pattern = std::string(outer && *outer ? outer : "/tmp") + "/mdh-test-XXXXXX";
  if (!::mkdtemp(pattern.data())) {
    std::cerr << "test main: cannot create a temporary folder from " << pattern << '\n';
    return 1;
  }
  ::setenv("TMPDIR", pattern.c_str(), 1);
  const int status = RUN_ALL_TESTS();
  if (status != 0) {
    // What a failed test wrote is kept for a look, as tests/integration/scratch_directory.h promises.
    std::cerr << "test main: the files of this run are kept in " << pattern << '\n';
    return status;
  }
  std::error_code ignored;
  std::filesystem::remove_all(pattern, ignored);
  return status;
}
