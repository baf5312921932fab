// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// miniaudio (whisper.cpp's own audio reader, installed by scripts/deps/whisper.sh) cut down to
// its WAV decoder: no devices, threads, encoders or other formats, so nothing in it touches the
// host's audio system. One translation unit defines MINIAUDIO_IMPLEMENTATION before including it.
#pragma once

#define MA_NO_DEVICE_IO
#define MA_NO_THREADING
#define MA_NO_ENCODING
#define MA_NO_MP3
#define MA_NO_FLAC
#define MA_NO_RESOURCE_MANAGER
#define MA_NO_NODE_GRAPH
#define MA_NO_ENGINE
#define MA_NO_GENERATION
#include <miniaudio.h>
