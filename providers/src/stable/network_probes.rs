//! The ip, tcp and udp providers' probes (PROVIDERS-REFERENCE §6–§8), on the network
//! stack's raw tracepoints: packets as the device queue takes them (`net_dev_queue`)
//! and as the stack receives them (`netif_receive_skb`, before routing), TCP segments
//! arriving on established connections (`tcp_probe`), TCP state changes
//! (`inet_sock_set_state`) and resets (`tcp_receive_reset`, `tcp_send_reset`).
//!
//! Each probe's arguments are the packet, the socket, the IP header (as `void_ip_t`,
//! whatever its version), and the device or the transport's header and socket,
//! translated by the D library's `ip.d`, `tcp.d` and `udp.d`. Where the event carries
//! no packet (connect-established, accept-established, connect-refused), the IP and
//! TCP descriptions are the socket's (`ipinfo_t` and `tcpinfo_t` from `struct sock *`),
//! so they are never empty. Beyond its documented arguments a tcp probe passes hidden
//! arg6 (the TCP state) and arg7 (the direction), a udp probe hidden arg5 (the
//! direction), which `tcpsinfo_t` and `udpsinfo_t` read, as Oracle's libraries do.

use super::ProbeSource::RawTracepoint;
use super::Translation::{Hidden, To};
use super::{StableArgument, StableProbe};

/// The `struct sk_buff *` in raw argument `$argument`.
macro_rules! skb {
    ($argument:literal) => {
        concat!("((struct sk_buff *)", $argument, ")")
    };
}

/// The IP header of a packet whose network header offset is set (on the way out, and
/// on the way in once IP has seen it), as `void_ip_t`.
macro_rules! ip_header_at_offset {
    ($argument:literal) => {
        concat!(
            "(uintptr_t)(",
            skb!($argument),
            "->head + ",
            skb!($argument),
            "->network_header)"
        )
    };
}

/// The IP header of a packet `netif_receive_skb` sees: its data starts there (the
/// network header offset is reset only after the tracepoint).
macro_rules! received_ip_header {
    () => {
        concat!("(uintptr_t)", skb!("arg0"), "->data")
    };
}

/// The transport header of a packet whose transport header offset is set.
macro_rules! transport_header_at_offset {
    ($argument:literal) => {
        concat!(
            "(",
            skb!($argument),
            "->head + ",
            skb!($argument),
            "->transport_header)"
        )
    };
}

/// The transport header of a packet `netif_receive_skb` sees: after the IPv4 header's
/// length, or after an IPv6 header without extension headers.
macro_rules! received_transport_header {
    () => {
        concat!(
            "(",
            skb!("arg0"),
            "->data + (",
            is_ipv4!("arg0"),
            " ? ((struct iphdr *)",
            skb!("arg0"),
            "->data)->ihl * 4 : 40))"
        )
    };
}

/// Whether the packet is IPv4 (`ETH_P_IP`) or IPv6 (`ETH_P_IPV6`), by its protocol.
macro_rules! is_ipv4 {
    ($argument:literal) => {
        concat!("ntohs(", skb!($argument), "->protocol) == 0x0800")
    };
}
macro_rules! is_ipv6 {
    ($argument:literal) => {
        concat!("ntohs(", skb!($argument), "->protocol) == 0x86dd")
    };
}

/// Whether the packet in raw argument `$argument`, whose IP header is `$ip`, carries
/// transport protocol `$protocol` (IPv6 extension headers are not walked).
macro_rules! carries {
    ($argument:literal, $protocol:literal, $($ip:tt)*) => {
        concat!(
            "((", is_ipv4!($argument), ") && ((struct iphdr *)", $($ip)*, ")->protocol == ",
            $protocol, " || (", is_ipv6!($argument), ") && ((struct ipv6hdr *)", $($ip)*,
            ")->nexthdr == ", $protocol, ")"
        )
    };
}

/// Whether an IPv4 packet with header `$ip` is a fragment other than the first, which
/// has no transport header.
macro_rules! is_later_fragment {
    ($argument:literal, $($ip:tt)*) => {
        concat!(
            "(", is_ipv4!($argument), ") && (ntohs(((struct iphdr *)", $($ip)*,
            ")->frag_off) & 0x1fff) != 0"
        )
    };
}

