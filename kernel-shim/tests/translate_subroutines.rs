//! The subroutines and built-ins that need `bpf_loop` or kernel type information, in
//! real D programs run on the reference engine and, translated, in the kernel: `index`,
//! `rindex`, `strstr`, `cleanpath`, `strtok`, the `inet_*` formatters, `link_ntop`,
//! `ppid`, `progenyof`, `regs[]` and `uregs[]`. Records must agree byte for byte.

mod translate_common;

use translate_common::{bpf_available, check, compile_d};

fn firings() -> Vec<Vec<u64>> {
    [(4i64, 0u64), (-2, 1), (9, 2), (100, 3), (0, 4)]
        .iter()
        .map(|&(value, index)| {
            let mut arguments = vec![value as u64, index, index % 3];
            arguments.resize(10, 0);
            arguments
        })
        .collect()
}

fn check_d(name: &str, text: &str) {
    if !bpf_available(name) {
        return;
    }
    check(&compile_d(text), &firings());
}

#[test]
fn index_rindex_and_strstr() {
    check_d(
        "index_rindex_and_strstr",
        r#"
        test:::fire { trace(index("hello world", "o")); trace(index("hello world", "o", 5)); trace(index("hello world", "xyz")); trace(index("abc", "")); }
        test:::fire { trace(index("abc", "", 10)); trace(index("abc", "abcd")); trace(index("aaa", "aa", -3)); trace(index("abcabc", "abc", 1)); }
        test:::fire { trace(rindex("hello world", "o")); trace(rindex("hello world", "o", 5)); trace(rindex("hello world", "o", 4)); trace(rindex("abc", "", -1)); }
        test:::fire { trace(rindex("abc", "x", -1)); trace(rindex("abc", "", 100)); trace(rindex("abcabc", "abc")); trace(rindex("aaaa", "aa", 1)); }
        test:::fire { trace(strstr("hello world", "lo w")); trace(strstr("hello", "")); trace(strstr("hello", "xyz") == (char *)0); }
        test:::fire { trace(index(probename, "re")); trace(index("a long string with a long needle inside", "long needle")); }
        test:::fire { trace(index("hello world", "o", (int)arg0)); trace(rindex("hello world", "l", (int)arg0)); trace(rindex(probefunc, "n", (int)arg1)); }
        test:::fire { trace(index("0123456789abcdef0123456789abcdefXY", "0123456789abcdefXY")); trace(rindex("abcdefghijklmnopqrstuvwxyz", "klmnopqrstu")); }
        "#,
    );
}

#[test]
fn cleanpath() {
    check_d(
        "cleanpath",
        r#"
        test:::fire { trace(cleanpath("/a/b/c")); trace(cleanpath("/a//b")); trace(cleanpath("/a/./b")); trace(cleanpath("/a/b/../c")); }
        test:::fire { trace(cleanpath("/a/b/..")); trace(cleanpath("/a/..")); trace(cleanpath("/a/../../b")); trace(cleanpath("/a/..b/c")); }
        test:::fire { trace(cleanpath("/a/.b")); trace(cleanpath("a/..")); trace(cleanpath("")); trace(cleanpath("/")); trace(cleanpath("/./")); }
        test:::fire { trace(cleanpath("/usr/lib/../share/./doc//x/..")); trace(cleanpath("//./../..//a/b/./../../c/")); trace(cleanpath(probename)); }
        "#,
    );
}

#[test]
fn cleanpath_near_strsize() {
    if !bpf_available("cleanpath_near_strsize") {
        return;
    }
    let program = compile_d(
        r#"
        #pragma D option strsize=16
        test:::fire { trace(cleanpath("/abcdefghijklmnopqrstuvwxyz")); trace(cleanpath("/a/b/c/d/e/../f/g")); trace(cleanpath("/abcdefgh")); }
        "#,
    );
    let options = kernel_shim::map_layout::LayoutOptions {
        strsize: 16,
        ..translate_common::options()
    };
    translate_common::check_with(&program, &firings(), &options);
}

