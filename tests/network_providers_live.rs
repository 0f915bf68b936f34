//! Live tests of the ip, tcp and udp stable providers on loopback: a Python load opens
//! a TCP listener on 127.0.0.1, connects to it, exchanges a few bytes, is refused by a
//! closed port and sends one UDP datagram, and writes the ports it got to a file; the
//! probes must report those ends. Also, root-free, every member of every network
//! translator compiles against this machine's BTF on every probe that offers it, and
//! `dtrace -lv` shows each probe's argument types.
//!
//! The live tests trace the running machine, so each first checks that it may (root, a
//! working dtrace, Python, the network raw tracepoints) and otherwise prints
//! `skipping: <reason>` and passes.

mod common;

use std::time::Duration;

use common::live::{python_interpreter, LiveDtrace, LiveOutcome, ScratchDirectory};

/// Any single dtrace run may take 30 seconds before the test kills it and fails.
const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(30));

/// The load: one loopback TCP connection with data both ways, a connection refused by
/// a closed port (1), and a UDP datagram; each line of the ports file names an end.
const LOOPBACK_LOAD: &str = r#"
import socket, sys, time
time.sleep(1.0)
ends = open(sys.argv[1], "w")
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(1)
client = socket.socket()
client.connect(listener.getsockname())
server, _ = listener.accept()
ends.write("client %d\nserver %d\n" % (client.getsockname()[1], listener.getsockname()[1]))
client.sendall(b"hello")
server.recv(5)
server.sendall(b"world!")
client.recv(6)
client.close(); server.close(); listener.close()
refused = socket.socket()
try:
    refused.connect(("127.0.0.1", 1))
except OSError:
    pass
ends.write("refused %d\n" % refused.getsockname()[1])
receiver = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
receiver.bind(("127.0.0.1", 0))
sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
sender.bind(("127.0.0.1", 0))
sender.sendto(b"datagram", receiver.getsockname())
receiver.recv(100)
ends.write("udp %d %d\n" % (sender.getsockname()[1], receiver.getsockname()[1]))
ends.close()
time.sleep(0.5)
"#;

/// The ports the load reported.
struct LoopbackEnds {
    client: u16,
    server: u16,
    refused: u16,
    udp_sender: u16,
    udp_receiver: u16,
}

fn read_ends(path: &std::path::Path) -> LoopbackEnds {
    let text = std::fs::read_to_string(path).expect("the load wrote its ports");
    let port = |name: &str, index: usize| -> u16 {
        text.lines()
            .find_map(|line| line.strip_prefix(&format!("{name} ")))
            .and_then(|rest| rest.split(' ').nth(index))
            .and_then(|port| port.parse().ok())
            .unwrap_or_else(|| panic!("no {name} port in {text:?}"))
    };
    LoopbackEnds {
        client: port("client", 0),
        server: port("server", 0),
        refused: port("refused", 0),
        udp_sender: port("udp", 0),
        udp_receiver: port("udp", 1),
    }
}

/// True (after printing why) when the live tests must not run.
fn must_skip() -> bool {
    if DTRACE.must_skip() {
        return true;
    }
    if python_interpreter().is_none() {
        println!("skipping: no Python for the loopback load");
        return true;
    }
    let listing = DTRACE.run(&["-l", "-n", "tcp:::state-change"]);
    if listing.status != Some(0) {
        println!("skipping: no tcp:::state-change here: {}", listing.stderr);
        return true;
    }
    false
}

/// Runs `program` while the loopback load runs; returns dtrace's outcome and the ends.
fn trace_loopback(test_name: &str, program: &str) -> (LiveOutcome, LoopbackEnds) {
    let scratch = ScratchDirectory::new(test_name);
    let ends_file = scratch.path("ends");
    let command = scratch.load_command(LOOPBACK_LOAD, &ends_file.display().to_string());
    let outcome = DTRACE.run(&["-q", "-n", program, "-c", &command]);
    assert_eq!(
        outcome.status,
        Some(0),
        "stdout: {}\nstderr: {}",
        outcome.stdout,
        outcome.stderr
    );
    let ends = read_ends(&ends_file);
    (outcome, ends)
}

