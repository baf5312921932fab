# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# install.exports: libwasinn.so's dynamic symbol table holds the public API (wasinn::Host,
# wasinn::Instance, the C API) and none of the code compiled into it: no nlohmann, fmt or
# spdlog template, no core class (NnSession, NnEnvironment). -DNM= -DLIBRARY=
execute_process(COMMAND ${NM} -D --defined-only -C ${LIBRARY} OUTPUT_VARIABLE symbols RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm -D ${LIBRARY} failed (${rc})")
endif()
foreach(forbidden nlohmann fmt:: spdlog NnSession NnEnvironment BackendCatalog)
  string(REGEX MATCHALL "[^\n]*${forbidden}[^\n]*" found "${symbols}")
  if(found)
    list(JOIN found "\n" found)
    message(FATAL_ERROR "libwasinn.so exports ${forbidden} symbols:\n${found}")
  endif()
endforeach()
foreach(required "wasinn::Host::create(" "wasinn::Host::run(" "wasinn::Instance::call(" " wasinn_host_create"
                 " wasinn_host_run" " wasinn_result_stdout" " wasinn_options_set_log_callback")
  string(FIND "${symbols}" "${required}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "libwasinn.so does not export ${required}")
  endif()
endforeach()
string(REGEX MATCHALL "\n" lines "\n${symbols}")
list(LENGTH lines count)
message(STATUS "libwasinn.so: ${count} exported symbols, all public API")
