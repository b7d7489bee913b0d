# Warnings for the project's own targets: laya_set_warnings(target)
function(laya_set_warnings target)
  target_compile_options(${target} PRIVATE
    $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -Wshadow=local -Wno-unused-parameter>)
endfunction()
