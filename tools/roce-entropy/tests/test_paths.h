// SPDX-License-Identifier: GPL-2.0
// Where the tests find the source tree's files: their captures, the bash
// completion, the man pages.  Only test_paths.cpp, which CMake writes from
// test_paths.cpp.in, holds the tree's path: the other test files compile
// the same in every clone, and ccache serves them.
#pragma once

#include <string>

namespace roce::test
{

std::string data_dir();        // tests/data
std::string completion_file(); // completion/roce-entropy.bash
std::string man_dir();         // man pages as CMake wrote them

} // namespace roce::test
