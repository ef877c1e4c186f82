/* SPDX-License-Identifier: MIT */
/*
 * ndksim_export.h - NDKSIM_API, the mark of the functions libndksim exports (the library is
 * built with hidden visibility; only these are visible to consumers).
 */
#pragma once

#ifndef NDKSIM_API
#if defined(__GNUC__)
#define NDKSIM_API __attribute__((visibility("default")))
#else
#define NDKSIM_API
#endif
#endif
