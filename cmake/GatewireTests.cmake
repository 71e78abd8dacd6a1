# The C-facing tests (included from the top CMakeLists.txt when GW_BUILD_TESTS is on).
# Every dependency a test needs is looked up here, but a missing one does not stop the
# configure: the test that needs it is registered anyway and fails, naming what is missing.
# No test skips.

# The project's venv (scripts/bootstrap.sh) has pytest and the servers; else any Python 3.
if(EXISTS ${CMAKE_SOURCE_DIR}/.venv/bin/python)
    set(GW_PYTHON ${CMAKE_SOURCE_DIR}/.venv/bin/python)
else()
    find_package(Python3 REQUIRED COMPONENTS Interpreter)
    set(GW_PYTHON ${Python3_EXECUTABLE})
endif()
message(STATUS "Gatewire tests use Python: ${GW_PYTHON}")

find_package(Threads REQUIRED)
find_program(GW_CXX_COMPILER NAMES g++ c++ DOC "C++ compiler for header_compiles_strict")
find_program(GW_PKG_CONFIG NAMES pkg-config pkgconf DOC "pkg-config for install_consumer")
if(NOT CMAKE_NM)
    find_program(CMAKE_NM nm)
endif()

set(GW_SUPPORT ${CMAKE_SOURCE_DIR}/Tests/support)
set(GW_TOOLS ${CMAKE_SOURCE_DIR}/Tests/tools)

