# Decides whether the CUDA paths are built (PARAC_HAVE_CUDA) and how.
# AUTO builds them when nvcc is found; ON insists; OFF never looks.
include(CheckLanguage)
set(PARAC_HAVE_CUDA OFF)
if(NOT PARAC_CUDA STREQUAL "OFF")
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # sm_90 machine code for the H200/H100, plus sm_80 PTX so newer and older
    # Ampere-or-later cards can JIT the kernels.
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "90-real;80-virtual")
    endif()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(PARAC_HAVE_CUDA ON)
  elseif(PARAC_CUDA STREQUAL "ON")
    message(FATAL_ERROR "PARAC_CUDA=ON but no CUDA compiler (nvcc) was found")
  endif()
endif()
message(STATUS "parac: CUDA paths ${PARAC_HAVE_CUDA}")

function(parac_setup_cuda_target target)
  if(PARAC_HAVE_CUDA)
    target_compile_definitions(${target} PUBLIC PARAC_HAVE_CUDA=1)
    set_target_properties(${target} PROPERTIES CUDA_STANDARD 17 CUDA_STANDARD_REQUIRED ON)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -lineinfo -Xcompiler=-fPIC>)
    # cudart only: cuBLAS (gemm's vendor reference) is dlopen'ed at first use
    # (src/cuda/cublas_loader.cu) and cuSPARSE is the gemm bench's alone (bench/CMakeLists.txt), so a
    # command loads nothing it does not use (issue 16: start-up at the driver's floor).
    target_link_libraries(${target} PUBLIC CUDA::cudart PRIVATE ${CMAKE_DL_LIBS})
    target_compile_definitions(${target} PRIVATE PARAC_CUDA_LIBRARY_DIR="${CUDAToolkit_LIBRARY_DIR}")
  endif()
endfunction()

# gemm: the Hopper wgmma kernels (src/gemm/gemm_wgmma.cu, gemm_wgmma_tma.cu) need the arch-specific
# sm_90a target. When the build targets sm_90, those files also get an sm_90a
# image; its wgmma code is guarded by __CUDA_ARCH_FEAT_SM90_ALL and the library
# asks the loaded image at run time (other targets: variant reported unsupported).
if(PARAC_HAVE_CUDA AND "${CMAKE_CUDA_ARCHITECTURES}" MATCHES "(^|;)90")
  set_source_files_properties(${CMAKE_SOURCE_DIR}/src/gemm/gemm_wgmma.cu ${CMAKE_SOURCE_DIR}/src/gemm/gemm_wgmma_tma.cu PROPERTIES
    COMPILE_OPTIONS "-gencode=arch=compute_90a,code=sm_90a")
endif()
