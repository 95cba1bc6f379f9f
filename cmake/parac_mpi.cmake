# The MPI front end `parac-mpi` (docs/DISTRIBUTED.md), built only when an MPI C library is found
# (Debian: libopenmpi-dev openmpi-bin; scripts/install-deps installs them). Without MPI nothing
# changes: src/mpi/ is never part of libparac (the top-level glob leaves it out) and
# tests/mpi/ skips. PARAC_MPI=OFF turns it off even when MPI is there.
option(PARAC_MPI "Build parac-mpi when MPI is found" ON)
if(PARAC_MPI AND PARAC_BUILD_CLI)
  find_package(MPI COMPONENTS C QUIET)
  if(MPI_C_FOUND)
    file(GLOB PARAC_MPI_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/mpi/*.c)
    # The CLI's option parsing, error reports, whole-or-nothing outputs and gemm inputs, shared with `parac`.
    list(APPEND PARAC_MPI_SOURCES ${CMAKE_SOURCE_DIR}/src/cli/cli_args.c ${CMAKE_SOURCE_DIR}/src/cli/cli_common.c
         ${CMAKE_SOURCE_DIR}/src/cli/cli_output.c ${CMAKE_SOURCE_DIR}/src/cli/cli_signals.c
         ${CMAKE_SOURCE_DIR}/src/cli/gemm_setup.c)
    add_executable(parac_mpi ${PARAC_MPI_SOURCES})
    set_target_properties(parac_mpi PROPERTIES OUTPUT_NAME parac-mpi RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
    target_include_directories(parac_mpi PRIVATE ${CMAKE_SOURCE_DIR}/src)
    target_link_libraries(parac_mpi PRIVATE parac_internal MPI::MPI_C)
    parac_apply_warnings(parac_mpi)
    if(PARAC_INSTALL_LIBRARY)
      install(TARGETS parac_mpi RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
    endif()
    message(STATUS "parac: MPI ${MPI_C_VERSION} found: building parac-mpi")
  else()
    message(STATUS "parac: no MPI found: parac-mpi is not built (tests/mpi skip)")
  endif()
endif()