#[test]
fn strtok() {
    check_d(
        "strtok",
        r#"
        test:::fire { trace(strtok("  alpha, beta;;gamma ", " ,;")); trace(strtok((char *)0, " ,;")); trace(strtok((char *)0, ";")); }
        test:::fire { this->t = strtok((char *)0, " ,;"); trace(this->t == (char *)0); trace(strtok("abc", "")); trace(strtok((char *)0, "x") == (char *)0); }
        test:::fire { trace(strtok(",,,", ",") == (char *)0); trace(strtok("/usr/local/bin", "/")); trace(strtok((char *)0, "/")); }
        test:::fire { trace(strtok((char *)0, "/")); trace(strtok(probename, "i")); trace(strtok((char *)0, "i")); }
        test:::fire /arg1 == 2/ { trace(strtok((char *)0, "i")); }
        "#,
    );
}

#[test]
fn strtok_without_a_string_is_null() {
    check_d(
        "strtok_without_a_string_is_null",
        r#"
        test:::fire { trace(strtok((char *)0, ",")); }
        dtrace:::ERROR { trace(arg4); trace(arg5); }
        test:::fire { trace(strtok("a,b", ",")); }
        test:::fire { trace(strtok((char *)0, ",")); trace(strtok((char *)0, ",") == (char *)0); }
        test:::fire { trace(strtok((char *)0, ",")); }
        "#,
    );
}

#[test]
fn inet_and_link_formatting() {
    check_d(
        "inet_and_link_formatting",
        r#"
        test:::fire {
            this->a = (uint8_t *)alloca(20);
            this->a[0] = 192; this->a[1] = 168; this->a[2] = 1; this->a[3] = (uint8_t)arg0;
            trace(inet_ntoa((ipaddr_t *)this->a));
            trace(inet_ntop(2, (void *)this->a));
            trace(link_ntop(1, (void *)this->a));
        }
        test:::fire {
            this->a = (uint8_t *)alloca(20);
            this->a[0] = 0xfe; this->a[1] = 0x80; this->a[8] = 2; this->a[9] = 0x14;
            this->a[10] = 0x4f; this->a[11] = 0xff; this->a[12] = 0xfe; this->a[13] = 0x0b;
            this->a[14] = 0x76; this->a[15] = 0xc8; this->a[19] = 0xab;
            trace(inet_ntoa6((in6_addr_t *)this->a));
            trace(inet_ntop(10, (void *)this->a));
            trace(link_ntop(32, (void *)this->a));
        }
        test:::fire {
            this->a = (uint8_t *)alloca(16);
            trace(inet_ntoa6((in6_addr_t *)this->a));
            this->a[15] = 1;
            trace(inet_ntoa6((in6_addr_t *)this->a));
            this->a[10] = 0xff; this->a[11] = 0xff; this->a[12] = 10; this->a[14] = (uint8_t)arg1;
            trace(inet_ntoa6((in6_addr_t *)this->a));
            trace(inet_ntop(10, (void *)this->a));
            this->a[10] = 0; this->a[11] = 0;
            trace(inet_ntoa6((in6_addr_t *)this->a));
            trace(inet_ntop(10, (void *)this->a));
        }
        test:::fire {
            this->a = (uint8_t *)alloca(16);
            this->a[0] = 0x20; this->a[1] = 0x01; this->a[2] = 0x0d; this->a[3] = 0xb8;
            this->a[9] = 1; this->a[15] = (uint8_t)arg1;
            trace(inet_ntoa6((in6_addr_t *)this->a));
            this->a[14] = 1; this->a[15] = 0;
            trace(inet_ntoa6((in6_addr_t *)this->a));
            this->a[0] = 0; this->a[1] = 1; this->a[2] = 0; this->a[3] = 0; this->a[5] = 2;
            trace(inet_ntop(10, (void *)this->a));
        }
        test:::fire { this->a = (uint8_t *)alloca(16); trace(inet_ntop(3, (void *)this->a)); }
        test:::fire { this->a = (uint8_t *)alloca(16); trace(link_ntop(2, (void *)this->a)); }
        test:::fire { trace(inet_ntoa((ipaddr_t *)arg3)); }
        test:::fire { trace(arg1); }
        "#,
    );
}

