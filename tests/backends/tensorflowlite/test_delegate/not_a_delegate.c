// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* A shared library that is not a TensorFlow Lite delegate: it exports neither
   tflite_plugin_create_delegate nor tflite_plugin_destroy_delegate. */
__attribute__((visibility("default"))) int wasinn_not_a_delegate(void) { return 0; }
