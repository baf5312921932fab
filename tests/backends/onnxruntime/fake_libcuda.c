// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/* A stand-in for the NVIDIA driver's libcuda.so.1, for the machines without one: the few driver
 * API calls the onnxruntime plugin's probe makes, answering as FAKE_CUDA (read at each call)
 * says: "nodevice" (cuInit: CUDA_ERROR_NO_DEVICE), "old" (a CUDA 12.4 driver), "stub" (the
 * toolkit's stub library), or "one" (one GPU, CUDA 13.0: the probe passes and ORT's CUDA provider
 * loads against this library, whose CUDA runtime then finds no usable driver entry points). */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int mode_is(const char* m) {
  const char* v = getenv("FAKE_CUDA");
  return v && strcmp(v, m) == 0;
}

int cuDriverGetVersion(int* v) {
  *v = mode_is("old") ? 12040 : 13000;
  return 0;
}
int cuInit(unsigned flags) {
  (void)flags;
  if (mode_is("nodevice")) return 100; /* CUDA_ERROR_NO_DEVICE */
  if (mode_is("stub")) return 34;      /* CUDA_ERROR_STUB_LIBRARY */
  if (mode_is("old")) return 35;       /* CUDA_ERROR_INSUFFICIENT_DRIVER */
  return 0;
}
int cuDeviceGetCount(int* n) {
  *n = 1;
  return 0;
}
int cuDeviceGet(int* dev, int ordinal) {
  *dev = ordinal;
  return 0;
}
int cuDeviceGetName(char* name, int len, int dev) {
  (void)dev;
  strncpy(name, "Fake GPU", (size_t)len);
  return 0;
}
int cuDeviceTotalMem_v2(size_t* bytes, int dev) {
  (void)dev;
  *bytes = (size_t)8 << 30;
  return 0;
}
int cuGetErrorString(int r, const char** s) {
  *s = r == 100  ? "no CUDA-capable device is detected"
       : r == 34 ? "CUDA driver is a stub library"
       : r == 35 ? "CUDA driver version is insufficient for CUDA runtime version"
                 : "fake error";
  return 0;
}
