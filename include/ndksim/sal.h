/* SPDX-License-Identifier: MIT */
/** \file
 * sal.h - no-op definitions of Microsoft's source-code annotation language (SAL).
 *
 * NDK consumer code written for the Windows kernel is annotated with SAL (parameter direction,
 * buffer extents, IRQL rules, lock rules). Those annotations only mean something to Microsoft's
 * static analyzer, so on Linux every one of them expands to nothing. Each definition is guarded
 * with `#ifndef` so that a project bringing its own SAL shim (or a real analyzer) keeps its own
 * definitions, whichever header is seen first.
 *
 * The list is deliberately generous: a missing annotation macro turns into a hard syntax error in
 * ported code, while an unused one costs nothing.
 */
#pragma once

/**
 * Analyzer hints used in statement position. They expand to a void expression rather than to
 * nothing so that "_Analysis_assume_(p != NULL), x" and "if (c) _Analysis_assume_(c);" both stay
 * well formed, and the asserted expression is never evaluated.
 */
#ifndef _Analysis_assume_
#define _Analysis_assume_(expr) ((void)0)
#endif
#ifndef _Analysis_assume_nullterminated_
#define _Analysis_assume_nullterminated_(expr) ((void)0)
#endif
#ifndef __analysis_assume
#define __analysis_assume(expr) ((void)0)
#endif

/** Plain parameter direction and nullability. */
#ifndef _In_
#define _In_
#endif
#ifndef _In_opt_
#define _In_opt_
#endif
#ifndef _In_z_
#define _In_z_
#endif
#ifndef _In_opt_z_
#define _In_opt_z_
#endif
#ifndef _Out_
#define _Out_
#endif
#ifndef _Out_opt_
#define _Out_opt_
#endif
#ifndef _Inout_
#define _Inout_
#endif
#ifndef _Inout_opt_
#define _Inout_opt_
#endif
#ifndef _Inout_z_
#define _Inout_z_
#endif
#ifndef _Inout_opt_z_
#define _Inout_opt_z_
#endif
#ifndef _Outptr_
#define _Outptr_
#endif
#ifndef _Outptr_opt_
#define _Outptr_opt_
#endif
#ifndef _Outptr_result_maybenull_
#define _Outptr_result_maybenull_
#endif
#ifndef _Outptr_opt_result_maybenull_
#define _Outptr_opt_result_maybenull_
#endif
#ifndef _Outptr_result_nullonfailure_
#define _Outptr_result_nullonfailure_
#endif
#ifndef _Outptr_opt_result_nullonfailure_
#define _Outptr_opt_result_nullonfailure_
#endif
#ifndef _Outptr_result_z_
#define _Outptr_result_z_
#endif
#ifndef _Deref_out_
#define _Deref_out_
#endif
#ifndef _Deref_out_opt_
#define _Deref_out_opt_
#endif
#ifndef _Reserved_
#define _Reserved_
#endif
#ifndef _Notnull_
#define _Notnull_
#endif
#ifndef _Maybenull_
#define _Maybenull_
#endif
#ifndef _Null_
#define _Null_
#endif
#ifndef _Null_terminated_
#define _Null_terminated_
#endif
#ifndef _NullNull_terminated_
#define _NullNull_terminated_
#endif
#ifndef _Const_
#define _Const_
#endif
#ifndef _Literal_
#define _Literal_
#endif
#ifndef _Notliteral_
#define _Notliteral_
#endif
#ifndef _Points_to_data_
#define _Points_to_data_
#endif
#ifndef _Printf_format_string_
#define _Printf_format_string_
#endif
#ifndef _Scanf_format_string_
#define _Scanf_format_string_
#endif
#ifndef _Frees_ptr_
#define _Frees_ptr_
#endif
#ifndef _Frees_ptr_opt_
#define _Frees_ptr_opt_
#endif

