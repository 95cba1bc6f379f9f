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