/// The TCP header flags of the segment whose TCP header is `$tcp`, masked with
/// SYN|ACK, are just SYN: an active open's first segment.
macro_rules! is_syn_only {
    ($($tcp:tt)*) => {
        concat!("(*((uint8_t *)", $($tcp)*, " + 13) & 0x12) == 0x02")
    };
}

/// The hidden TCP state that tells `tcpsinfo_t` to read the socket's own.
const SOCKET_STATE: &str = "0";

const OUTBOUND: &str = "0";
const INBOUND: &str = "1";
/// The direction a state change reports (Oracle's 2).
const STATE_CHANGE: &str = "2";

/// The raw `sock:inet_sock_set_state` socket and its guard: TCP sockets only.
const STATE_SOCKET: &str = "((struct sock *)arg0)";
const STATE_OF_TCP: &str = "((struct sock *)arg0)->sk_protocol == 6";

/// A hidden argument: read by the library's translators, not documented by the probe.
const fn hidden(value: &'static str) -> StableArgument {
    StableArgument {
        native_type: "int",
        value,
        translation: Hidden,
    }
}

/// The arguments of a tcp probe on a packet: the packet, its socket (`sock`, maybe
/// NULL, maybe a minisocket or the kernel's control socket), its IP and TCP headers,
/// then the hidden TCP state (the socket's) and direction.
macro_rules! tcp_packet_arguments {
    ($skb:literal, $sock:expr, $ip:expr, $tcp:expr, $direction:expr) => {
        &[
            StableArgument {
                native_type: "struct sk_buff *",
                value: skb!($skb),
                translation: To("pktinfo_t *"),
            },
            StableArgument {
                native_type: "struct sock *",
                value: $sock,
                translation: To("csinfo_t *"),
            },
            StableArgument {
                native_type: "uintptr_t",
                value: $ip,
                translation: To("ipinfo_t *"),
            },
            StableArgument {
                native_type: "struct tcp_sock *",
                value: $sock,
                translation: To("tcpsinfo_t *"),
            },
            StableArgument {
                native_type: "struct tcphdr *",
                value: $tcp,
                translation: To("tcpinfo_t *"),
            },
            hidden("0"),
            hidden(SOCKET_STATE),
            hidden($direction),
        ]
    };
}

/// The arguments of a tcp probe whose event has a socket but no packet: the segment
/// the socket has just received is described from the socket.
macro_rules! tcp_socket_arguments {
    ($state:expr) => {
        &[
            StableArgument {
                native_type: "struct sk_buff *",
                value: "(struct sk_buff *)0",
                translation: To("pktinfo_t *"),
            },
            StableArgument {
                native_type: "struct sock *",
                value: STATE_SOCKET,
                translation: To("csinfo_t *"),
            },
            StableArgument {
                native_type: "struct sock *",
                value: STATE_SOCKET,
                translation: To("ipinfo_t *"),
            },
            StableArgument {
                native_type: "struct tcp_sock *",
                value: STATE_SOCKET,
                translation: To("tcpsinfo_t *"),
            },
            StableArgument {
                native_type: "struct sock *",
                value: STATE_SOCKET,
                translation: To("tcpinfo_t *"),
            },
            hidden("0"),
            hidden($state),
            hidden(INBOUND),
        ]
    };
}

/// The arguments of an ip probe on the packet in raw argument 0 with IP header `$ip`.
macro_rules! ip_arguments {
    ($($ip:tt)*) => {
        &[
            StableArgument {
                native_type: "struct sk_buff *",
                value: skb!("arg0"),
                translation: To("pktinfo_t *"),
            },
            StableArgument {
                native_type: "struct sock *",
                value: concat!(skb!("arg0"), "->sk"),
                translation: To("csinfo_t *"),
            },
            StableArgument {
                native_type: "uintptr_t",
                value: $($ip)*,
                translation: To("ipinfo_t *"),
            },
            StableArgument {
                native_type: "struct net_device *",
                value: concat!(skb!("arg0"), "->dev"),
                translation: To("ifinfo_t *"),
            },
            StableArgument {
                native_type: "struct iphdr *",
                value: concat!("(", is_ipv4!("arg0"), " ? ", $($ip)*, " : 0)"),
                translation: To("ipv4info_t *"),
            },
            StableArgument {
                native_type: "struct ipv6hdr *",
                value: concat!("(", is_ipv6!("arg0"), " ? ", $($ip)*, " : 0)"),
                translation: To("ipv6info_t *"),
            },
        ]
    };
}

