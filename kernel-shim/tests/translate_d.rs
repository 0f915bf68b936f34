//! Real D programs, compiled by `dlang::compile`, run on the reference engine and,
//! translated, in the kernel: records must agree byte for byte and aggregations word for
//! word.

mod translate_common;

use translate_common::{bpf_available, check, compile_d};

fn firings() -> Vec<Vec<u64>> {
    let mut firings = Vec::new();
    for (index, value) in [7i64, 0, -3, 100, 12345, 6, 1 << 40, -1].iter().enumerate() {
        firings.push(vec![
            *value as u64,
            index as u64,
            (index % 3) as u64,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
        ]);
    }
    firings
}

fn check_d(name: &str, text: &str) {
    if !bpf_available(name) {
        return;
    }
    check(&compile_d(text), &firings());
}

#[test]
fn d_trace_and_printf() {
    check_d(
        "d_trace_and_printf",
        r#"test:::fire { trace(arg0 + arg1); trace(arg0 * 3 - arg1); printf("%d %s %s\n", arg0, probename, execname); }"#,
    );
}

#[test]
fn d_predicates_and_ternaries() {
    check_d(
        "d_predicates_and_ternaries",
        r#"test:::fire /arg0 > 5 && arg1 != 3/ { trace(arg0 > 100 ? "big" : "small"); trace(arg1 == 0 || arg0 < 0); }"#,
    );
}

#[test]
fn d_variables() {
    check_d(
        "d_variables",
        r#"
        int64_t total;
        test:::fire { self->count++; total += arg0; this->twice = arg1 * 2; }
        test:::fire { trace(self->count); trace(total); trace(this->twice); }
        test:::fire { last = probefunc; trace(last); name[arg1 % 3] = probename; trace(name[arg1 % 3]); }
        test:::fire /arg1 == 4/ { self->count = 0; }
        "#,
    );
}

#[test]
fn d_associative_arrays_and_strings() {
    check_d(
        "d_associative_arrays_and_strings",
        r#"
        test:::fire { counts[arg1 % 3, "key"]++; trace(counts[arg1 % 3, "key"]); }
        test:::fire { s = strjoin("ab", strjoin(probename, "cd")); trace(s); trace(strlen(s)); trace(s == "abfirecd"); trace(s < "b"); }
        "#,
    );
}

#[test]
fn d_aggregations() {
    check_d(
        "d_aggregations",
        r#"
        test:::fire { @c[arg2] = count(); @s[probename] = sum(arg0); @a = avg(arg0); @mn = min(arg0); @mx = max(arg0); }
        test:::fire { @sd = stddev(arg0); @q = quantize(arg0); @l = lquantize(arg0, -10, 100, 5); @ll = llquantize(arg0, 10, 0, 4, 20); }
        "#,
    );
}

#[test]
fn d_faults_and_error_clauses() {
    check_d(
        "d_faults_and_error_clauses",
        r#"
        test:::fire { trace(arg0 / arg2); }
        test:::fire { trace(*(int *)arg3); }
        dtrace:::ERROR { trace(arg4); }
        test:::fire { trace(arg1); }
        "#,
    );
}

#[test]
fn d_speculations() {
    check_d(
        "d_speculations",
        r#"
        test:::fire /arg1 == 0/ { spec = speculation(); }
        test:::fire { speculate(spec); trace(arg0); printf("%d\n", arg1); }
        test:::fire /arg1 == 3/ { commit(spec); }
        test:::fire /arg1 == 4/ { spec = speculation(); }
        test:::fire /arg1 == 6/ { discard(spec); }
        "#,
    );
}

#[test]
fn d_exit() {
    check_d(
        "d_exit",
        r#"test:::fire /arg1 == 2/ { exit(0); } test:::fire { trace(arg1); }"#,
    );
}

#[test]
fn d_string_subroutines() {
    check_d(
        "d_string_subroutines",
        r#"
        test:::fire { trace(toupper("Hello, World 123")); trace(tolower(probefunc)); trace(tolower("MiXeD")); }
        test:::fire { trace(strchr("hello", 'l')); trace(strrchr("hello", 'l')); trace(strchr("hello", 'z')); }
        test:::fire { trace(lltostr(arg0)); trace(lltostr(arg0, 16)); trace(lltostr(arg1, 8)); trace(lltostr(arg0, 2)); trace(lltostr(0, 16)); }
        test:::fire { trace(rand() >= 0); trace(htonl(arg1)); trace(ntohs(0x1234)); }
        "#,
    );
}

#[test]
fn d_default_options() {
    if !bpf_available("d_default_options") {
        return;
    }
    let program = compile_d(
        r#"test:::fire { self->s = strjoin(probename, "x"); trace(self->s); @[self->s] = count(); printf("%s %d\n", execname, arg0); }"#,
    );
    translate_common::check_with(
        &program,
        &firings(),
        &kernel_shim::map_layout::LayoutOptions {
            cpu_count: kernel_shim::sys::possible_cpu_count().unwrap_or(1) as u32,
            ..kernel_shim::map_layout::LayoutOptions::default()
        },
    );
}

#[test]
fn d_substr() {
    check_d(
        "d_substr",
        r#"
        test:::fire { trace(substr("hello world", 6)); trace(substr("hello world", -5, 2)); trace(substr("hello world", 3, -3)); }
        test:::fire { trace(substr("hello world", arg1)); trace(substr("hello world", (int)arg0, 4)); trace(substr("hello", -20, 12)); }
        "#,
    );
}

static USER_STRING: &[u8] = b"a string in user memory\0and more";

