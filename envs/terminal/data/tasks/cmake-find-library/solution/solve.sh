#!/bin/bash
set -e
cd /app
cat > CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.16)
project(lines2json LANGUAGES C)

set(TINYJSON_ROOT "/opt/vendor/tinyjson" CACHE PATH "Prefix of tinyjson")
find_path(TINYJSON_INCLUDE_DIR tj.h HINTS ${TINYJSON_ROOT}/include NO_DEFAULT_PATH)
find_library(TINYJSON_LIBRARY tj HINTS ${TINYJSON_ROOT}/lib NO_DEFAULT_PATH)
if(NOT TINYJSON_INCLUDE_DIR OR NOT TINYJSON_LIBRARY)
  message(FATAL_ERROR "tinyjson not found under ${TINYJSON_ROOT}")
endif()

add_executable(lines2json lines2json.c)
target_include_directories(lines2json PRIVATE ${TINYJSON_INCLUDE_DIR})
target_link_libraries(lines2json PRIVATE ${TINYJSON_LIBRARY})
CM
cmake -S . -B build
cmake --build build