/** Buffers whose extent is given by another parameter or expression. */
#ifndef _In_reads_
#define _In_reads_(size)
#endif
#ifndef _In_reads_opt_
#define _In_reads_opt_(size)
#endif
#ifndef _In_reads_bytes_
#define _In_reads_bytes_(size)
#endif
#ifndef _In_reads_bytes_opt_
#define _In_reads_bytes_opt_(size)
#endif
#ifndef _In_reads_z_
#define _In_reads_z_(size)
#endif
#ifndef _In_reads_opt_z_
#define _In_reads_opt_z_(size)
#endif
#ifndef _In_reads_or_z_
#define _In_reads_or_z_(size)
#endif
#ifndef _In_reads_to_ptr_
#define _In_reads_to_ptr_(ptr)
#endif
#ifndef _In_reads_to_ptr_opt_
#define _In_reads_to_ptr_opt_(ptr)
#endif
#ifndef _Out_writes_
#define _Out_writes_(size)
#endif
#ifndef _Out_writes_opt_
#define _Out_writes_opt_(size)
#endif
#ifndef _Out_writes_bytes_
#define _Out_writes_bytes_(size)
#endif
#ifndef _Out_writes_bytes_opt_
#define _Out_writes_bytes_opt_(size)
#endif
#ifndef _Out_writes_z_
#define _Out_writes_z_(size)
#endif
#ifndef _Out_writes_opt_z_
#define _Out_writes_opt_z_(size)
#endif
#ifndef _Out_writes_to_
#define _Out_writes_to_(size, count)
#endif
#ifndef _Out_writes_to_opt_
#define _Out_writes_to_opt_(size, count)
#endif
#ifndef _Out_writes_bytes_to_
#define _Out_writes_bytes_to_(size, count)
#endif
#ifndef _Out_writes_bytes_to_opt_
#define _Out_writes_bytes_to_opt_(size, count)
#endif
#ifndef _Out_writes_all_
#define _Out_writes_all_(size)
#endif
#ifndef _Out_writes_all_opt_
#define _Out_writes_all_opt_(size)
#endif
#ifndef _Out_writes_bytes_all_
#define _Out_writes_bytes_all_(size)
#endif
#ifndef _Out_writes_bytes_all_opt_
#define _Out_writes_bytes_all_opt_(size)
#endif
#ifndef _Out_writes_to_ptr_
#define _Out_writes_to_ptr_(ptr)
#endif
#ifndef _Inout_updates_
#define _Inout_updates_(size)
#endif
#ifndef _Inout_updates_opt_
#define _Inout_updates_opt_(size)
#endif
#ifndef _Inout_updates_bytes_
#define _Inout_updates_bytes_(size)
#endif
#ifndef _Inout_updates_bytes_opt_
#define _Inout_updates_bytes_opt_(size)
#endif
#ifndef _Inout_updates_z_
#define _Inout_updates_z_(size)
#endif
#ifndef _Inout_updates_to_
#define _Inout_updates_to_(size, count)
#endif
#ifndef _Inout_updates_to_opt_
#define _Inout_updates_to_opt_(size, count)
#endif
#ifndef _Inout_updates_bytes_to_
#define _Inout_updates_bytes_to_(size, count)
#endif
#ifndef _Inout_updates_bytes_to_opt_
#define _Inout_updates_bytes_to_opt_(size, count)
#endif
#ifndef _Inout_updates_all_
#define _Inout_updates_all_(size)
#endif
#ifndef _Inout_updates_bytes_all_
#define _Inout_updates_bytes_all_(size)
#endif
#ifndef _Outptr_result_buffer_
#define _Outptr_result_buffer_(size)
#endif
#ifndef _Outptr_result_bytebuffer_
#define _Outptr_result_bytebuffer_(size)
#endif
#ifndef _Outptr_opt_result_buffer_
#define _Outptr_opt_result_buffer_(size)
#endif
#ifndef _Outptr_opt_result_bytebuffer_
#define _Outptr_opt_result_bytebuffer_(size)
#endif
#ifndef _Outptr_result_buffer_maybenull_
#define _Outptr_result_buffer_maybenull_(size)
#endif
#ifndef _Outptr_result_bytebuffer_maybenull_
#define _Outptr_result_bytebuffer_maybenull_(size)
#endif
#ifndef _Readable_bytes_
#define _Readable_bytes_(size)
#endif
#ifndef _Readable_elements_
#define _Readable_elements_(size)
#endif
#ifndef _Writable_bytes_
#define _Writable_bytes_(size)
#endif
#ifndef _Writable_elements_
#define _Writable_elements_(size)
#endif

