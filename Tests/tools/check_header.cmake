# header_compiles_strict: compiles Tests/c/header_only.c (which includes only gatewire.h) and
# Tests/c/plugin_api_only.c (a plugin written against the gw_plugin_api table) as strict C99
# and as C++, warnings as errors; the header-only unit also with GW_USE_CALL_OPTIONS_V4. Run with cmake -P; variables:
#   CC, CXX       the C and C++ compilers (a missing one is a failure, not a skip)
#   INCLUDE_DIR   the directory of gatewire.h
#   SOURCE        the header-only translation unit
#   PLUGIN_SOURCE the plugin's translation unit
#   WORK_DIR      where the object files go
foreach(var IN ITEMS CC CXX INCLUDE_DIR SOURCE PLUGIN_SOURCE WORK_DIR)
    if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "" OR "${${var}}" MATCHES "-NOTFOUND$")
        message(FATAL_ERROR "header_compiles_strict: ${var} is not set or not found ('${${var}}')")
    endif()
endforeach()
file(MAKE_DIRECTORY "${WORK_DIR}")

function(gw_compile label)
    list(JOIN ARGN " " command_line)
    message(STATUS "${label}: ${command_line}")
    execute_process(COMMAND ${ARGN}
                    RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT 60)
    if(NOT result EQUAL 0)
        message(FATAL_ERROR "${label} failed (${result}):\n${out}${err}")
    endif()
    if(NOT "${out}${err}" STREQUAL "")
        message(FATAL_ERROR "${label} printed diagnostics:\n${out}${err}")
    endif()
endfunction()

gw_compile("C99" "${CC}" -std=c99 -Wall -Wextra -pedantic -Werror
           -I "${INCLUDE_DIR}" -c "${SOURCE}" -o "${WORK_DIR}/header_only_c.o")
gw_compile("C++" "${CXX}" -x c++ -std=c++11 -Wall -Wextra -pedantic -Werror
           -I "${INCLUDE_DIR}" -c "${SOURCE}" -o "${WORK_DIR}/header_only_cxx.o")
gw_compile("C99 GW_USE_CALL_OPTIONS_V4" "${CC}" -std=c99 -Wall -Wextra -pedantic -Werror -DGW_USE_CALL_OPTIONS_V4
           -I "${INCLUDE_DIR}" -c "${SOURCE}" -o "${WORK_DIR}/header_only_v4_c.o")
gw_compile("C++ GW_USE_CALL_OPTIONS_V4" "${CXX}" -x c++ -std=c++11 -Wall -Wextra -pedantic -Werror
           -DGW_USE_CALL_OPTIONS_V4 -I "${INCLUDE_DIR}" -c "${SOURCE}" -o "${WORK_DIR}/header_only_v4_cxx.o")
gw_compile("plugin C99" "${CC}" -std=c99 -Wall -Wextra -pedantic -Werror -fPIC
           -I "${INCLUDE_DIR}" -c "${PLUGIN_SOURCE}" -o "${WORK_DIR}/plugin_api_only_c.o")
gw_compile("plugin C++" "${CXX}" -x c++ -std=c++11 -Wall -Wextra -pedantic -Werror -fPIC
           -I "${INCLUDE_DIR}" -c "${PLUGIN_SOURCE}" -o "${WORK_DIR}/plugin_api_only_cxx.o")
message(STATUS "gatewire.h compiles cleanly as C99 and C++11")