#[test]
fn ppid_and_progenyof() {
    if !bpf_available("ppid_and_progenyof") {
        return;
    }
    // SAFETY: getpid has no preconditions.
    let pid = unsafe { libc::getpid() };
    let program = compile_d(&format!(
        "test:::fire {{ trace(ppid); trace(progenyof({pid})); trace(progenyof(-5)); trace(progenyof(arg1 + 1000000000)); }}"
    ));
    let outcome = check(&program, &firings());
    assert_eq!(outcome.records.len(), firings().len());
    // The kernel also follows the ancestors, which the reference engine's context does
    // not know: the test's parent is one.
    // SAFETY: getppid has no preconditions.
    let parent = unsafe { libc::getppid() };
    let program = compile_d(&format!(
        "test:::fire {{ trace(progenyof({parent})); trace(progenyof(1)); }}"
    ));
    let mut kernel = translate_common::load_kernel(&program, &translate_common::options());
    kernel.fire(&[0; 10]);
    let records = kernel.outcome(&program).records;
    assert_eq!(records.len(), 1);
    // int results; pid 1 is everyone's ancestor.
    assert_eq!(records[0][8..], [1, 0, 0, 0, 1, 0, 0, 0]);
}

#[test]
fn regs_fault_without_registers_and_uregs_read_the_thread() {
    // A raw tracepoint has no registers of its own: regs[] faults as in the reference
    // engine (whose test context has none either).
    check_d(
        "regs_fault_without_registers",
        r#"
        test:::fire { trace(regs[16]); }
        test:::fire { trace(uregs[30]); }
        dtrace:::ERROR { trace(arg4); trace(arg5); }
        test:::fire { trace(arg1); }
        "#,
    );
    if !bpf_available("uregs_read_the_thread") {
        return;
    }
    // The test thread entered the kernel through bpf(2): orig_ax (slot 15) is its number.
    let program =
        compile_d("test:::fire { trace(uregs[15]); trace(uregs[19] != 0); trace(ucaller >= 0); }");
    let mut kernel = translate_common::load_kernel(&program, &translate_common::options());
    kernel.fire(&[0; 10]);
    let records = kernel.outcome(&program).records;
    assert_eq!(records.len(), 1);
    // A u64, then two ints.
    let orig_ax = u64::from_le_bytes(records[0][8..16].try_into().unwrap());
    assert_eq!(orig_ax, libc::SYS_bpf as u64);
    assert_eq!(records[0][16..], [1, 0, 0, 0, 1, 0, 0, 0]);
}

#[test]
fn loops_in_error_clauses_and_with_long_strings() {
    if !bpf_available("loops_in_error_clauses_and_with_long_strings") {
        return;
    }
    let program = compile_d(
        r#"
        #pragma D option strsize=1024
        test:::fire { trace(arg0 / arg2); }
        dtrace:::ERROR { trace(index("an error clause", "clause")); trace(strtok("x y", " ")); trace(cleanpath("/e/../f")); }
        test:::fire { trace(strtok("p q", " ")); trace(rindex(probename, "r")); trace(strstr("needle in a haystack", "hay")); }
        test:::fire { trace(strtok((char *)0, " ")); trace(inet_ntoa6((in6_addr_t *)alloca(16))); }
        "#,
    );
    let options = kernel_shim::map_layout::LayoutOptions {
        strsize: 1024,
        ..translate_common::options()
    };
    translate_common::check_with(&program, &firings(), &options);
}

