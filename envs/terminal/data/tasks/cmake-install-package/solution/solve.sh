#!/bin/bash
set -e
cd /app/ringbuf
cat > CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.16)
project(ringbuf VERSION 0.3.0 LANGUAGES C)

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

add_library(ringbuf STATIC ringbuf.c)
add_library(ringbuf::ringbuf ALIAS ringbuf)
target_include_directories(ringbuf PUBLIC
  $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
set_target_properties(ringbuf PROPERTIES PUBLIC_HEADER ringbuf.h)

install(TARGETS ringbuf EXPORT ringbufTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  PUBLIC_HEADER DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT ringbufTargets NAMESPACE ringbuf::
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ringbuf)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/ringbufConfig.cmake
  "include(\${CMAKE_CURRENT_LIST_DIR}/ringbufTargets.cmake)\n")
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/ringbufConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/ringbufConfig.cmake
  ${CMAKE_CURRENT_BINARY_DIR}/ringbufConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ringbuf)
CM
cmake -S . -B build -DCMAKE_INSTALL_PREFIX=/opt/ringbuf -DCMAKE_INSTALL_LIBDIR=lib
cmake --build build
cmake --install build