fn has_line(outcome: &LiveOutcome, line: &str) -> bool {
    outcome.stdout.lines().any(|candidate| candidate == line)
}

fn assert_line(outcome: &LiveOutcome, line: &str) {
    assert!(
        has_line(outcome, line),
        "no line {line:?} in:\n{}\nstderr: {}",
        outcome.stdout,
        outcome.stderr
    );
}

#[test]
fn tcp_connection_probes_report_the_loopback_ends() {
    if must_skip() {
        return;
    }
    let (outcome, ends) = trace_loopback(
        "tcp_connection",
        r#"
        tcp:::accept-established { printf("accept %s:%d\n", args[2]->ip_saddr, args[4]->tcp_sport); }
        tcp:::accept-established { printf("accept-local %s:%d %s\n", args[3]->tcps_laddr, args[3]->tcps_lport, tcp_state_string[args[3]->tcps_state]); }
        tcp:::connect-established { printf("connect %s:%d %s:%d\n", args[3]->tcps_laddr, args[3]->tcps_lport, args[3]->tcps_raddr, args[3]->tcps_rport); }
        tcp:::connect-established { printf("connect-from %s:%d\n", args[2]->ip_saddr, args[4]->tcp_sport); }
        tcp:::connect-request { printf("request %d->%d %x\n", args[4]->tcp_sport, args[4]->tcp_dport, args[4]->tcp_flags); }
        tcp:::connect-refused { printf("refused %d %d\n", args[3]->tcps_lport, args[3]->tcps_rport); }
        tcp:::accept-refused { printf("accept-refused %s %d->%d\n", args[3]->tcps_raddr, args[3]->tcps_rport, args[3]->tcps_lport); }
        "#,
    );
    let (client, server) = (ends.client, ends.server);
    assert_line(&outcome, &format!("accept 127.0.0.1:{client}"));
    assert_line(
        &outcome,
        &format!("accept-local 127.0.0.1:{server} state-established"),
    );
    assert_line(
        &outcome,
        &format!("connect 127.0.0.1:{client} 127.0.0.1:{server}"),
    );
    assert_line(&outcome, &format!("connect-from 127.0.0.1:{server}"));
    assert_line(&outcome, &format!("request {client}->{server} 2"));
    assert_line(&outcome, &format!("refused {} 1", ends.refused));
    assert_line(
        &outcome,
        &format!("accept-refused 127.0.0.1 {}->1", ends.refused),
    );
}

#[test]
fn tcp_state_changes_follow_the_connection() {
    if must_skip() {
        return;
    }
    let (outcome, ends) = trace_loopback(
        "tcp_state_change",
        r#"
        tcp:::state-change { printf("%d %d %s %s\n", args[3]->tcps_lport, args[3]->tcps_rport, tcp_state_string[args[5]->tcps_state], tcp_state_string[args[3]->tcps_state]); }
        "#,
    );
    let (client, server) = (ends.client, ends.server);
    for line in [
        format!("{client} {server} state-syn-sent state-established"),
        format!("{server} {client} state-syn-received state-established"),
        format!("{client} {server} state-established state-fin-wait-1"),
        format!("{server} {client} state-established state-close-wait"),
        format!("{server} {client} state-close-wait state-last-ack"),
    ] {
        assert_line(&outcome, &line);
    }
}

#[test]
fn tcp_send_and_receive_see_the_payload() {
    if must_skip() {
        return;
    }
    // "hello" is 5 bytes from client to server, "world!" 6 back; data segments have
    // PSH|ACK (0x18).
    let (outcome, ends) = trace_loopback(
        "tcp_send_receive",
        r#"
        tcp:::send, tcp:::receive /args[2]->ip_plength - args[4]->tcp_offset > 0/ {
            printf("%s %d->%d %d %x %s\n", probename, args[4]->tcp_sport, args[4]->tcp_dport,
                args[2]->ip_plength - args[4]->tcp_offset, args[4]->tcp_flags & 0x18,
                tcp_state_string[args[3]->tcps_state]);
        }
        "#,
    );
    let (client, server) = (ends.client, ends.server);
    for line in [
        format!("send {client}->{server} 5 18 state-established"),
        format!("receive {client}->{server} 5 18 state-established"),
        format!("send {server}->{client} 6 18 state-established"),
        format!("receive {server}->{client} 6 18 state-established"),
    ] {
        assert_line(&outcome, &line);
    }
}