/** Value ranges. */
#ifndef _In_range_
#define _In_range_(lo, hi)
#endif
#ifndef _Out_range_
#define _Out_range_(lo, hi)
#endif
#ifndef _Ret_range_
#define _Ret_range_(lo, hi)
#endif
#ifndef _Deref_in_range_
#define _Deref_in_range_(lo, hi)
#endif
#ifndef _Deref_out_range_
#define _Deref_out_range_(lo, hi)
#endif
#ifndef _Deref_inout_range_
#define _Deref_inout_range_(lo, hi)
#endif
#ifndef _Field_range_
#define _Field_range_(lo, hi)
#endif
#ifndef _Pre_equal_to_
#define _Pre_equal_to_(expr)
#endif
#ifndef _Post_equal_to_
#define _Post_equal_to_(expr)
#endif
#ifndef _Unchanged_
#define _Unchanged_(expr)
#endif

/** Structure fields. */
#ifndef _Field_size_
#define _Field_size_(size)
#endif
#ifndef _Field_size_opt_
#define _Field_size_opt_(size)
#endif
#ifndef _Field_size_bytes_
#define _Field_size_bytes_(size)
#endif
#ifndef _Field_size_bytes_opt_
#define _Field_size_bytes_opt_(size)
#endif
#ifndef _Field_size_part_
#define _Field_size_part_(size, count)
#endif
#ifndef _Field_size_part_opt_
#define _Field_size_part_opt_(size, count)
#endif
#ifndef _Field_size_bytes_part_
#define _Field_size_bytes_part_(size, count)
#endif
#ifndef _Field_size_bytes_part_opt_
#define _Field_size_bytes_part_opt_(size, count)
#endif
#ifndef _Field_size_full_
#define _Field_size_full_(size)
#endif
#ifndef _Field_size_full_opt_
#define _Field_size_full_opt_(size)
#endif
#ifndef _Field_size_bytes_full_
#define _Field_size_bytes_full_(size)
#endif
#ifndef _Field_size_bytes_full_opt_
#define _Field_size_bytes_full_opt_(size)
#endif
#ifndef _Field_z_
#define _Field_z_
#endif
#ifndef _Struct_size_bytes_
#define _Struct_size_bytes_(size)
#endif

/** Return values and success conditions. */
#ifndef _Success_
#define _Success_(expr)
#endif
#ifndef _Return_type_success_
#define _Return_type_success_(expr)
#endif
#ifndef _Must_inspect_result_
#define _Must_inspect_result_
#endif
#ifndef _Check_return_
#define _Check_return_
#endif
#ifndef _Ret_maybenull_
#define _Ret_maybenull_
#endif
#ifndef _Ret_notnull_
#define _Ret_notnull_
#endif
#ifndef _Ret_null_
#define _Ret_null_
#endif
#ifndef _Ret_z_
#define _Ret_z_
#endif
#ifndef _Ret_maybenull_z_
#define _Ret_maybenull_z_
#endif
#ifndef _Ret_valid_
#define _Ret_valid_
#endif
#ifndef _Ret_writes_
#define _Ret_writes_(size)
#endif
#ifndef _Ret_writes_z_
#define _Ret_writes_z_(size)
#endif
#ifndef _Ret_writes_bytes_
#define _Ret_writes_bytes_(size)
#endif
#ifndef _Ret_writes_maybenull_
#define _Ret_writes_maybenull_(size)
#endif
#ifndef _Ret_writes_bytes_maybenull_
#define _Ret_writes_bytes_maybenull_(size)
#endif
#ifndef _Ret_writes_to_
#define _Ret_writes_to_(size, count)
#endif
#ifndef _Ret_writes_bytes_to_
#define _Ret_writes_bytes_to_(size, count)
#endif
#ifndef _Result_nullonfailure_
#define _Result_nullonfailure_
#endif
#ifndef _Result_zeroonfailure_
#define _Result_zeroonfailure_
#endif
#ifndef _Outref_
#define _Outref_
#endif
#ifndef _Outref_result_maybenull_
#define _Outref_result_maybenull_
#endif

