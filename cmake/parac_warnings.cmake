# Warnings on everywhere; -Werror when PARAC_WERROR (CI); sanitizers when asked:
#   PARAC_SANITIZE  AddressSanitizer + UndefinedBehaviorSanitizer (gcc or clang; the CI's ASan pass)
#   PARAC_FUZZ      the same plus libFuzzer's coverage (clang only; fuzz/ adds the fuzzer binaries)
#   PARAC_TSAN      ThreadSanitizer (clang with LLVM's OpenMP, libomp: its barriers are annotated for
#                   TSan, libgomp's are not and give false reports; see docs/RELIABILITY.md)
if(PARAC_FUZZ OR PARAC_TSAN)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "PARAC_FUZZ / PARAC_TSAN need clang (configure with CC=clang CXX=clang++)")
  endif()
endif()
if((PARAC_SANITIZE OR PARAC_FUZZ) AND PARAC_TSAN)
  message(FATAL_ERROR "PARAC_TSAN cannot be combined with PARAC_SANITIZE / PARAC_FUZZ (one sanitizer runtime per build)")
endif()

function(parac_apply_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra -Wshadow -Wstrict-prototypes -Wno-unused-parameter>)
  if(PARAC_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C>:-Werror>
                                             $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
  endif()
  set(sanitizers "")
  set(recover "")
  if(PARAC_SANITIZE OR PARAC_FUZZ)
    set(sanitizers "address,undefined")
    set(recover "-fno-sanitize-recover=undefined") # a UB report fails the test / is a fuzzer crash
  elseif(PARAC_TSAN)
    set(sanitizers "thread")
  endif()
  if(sanitizers)
    set(coverage "")
    if(PARAC_FUZZ)
      set(coverage "-fsanitize=fuzzer-no-link")
    endif()
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C>:-fsanitize=${sanitizers} ${coverage} ${recover}
                           -fno-omit-frame-pointer -g>)
    target_link_options(${target} PRIVATE -fsanitize=${sanitizers})
  endif()
endfunction()
