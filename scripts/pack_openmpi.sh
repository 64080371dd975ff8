#!/usr/bin/env bash
# Packs Debian's Open MPI runtime (mpirun, orted, the libraries and the plugins a one-host job loads) into a folder
# that travels to a machine without Open MPI (the GPU machine's image has none) and works there unpacked anywhere:
#
#   scripts/pack_openmpi.sh [DIR]          (default DIR: .openmpi in the repository root, git-ignored locally)
#
# There: `source DIR/env.sh`, then mpirun as usual. env.sh relocates Open MPI and PMIx to DIR (OPAL_PREFIX, the
# plugin paths), allows root, and leaves out the network plugins of cluster fabrics (InfiniBand, OFI, UCX, PSM): on
# one host the ranks talk through shared memory (btl vader) and TCP. Needs apt-get (downloads, installs nothing);
# prints the folder's size, which must stay well inside the device tool's 64 MiB carry limit.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
out=${1:-$top/.openmpi}
out=$(realpath -m "$out")
packages=(openmpi-bin libopenmpi3 openmpi-common libpmix2 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7
  libevent-2.1-7 zlib1g libudev1 libltdl7 libmunge2)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download -q "${packages[@]}" >/dev/null)
rm -rf "$out"
mkdir -p "$out"
for deb in "$work"/*.deb; do dpkg -x "$deb" "$out"; done
# What a run does not need: documentation, headers, compiler wrappers' data, Fortran, Java, OpenSHMEM, static files.
rm -rf "$out"/usr/share/doc "$out"/usr/share/man "$out"/usr/share/lintian "$out"/usr/include \
  "$out"/usr/lib/x86_64-linux-gnu/openmpi/include "$out"/usr/share/openmpi/*wrapper-data.txt
find "$out" \( -name '*.a' -o -name '*.la' -o -name '*fortran*' -o -name 'libmpi_mpifh*' -o -name 'libmpi_use*' \
  -o -name '*java*' -o -name '*oshmem*' -o -name 'mca_spml_*' -o -name 'mca_sshmem_*' -o -name 'mca_scoll_*' \
  -o -name 'mca_atomic_*' \) -exec rm -rf {} +
# The cluster fabrics' plugins (and what else needs a library that is not here): Open MPI skips a plugin that is
# absent, while one that fails to load prints a warning.
libpath="$out/usr/lib/x86_64-linux-gnu:$out/lib/x86_64-linux-gnu:$out/usr/lib/x86_64-linux-gnu/openmpi/lib"
system='^(linux-vdso|libc\.so|libm\.so|libdl\.so|librt\.so|libpthread\.so|ld-linux|libgcc_s\.so|libstdc\+\+\.so|libutil\.so)'
missing_of() {
  LD_LIBRARY_PATH=$libpath ldd "$1" 2>/dev/null | awk '/=>/ {print $1, $3}' | while read -r name path; do
    [[ $name =~ $system || $path == "$out"/* ]] || echo "$name"
  done
}
dropped=()
while IFS= read -r plugin; do
  if [[ -n $(missing_of "$plugin") ]]; then
    dropped+=("$(basename "$plugin")")
    rm -f "$plugin"
  fi
done < <(find "$out"/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3 "$out"/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix \
  "$out"/usr/lib/x86_64-linux-gnu/hwloc -name '*.so' 2>/dev/null)
for core in "$out"/usr/bin/orterun "$out"/usr/bin/orted "$out"/usr/lib/x86_64-linux-gnu/openmpi/lib/libmpi.so; do
  if [[ -n $(missing_of "$core") ]]; then
    echo "pack_openmpi: $core needs $(missing_of "$core" | tr '\n' ' ')which the pack lacks" >&2
    exit 1
  fi
done
# Debian names the launcher through its alternatives system, which dpkg -x does not set up.
ln -sf orterun "$out/usr/bin/mpirun"
ln -sf orterun "$out/usr/bin/mpiexec"
cat >"$out/env.sh" <<'ENV'
# sourced where Open MPI is not installed: this folder's Open MPI on the paths, relocated to where it lies
_ompi=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export OPAL_PREFIX=$_ompi/usr
export OPAL_LIBDIR=$_ompi/usr/lib/x86_64-linux-gnu/openmpi/lib
export OPAL_PKGDATADIR=$_ompi/usr/share/openmpi OPAL_DATADIR=$_ompi/usr/share OPAL_SYSCONFDIR=$_ompi/etc/openmpi
export PMIX_INSTALL_PREFIX=$_ompi/usr/lib/x86_64-linux-gnu/pmix2
export PMIX_MCA_mca_base_component_path=$_ompi/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix
export HWLOC_PLUGINS_PATH=$_ompi/usr/lib/x86_64-linux-gnu/hwloc
export PATH=$_ompi/usr/bin:$PATH
export LD_LIBRARY_PATH=$_ompi/usr/lib/x86_64-linux-gnu:$_ompi/lib/x86_64-linux-gnu:$_ompi/usr/lib/x86_64-linux-gnu/openmpi/lib:${LD_LIBRARY_PATH:-}
# One host: shared memory and TCP, no fabric plugins (dropped from the pack), root allowed.
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_pml=ob1 OMPI_MCA_osc=^ucx OMPI_MCA_mtl=^ofi,psm,psm2
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ENV
if [[ $out == "$top"/* ]] && git rev-parse --git-dir >/dev/null 2>&1; then
  exclude=$(git rev-parse --git-path info/exclude)
  rel=/${out#"$top"/}/
  grep -qxF "$rel" "$exclude" 2>/dev/null || echo "$rel" >>"$exclude"
fi
echo "pack_openmpi: $(du -sh "$out" | cut -f1) in $out; dropped ${#dropped[@]} plugins that need cluster libraries: ${dropped[*]:-none}"
