/* SPDX-License-Identifier: MIT */
/** \file
 * Wdmsec.h - the capitalized spelling of wdmsec.h that driver sources written on Windows (a
 * case-insensitive file system) often use.
 */
#pragma once

#include "wdmsec.h"