/** Pre- and post-conditions. */
#ifndef _Pre_notnull_
#define _Pre_notnull_
#endif
#ifndef _Pre_maybenull_
#define _Pre_maybenull_
#endif
#ifndef _Pre_null_
#define _Pre_null_
#endif
#ifndef _Pre_valid_
#define _Pre_valid_
#endif
#ifndef _Pre_opt_valid_
#define _Pre_opt_valid_
#endif
#ifndef _Pre_invalid_
#define _Pre_invalid_
#endif
#ifndef _Pre_z_
#define _Pre_z_
#endif
#ifndef _Pre_readable_size_
#define _Pre_readable_size_(size)
#endif
#ifndef _Pre_writable_size_
#define _Pre_writable_size_(size)
#endif
#ifndef _Pre_readable_byte_size_
#define _Pre_readable_byte_size_(size)
#endif
#ifndef _Pre_writable_byte_size_
#define _Pre_writable_byte_size_(size)
#endif
#ifndef _Pre_satisfies_
#define _Pre_satisfies_(expr)
#endif
#ifndef _Post_invalid_
#define _Post_invalid_
#endif
#ifndef _Post_ptr_invalid_
#define _Post_ptr_invalid_
#endif
#ifndef _Post_valid_
#define _Post_valid_
#endif
#ifndef _Post_notnull_
#define _Post_notnull_
#endif
#ifndef _Post_maybenull_
#define _Post_maybenull_
#endif
#ifndef _Post_null_
#define _Post_null_
#endif
#ifndef _Post_z_
#define _Post_z_
#endif
#ifndef _Post_readable_size_
#define _Post_readable_size_(size)
#endif
#ifndef _Post_writable_size_
#define _Post_writable_size_(size)
#endif
#ifndef _Post_readable_byte_size_
#define _Post_readable_byte_size_(size)
#endif
#ifndef _Post_writable_byte_size_
#define _Post_writable_byte_size_(size)
#endif
#ifndef _Post_satisfies_
#define _Post_satisfies_(expr)
#endif
#ifndef _Satisfies_
#define _Satisfies_(expr)
#endif

/** Scoping and grouping of annotations. */
#ifndef _At_
#define _At_(target, annos)
#endif
#ifndef _At_buffer_
#define _At_buffer_(target, iter, bound, annos)
#endif
#ifndef _When_
#define _When_(expr, annos)
#endif
#ifndef _Group_
#define _Group_(annos)
#endif
#ifndef _On_failure_
#define _On_failure_(annos)
#endif
#ifndef _Always_
#define _Always_(annos)
#endif
#ifndef _Use_decl_annotations_
#define _Use_decl_annotations_
#endif
#ifndef _Function_class_
#define _Function_class_(name)
#endif
#ifndef _Called_from_function_class_
#define _Called_from_function_class_(name)
#endif
#ifndef _Enum_is_bitflag_
#define _Enum_is_bitflag_
#endif
#ifndef _Strict_type_match_
#define _Strict_type_match_
#endif
#ifndef _Interlocked_operand_
#define _Interlocked_operand_
#endif
#ifndef _Analysis_noreturn_
#define _Analysis_noreturn_
#endif

/** Kernel IRQL rules (driver SAL). */
#ifndef _IRQL_requires_
#define _IRQL_requires_(irql)
#endif
#ifndef _IRQL_requires_max_
#define _IRQL_requires_max_(irql)
#endif
#ifndef _IRQL_requires_min_
#define _IRQL_requires_min_(irql)
#endif
#ifndef _IRQL_raises_
#define _IRQL_raises_(irql)
#endif
#ifndef _IRQL_saves_
#define _IRQL_saves_
#endif
#ifndef _IRQL_restores_
#define _IRQL_restores_
#endif
#ifndef _IRQL_saves_global_
#define _IRQL_saves_global_(kind, param)
#endif
#ifndef _IRQL_restores_global_
#define _IRQL_restores_global_(kind, param)
#endif
#ifndef _IRQL_always_function_min_
#define _IRQL_always_function_min_(irql)
#endif
#ifndef _IRQL_always_function_max_
#define _IRQL_always_function_max_(irql)
#endif
#ifndef _IRQL_requires_same_
#define _IRQL_requires_same_
#endif
#ifndef _IRQL_uses_cancel_
#define _IRQL_uses_cancel_
#endif
#ifndef _IRQL_is_cancel_
#define _IRQL_is_cancel_
#endif
#ifndef _Dispatch_type_
#define _Dispatch_type_(type)
#endif

