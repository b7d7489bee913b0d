# Warnings for the project's own targets: laya_set_warnings(target)
function(laya_set_warnings target)
  # -Wshadow=local is GCC's; clang (the fuzz build) has only the broader -Wshadow, which would flag
  # every member a constructor parameter names, so clang gets none.
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wno-unused-parameter>
    $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<CXX_COMPILER_ID:GNU>>:-Wshadow=local>)
endfunction()