#[test]
fn udp_and_ip_probes_see_the_datagram() {
    if must_skip() {
        return;
    }
    let (outcome, ends) = trace_loopback(
        "udp_ip",
        r#"
        udp:::send, udp:::receive { printf("udp %s %s:%d->%s:%d %d\n", probename, args[2]->ip_saddr, args[4]->udp_sport, args[2]->ip_daddr, args[4]->udp_dport, args[4]->udp_length); }
        udp:::send, udp:::receive { printf("udps %s %d %d %s %s\n", probename, args[3]->udps_lport, args[3]->udps_rport, args[3]->udps_laddr, args[3]->udps_raddr); }
        ip:::send, ip:::receive /args[4]->ipv4_protocol == IPPROTO_UDP && args[2]->ip_plength == 16/ {
            printf("ip %s %d %s %s %s %d %s\n", probename, args[2]->ip_ver, args[3]->if_name, args[4]->ipv4_saddr, args[4]->ipv4_protostr, args[4]->ipv4_ihl, args[5]->ipv6_saddr);
        }
        "#,
    );
    let (sender, receiver) = (ends.udp_sender, ends.udp_receiver);
    for direction in ["send", "receive"] {
        assert_line(
            &outcome,
            &format!("udp {direction} 127.0.0.1:{sender}->127.0.0.1:{receiver} 16"),
        );
        assert_line(
            &outcome,
            &format!("ip {direction} 4 lo 127.0.0.1 UDP 20 <null>"),
        );
    }
    assert_line(
        &outcome,
        &format!("udps send {sender} {receiver} 127.0.0.1 127.0.0.1"),
    );
    assert_line(
        &outcome,
        &format!("udps receive {receiver} {sender} 127.0.0.1 127.0.0.1"),
    );
}

/// The members of each network type, by the type's name.
const NETWORK_MEMBERS: &[(&str, &[&str])] = &[
    ("pktinfo_t", &["pkt_addr"]),
    ("csinfo_t", &["cs_addr", "cs_cid"]),
    (
        "ipinfo_t",
        &["ip_ver", "ip_plength", "ip_saddr", "ip_daddr"],
    ),
    (
        "ifinfo_t",
        &["if_name", "if_local", "if_ipstack", "if_addr"],
    ),
    (
        "ipv4info_t",
        &[
            "ipv4_ver",
            "ipv4_ihl",
            "ipv4_tos",
            "ipv4_length",
            "ipv4_ident",
            "ipv4_flags",
            "ipv4_offset",
            "ipv4_ttl",
            "ipv4_protocol",
            "ipv4_protostr",
            "ipv4_checksum",
            "ipv4_src",
            "ipv4_dst",
            "ipv4_saddr",
            "ipv4_daddr",
            "ipv4_hdr",
        ],
    ),
    (
        "ipv6info_t",
        &[
            "ipv6_ver",
            "ipv6_tclass",
            "ipv6_flow",
            "ipv6_plen",
            "ipv6_nexthdr",
            "ipv6_nextstr",
            "ipv6_hlim",
            "ipv6_src",
            "ipv6_dst",
            "ipv6_saddr",
            "ipv6_daddr",
            "ipv6_hdr",
        ],
    ),
    (
        "tcpinfo_t",
        &[
            "tcp_sport",
            "tcp_dport",
            "tcp_seq",
            "tcp_ack",
            "tcp_offset",
            "tcp_flags",
            "tcp_window",
            "tcp_checksum",
            "tcp_urgent",
            "tcp_hdr",
        ],
    ),
    (
        "tcpsinfo_t",
        &[
            "tcps_addr",
            "tcps_local",
            "tcps_lport",
            "tcps_rport",
            "tcps_laddr",
            "tcps_raddr",
            "tcps_state",
            "tcps_iss",
            "tcps_irs",
            "tcps_suna",
            "tcps_snxt",
            "tcps_rnxt",
            "tcps_swnd",
            "tcps_snd_ws",
            "tcps_rwnd",
            "tcps_rcv_ws",
            "tcps_cwnd",
            "tcps_cwnd_ssthresh",
            "tcps_sack_snxt",
            "tcps_rto",
            "tcps_mss",
            "tcps_retransmit",
            "tcps_rtt",
            "tcps_rtt_sd",
        ],
    ),
    ("tcplsinfo_t", &["tcps_state"]),
    (
        "udpinfo_t",
        &[
            "udp_sport",
            "udp_dport",
            "udp_length",
            "udp_checksum",
            "udp_hdr",
        ],
    ),
    (
        "udpsinfo_t",
        &[
            "udps_addr",
            "udps_lport",
            "udps_rport",
            "udps_laddr",
            "udps_raddr",
        ],
    ),
];

