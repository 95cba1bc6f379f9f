# The POPCNT instruction for the bit counts of fca, ac and the bitsets (core/bitset.h).
# Without it gcc and clang turn __builtin_popcountll into a call to libgcc's __popcountdi2 on
# baseline x86-64: `parac fca T10I4D100K.dat --implications --min-support 100` spent 57 % of its
# time there (24.5 s, 7.5 s with POPCNT; dense searches ~10 % faster; docs/PERFORMANCE.md).
# Every x86-64 processor since 2008 has it (x86-64-v2). ON by default when the machine that
# builds has it; -DPARAC_POPCNT=OFF for a build meant for an older processor.
include(CheckCSourceRuns)
set(parac_popcnt_default OFF)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$" AND NOT CMAKE_CROSSCOMPILING)
  set(CMAKE_REQUIRED_FLAGS -mpopcnt)
  check_c_source_runs("int main(void) { __builtin_cpu_init(); return !__builtin_cpu_supports(\"popcnt\"); }"
                      PARAC_BUILD_MACHINE_HAS_POPCNT)
  unset(CMAKE_REQUIRED_FLAGS)
  if(PARAC_BUILD_MACHINE_HAS_POPCNT)
    set(parac_popcnt_default ON)
  endif()
endif()
option(PARAC_POPCNT "Compile with -mpopcnt (x86-64: the bit counts in one instruction)" ${parac_popcnt_default})
if(PARAC_POPCNT)
  add_compile_options($<$<COMPILE_LANGUAGE:C,CXX>:-mpopcnt>)
endif()