/** Kernel resources, locks and floating-point state. */
#ifndef _Kernel_requires_resource_held_
#define _Kernel_requires_resource_held_(kind)
#endif
#ifndef _Kernel_requires_resource_not_held_
#define _Kernel_requires_resource_not_held_(kind)
#endif
#ifndef _Kernel_acquires_resource_
#define _Kernel_acquires_resource_(kind)
#endif
#ifndef _Kernel_releases_resource_
#define _Kernel_releases_resource_(kind)
#endif
#ifndef _Kernel_clear_do_init_
#define _Kernel_clear_do_init_(yesno)
#endif
#ifndef _Kernel_float_saved_
#define _Kernel_float_saved_
#endif
#ifndef _Kernel_float_restored_
#define _Kernel_float_restored_
#endif
#ifndef _Kernel_float_used_
#define _Kernel_float_used_
#endif
#ifndef _Requires_lock_held_
#define _Requires_lock_held_(lock)
#endif
#ifndef _Requires_lock_not_held_
#define _Requires_lock_not_held_(lock)
#endif
#ifndef _Requires_exclusive_lock_held_
#define _Requires_exclusive_lock_held_(lock)
#endif
#ifndef _Requires_shared_lock_held_
#define _Requires_shared_lock_held_(lock)
#endif
#ifndef _Requires_no_locks_held_
#define _Requires_no_locks_held_
#endif
#ifndef _Acquires_lock_
#define _Acquires_lock_(lock)
#endif
#ifndef _Releases_lock_
#define _Releases_lock_(lock)
#endif
#ifndef _Acquires_exclusive_lock_
#define _Acquires_exclusive_lock_(lock)
#endif
#ifndef _Releases_exclusive_lock_
#define _Releases_exclusive_lock_(lock)
#endif
#ifndef _Acquires_shared_lock_
#define _Acquires_shared_lock_(lock)
#endif
#ifndef _Releases_shared_lock_
#define _Releases_shared_lock_(lock)
#endif
#ifndef _Guarded_by_
#define _Guarded_by_(lock)
#endif
#ifndef _Write_guarded_by_
#define _Write_guarded_by_(lock)
#endif
#ifndef _Interlocked_
#define _Interlocked_
#endif
#ifndef _Has_lock_kind_
#define _Has_lock_kind_(kind)
#endif
#ifndef _Has_lock_level_
#define _Has_lock_level_(level)
#endif
#ifndef _Lock_level_order_
#define _Lock_level_order_(a, b)
#endif
#ifndef _Create_lock_level_
#define _Create_lock_level_(level)
#endif
#ifndef _Post_same_lock_
#define _Post_same_lock_(a, b)
#endif
#ifndef _No_competing_thread_
#define _No_competing_thread_
#endif
#ifndef _Benign_race_begin_
#define _Benign_race_begin_
#endif
#ifndef _Benign_race_end_
#define _Benign_race_end_
#endif