/// Each probe of the three providers with its `args[]` types, as `dtrace -lv` lists them.
const NETWORK_PROBES: &[(&str, &[&str])] = &[
    ("ip:::receive", IP_ARGUMENTS),
    ("ip:::send", IP_ARGUMENTS),
    ("udp:::receive", UDP_ARGUMENTS),
    ("udp:::send", UDP_ARGUMENTS),
    ("tcp:::accept-established", TCP_ARGUMENTS),
    ("tcp:::accept-refused", TCP_ARGUMENTS),
    ("tcp:::connect-established", TCP_ARGUMENTS),
    ("tcp:::connect-refused", TCP_ARGUMENTS),
    ("tcp:::connect-request", TCP_ARGUMENTS),
    ("tcp:::receive", TCP_ARGUMENTS),
    ("tcp:::send", TCP_ARGUMENTS),
    (
        "tcp:::state-change",
        &[
            "void",
            "csinfo_t *",
            "void",
            "tcpsinfo_t *",
            "void",
            "tcplsinfo_t *",
        ],
    ),
];
const IP_ARGUMENTS: &[&str] = &[
    "pktinfo_t *",
    "csinfo_t *",
    "ipinfo_t *",
    "ifinfo_t *",
    "ipv4info_t *",
    "ipv6info_t *",
];
const TCP_ARGUMENTS: &[&str] = &[
    "pktinfo_t *",
    "csinfo_t *",
    "ipinfo_t *",
    "tcpsinfo_t *",
    "tcpinfo_t *",
];
const UDP_ARGUMENTS: &[&str] = &[
    "pktinfo_t *",
    "csinfo_t *",
    "ipinfo_t *",
    "udpsinfo_t *",
    "udpinfo_t *",
];

/// A working dtrace and the network probes (which need the kernel's BTF), or why not.
fn compile_skip_reason() -> Option<String> {
    let listing = DTRACE.run(&["-l", "-n", "tcp:::send"]);
    (listing.status != Some(0)).then(|| format!("no tcp:::send here: {}", listing.stderr))
}

#[test]
fn every_network_probe_lists_its_argument_types() {
    if let Some(reason) = compile_skip_reason() {
        println!("skipping: {reason}");
        return;
    }
    for (probe, types) in NETWORK_PROBES {
        let outcome = DTRACE.run(&["-lv", "-n", probe]);
        let listed: Vec<&str> = outcome
            .stdout
            .lines()
            .map(str::trim)
            .filter_map(|line| {
                line.split_once(": ")
                    .filter(|(index, _)| index.starts_with("args["))
            })
            .map(|(_, ty)| ty)
            .collect();
        assert_eq!(&listed, types, "{probe}: {}", outcome.stdout);
    }
}

#[test]
fn every_network_translator_member_compiles_on_every_probe() {
    if let Some(reason) = compile_skip_reason() {
        println!("skipping: {reason}");
        return;
    }
    let members_of = |ty: &str| {
        NETWORK_MEMBERS
            .iter()
            .find(|(name, _)| *name == ty.trim_end_matches(" *"))
            .map(|(_, members)| *members)
            .unwrap_or(&[])
    };
    let mut failures = Vec::new();
    for (probe, types) in NETWORK_PROBES {
        for (index, ty) in types.iter().enumerate() {
            for member in members_of(ty) {
                let program = format!("{probe} {{ trace(args[{index}]->{member}); }}");
                let outcome = DTRACE.run(&["-e", "-n", &program]);
                if outcome.status != Some(0) {
                    failures.push(format!("{program}: {}", outcome.stderr.trim()));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