#[test]
fn d_user_memory() {
    if !bpf_available("d_user_memory") {
        return;
    }
    let program = compile_d(
        r#"
        test:::fire { trace(copyinstr(arg0)); trace(copyinstr(arg0, 5)); trace(*(char *)copyin(arg0 + 2, 4)); }
        test:::fire { trace(copyinstr(arg1)); tracemem(copyin(arg0, 16), 16); }
        test:::fire { this->buffer = (char *)alloca(16); bcopy(copyin(arg0, 8), this->buffer, 8); trace(*(uint64_t *)this->buffer); }
        "#,
    );
    let address = USER_STRING.as_ptr() as u64;
    let firings = vec![vec![address, 16], vec![address + 3, 0]];
    translate_common::check_with_user_memory(
        &program,
        &firings,
        &translate_common::options(),
        &[(address, USER_STRING.to_vec())],
    );
}

#[test]
fn d_faults_inside_error_clauses_only_count() {
    check_d(
        "d_faults_inside_error_clauses_only_count",
        r#"
        test:::fire /arg2 == 0/ { trace(arg0 / arg2); }
        dtrace:::ERROR { trace(arg1 / (arg2 - arg2)); }
        test:::fire { trace(arg1); }
        test:::fire { s1 = speculation(); s2 = speculation(); s3 = speculation(); trace(s1 + s2 + s3); }
        "#,
    );
}

#[test]
fn d_basename_and_dirname() {
    check_d(
        "d_basename_and_dirname",
        r#"
        test:::fire { trace(basename("/usr/lib/libc.so")); trace(dirname("/usr/lib/libc.so")); trace(basename("/usr/lib/")); trace(dirname("/usr/lib/")); }
        test:::fire { trace(basename("usr//lib//")); trace(dirname("usr//lib//")); trace(basename("file")); trace(dirname("file")); }
        test:::fire { trace(basename("")); trace(dirname("")); trace(basename("///")); trace(dirname("///")); trace(dirname("/usr")); trace(dirname("//usr")); }
        "#,
    );
}

/// `lseek(2)`'s number on x86_64.
const SYS_LSEEK: u32 = 8;

#[test]
fn d_syscall_arguments_and_errno() {
    if !bpf_available("d_syscall_arguments_and_errno") {
        return;
    }
    // SAFETY: gettid has no preconditions.
    let tid = unsafe { libc::gettid() };
    let entry = compile_d(&format!(
        "test:::fire /tid == {tid}/ {{ trace(arg0); trace(arg1); trace(arg2); trace(errno); }}"
    ));
    let exit = compile_d(&format!(
        "test:::fire /tid == {tid}/ {{ trace(arg0); trace(arg1); trace(errno); }}"
    ));
    let options = translate_common::options();
    let mut entry_run = translate_common::load_kernel_with(
        &entry,
        &options,
        &kernel_shim::translate::ContextKind::SyscallEntry {
            syscall: Some(SYS_LSEEK),
        },
    );
    let mut exit_run = translate_common::load_kernel_with(
        &exit,
        &options,
        &kernel_shim::translate::ContextKind::SyscallReturn {
            syscall: Some(SYS_LSEEK),
        },
    );
    let entry_link = entry_run.attach_raw_tracepoint("sys_enter");
    let exit_link = exit_run.attach_raw_tracepoint("sys_exit");
    // SAFETY: lseek on an invalid descriptor only fails.
    let result = unsafe { libc::lseek(-1, 1234, 7) };
    assert_eq!(result, -1);
    drop((entry_link, exit_link));
    let words = |record: &Vec<u8>| -> Vec<i64> {
        record[8..]
            .chunks(8)
            .map(|chunk| i64::from_le_bytes(chunk.try_into().unwrap()))
            .collect()
    };
    let entries = entry_run.outcome(&entry).records;
    assert_eq!(entries.len(), 1, "{entries:?}");
    // The descriptor is an `int`: the register holds its 32 bits, zero-extended.
    assert_eq!(words(&entries[0]), [0xffff_ffff, 1234, 7, 0]);
    let returns = exit_run.outcome(&exit).records;
    assert_eq!(returns.len(), 1, "{returns:?}");
    assert_eq!(
        words(&returns[0]),
        [
            -(libc::EBADF as i64),
            -(libc::EBADF as i64),
            libc::EBADF as i64
        ]
    );
}

#[test]
fn d_strtoll() {
    check_d(
        "d_strtoll",
        r#"
        test:::fire { trace(strtoll("123")); trace(strtoll("  -42xyz")); trace(strtoll("+7")); trace(strtoll("0x1f", 16)); }
        test:::fire { trace(strtoll("1f", 16)); trace(strtoll("0xg", 16)); trace(strtoll("777", 8)); trace(strtoll("zz", 36)); trace(strtoll("")); }
        "#,
    );
}

/// A clause of 130 `printf()`s over an associative array, a thread-local and
/// string constants: its actions run in subprograms of a few actions each, and the record
/// (over 32 KiB) lies past the work area's 16-bit offsets; records agree byte for byte.
#[test]
fn d_long_clause_with_dynamic_variables() {
    let lines: String = (0..130)
        .map(|line| {
            format!(
                "a[\"k\"] = arg0 + {line}; self->x = arg1 * {line}; \
                 printf(\"%d %d %s\\n\", a[\"k\"], self->x, \"line\");\n"
            )
        })
        .collect();
    check_d(
        "d_long_clause_with_dynamic_variables",
        &format!("test:::fire {{\n{lines}}}"),
    );
}