/// The arguments of a udp probe on the packet in raw argument 0.
macro_rules! udp_arguments {
    ($ip:expr, $udp:expr, $direction:expr) => {
        &[
            StableArgument {
                native_type: "struct sk_buff *",
                value: skb!("arg0"),
                translation: To("pktinfo_t *"),
            },
            StableArgument {
                native_type: "struct sock *",
                value: concat!(skb!("arg0"), "->sk"),
                translation: To("csinfo_t *"),
            },
            StableArgument {
                native_type: "uintptr_t",
                value: $ip,
                translation: To("ipinfo_t *"),
            },
            StableArgument {
                native_type: "struct udp_sock *",
                value: concat!(skb!("arg0"), "->sk"),
                translation: To("udpsinfo_t *"),
            },
            StableArgument {
                native_type: "struct udphdr *",
                value: $udp,
                translation: To("udpinfo_t *"),
            },
            hidden($direction),
        ]
    };
}

/// Packets the stack receives: IPv4 and IPv6, not those for other hosts
/// (`PACKET_OTHERHOST`, seen only in promiscuous mode).
macro_rules! received_ip_packet {
    () => {
        concat!(
            "((",
            is_ipv4!("arg0"),
            ") || (",
            is_ipv6!("arg0"),
            ")) && ",
            skb!("arg0"),
            "->pkt_type != 3"
        )
    };
}

pub(crate) const IP_PROBES: &[StableProbe] = &[
    StableProbe {
        // Before routing: forwarded packets are included (PROVIDERS-REFERENCE §6.2).
        name: "receive",
        function: "",
        source: RawTracepoint("netif_receive_skb"),
        guard: Some(received_ip_packet!()),
        arguments: ip_arguments!(received_ip_header!()),
        subject_task_argument: None,
    },
    StableProbe {
        // At the device queue, after neighbour resolution; forwarded packets too.
        name: "send",
        function: "",
        source: RawTracepoint("net_dev_queue"),
        guard: Some(concat!(
            "(",
            is_ipv4!("arg0"),
            ") || (",
            is_ipv6!("arg0"),
            ")"
        )),
        arguments: ip_arguments!(ip_header_at_offset!("arg0")),
        subject_task_argument: None,
    },
];

pub(crate) const UDP_PROBES: &[StableProbe] = &[
    StableProbe {
        // Before the socket is looked up: udps_addr is 0, the ends come from headers.
        name: "receive",
        function: "",
        source: RawTracepoint("netif_receive_skb"),
        guard: Some(concat!(
            received_ip_packet!(),
            " && ",
            carries!("arg0", "17", received_ip_header!()),
            " && !(",
            is_later_fragment!("arg0", received_ip_header!()),
            ")"
        )),
        arguments: udp_arguments!(
            received_ip_header!(),
            concat!("(struct udphdr *)", received_transport_header!()),
            INBOUND
        ),
        subject_task_argument: None,
    },
    StableProbe {
        name: "send",
        function: "",
        source: RawTracepoint("net_dev_queue"),
        guard: Some(concat!(
            carries!("arg0", "17", ip_header_at_offset!("arg0")),
            " && !(",
            is_later_fragment!("arg0", ip_header_at_offset!("arg0")),
            ")"
        )),
        arguments: udp_arguments!(
            ip_header_at_offset!("arg0"),
            concat!("(struct udphdr *)", transport_header_at_offset!("arg0")),
            OUTBOUND
        ),
        subject_task_argument: None,
    },
];

