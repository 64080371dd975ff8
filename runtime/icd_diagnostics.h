// Why an OpenCL platform is missing: which ICD files the loader reads and whether each driver library loads.
// For `mdh devices --icd` and for a tuning worker that cannot find the device its parent chose.
#pragma once

#include <string>

namespace mdh {

/// Several lines: the ICD folder or files the loader reads (OCL_ICD_VENDORS, OCL_ICD_FILENAMES or
/// /etc/OpenCL/vendors), each .icd file with its library and the result of loading it (dlopen's error when it
/// fails), and the process state that changes what a driver sees (LD_LIBRARY_PATH, blocked and ignored signals).
std::string describe_icd_loading();

}  // namespace mdh
