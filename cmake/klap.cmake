# klap for CMake projects (docs/cmake.md):
#
#   find_package(klap REQUIRED)            # with -Dklap_DIR=<klap>/cmake, or include(<klap>/cmake/klap.cmake)
#   add_executable(app app.cu main.cpp)
#   klap_cuda_target(app GRANULARITY grid)
#
# klap_cuda_target(<target> [GRANULARITY none|warp|block|grid] [NO_KLAP] [REMARKS] [AT_LINK])
#   The target's .cu sources are compiled as CUDA with device-side launches by the C++ compiler, which
#   must be clang++-22, with the klap plugin; the target links with cudart and libcudadevrt. The flags
#   are scripts/klap-flags', the ones scripts/klap-clang++ uses.
#   GRANULARITY  klap's aggregation granularity (default: the plugin's, auto)
#   NO_KLAP      without the plugin: a plain CDP build (with clang's CDP gaps filled all the same)
#   REMARKS      the device compilation's optimization remarks (klap's among them) as YAML beside each
#                object: <object without .o>.opt.yaml, for opt-viewer
#   AT_LINK      klap at the device link (-foffload-lto): aggregation runs on the linked device module,
#                so children defined in another of the target's sources are aggregated (docs/link-time.md)
#
# Settings (cache variables; empty: scripts/klap-flags' defaults):
#   KLAP_CUDA_PATH  the CUDA tree (default <klap>/.toolchain/cuda)
#   KLAP_ARCH       the GPU architecture (default sm_90)
#   KLAP_PLUGIN     the plugin (default <klap>/target/release/libklap.so)
#
# The sources are compiled through CMake's C++ language (-x cuda) rather than its CUDA language:
# CMake 3.25's CUDA support did not identify clang 22 with the CUDA 13 tree of .toolchain/
# ("The CUDA compiler identification is unknown"), and its separable compilation is nvcc's.
include_guard(GLOBAL)

get_filename_component(KLAP_ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
set(KLAP_CUDA_PATH "" CACHE PATH "klap: the CUDA tree (empty: <klap>/.toolchain/cuda)")
set(KLAP_ARCH "" CACHE STRING "klap: the GPU architecture (empty: sm_90)")
set(KLAP_PLUGIN "" CACHE FILEPATH "klap: the plugin (empty: <klap>/target/release/libklap.so)")

# The flags of scripts/klap-flags for `phase` (compile or link), given its options in ARGN, as a list.
# For the link, an option with a separate argument is one SHELL: entry, which target_link_options keeps
# together (it removes a repeated option otherwise); a source's COMPILE_OPTIONS take no SHELL: and
# remove nothing.
function(_klap_flags out phase)
  set(env "")
  foreach(setting KLAP_CUDA_PATH KLAP_ARCH KLAP_PLUGIN)
    if(NOT "${${setting}}" STREQUAL "")
      list(APPEND env "${setting}=${${setting}}")
    endif()
  endforeach()
  execute_process(
    COMMAND "${CMAKE_COMMAND}" -E env ${env} "${KLAP_ROOT}/scripts/klap-flags" ${ARGN} ${phase}
    OUTPUT_VARIABLE text
    ERROR_VARIABLE error
    RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "klap: scripts/klap-flags ${ARGN} ${phase} failed: ${error}")
  endif()
  string(STRIP "${text}" text)
  string(REPLACE "\n" ";" lines "${text}")
  set(flags "")
  foreach(line IN LISTS lines)
    if(phase STREQUAL "link" AND line MATCHES "\t")
      string(REPLACE "\t" "\" \"" words "${line}")
      list(APPEND flags "SHELL:\"${words}\"")
    else()
      string(REPLACE "\t" ";" words "${line}")
      list(APPEND flags ${words})
    endif()
  endforeach()
  set(${out} "${flags}" PARENT_SCOPE)
endfunction()

function(klap_cuda_target target)
  cmake_parse_arguments(PARSE_ARGV 1 KLAP "NO_KLAP;REMARKS;AT_LINK" "GRANULARITY" "")
  if(KLAP_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "klap_cuda_target(${target}): unknown arguments ${KLAP_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR NOT CMAKE_CXX_COMPILER_VERSION MATCHES "^22\\.")
    message(FATAL_ERROR "klap_cuda_target(${target}): klap needs clang++-22 as the C++ compiler, not "
                        "${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}: configure with "
                        "-DCMAKE_CXX_COMPILER=clang++-22")
  endif()
  set(options "")
  if(KLAP_NO_KLAP)
    list(APPEND options --no-klap)
  endif()
  if(KLAP_GRANULARITY)
    list(APPEND options --granularity "${KLAP_GRANULARITY}")
  endif()
  if(KLAP_REMARKS)
    list(APPEND options --remarks)
  endif()
  if(KLAP_AT_LINK)
    list(APPEND options --at-link)
  endif()
  _klap_flags(compile_flags compile ${options})
  _klap_flags(link_flags link ${options})

  # An object depends on the plugin that transformed it.
  set(plugin "")
  foreach(flag IN LISTS compile_flags)
    if(flag MATCHES "^-fpass-plugin=(.*)$")
      set(plugin "${CMAKE_MATCH_1}")
    endif()
  endforeach()

  get_target_property(sources ${target} SOURCES)
  get_target_property(source_dir ${target} SOURCE_DIR)
  set(cuda_sources "")
  foreach(source IN LISTS sources)
    if(source MATCHES "\\.cu$")
      get_filename_component(source "${source}" ABSOLUTE BASE_DIR "${source_dir}")
      list(APPEND cuda_sources "${source}")
    endif()
  endforeach()
  if(NOT cuda_sources)
    message(FATAL_ERROR "klap_cuda_target(${target}): the target has no .cu source")
  endif()
  # The .cu sources alone: -x cuda would make CUDA of the target's other C++ sources too.
  set_source_files_properties(${cuda_sources} TARGET_DIRECTORY ${target} PROPERTIES LANGUAGE CXX)
  set_property(SOURCE ${cuda_sources} TARGET_DIRECTORY ${target} APPEND PROPERTY COMPILE_OPTIONS ${compile_flags})
  if(plugin)
    set_property(SOURCE ${cuda_sources} TARGET_DIRECTORY ${target} APPEND PROPERTY OBJECT_DEPENDS "${plugin}")
  endif()
  # The libraries after the objects (target_link_options would put them before).
  set(link_libraries "${link_flags}")
  list(FILTER link_libraries INCLUDE REGEX "^-l")
  list(FILTER link_flags EXCLUDE REGEX "^-l")
  target_link_options(${target} PRIVATE ${link_flags})
  target_link_libraries(${target} PRIVATE ${link_libraries})
endfunction()