pub(crate) const TCP_PROBES: &[StableProbe] = &[
    StableProbe {
        // The passive side's SYN_RECV -> ESTABLISHED, on the new connection's socket.
        name: "accept-established",
        function: "",
        source: RawTracepoint("inet_sock_set_state"),
        guard: Some(concat!(
            "((struct sock *)arg0)->sk_protocol == 6",
            " && arg1 == 3 && arg2 == 1"
        )),
        arguments: tcp_socket_arguments!("arg2"),
        subject_task_argument: None,
    },
    StableProbe {
        // An incoming SYN answered with a reset: its segment (arg1) describes it; the
        // socket (arg0) is NULL when no socket listens, as when the port is closed.
        name: "accept-refused",
        function: "",
        source: RawTracepoint("tcp_send_reset"),
        guard: Some(concat!(
            "arg1 != 0 && ",
            is_syn_only!(transport_header_at_offset!("arg1"))
        )),
        arguments: tcp_packet_arguments!(
            "arg1",
            "((struct sock *)arg0)",
            ip_header_at_offset!("arg1"),
            concat!("(struct tcphdr *)", transport_header_at_offset!("arg1")),
            INBOUND
        ),
        subject_task_argument: None,
    },
    StableProbe {
        // The active side's SYN_SENT -> ESTABLISHED.
        name: "connect-established",
        function: "",
        source: RawTracepoint("inet_sock_set_state"),
        guard: Some(concat!(
            "((struct sock *)arg0)->sk_protocol == 6",
            " && arg1 == 2 && arg2 == 1"
        )),
        arguments: tcp_socket_arguments!("arg2"),
        subject_task_argument: None,
    },
    StableProbe {
        // A reset received in SYN_SENT.
        name: "connect-refused",
        function: "",
        source: RawTracepoint("tcp_receive_reset"),
        guard: Some("((struct sock *)arg0)->__sk_common.skc_state == 2"),
        arguments: tcp_socket_arguments!(SOCKET_STATE),
        subject_task_argument: None,
    },
    StableProbe {
        // The SYN an active open sends (SYN without ACK), as the device queue takes it.
        name: "connect-request",
        function: "",
        source: RawTracepoint("net_dev_queue"),
        guard: Some(concat!(
            carries!("arg0", "6", ip_header_at_offset!("arg0")),
            " && ",
            is_syn_only!(transport_header_at_offset!("arg0"))
        )),
        arguments: tcp_packet_arguments!(
            "arg0",
            concat!(skb!("arg0"), "->sk"),
            ip_header_at_offset!("arg0"),
            concat!("(struct tcphdr *)", transport_header_at_offset!("arg0")),
            OUTBOUND
        ),
        subject_task_argument: None,
    },
    StableProbe {
        // Segments of established connections only: tcp_probe fires at the top of
        // tcp_rcv_established; handshake and closing segments are not seen.
        name: "receive",
        function: "",
        source: RawTracepoint("tcp_probe"),
        guard: None,
        arguments: tcp_packet_arguments!(
            "arg1",
            "((struct sock *)arg0)",
            ip_header_at_offset!("arg1"),
            concat!("(struct tcphdr *)", transport_header_at_offset!("arg1")),
            INBOUND
        ),
        subject_task_argument: None,
    },
    StableProbe {
        name: "send",
        function: "",
        source: RawTracepoint("net_dev_queue"),
        guard: Some(carries!("arg0", "6", ip_header_at_offset!("arg0"))),
        arguments: tcp_packet_arguments!(
            "arg0",
            concat!(skb!("arg0"), "->sk"),
            ip_header_at_offset!("arg0"),
            concat!("(struct tcphdr *)", transport_header_at_offset!("arg0")),
            OUTBOUND
        ),
        subject_task_argument: None,
    },
    StableProbe {
        // args[3]->tcps_state is the new state, args[5]->tcps_state the previous one.
        // There is no transition into TIME_WAIT: the kernel swaps in a timewait
        // minisocket and the socket goes to CLOSE.
        name: "state-change",
        function: "",
        source: RawTracepoint("inet_sock_set_state"),
        guard: Some(STATE_OF_TCP),
        arguments: &[
            StableArgument {
                native_type: "void",
                value: "0",
                translation: super::Translation::Native,
            },
            StableArgument {
                native_type: "struct sock *",
                value: STATE_SOCKET,
                translation: To("csinfo_t *"),
            },
            StableArgument {
                native_type: "void",
                value: "0",
                translation: super::Translation::Native,
            },
            StableArgument {
                native_type: "struct tcp_sock *",
                value: STATE_SOCKET,
                translation: To("tcpsinfo_t *"),
            },
            StableArgument {
                native_type: "void",
                value: "0",
                translation: super::Translation::Native,
            },
            StableArgument {
                native_type: "int",
                value: "arg1",
                translation: To("tcplsinfo_t *"),
            },
            hidden("arg2"),
            hidden(STATE_CHANGE),
        ],
        subject_task_argument: None,
    },
];
