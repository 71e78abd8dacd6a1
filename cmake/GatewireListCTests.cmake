# Script mode, run after test_gatewire_c is linked: asks the program for its tests
# (`PROGRAM --list`: one a line, `NAME` or `NAME TAG`) and writes OUTPUT, a CTest file
# registering each as its own test, PREFIX.NAME, run as `RUNNER... [--TAG] PROGRAM NAME` with
# TIMEOUT (seconds) and LABELS (a tag is a runner option: `httpbin` starts httpbin too).
# RUNNER and LABELS separate their words with "|" (a ";" would not survive the command line).
#
#   cmake -DPROGRAM=... -DRUNNER=a|b -DPREFIX=... -DTIMEOUT=... -DLABELS=a|b -DOUTPUT=... -P GatewireListCTests.cmake
execute_process(COMMAND ${PROGRAM} --list
                OUTPUT_VARIABLE names RESULT_VARIABLE status ERROR_VARIABLE errors TIMEOUT 30)
if(NOT status EQUAL 0)
    message(FATAL_ERROR "${PROGRAM} --list failed (${status}): ${errors}")
endif()
string(REGEX REPLACE "\n$" "" names "${names}")
string(REPLACE "\n" ";" names "${names}")
if(names STREQUAL "")
    message(FATAL_ERROR "${PROGRAM} --list printed no test names")
endif()
set(text "# Written by cmake/GatewireListCTests.cmake from `${PROGRAM} --list`.\n")
foreach(line IN LISTS names)
    if(NOT line MATCHES "^([a-z0-9_]+)( ([a-z]+))?$")
        message(FATAL_ERROR "${PROGRAM} --list printed \"${line}\", not NAME or NAME TAG")
    endif()
    set(name ${CMAKE_MATCH_1})
    set(command)
    string(REPLACE "|" ";" runner "${RUNNER}")
    if(CMAKE_MATCH_3)
        list(APPEND runner --${CMAKE_MATCH_3})
    endif()
    foreach(word IN LISTS runner)
        string(APPEND command " [==[${word}]==]")
    endforeach()
    string(APPEND text "add_test([==[${PREFIX}.${name}]==]${command} [==[${PROGRAM}]==] ${name})\n")
    string(REPLACE "|" ";" labels "${LABELS}")
    string(APPEND text "set_tests_properties([==[${PREFIX}.${name}]==] PROPERTIES TIMEOUT ${TIMEOUT} LABELS [==[${labels}]==])\n")
endforeach()
file(WRITE ${OUTPUT}.new "${text}")
file(RENAME ${OUTPUT}.new ${OUTPUT})
