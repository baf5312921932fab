// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// miniaudio (whisper.cpp's own audio reader, installed by scripts/deps/whisper.sh) with the
// decoders whisper-cli uses: WAV, FLAC and MP3, and its resampler and channel mixer. No devices,
// threads, encoders or engine, so nothing in it touches the host's audio system. One translation
// unit defines MINIAUDIO_IMPLEMENTATION before including it.
#pragma once

#define MA_NO_DEVICE_IO
#define MA_NO_THREADING
#define MA_NO_ENCODING
#define MA_NO_RESOURCE_MANAGER
#define MA_NO_NODE_GRAPH
#define MA_NO_ENGINE
#define MA_NO_GENERATION
#include <miniaudio.h>
