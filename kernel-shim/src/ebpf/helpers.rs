//! eBPF helper functions by number, in the order of the kernel's `__BPF_FUNC_MAPPER`
//! (include/uapi/linux/bpf.h), with the names the verifier log prints (`bpf_` + name).
//!
//! The numbers are part of the kernel ABI and never change; a helper newer than this table
//! can still be called with `Insn::call_helper_number`.

/// Declares the `Helper` enum and its number ↔ name table from one list, so that the two
/// cannot disagree.
macro_rules! helper_table {
    ($(($number:literal, $variant:ident, $name:literal),)*) => {
        /// An eBPF helper function. The discriminant is the helper's number.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u32)]
        pub enum Helper {
            $($variant = $number,)*
        }

        /// Every helper in number order; index `n` holds helper number `n`.
        pub const ALL_HELPERS: &[Helper] = &[$(Helper::$variant,)*];

        impl Helper {
            /// The helper's number, the immediate of its `call` instruction.
            pub const fn number(self) -> u32 {
                self as u32
            }

            /// The helper's name without the `bpf_` prefix, as in `__BPF_FUNC_MAPPER`.
            pub const fn short_name(self) -> &'static str {
                match self {
                    $(Helper::$variant => $name,)*
                }
            }
        }
    };
}

helper_table! {
    (0, Unspec, "unspec"),
    (1, MapLookupElem, "map_lookup_elem"),
    (2, MapUpdateElem, "map_update_elem"),
    (3, MapDeleteElem, "map_delete_elem"),
    (4, ProbeRead, "probe_read"),
    (5, KtimeGetNs, "ktime_get_ns"),
    (6, TracePrintk, "trace_printk"),
    (7, GetPrandomU32, "get_prandom_u32"),
    (8, GetSmpProcessorId, "get_smp_processor_id"),
    (9, SkbStoreBytes, "skb_store_bytes"),
    (10, L3CsumReplace, "l3_csum_replace"),
    (11, L4CsumReplace, "l4_csum_replace"),
    (12, TailCall, "tail_call"),
    (13, CloneRedirect, "clone_redirect"),
    (14, GetCurrentPidTgid, "get_current_pid_tgid"),
    (15, GetCurrentUidGid, "get_current_uid_gid"),
    (16, GetCurrentComm, "get_current_comm"),
    (17, GetCgroupClassid, "get_cgroup_classid"),
    (18, SkbVlanPush, "skb_vlan_push"),
    (19, SkbVlanPop, "skb_vlan_pop"),
    (20, SkbGetTunnelKey, "skb_get_tunnel_key"),
    (21, SkbSetTunnelKey, "skb_set_tunnel_key"),
    (22, PerfEventRead, "perf_event_read"),
    (23, Redirect, "redirect"),
    (24, GetRouteRealm, "get_route_realm"),
    (25, PerfEventOutput, "perf_event_output"),
    (26, SkbLoadBytes, "skb_load_bytes"),
    (27, GetStackid, "get_stackid"),
    (28, CsumDiff, "csum_diff"),
    (29, SkbGetTunnelOpt, "skb_get_tunnel_opt"),
    (30, SkbSetTunnelOpt, "skb_set_tunnel_opt"),
    (31, SkbChangeProto, "skb_change_proto"),
    (32, SkbChangeType, "skb_change_type"),
    (33, SkbUnderCgroup, "skb_under_cgroup"),
    (34, GetHashRecalc, "get_hash_recalc"),
    (35, GetCurrentTask, "get_current_task"),
    (36, ProbeWriteUser, "probe_write_user"),
    (37, CurrentTaskUnderCgroup, "current_task_under_cgroup"),
    (38, SkbChangeTail, "skb_change_tail"),
    (39, SkbPullData, "skb_pull_data"),
    (40, CsumUpdate, "csum_update"),
    (41, SetHashInvalid, "set_hash_invalid"),
    (42, GetNumaNodeId, "get_numa_node_id"),
    (43, SkbChangeHead, "skb_change_head"),
    (44, XdpAdjustHead, "xdp_adjust_head"),
    (45, ProbeReadStr, "probe_read_str"),
    (46, GetSocketCookie, "get_socket_cookie"),
    (47, GetSocketUid, "get_socket_uid"),
    (48, SetHash, "set_hash"),
    (49, Setsockopt, "setsockopt"),
    (50, SkbAdjustRoom, "skb_adjust_room"),
    (51, RedirectMap, "redirect_map"),
    (52, SkRedirectMap, "sk_redirect_map"),
    (53, SockMapUpdate, "sock_map_update"),
    (54, XdpAdjustMeta, "xdp_adjust_meta"),
    (55, PerfEventReadValue, "perf_event_read_value"),
    (56, PerfProgReadValue, "perf_prog_read_value"),
    (57, Getsockopt, "getsockopt"),
    (58, OverrideReturn, "override_return"),
    (59, SockOpsCbFlagsSet, "sock_ops_cb_flags_set"),
    (60, MsgRedirectMap, "msg_redirect_map"),
    (61, MsgApplyBytes, "msg_apply_bytes"),
    (62, MsgCorkBytes, "msg_cork_bytes"),
    (63, MsgPullData, "msg_pull_data"),
    (64, Bind, "bind"),
    (65, XdpAdjustTail, "xdp_adjust_tail"),
    (66, SkbGetXfrmState, "skb_get_xfrm_state"),
    (67, GetStack, "get_stack"),
    (68, SkbLoadBytesRelative, "skb_load_bytes_relative"),
    (69, FibLookup, "fib_lookup"),
    (70, SockHashUpdate, "sock_hash_update"),
    (71, MsgRedirectHash, "msg_redirect_hash"),
    (72, SkRedirectHash, "sk_redirect_hash"),
    (73, LwtPushEncap, "lwt_push_encap"),
    (74, LwtSeg6StoreBytes, "lwt_seg6_store_bytes"),
    (75, LwtSeg6AdjustSrh, "lwt_seg6_adjust_srh"),
    (76, LwtSeg6Action, "lwt_seg6_action"),
    (77, RcRepeat, "rc_repeat"),
    (78, RcKeydown, "rc_keydown"),
    (79, SkbCgroupId, "skb_cgroup_id"),
    (80, GetCurrentCgroupId, "get_current_cgroup_id"),
    (81, GetLocalStorage, "get_local_storage"),
    (82, SkSelectReuseport, "sk_select_reuseport"),
    (83, SkbAncestorCgroupId, "skb_ancestor_cgroup_id"),
    (84, SkLookupTcp, "sk_lookup_tcp"),
    (85, SkLookupUdp, "sk_lookup_udp"),
    (86, SkRelease, "sk_release"),
    (87, MapPushElem, "map_push_elem"),
    (88, MapPopElem, "map_pop_elem"),
    (89, MapPeekElem, "map_peek_elem"),
    (90, MsgPushData, "msg_push_data"),
    (91, MsgPopData, "msg_pop_data"),
    (92, RcPointerRel, "rc_pointer_rel"),
    (93, SpinLock, "spin_lock"),
    (94, SpinUnlock, "spin_unlock"),
    (95, SkFullsock, "sk_fullsock"),
    (96, TcpSock, "tcp_sock"),
    (97, SkbEcnSetCe, "skb_ecn_set_ce"),
    (98, GetListenerSock, "get_listener_sock"),
    (99, SkcLookupTcp, "skc_lookup_tcp"),
    (100, TcpCheckSyncookie, "tcp_check_syncookie"),
    (101, SysctlGetName, "sysctl_get_name"),
    (102, SysctlGetCurrentValue, "sysctl_get_current_value"),
    (103, SysctlGetNewValue, "sysctl_get_new_value"),
    (104, SysctlSetNewValue, "sysctl_set_new_value"),
    (105, Strtol, "strtol"),
    (106, Strtoul, "strtoul"),
    (107, SkStorageGet, "sk_storage_get"),
    (108, SkStorageDelete, "sk_storage_delete"),
    (109, SendSignal, "send_signal"),
    (110, TcpGenSyncookie, "tcp_gen_syncookie"),
    (111, SkbOutput, "skb_output"),
    (112, ProbeReadUser, "probe_read_user"),
    (113, ProbeReadKernel, "probe_read_kernel"),
    (114, ProbeReadUserStr, "probe_read_user_str"),
    (115, ProbeReadKernelStr, "probe_read_kernel_str"),
    (116, TcpSendAck, "tcp_send_ack"),
    (117, SendSignalThread, "send_signal_thread"),
    (118, Jiffies64, "jiffies64"),
    (119, ReadBranchRecords, "read_branch_records"),
    (120, GetNsCurrentPidTgid, "get_ns_current_pid_tgid"),
    (121, XdpOutput, "xdp_output"),
    (122, GetNetnsCookie, "get_netns_cookie"),
    (123, GetCurrentAncestorCgroupId, "get_current_ancestor_cgroup_id"),
    (124, SkAssign, "sk_assign"),
    (125, KtimeGetBootNs, "ktime_get_boot_ns"),
    (126, SeqPrintf, "seq_printf"),
    (127, SeqWrite, "seq_write"),
    (128, SkCgroupId, "sk_cgroup_id"),
    (129, SkAncestorCgroupId, "sk_ancestor_cgroup_id"),
    (130, RingbufOutput, "ringbuf_output"),
    (131, RingbufReserve, "ringbuf_reserve"),
    (132, RingbufSubmit, "ringbuf_submit"),
    (133, RingbufDiscard, "ringbuf_discard"),
    (134, RingbufQuery, "ringbuf_query"),
    (135, CsumLevel, "csum_level"),
    (136, SkcToTcp6Sock, "skc_to_tcp6_sock"),
    (137, SkcToTcpSock, "skc_to_tcp_sock"),
    (138, SkcToTcpTimewaitSock, "skc_to_tcp_timewait_sock"),
    (139, SkcToTcpRequestSock, "skc_to_tcp_request_sock"),
    (140, SkcToUdp6Sock, "skc_to_udp6_sock"),
    (141, GetTaskStack, "get_task_stack"),
    (142, LoadHdrOpt, "load_hdr_opt"),
    (143, StoreHdrOpt, "store_hdr_opt"),
    (144, ReserveHdrOpt, "reserve_hdr_opt"),
    (145, InodeStorageGet, "inode_storage_get"),
    (146, InodeStorageDelete, "inode_storage_delete"),
    (147, DPath, "d_path"),
    (148, CopyFromUser, "copy_from_user"),
    (149, SnprintfBtf, "snprintf_btf"),
    (150, SeqPrintfBtf, "seq_printf_btf"),
    (151, SkbCgroupClassid, "skb_cgroup_classid"),
    (152, RedirectNeigh, "redirect_neigh"),
    (153, PerCpuPtr, "per_cpu_ptr"),
    (154, ThisCpuPtr, "this_cpu_ptr"),
    (155, RedirectPeer, "redirect_peer"),
    (156, TaskStorageGet, "task_storage_get"),
    (157, TaskStorageDelete, "task_storage_delete"),
    (158, GetCurrentTaskBtf, "get_current_task_btf"),
    (159, BprmOptsSet, "bprm_opts_set"),
    (160, KtimeGetCoarseNs, "ktime_get_coarse_ns"),
    (161, ImaInodeHash, "ima_inode_hash"),
    (162, SockFromFile, "sock_from_file"),
    (163, CheckMtu, "check_mtu"),
    (164, ForEachMapElem, "for_each_map_elem"),
    (165, Snprintf, "snprintf"),
    (166, SysBpf, "sys_bpf"),
    (167, BtfFindByNameKind, "btf_find_by_name_kind"),
    (168, SysClose, "sys_close"),
    (169, TimerInit, "timer_init"),
    (170, TimerSetCallback, "timer_set_callback"),
    (171, TimerStart, "timer_start"),
    (172, TimerCancel, "timer_cancel"),
    (173, GetFuncIp, "get_func_ip"),
    (174, GetAttachCookie, "get_attach_cookie"),
    (175, TaskPtRegs, "task_pt_regs"),
    (176, GetBranchSnapshot, "get_branch_snapshot"),
    (177, TraceVprintk, "trace_vprintk"),
    (178, SkcToUnixSock, "skc_to_unix_sock"),
    (179, KallsymsLookupName, "kallsyms_lookup_name"),
    (180, FindVma, "find_vma"),
    (181, Loop, "loop"),
    (182, Strncmp, "strncmp"),
    (183, GetFuncArg, "get_func_arg"),
    (184, GetFuncRet, "get_func_ret"),
    (185, GetFuncArgCnt, "get_func_arg_cnt"),
    (186, GetRetval, "get_retval"),
    (187, SetRetval, "set_retval"),
    (188, XdpGetBuffLen, "xdp_get_buff_len"),
    (189, XdpLoadBytes, "xdp_load_bytes"),
    (190, XdpStoreBytes, "xdp_store_bytes"),
    (191, CopyFromUserTask, "copy_from_user_task"),
    (192, SkbSetTstamp, "skb_set_tstamp"),
    (193, ImaFileHash, "ima_file_hash"),
    (194, KptrXchg, "kptr_xchg"),
    (195, MapLookupPercpuElem, "map_lookup_percpu_elem"),
    (196, SkcToMptcpSock, "skc_to_mptcp_sock"),
    (197, DynptrFromMem, "dynptr_from_mem"),
    (198, RingbufReserveDynptr, "ringbuf_reserve_dynptr"),
    (199, RingbufSubmitDynptr, "ringbuf_submit_dynptr"),
    (200, RingbufDiscardDynptr, "ringbuf_discard_dynptr"),
    (201, DynptrRead, "dynptr_read"),
    (202, DynptrWrite, "dynptr_write"),
    (203, DynptrData, "dynptr_data"),
    (204, TcpRawGenSyncookieIpv4, "tcp_raw_gen_syncookie_ipv4"),
    (205, TcpRawGenSyncookieIpv6, "tcp_raw_gen_syncookie_ipv6"),
    (206, TcpRawCheckSyncookieIpv4, "tcp_raw_check_syncookie_ipv4"),
    (207, TcpRawCheckSyncookieIpv6, "tcp_raw_check_syncookie_ipv6"),
    (208, KtimeGetTaiNs, "ktime_get_tai_ns"),
    (209, UserRingbufDrain, "user_ringbuf_drain"),
    (210, CgrpStorageGet, "cgrp_storage_get"),
    (211, CgrpStorageDelete, "cgrp_storage_delete"),
}