# ---- c_api: the C test program against the scripted test server and httpbin ---------------
# One concern a file in Tests/c/api (support.h shared; main.c names every test).
file(GLOB GW_C_API_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/Tests/c/api/*.c)
add_executable(test_gatewire_c ${GW_C_API_SOURCES})
set_target_properties(test_gatewire_c PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
target_compile_options(test_gatewire_c PRIVATE -Wall -Wextra -pedantic)
target_compile_definitions(test_gatewire_c PRIVATE GW_EXPECTED_VERSION="${PROJECT_VERSION}"
    GW_INCLUDE_DIR="${CMAKE_SOURCE_DIR}/include")
# libGatewire.so only (the Swift runtime is inside it) plus the threads library.
target_link_libraries(test_gatewire_c PRIVATE Gatewire::Gatewire Threads::Threads)

# Each test of the program is its own ctest, c_api.NAME (`ctest -R c_api.retry` runs one),
# with a test server of its own (and httpbin for the tests that call it): after each link the
# program's `--list` writes the CTest file that registers them, which ctest reads (a program
# not built yet registers one failing test).
set(GW_C_API_TESTS ${CMAKE_CURRENT_BINARY_DIR}/c_api_tests.cmake)
add_custom_command(TARGET test_gatewire_c POST_BUILD
    COMMAND ${CMAKE_COMMAND} -DPROGRAM=$<TARGET_FILE:test_gatewire_c>
            "-DRUNNER=${GW_PYTHON}|${GW_SUPPORT}/run_with_server.py"
            -DPREFIX=c_api -DTIMEOUT=120 "-DLABELS=c|server|c_api"
            -DOUTPUT=${GW_C_API_TESTS} -P ${CMAKE_SOURCE_DIR}/cmake/GatewireListCTests.cmake
    COMMENT "c_api.*: the tests test_gatewire_c --list names"
    VERBATIM)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/c_api_include.cmake
"if(EXISTS [==[${GW_C_API_TESTS}]==])
    include([==[${GW_C_API_TESTS}]==])
else()
    add_test(c_api.NOT_BUILT [==[${CMAKE_COMMAND}]==] -E echo \"test_gatewire_c is not built: no c_api tests\")
    set_tests_properties(c_api.NOT_BUILT PROPERTIES WILL_FAIL TRUE LABELS \"c;server;c_api\")
endif()
")
set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${CMAKE_CURRENT_BINARY_DIR}/c_api_include.cmake)

# ---- c_mapping_cases: the shared mapping case file through the C ABI (read with Jansson) -----
find_package(PkgConfig)
if(PkgConfig_FOUND)
    pkg_check_modules(GW_JANSSON IMPORTED_TARGET jansson)
endif()
# A C test program that uses Jansson itself besides Gatewire, in C `standard`, warnings on.
# Without Jansson's pkg-config file it is registered anyway: the build fails, naming
# jansson.h, rather than skipping the test.
function(gw_add_jansson_test_program target source standard)
    add_executable(${target} ${source})
    set_target_properties(${target} PROPERTIES C_STANDARD ${standard} C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
    target_compile_options(${target} PRIVATE -Wall -Wextra -pedantic)
    if(TARGET PkgConfig::GW_JANSSON)
        target_link_libraries(${target} PRIVATE Gatewire::Gatewire PkgConfig::GW_JANSSON)
    else()
        target_link_libraries(${target} PRIVATE Gatewire::Gatewire jansson)
    endif()
endfunction()
gw_add_jansson_test_program(test_mapping_cases_c Tests/c/test_mapping_cases.c 99)
add_test(NAME c_mapping_cases
         COMMAND ${GW_PYTHON} ${GW_SUPPORT}/run_with_server.py $<TARGET_FILE:test_mapping_cases_c>
                 ${CMAKE_SOURCE_DIR}/Tests/cases/mapping_cases.json)
set_tests_properties(c_mapping_cases PROPERTIES TIMEOUT 300 LABELS "c;server;mapping")

# ---- c_*_cases_reject_unknown_keys: each C case runner, given its case file with a misspelt
# key in every object it reads (Tests/cases/unknown_keys), names each key with its case and
# runs no case. The runners' output must match, in order (a run that fails otherwise does not).
function(gw_add_unknown_keys_test name program file keys)
    set(expected)
    foreach(key IN LISTS keys)
        string(REGEX REPLACE "([][.])" "\\\\\\1" key_pattern "${key}")
        string(APPEND expected "case \"misspelt keys\": unknown key \"${key_pattern}\"\n")
    endforeach()
    add_test(NAME ${name}
             COMMAND ${GW_PYTHON} ${GW_SUPPORT}/run_with_server.py $<TARGET_FILE:${program}>
                     ${CMAKE_SOURCE_DIR}/Tests/cases/unknown_keys/${file})
    set_tests_properties(${name} PROPERTIES TIMEOUT 60 LABELS "c;server"
        PASS_REGULAR_EXPRESSION "${expected}[^\n]*: 5 unknown keys; no case was run")
endfunction()
gw_add_unknown_keys_test(c_mapping_cases_reject_unknown_keys test_mapping_cases_c mapping_cases.json
    "comment;request.parms;expect.stauts;expect.at.items.cout;expect.pageError.knd")

# ---- jansson_sharing_*: an application using Jansson beside Gatewire (arena allocator rules)
gw_add_jansson_test_program(test_jansson_sharing_c Tests/c/test_jansson_sharing.c 11)
foreach(mode shared own-allocator)
    add_test(NAME jansson_sharing_${mode}
             COMMAND ${GW_PYTHON} ${GW_SUPPORT}/run_with_server.py $<TARGET_FILE:test_jansson_sharing_c> ${mode})
    set_tests_properties(jansson_sharing_${mode} PROPERTIES TIMEOUT 120 LABELS "c;server;mapping")
endforeach()

# ---- exports_match_header: gw_* prototypes == gw_* exports, nothing else leaks -------------
add_test(NAME exports_match_header
         COMMAND ${GW_PYTHON} ${GW_TOOLS}/check_exports.py
                 --header ${CMAKE_SOURCE_DIR}/include/gatewire.h
                 --library ${GW_SO}
                 --nm ${CMAKE_NM}
                 --cc ${CMAKE_C_COMPILER})
set_tests_properties(exports_match_header PROPERTIES TIMEOUT 60 LABELS "abi")

# ---- header_compiles_strict: the header alone, strict C99 and C++ --------------------------
add_test(NAME header_compiles_strict
         COMMAND ${CMAKE_COMMAND}
                 -DCC=${CMAKE_C_COMPILER}
                 -DCXX=${GW_CXX_COMPILER}
                 -DINCLUDE_DIR=${CMAKE_SOURCE_DIR}/include
                 -DSOURCE=${CMAKE_SOURCE_DIR}/Tests/c/header_only.c
                 -DPLUGIN_SOURCE=${CMAKE_SOURCE_DIR}/Tests/c/plugin_api_only.c
                 -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/header_compiles_strict
                 -P ${GW_TOOLS}/check_header.cmake)
set_tests_properties(header_compiles_strict PROPERTIES TIMEOUT 60 LABELS "abi")

# ---- python_binding: pytest on Tests/python against the built library ----------------------
# gw_no_skip (Tests/tools) turns any skipped test into a failure; the Python tests start
# their own server.
add_test(NAME python_binding
         COMMAND ${GW_PYTHON} -m pytest -q -rs -p gw_no_skip
                 -o cache_dir=${CMAKE_CURRENT_BINARY_DIR}/pytest_cache
                 ${CMAKE_SOURCE_DIR}/Tests/python
         WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
set_tests_properties(python_binding PROPERTIES
    TIMEOUT 300
    LABELS "python;server"
    ENVIRONMENT "GATEWIRE_LIB=${GW_SO};GATEWIRE_CLI=${GW_CLI};PYTHONPATH=${CMAKE_SOURCE_DIR}/bindings/python:${GW_TOOLS};PYTHONDONTWRITEBYTECODE=1")

# ---- Install tests: a tool that installs to a temporary prefix and builds the C consumers ---
# install_consumer: install, move the prefix, build two consumers (find_package, pkg-config).
# deploy_without_toolchain: the installed consumers (and the same consumers installed into
# prefixes of their own), the `make dist` tarball unpacked elsewhere, a Swift app built with
# --static-swift-stdlib, the CLI, the Python binding and the Python wheel make real calls with
# the Swift toolchain's folder hidden (unshare -m + tmpfs; needs root, as CI has). Its time
# bound covers the Swift app's release build, which compiles the core (minutes on 2 cores).
function(gw_add_install_test name tool timeout labels)
    add_test(NAME ${name}
             COMMAND ${GW_PYTHON} ${GW_TOOLS}/${tool}
                     --build-dir ${CMAKE_BINARY_DIR}
                     --consumer ${CMAKE_SOURCE_DIR}/Tests/c/consumer
                     --cmake ${CMAKE_COMMAND}
                     --cc ${CMAKE_C_COMPILER}
                     --pkg-config ${GW_PKG_CONFIG}
                     --version ${PROJECT_VERSION}
                     --libdir ${CMAKE_INSTALL_LIBDIR}
                     --includedir ${CMAKE_INSTALL_INCLUDEDIR}
                     --step-timeout 120
                     ${ARGN})
    set_tests_properties(${name} PROPERTIES TIMEOUT ${timeout} LABELS "${labels}")
endfunction()
gw_add_install_test(install_consumer install_consumer.py 300 "install")
# The wheel is built from the library in build/lib (scripts/wheel.sh), not by a second Swift build.
gw_add_install_test(deploy_without_toolchain deploy_check.py 1800 "install;server"
                    --wheel-from ${GW_LIBRARY_DIR})

# ---- c_resilience_cases: the shared resilience cases (Tests/cases) through the C ABI -------
# The same JSON file drives the Swift (ResilienceCaseTests) and Python (test_resilience_cases)
# runners; this one reads it with Jansson (found with pkg-config, as SwiftPM's CJansson).
find_package(PkgConfig)
if(PkgConfig_FOUND)
    pkg_check_modules(GW_JANSSON IMPORTED_TARGET jansson)
endif()
if(TARGET PkgConfig::GW_JANSSON)
    add_executable(test_resilience_cases_c Tests/c/test_resilience_cases.c)
    set_target_properties(test_resilience_cases_c PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
    target_compile_options(test_resilience_cases_c PRIVATE -Wall -Wextra -pedantic)
    target_compile_definitions(test_resilience_cases_c PRIVATE
        GW_CASES_FILE="${CMAKE_SOURCE_DIR}/Tests/cases/resilience_cases.json")
    target_link_libraries(test_resilience_cases_c PRIVATE Gatewire::Gatewire PkgConfig::GW_JANSSON Threads::Threads)
    add_test(NAME c_resilience_cases
             COMMAND ${GW_PYTHON} ${GW_SUPPORT}/run_with_server.py $<TARGET_FILE:test_resilience_cases_c>)
else()
    # Registered anyway so the missing dependency is a failure, not a silent skip.
    add_test(NAME c_resilience_cases
             COMMAND ${CMAKE_COMMAND} -E echo "c_resilience_cases needs jansson (pkg-config jansson; apt libjansson-dev)")
    set_tests_properties(c_resilience_cases PROPERTIES WILL_FAIL TRUE)
endif()
set_tests_properties(c_resilience_cases PROPERTIES TIMEOUT 120 LABELS "c;server")
if(TARGET test_resilience_cases_c)  # else c_resilience_cases fails, naming jansson
    gw_add_unknown_keys_test(c_resilience_cases_reject_unknown_keys test_resilience_cases_c resilience_cases.json
        "comment;calls[0].retries;calls[0].expect.atempts;calls[0].expect.echo.methd;calls[0].expect.bytes_received.mx")
endif()

# ---- c_call_options: gw_call_options version 5 (the nested structs) against the test server,
# beside a version 4 caller; strict C99, the library only.
add_executable(test_call_options_c Tests/c/test_call_options.c)
set_target_properties(test_call_options_c PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
target_compile_options(test_call_options_c PRIVATE -Wall -Wextra -pedantic)
target_link_libraries(test_call_options_c PRIVATE Gatewire::Gatewire)
add_test(NAME c_call_options
         COMMAND ${GW_PYTHON} ${GW_SUPPORT}/run_with_server.py $<TARGET_FILE:test_call_options_c>)
set_tests_properties(c_call_options PROPERTIES TIMEOUT 120 LABELS "c;server")

# ---- layout_matches_package: README's Layout == scripts/layout.py's graph of Package.swift
add_test(NAME layout_matches_package
         COMMAND ${GW_PYTHON} ${GW_TOOLS}/check_layout.py --root ${CMAKE_SOURCE_DIR})
set_tests_properties(layout_matches_package PROPERTIES TIMEOUT 60 LABELS "docs")

# ---- consumer_configure_has_no_tests: the README's C install builds the library and CLI only
add_test(NAME consumer_configure_has_no_tests
         COMMAND ${GW_PYTHON} ${GW_TOOLS}/check_consumer_configure.py --root ${CMAKE_SOURCE_DIR}
                 --cmake ${CMAKE_COMMAND} --ctest ${CMAKE_CTEST_COMMAND})
set_tests_properties(consumer_configure_has_no_tests PROPERTIES TIMEOUT 300 LABELS "install")

# ---- readme_examples: every C, Python, Swift and shell block of README.md and
# bindings/python/README.md runs from a temporary folder against httpbin on 127.0.0.1:8080 and
# the test server on 127.0.0.1:8081 (the ports the examples name; RESOURCE_LOCK keeps two runs
# apart), or is marked <!-- not run: why -->. The Swift blocks share one debug package in
# build/readme-swift (its first build compiles the core: minutes on 2 cores; then incremental).
add_test(NAME readme_examples
         COMMAND ${GW_PYTHON} ${GW_TOOLS}/readme_examples.py --root ${CMAKE_SOURCE_DIR}
                 --build-dir ${CMAKE_BINARY_DIR} --cmake ${CMAKE_COMMAND})
set_tests_properties(readme_examples PROPERTIES TIMEOUT 1800 LABELS "docs;server"
    RESOURCE_LOCK "ports_8080_8081")

# ---- version_agrees: VERSION == CMake, header macros, gw_version, CLI, Python; SONAME, links
add_test(NAME version_agrees
         COMMAND ${GW_PYTHON} ${GW_TOOLS}/check_version.py
                 --root ${CMAKE_SOURCE_DIR}
                 --cmake-version ${PROJECT_VERSION}
                 --library-dir ${GW_LIBRARY_DIR}
                 --cli ${GW_CLI})
set_tests_properties(version_agrees PROPERTIES TIMEOUT 60 LABELS "abi")
