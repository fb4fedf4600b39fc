# Strict warnings for C; -Werror with GPUMAT_WERROR (CI).
function(gpumat_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:C>:-Wall -Wextra -Wshadow -Wconversion -Wstrict-prototypes
      -Wmissing-prototypes -Wno-sign-conversion>)
  if(GPUMAT_WERROR)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:C>:-Werror>)
  endif()
endfunction()
