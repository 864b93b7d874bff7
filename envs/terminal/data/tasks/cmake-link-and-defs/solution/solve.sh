#!/bin/bash
set -e
cd /app
sed -i 's/target_compile_definitions(shapes PRIVATE SHAPES_WIDE)/target_compile_definitions(shapes PUBLIC SHAPES_WIDE)\ntarget_link_libraries(shapes PUBLIC m)/' CMakeLists.txt
cmake -S . -B build
cmake --build build
