#pragma once

#include <stdint.h>

// An HEVC decoder for libheif, over libde265 with no worker threads. libheif 1.15's own
// libde265 plugin starts a worker thread for every image it decodes, and libde265 1.0.11 can
// wait forever on that thread when a stream is damaged (DECISIONS.md, "libde265 on the calling
// thread"). This plugin decodes on the thread that called `heif_decode_image`, and ranks above
// libheif's, so every HEVC image and thumbnail libheif decodes goes through it.
//
// Only this C target includes libde265's headers; nothing links it: its functions, and the few
// libheif functions the plugin calls back, are resolved from handles opened at run time.

struct heif_decoder_plugin;

/// Resolves libde265's functions from `de265` and libheif's from `heif` (dlopen handles), and
/// returns the plugin to register with `heif_register_decoder_plugin`. On failure returns NULL
/// and sets `*missing` to the name of the first function not found. Call once, before any decode.
const struct heif_decoder_plugin *imgview_de265_plugin(void *heif, void *de265, const char **missing);

/// The most pixels a picture decoded on this thread may have: a sequence parameter set
/// declaring more (in the configuration or in the data) fails the decode before libde265
/// allocates it. 0: no limit. Set before `heif_decode_image`, on the thread that calls it.
void imgview_de265_set_limit(uint64_t pixels);
