// How a family module joins the table: one line in its own file, codegen/families/<module>.cpp,
//
//   MDH_FAMILY_MODULE(<module>, <position>);
//   void add_<module>(std::vector<ParameterFamily>& table) { ... table.push_back(family); }
//
// The build lists the modules by these lines, ordered by position (codegen/list_family_modules.cmake writes
// family_module_list.h), and parameter_families.cpp calls them in that order. Table order is parameter order, which
// journals and seeded searches rely on: a new module takes a position above every other, and no position changes.
// An explicit generated list rather than self-registering globals: a static library's global constructors run only
// where the linker keeps their file, and in no set order (docs/decisions.md).
#pragma once

#include <vector>

#include "codegen/parameter_families.h"

/// Declares the module's `add_<module>` at its position in the table (a positive integer; see above).
#define MDH_FAMILY_MODULE(module, position)                                             \
  static_assert((position) > 0, "a family module's position in the table is positive"); \
  void add_##module(std::vector<ParameterFamily>& table)
