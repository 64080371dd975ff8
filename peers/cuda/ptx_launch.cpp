// ptx_launch: runs the kernels `mdh inspect` wrote for NVIDIA's OpenCL driver (<md_hom>.ptx, <md_hom>.launch.json)
// through the CUDA driver API, so that Nsight Compute, which profiles CUDA but not OpenCL, can profile the same
// machine code. Buffers hold random floats (their values do not matter to the timing); params are refused.
//
//   ptx_launch DIR/<md_hom> [--repeat N]   then e.g.   ncu --section SpeedOfLight ptx_launch DIR/gemm --repeat 2
#include <cuda.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/launch_plan.h"

namespace {

[[noreturn]] void fail(const std::string& message) {
  std::fprintf(stderr, "ptx_launch: %s\n", message.c_str());
  std::exit(2);
}

void check(CUresult result, const char* what) {
  if (result == CUDA_SUCCESS) return;
  const char* text = "unknown error";
  cuGetErrorString(result, &text);
  fail(std::string(what) + ": " + text);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot read '" + path + "' (write it with `mdh inspect ... -o DIR` on the GPU machine)");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

CUdeviceptr random_buffer(uint64_t bytes, std::mt19937& rng) {
  std::vector<float> host((bytes + 3) / 4);
  std::uniform_real_distribution<float> value(-1.0f, 1.0f);
  for (float& x : host) x = value(rng);
  CUdeviceptr device = 0;
  check(cuMemAlloc(&device, host.size() * 4), "cuMemAlloc");
  check(cuMemcpyHtoD(device, host.data(), host.size() * 4), "cuMemcpyHtoD");
  return device;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help") {
    std::printf("usage: ptx_launch DIR/<md_hom> [--repeat N]\n");
    return argc < 2 ? 2 : 0;
  }
  const std::string base = argv[1];
  int repeats = 20;
  for (int a = 2; a < argc; ++a) {
    if (std::string(argv[a]) == "--repeat" && a + 1 < argc)
      repeats = std::atoi(argv[++a]);
    else
      fail(std::string("unknown argument '") + argv[a] + "'");
  }
  if (repeats < 1) fail("--repeat must be at least 1");
  std::string ptx = read_file(base + ".ptx");
  const nlohmann::json launch_json = nlohmann::json::parse(read_file(base + ".launch.json"));
  const mdh::LaunchPlan plan = mdh::launch_from_json(launch_json);

  check(cuInit(0), "cuInit");
  CUdevice device;
  check(cuDeviceGet(&device, 0), "cuDeviceGet");
  CUcontext context;
  check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
  check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
  CUmodule module;
  std::vector<char> log(16384, '\0');
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {log.data(), reinterpret_cast<void*>(log.size())};
  if (cuModuleLoadDataEx(&module, ptx.c_str(), 2, options, values) != CUDA_SUCCESS)
    fail("the PTX does not load: " + std::string(log.data()));

  std::mt19937 rng(1);
  std::map<std::string, CUdeviceptr> buffers;
  for (const auto& b : launch_json.at("buffers"))
    buffers[b.at("name").get<std::string>()] = random_buffer(b.at("bytes").get<uint64_t>(), rng);
  std::vector<CUdeviceptr> scratch;
  for (const auto& s : plan.scratch) scratch.push_back(random_buffer(s.bytes, rng));

  struct Launch {
    CUfunction function;
    std::vector<CUdeviceptr> args;
    unsigned grid[3], block[3];
  };
  std::vector<Launch> launches;
  for (const mdh::KernelLaunch& k : plan.kernels) {
    Launch l{};
    check(cuModuleGetFunction(&l.function, module, k.kernel_name.c_str()), k.kernel_name.c_str());
    if (!k.local_size) fail(k.kernel_name + ": no work-group size in the launch description");
    for (int d = 0; d < 3; ++d) {
      l.block[d] = static_cast<unsigned>((*k.local_size)[d]);
      l.grid[d] = static_cast<unsigned>(k.global_size[d] / (*k.local_size)[d]);
    }
    for (const mdh::KernelArg& a : k.args) {
      if (a.kind == mdh::KernelArg::Kind::Buffer)
        l.args.push_back(buffers.at(a.name));
      else if (a.kind == mdh::KernelArg::Kind::Scratch)
        l.args.push_back(scratch.at(a.scratch));
      else
        fail(k.kernel_name + ": takes param '" + a.name + "', which this tool does not pass");
    }
    launches.push_back(l);
  }
  const auto call = [&] {
    for (Launch& l : launches) {
      std::vector<void*> params;
      for (CUdeviceptr& p : l.args) params.push_back(&p);
      check(cuLaunchKernel(l.function, l.grid[0], l.grid[1], l.grid[2], l.block[0], l.block[1], l.block[2], 0, nullptr,
                           params.data(), nullptr),
            "cuLaunchKernel");
    }
  };
  call();  // warm-up
  CUevent start, stop;
  check(cuEventCreate(&start, 0), "cuEventCreate");
  check(cuEventCreate(&stop, 0), "cuEventCreate");
  check(cuEventRecord(start, nullptr), "cuEventRecord");
  for (int r = 0; r < repeats; ++r) call();
  check(cuEventRecord(stop, nullptr), "cuEventRecord");
  check(cuEventSynchronize(stop), "cuEventSynchronize");
  float ms = 0;
  check(cuEventElapsedTime(&ms, start, stop), "cuEventElapsedTime");
  std::printf("%s: %.4f ms per call (%zu kernel%s), %d times back to back\n", base.c_str(), ms / repeats,
              launches.size(), launches.size() == 1 ? "" : "s", repeats);
  return 0;
}