/** Legacy driver annotations (__drv_*). */
#ifndef __drv_aliasesMem
#define __drv_aliasesMem
#endif
#ifndef __drv_allocatesMem
#define __drv_allocatesMem(kind)
#endif
#ifndef __drv_freesMem
#define __drv_freesMem(kind)
#endif
#ifndef __drv_maxIRQL
#define __drv_maxIRQL(irql)
#endif
#ifndef __drv_minIRQL
#define __drv_minIRQL(irql)
#endif
#ifndef __drv_requiresIRQL
#define __drv_requiresIRQL(irql)
#endif
#ifndef __drv_raisesIRQL
#define __drv_raisesIRQL(irql)
#endif
#ifndef __drv_setsIRQL
#define __drv_setsIRQL(irql)
#endif
#ifndef __drv_savesIRQL
#define __drv_savesIRQL
#endif
#ifndef __drv_restoresIRQL
#define __drv_restoresIRQL
#endif
#ifndef __drv_savesIRQLGlobal
#define __drv_savesIRQLGlobal(kind, param)
#endif
#ifndef __drv_restoresIRQLGlobal
#define __drv_restoresIRQLGlobal(kind, param)
#endif
#ifndef __drv_sameIRQL
#define __drv_sameIRQL
#endif
#ifndef __drv_useCancelIRQL
#define __drv_useCancelIRQL
#endif
#ifndef __drv_isCancelIRQL
#define __drv_isCancelIRQL
#endif
#ifndef __drv_dispatchType
#define __drv_dispatchType(type)
#endif
#ifndef __drv_functionClass
#define __drv_functionClass(name)
#endif
#ifndef __drv_when
#define __drv_when(expr, annos)
#endif
#ifndef __drv_arg
#define __drv_arg(expr, annos)
#endif
#ifndef __drv_in
#define __drv_in(annos)
#endif
#ifndef __drv_out
#define __drv_out(annos)
#endif
#ifndef __drv_in_deref
#define __drv_in_deref(annos)
#endif
#ifndef __drv_out_deref
#define __drv_out_deref(annos)
#endif
#ifndef __drv_strictTypeMatch
#define __drv_strictTypeMatch(mode)
#endif
#ifndef __drv_strictType
#define __drv_strictType(type, mode)
#endif
#ifndef __drv_acquiresResource
#define __drv_acquiresResource(kind)
#endif
#ifndef __drv_releasesResource
#define __drv_releasesResource(kind)
#endif
#ifndef __drv_mustHold
#define __drv_mustHold(kind)
#endif
#ifndef __drv_neverHold
#define __drv_neverHold(kind)
#endif
#ifndef __drv_innerMustHold
#define __drv_innerMustHold(kind)
#endif
#ifndef __drv_innerNeverHold
#define __drv_innerNeverHold(kind)
#endif
#ifndef __drv_inTry
#define __drv_inTry
#endif
#ifndef __drv_notInTry
#define __drv_notInTry
#endif
#ifndef __drv_preferredFunction
#define __drv_preferredFunction(func, why)
#endif
#ifndef __drv_reportError
#define __drv_reportError(why)
#endif
#ifndef __drv_valueIs
#define __drv_valueIs(list)
#endif
#ifndef __drv_isObjectPointer
#define __drv_isObjectPointer
#endif
#ifndef __drv_constant
#define __drv_constant
#endif
#ifndef __drv_nonConstant
#define __drv_nonConstant
#endif
#ifndef __drv_floatSaved
#define __drv_floatSaved
#endif
#ifndef __drv_floatRestored
#define __drv_floatRestored
#endif
#ifndef __drv_floatUsed
#define __drv_floatUsed
#endif
#ifndef __drv_clearDoInit
#define __drv_clearDoInit(yesno)
#endif
#ifndef __drv_interlocked
#define __drv_interlocked
#endif

/** Further annotations seen in driver sources: begin/end markers, SAL 1.5 buffer forms, COM out
 * pointers, analysis modes and lock kinds (the lock-kind names only appear as macro arguments). */
