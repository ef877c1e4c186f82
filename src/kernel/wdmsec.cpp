// SPDX-License-Identifier: MIT
// The SDDL strings of wdmsec.h. Windows ships them in Wdmsec.lib as UNICODE_STRING constants;
// their text is the one IoCreateDeviceSecure's documentation gives for each name.

#include "wdmsec.h"

namespace {

template <std::size_t N>
constexpr UNICODE_STRING constant(const char16_t (&text)[N]) {
    return {static_cast<USHORT>((N - 1) * sizeof(WCHAR)), static_cast<USHORT>(N * sizeof(WCHAR)),
            const_cast<PWSTR>(text)};
}

}  // namespace

extern "C" {

const UNICODE_STRING SDDL_DEVOBJ_KERNEL_ONLY = constant(u"D:P");
const UNICODE_STRING SDDL_DEVOBJ_SYS_ALL = constant(u"D:P(A;;GA;;;SY)");
const UNICODE_STRING SDDL_DEVOBJ_SYS_ALL_ADM_ALL = constant(u"D:P(A;;GA;;;SY)(A;;GA;;;BA)");
const UNICODE_STRING SDDL_DEVOBJ_SYS_ALL_ADM_RX = constant(u"D:P(A;;GA;;;SY)(A;;GRGX;;;BA)");
const UNICODE_STRING SDDL_DEVOBJ_SYS_ALL_ADM_RWX_WORLD_R =
    constant(u"D:P(A;;GA;;;SY)(A;;GRGWGX;;;BA)(A;;GR;;;WD)");
const UNICODE_STRING SDDL_DEVOBJ_SYS_ALL_ADM_RWX_WORLD_R_RES_R =
    constant(u"D:P(A;;GA;;;SY)(A;;GRGWGX;;;BA)(A;;GR;;;WD)(A;;GR;;;RC)");
const UNICODE_STRING SDDL_DEVOBJ_SYS_ALL_ADM_RWX_WORLD_RW_RES_R =
    constant(u"D:P(A;;GA;;;SY)(A;;GRGWGX;;;BA)(A;;GRGW;;;WD)(A;;GR;;;RC)");
const UNICODE_STRING SDDL_DEVOBJ_SYS_ALL_ADM_RWX_WORLD_RWX_RES_RWX =
    constant(u"D:P(A;;GA;;;SY)(A;;GRGWGX;;;BA)(A;;GRGWGX;;;WD)(A;;GRGWGX;;;RC)");

}  // extern "C"
