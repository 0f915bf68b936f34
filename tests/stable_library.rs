//! The D library's translators compile against this machine's kernel types: every
//! member of psinfo_t, lwpsinfo_t, bufinfo_t, devinfo_t and fileinfo_t that the
//! library defines is usable (`dtrace -e` compiles without tracing, so no root is
//! needed), and the members Linux has no source for are DTrace's compile error.
//! Skips with a reason when the kernel's BTF cannot be read.

use std::process::Command;

fn compiles(program: &str) -> Result<(), String> {
    let output = Command::new(env!("CARGO_BIN_EXE_dtrace"))
        .args(["-e", "-n", program])
        .output()
        .expect("run dtrace");
    if output.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

fn kernel_types_readable() -> bool {
    if std::fs::File::open("/sys/kernel/btf/vmlinux").is_err() {
        println!("skipping: /sys/kernel/btf/vmlinux cannot be read");
        return false;
    }
    true
}

/// Compiles `trace(BASE MEMBER)` in a clause on `probe` for every member and
/// returns the failures.
fn failures(probe: &str, base: &str, members: &[&str]) -> Vec<String> {
    members
        .iter()
        .filter_map(|member| {
            let program = format!("{probe} {{ trace({base}{member}); }}");
            compiles(&program)
                .err()
                .map(|error| format!("{program}: {error}"))
        })
        .collect()
}

#[test]
fn every_psinfo_and_lwpsinfo_member_compiles() {
    if !kernel_types_readable() {
        return;
    }
    let psinfo = [
        "pr_flag",
        "pr_nlwp",
        "pr_pid",
        "pr_ppid",
        "pr_pgid",
        "pr_sid",
        "pr_uid",
        "pr_euid",
        "pr_gid",
        "pr_egid",
        "pr_addr",
        "pr_size",
        "pr_rssize",
        "pr_ttydev",
        "pr_pctcpu",
        "pr_pctmem",
        "pr_fname",
        "pr_psargs",
        "pr_wstat",
        "pr_argc",
        "pr_argv",
        "pr_envp",
        "pr_dmodel",
        "pr_taskid",
        "pr_projid",
        "pr_poolid",
        "pr_zoneid",
        "pr_contract",
        "pr_nzomb",
    ];
    let lwpsinfo = [
        "pr_flag",
        "pr_lwpid",
        "pr_addr",
        "pr_wchan",
        "pr_stype",
        "pr_state",
        "pr_sname",
        "pr_nice",
        "pr_oldpri",
        "pr_cpu",
        "pr_pri",
        "pr_pctcpu",
        "pr_name",
        "pr_onpro",
        "pr_bindpro",
        "pr_bindpset",
        "pr_lgrp",
    ];
    let mut failed = failures("BEGIN", "curpsinfo->", &psinfo);
    failed.extend(failures("BEGIN", "curlwpsinfo->", &lwpsinfo));
    failed.extend(failures(
        "proc:::signal-send",
        "args[1]->",
        &["pr_pid", "pr_fname", "pr_uid"],
    ));
    assert!(failed.is_empty(), "{failed:#?}");
}

#[test]
fn members_linux_cannot_provide_are_compile_errors() {
    if !kernel_types_readable() {
        return;
    }
    for member in ["pr_start", "pr_time", "pr_lwp"] {
        let error = compiles(&format!("BEGIN {{ trace(curpsinfo->{member}); }}")).unwrap_err();
        assert!(
            error.contains(&format!(
                "translator does not define conversion for member: {member}"
            )),
            "{error}"
        );
    }
}

#[test]
fn every_io_member_compiles() {
    if !kernel_types_readable() {
        return;
    }
    let bufinfo = [
        "b_flags",
        "b_bcount",
        "b_addr",
        "b_lblkno",
        "b_blkno",
        "b_resid",
        "b_bufsize",
        "b_iodone",
        "b_error",
        "b_edev",
    ];
    let devinfo = [
        "dev_major",
        "dev_minor",
        "dev_instance",
        "dev_name",
        "dev_statname",
        "dev_pathname",
    ];
    let fileinfo = [
        "fi_name",
        "fi_dirname",
        "fi_pathname",
        "fi_offset",
        "fi_fs",
        "fi_mount",
        "fi_oflags",
    ];
    let mut failed = Vec::new();
    for probe in ["io:::start", "io:::done"] {
        failed.extend(failures(probe, "args[0]->", &bufinfo));
        failed.extend(failures(probe, "args[1]->", &devinfo));
        failed.extend(failures(probe, "args[2]->", &fileinfo));
    }
    failed.extend(failures("BEGIN", "fds[0].", &fileinfo));
    assert!(failed.is_empty(), "{failed:#?}");
}

/// A clause on probes of several derivations is compiled once per derivation; a
/// translated argument is only usable through its members.
#[test]
fn clauses_on_several_stable_probes_compile_and_translated_arguments_need_a_member() {
    if !kernel_types_readable() {
        return;
    }
    compiles("proc:::exit, proc:::create, syscall::getpid:entry { trace(arg0); }").unwrap();
    compiles(
        "proc:::signal-send, proc:::signal-discard, sched:::wakeup { trace(args[1]->pr_pid); }",
    )
    .unwrap();
    let error = compiles("proc:::create { trace(args[0]); }").unwrap_err();
    assert!(
        error
            .contains("args[0] is a translated psinfo_t *: it may only be used to access a member"),
        "{error}"
    );
    let error = compiles("proc:::create { trace(args[1]->pr_pid); }").unwrap_err();
    assert!(error.contains("index 1 is out of range"), "{error}");
    let output = Command::new(env!("CARGO_BIN_EXE_dtrace"))
        .args([
            "-x",
            "nolibs",
            "-e",
            "-n",
            "proc:::create { trace(args[0]->pr_pid); }",
        ])
        .output()
        .expect("run dtrace");
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(
        error.contains("a psinfo_t *, a type of the D library, which -x nolibs leaves out"),
        "{error}"
    );
}
