# find_package(klap) with -Dklap_DIR=<klap>/cmake: klap_cuda_target() and its settings (klap.cmake).
include("${CMAKE_CURRENT_LIST_DIR}/klap.cmake")
set(klap_FOUND TRUE)