#[test]
fn register_and_stack_reads_load_for_every_context() {
    if !bpf_available("register_and_stack_reads_load_for_every_context") {
        return;
    }
    use kernel_shim::translate::{ContextKind, ReturnOffset};
    let program = compile_d(
        "test:::fire { trace(regs[16]); trace(regs[arg1]); trace(uregs[19]); trace(uregs[arg0]); trace(ucaller); trace(ppid); trace(ustackdepth); ustack(); }",
    );
    for context in [
        ContextKind::Kprobe {
            return_probe: false,
        },
        ContextKind::Uprobe {
            return_probe: true,
            process: None,
            return_offset: ReturnOffset::Unknown,
            function_entry: false,
            usdt_arguments: None,
        },
        ContextKind::Uprobe {
            return_probe: true,
            process: Some(1),
            return_offset: ReturnOffset::Recorded,
            function_entry: false,
            usdt_arguments: None,
        },
        ContextKind::Uprobe {
            return_probe: false,
            process: Some(1),
            return_offset: ReturnOffset::Unknown,
            function_entry: true,
            usdt_arguments: None,
        },
        ContextKind::PerfEvent,
        ContextKind::DtraceMarker,
        ContextKind::Tracepoint { fields: Vec::new() },
        ContextKind::SyscallEntry { syscall: None },
        ContextKind::RawTracepoint {
            argument_count: 2,
            subject_task_argument: None,
        },
    ] {
        translate_common::load_kernel_with(&program, &translate_common::options(), &context);
    }
}

/// A small deterministic generator (xorshift), so that the generated cases are the same
/// on every run.
struct Cases(u64);

impl Cases {
    fn next(&mut self, below: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % below
    }

    fn text(&mut self, alphabet: &[u8], longest: u64) -> Vec<u8> {
        let length = self.next(longest + 1);
        (0..length)
            .map(|_| alphabet[self.next(alphabet.len() as u64) as usize])
            .collect()
    }
}

#[test]
fn generated_strings_and_addresses() {
    if !bpf_available("generated_strings_and_addresses") {
        return;
    }
    let program = compile_d(
        r#"
        test:::fire {
            this->s = copyinstr(arg0); this->sub = copyinstr(arg1);
            trace(index(this->s, this->sub)); trace(index(this->s, this->sub, (int)arg2));
            trace(rindex(this->s, this->sub)); trace(rindex(this->s, this->sub, (int)arg2));
            trace(strstr(this->s, this->sub) == (char *)0); trace(cleanpath(this->s));
            trace(strtok(this->s, this->sub)); trace(strtok((char *)0, this->sub));
        }
        test:::fire {
            trace(inet_ntoa6((in6_addr_t *)copyin(arg3, 16)));
            trace(inet_ntop(10, (void *)copyin(arg3, 16)));
        }
        "#,
    );
    let mut cases = Cases(0x9e37_79b9_7f4a_7c15);
    let mut memory = Vec::new();
    let mut placements = Vec::new();
    for _ in 0..150 {
        let string = cases.text(b"/.ab", 14);
        let sub = cases.text(b"/.ab", 3);
        let start = cases.next(20) as i64 - 5;
        let mut address = [0u8; 16];
        for group in 0..8 {
            if cases.next(3) != 0 {
                continue;
            }
            let value = match cases.next(4) {
                0 => 0xffff,
                1 => 1,
                _ => cases.next(0x1_0000) as u16,
            };
            address[2 * group..2 * group + 2].copy_from_slice(&value.to_be_bytes());
        }
        let at = memory.len();
        memory.extend_from_slice(&string);
        memory.push(0);
        memory.extend_from_slice(&sub);
        memory.push(0);
        memory.extend_from_slice(&address);
        placements.push((at, string.len() + 1, sub.len() + 1, start));
    }
    let memory: &'static [u8] = Box::leak(memory.into_boxed_slice());
    let base = memory.as_ptr() as u64;
    let firings: Vec<Vec<u64>> = placements
        .iter()
        .map(|&(at, string, sub, start)| {
            let string_address = base + at as u64;
            let mut arguments = vec![
                string_address,
                string_address + string as u64,
                start as u64,
                string_address + (string + sub) as u64,
            ];
            arguments.resize(10, 0);
            arguments
        })
        .collect();
    translate_common::check_with_user_memory(
        &program,
        &firings,
        &translate_common::options(),
        &[(base, memory.to_vec())],
    );
}
