// SPDX-License-Identifier: MIT
#pragma once
// Module index of src/mem, the memory translation and protection unit (docs/memory.md).
//
//   page.hpp              PAGE_SIZE geometry (page_align, byte_offset, span_pages) and the
//                         overflow-safe range predicates (range_fits, range_inside)
//   ids.hpp               pd_id, region_id, window_id, lam_id
//   token.hpp             token = index << 8 | key: make_token, token_index, token_key, next_key
//   access.hpp            access rights, access_op and its table (op_traits), required_rights,
//                         rights_allow, normalize, ndk_flags, access_from_mr_flags,
//                         access_from_op_flags
//   mdl_chain.hpp         mdl_segment / mdl_chain (C-ABI-free MDL view), check_chain,
//                         chain_page_count (LAM size query), chain_frames
//   host_memory.hpp       host_memory: process-wide frames, host page table, pin/unpin,
//                         frame_address
//   iommu.hpp             iommu: logical page addresses -> frames, map/unmap/translate
//   translation_cache.hpp translation_cache: (token, page) -> frame cost model, counters
//   region.hpp            region, fast_register_request, check_/apply_ register, deregister,
//                         initialize_fast_register, fast_register, invalidate
//   window.hpp            window, bind_request, check_/apply_ bind and invalidate
//   region_table.hpp      region_table: the token table of regions, windows, privileged tokens
//   lookup.hpp            fault, access_request, grant, the ordered checks, lookup, host_run
//   sge_cursor.hpp        sge, sge_cursor: copy_to_host / copy_from_host over SGE lists
//   translation_unit.hpp  translation_unit: the per-adapter owner (gate, PDs, LAMs, regions,
//                         windows, work-request post/execute halves, data-path entry points)

#include "mem/access.hpp"
#include "mem/host_memory.hpp"
#include "mem/ids.hpp"
#include "mem/iommu.hpp"
#include "mem/lookup.hpp"
#include "mem/mdl_chain.hpp"
#include "mem/page.hpp"
#include "mem/region.hpp"
#include "mem/region_table.hpp"
#include "mem/sge_cursor.hpp"
#include "mem/token.hpp"
#include "mem/translation_cache.hpp"
#include "mem/translation_unit.hpp"
#include "mem/window.hpp"
