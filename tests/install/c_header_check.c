// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* include/wasinn/wasinn.h must be valid C99 (built with -std=c99 -Wpedantic -Werror), and its
 * declarations usable as written: this takes the address of every function once. */
#include "wasinn/wasinn.h"

typedef void (*any_fn)(void);

static void log_line(void* user_data, wasinn_log_level_t level, const char* message, size_t length) {
  (void)user_data;
  (void)level;
  (void)message;
  (void)length;
}

any_fn wasinn_c_header_check[] = {(any_fn)wasinn_version,
                                  (any_fn)wasinn_c_api_version,
                                  (any_fn)wasinn_free,
                                  (any_fn)wasinn_options_create,
                                  (any_fn)wasinn_options_destroy,
                                  (any_fn)wasinn_options_add_backend_dir,
                                  (any_fn)wasinn_options_set_backend_config,
                                  (any_fn)wasinn_options_add_preload,
                                  (any_fn)wasinn_options_set_timeout_ms,
                                  (any_fn)wasinn_options_set_max_memory_bytes,
                                  (any_fn)wasinn_options_set_isolate_loads,
                                  (any_fn)wasinn_options_set_module_cache,
                                  (any_fn)wasinn_options_set_log_callback,
                                  (any_fn)wasinn_host_create,
                                  (any_fn)wasinn_host_destroy,
                                  (any_fn)wasinn_program_create_path,
                                  (any_fn)wasinn_program_create_bytes,
                                  (any_fn)wasinn_program_destroy,
                                  (any_fn)wasinn_program_add_arg,
                                  (any_fn)wasinn_program_add_env,
                                  (any_fn)wasinn_program_add_dir,
                                  (any_fn)wasinn_program_set_stdin,
                                  (any_fn)wasinn_program_capture_output,
                                  (any_fn)wasinn_program_set_invoke,
                                  (any_fn)wasinn_host_run,
                                  (any_fn)wasinn_result_destroy,
                                  (any_fn)wasinn_result_exit_code,
                                  (any_fn)wasinn_result_trapped,
                                  (any_fn)wasinn_result_message,
                                  (any_fn)wasinn_result_stdout,
                                  (any_fn)wasinn_result_stderr,
                                  (any_fn)wasinn_result_value_count,
                                  (any_fn)wasinn_result_value,
                                  (any_fn)wasinn_host_list_backends,
                                  (any_fn)wasinn_backend_list_destroy,
                                  (any_fn)wasinn_backend_list_count,
                                  (any_fn)wasinn_backend_list_name,
                                  (any_fn)wasinn_backend_list_encodings,
                                  (any_fn)wasinn_backend_list_found,
                                  (any_fn)log_line};