#ifndef _No_competing_thread_begin_
#define _No_competing_thread_begin_
#endif
#ifndef _No_competing_thread_end_
#define _No_competing_thread_end_
#endif
#ifndef _Pre_
#define _Pre_
#endif
#ifndef _Post_
#define _Post_
#endif
#ifndef _Prepost_z_
#define _Prepost_z_
#endif
#ifndef _Pre_defensive_
#define _Pre_defensive_
#endif
#ifndef _Post_defensive_
#define _Post_defensive_
#endif
#ifndef _In_defensive_
#define _In_defensive_
#endif
#ifndef _Out_defensive_
#define _Out_defensive_
#endif
#ifndef _Inout_defensive_
#define _Inout_defensive_
#endif
#ifndef _Deref_pre_z_
#define _Deref_pre_z_
#endif
#ifndef _Deref_post_z_
#define _Deref_post_z_
#endif
#ifndef _Deref_post_null_
#define _Deref_post_null_
#endif
#ifndef _Deref_post_maybenull_
#define _Deref_post_maybenull_
#endif
#ifndef _Deref_pre_readonly_
#define _Deref_pre_readonly_
#endif
#ifndef _Deref_out_z_
#define _Deref_out_z_
#endif
#ifndef _Deref_in_
#define _Deref_in_
#endif
#ifndef _Deref_inout_
#define _Deref_inout_
#endif
#ifndef _Notref_
#define _Notref_
#endif
#ifndef _Outptr_result_maybenull_z_
#define _Outptr_result_maybenull_z_
#endif
#ifndef _Outptr_opt_result_maybenull_z_
#define _Outptr_opt_result_maybenull_z_
#endif
#ifndef _Outptr_opt_result_z_
#define _Outptr_opt_result_z_
#endif
#ifndef _COM_Outptr_
#define _COM_Outptr_
#endif
#ifndef _COM_Outptr_opt_
#define _COM_Outptr_opt_
#endif
#ifndef _COM_Outptr_result_maybenull_
#define _COM_Outptr_result_maybenull_
#endif
#ifndef _Kernel_IoGetDmaAdapter_
#define _Kernel_IoGetDmaAdapter_
#endif
#ifndef _Lock_kind_mutex_
#define _Lock_kind_mutex_
#endif
#ifndef _Lock_kind_event_
#define _Lock_kind_event_
#endif
#ifndef _Lock_kind_semaphore_
#define _Lock_kind_semaphore_
#endif
#ifndef _Lock_kind_spin_lock_
#define _Lock_kind_spin_lock_
#endif
#ifndef _Lock_kind_critical_section_
#define _Lock_kind_critical_section_
#endif
#ifndef _Acquires_nonreentrant_lock_
#define _Acquires_nonreentrant_lock_(x)
#endif
#ifndef _Releases_nonreentrant_lock_
#define _Releases_nonreentrant_lock_(x)
#endif
#ifndef _Analysis_mode_
#define _Analysis_mode_(x)
#endif
#ifndef _Analysis_suppress_lock_checking_
#define _Analysis_suppress_lock_checking_(x)
#endif
#ifndef _Inexpressible_
#define _Inexpressible_(x)
#endif
#ifndef _Deref_ret_range_
#define _Deref_ret_range_(x)
#endif
#ifndef _In_count_
#define _In_count_(x)
#endif
#ifndef _In_opt_count_
#define _In_opt_count_(x)
#endif
#ifndef _In_bytecount_
#define _In_bytecount_(x)
#endif
#ifndef _In_opt_bytecount_
#define _In_opt_bytecount_(x)
#endif
#ifndef _In_z_count_
#define _In_z_count_(x)
#endif
#ifndef _Out_cap_
#define _Out_cap_(x)
#endif
#ifndef _Out_opt_cap_
#define _Out_opt_cap_(x)
#endif
#ifndef _Out_bytecap_
#define _Out_bytecap_(x)
#endif
#ifndef _Out_opt_bytecap_
#define _Out_opt_bytecap_(x)
#endif
#ifndef _Out_z_cap_
#define _Out_z_cap_(x)
#endif
#ifndef _Out_z_bytecap_
#define _Out_z_bytecap_(x)
#endif
#ifndef _Inout_cap_
#define _Inout_cap_(x)
#endif
#ifndef _Inout_bytecap_
#define _Inout_bytecap_(x)
#endif
#ifndef _Inout_z_cap_
#define _Inout_z_cap_(x)
#endif
#ifndef _Deref_out_z_cap_
#define _Deref_out_z_cap_(x)
#endif
#ifndef _Outptr_result_buffer_all_
#define _Outptr_result_buffer_all_(x)
#endif
#ifndef _Outptr_result_bytebuffer_all_
#define _Outptr_result_bytebuffer_all_(x)
#endif
#ifndef _Outptr_result_buffer_to_
#define _Outptr_result_buffer_to_(x)
#endif
#ifndef _Pre_cap_
#define _Pre_cap_(x)
#endif
#ifndef _Pre_bytecap_
#define _Pre_bytecap_(x)
#endif
#ifndef _Post_count_
#define _Post_count_(x)
#endif
#ifndef _Post_bytecount_
#define _Post_bytecount_(x)
#endif
#ifndef _Deref_pre_readable_size_
#define _Deref_pre_readable_size_(x)
#endif
#ifndef _Deref_post_readable_size_
#define _Deref_post_readable_size_(x)
#endif
#ifndef _Deref_pre_writable_size_
#define _Deref_pre_writable_size_(x)
#endif
#ifndef _Deref_post_writable_size_
#define _Deref_post_writable_size_(x)
#endif
#ifndef _Inout_updates_opt_z_
#define _Inout_updates_opt_z_(x)
#endif
#ifndef _Out_bytecap_part_
#define _Out_bytecap_part_(size, count)
#endif
#ifndef _Out_cap_part_
#define _Out_cap_part_(size, count)
#endif
#ifndef _Inout_bytecap_part_
#define _Inout_bytecap_part_(size, count)
#endif