impl Helper {
    /// The helper with this number, if this table knows it.
    pub fn from_number(number: u32) -> Option<Helper> {
        ALL_HELPERS.get(number as usize).copied()
    }

    /// The name the kernel prints, e.g. `bpf_map_lookup_elem`.
    pub fn kernel_name(self) -> String {
        format!("bpf_{}", self.short_name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_dense_and_in_number_order() {
        for (index, helper) in ALL_HELPERS.iter().enumerate() {
            assert_eq!(helper.number() as usize, index, "{helper:?}");
            assert_eq!(Helper::from_number(index as u32), Some(*helper));
        }
        assert_eq!(Helper::from_number(ALL_HELPERS.len() as u32), None);
    }

    #[test]
    fn numbers_the_translator_relies_on() {
        let expected = [
            (Helper::MapLookupElem, 1, "bpf_map_lookup_elem"),
            (Helper::MapUpdateElem, 2, "bpf_map_update_elem"),
            (Helper::MapDeleteElem, 3, "bpf_map_delete_elem"),
            (Helper::ProbeRead, 4, "bpf_probe_read"),
            (Helper::KtimeGetNs, 5, "bpf_ktime_get_ns"),
            (Helper::GetSmpProcessorId, 8, "bpf_get_smp_processor_id"),
            (Helper::GetCurrentPidTgid, 14, "bpf_get_current_pid_tgid"),
            (Helper::GetCurrentUidGid, 15, "bpf_get_current_uid_gid"),
            (Helper::GetCurrentComm, 16, "bpf_get_current_comm"),
            (Helper::PerfEventOutput, 25, "bpf_perf_event_output"),
            (Helper::GetStackid, 27, "bpf_get_stackid"),
            (Helper::GetCurrentTask, 35, "bpf_get_current_task"),
            (Helper::ProbeReadStr, 45, "bpf_probe_read_str"),
            (Helper::GetStack, 67, "bpf_get_stack"),
            (Helper::SendSignal, 109, "bpf_send_signal"),
            (Helper::ProbeReadUser, 112, "bpf_probe_read_user"),
            (Helper::ProbeReadKernel, 113, "bpf_probe_read_kernel"),
            (Helper::ProbeReadUserStr, 114, "bpf_probe_read_user_str"),
            (Helper::ProbeReadKernelStr, 115, "bpf_probe_read_kernel_str"),
            (Helper::KtimeGetBootNs, 125, "bpf_ktime_get_boot_ns"),
            (Helper::RingbufOutput, 130, "bpf_ringbuf_output"),
            (Helper::RingbufReserve, 131, "bpf_ringbuf_reserve"),
            (Helper::RingbufSubmit, 132, "bpf_ringbuf_submit"),
            (Helper::RingbufDiscard, 133, "bpf_ringbuf_discard"),
            (Helper::RingbufQuery, 134, "bpf_ringbuf_query"),
            (Helper::Snprintf, 165, "bpf_snprintf"),
            (Helper::GetFuncIp, 173, "bpf_get_func_ip"),
            (Helper::GetAttachCookie, 174, "bpf_get_attach_cookie"),
            (Helper::Loop, 181, "bpf_loop"),
            (
                Helper::MapLookupPercpuElem,
                195,
                "bpf_map_lookup_percpu_elem",
            ),
            (Helper::KtimeGetTaiNs, 208, "bpf_ktime_get_tai_ns"),
        ];
        for (helper, number, name) in expected {
            assert_eq!(
                (helper.number(), helper.kernel_name().as_str()),
                (number, name)
            );
        }
    }
}
