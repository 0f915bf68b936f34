//! Live tests of the pid provider on a `-c` command (as root): the command is held at its
//! entry point with its executable and libraries mapped, so probes in `a.out`, at
//! instruction offsets (only at instruction boundaries) and in the libraries it loads
//! all resolve and fire.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use common::live::{LiveDtrace, ScratchDirectory};

const DTRACE: LiveDtrace = LiveDtrace::with_deadline(Duration::from_secs(60));

/// A program whose `go` is called three times with (i, 2); `weakgo` is a weak alias of
/// `realgo`, called directly three times and through `go` three more; `ten` takes ten
/// arguments, four of them on the stack; main returns 0.
const PROGRAM: &str = r#"
#pragma weak weakgo = realgo
int realgo(int a) { return a + 1; }
int weakgo(int);
__attribute__((noinline)) int go(int a, int b) { return a * b + realgo(a); }
__attribute__((noinline)) long ten(long a, long b, long c, long d, long e, long f, long g,
    long h, long i, long j) { return a + b + c + d + e + f + g + h + i + j; }
int main(void) {
    int s = 0;
    for (int i = 0; i < 3; i++) s += go(i, 2) + weakgo(i);
    return (s + ten(1, 2, 3, 4, 5, 6, 7, 8, 9, 10) + 1) & 1;
}
"#;

/// Builds PROGRAM with `cc` in `scratch`; None (after printing why) without a compiler.
fn built_program(scratch: &ScratchDirectory) -> Option<PathBuf> {
    let source = scratch.write("pidprog.c", PROGRAM);
    let binary = scratch.path("pidprog");
    match Command::new("cc")
        .args(["-O0", "-o"])
        .arg(&binary)
        .arg(&source)
        .status()
    {
        Ok(status) if status.success() => Some(binary),
        other => {
            println!("skipping: no working C compiler ({other:?})");
            None
        }
    }
}

#[test]
fn pid_probes_resolve_in_the_command_itself_and_its_libraries() {
    if DTRACE.must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("pid-provider-live");
    let Some(binary) = built_program(&scratch) else {
        return;
    };
    let command = binary.display().to_string();
    let entry = DTRACE.run(&[
        "-q",
        "-n",
        "pid$target:a.out:go:entry { printf(\"%s %d %d\\n\", probemod, arg0, arg1); }",
        "-c",
        &command,
    ]);
    assert_eq!(entry.status, Some(0), "{}", entry.stderr);
    assert_eq!(entry.stdout, "pidprog 0 2\npidprog 1 2\npidprog 2 2\n\n");

    let offset = DTRACE.run(&[
        "-q",
        "-n",
        "pid$target:a.out:go:0 { @[probename] = count(); }",
        "-c",
        &command,
    ]);
    assert_eq!(offset.status, Some(0), "{}", offset.stderr);
    assert_eq!(
        offset.stdout,
        "\n  0                                                                 3\n"
    );

    let aliased = DTRACE.run(&[
        "-q",
        "-n",
        "pid$target:a.out:weakgo:entry { @[probefunc] = count(); }",
        "-c",
        &command,
    ]);
    assert_eq!(aliased.status, Some(0), "{}", aliased.stderr);
    assert_eq!(
        aliased.stdout,
        "\n  weakgo                                                            6\n"
    );

    let stacked = DTRACE.run(&[
        "-q",
        "-n",
        "pid$target:a.out:ten:entry { printf(\"%d %d %d %d %d\\n\", arg0, arg5, arg6, arg7, arg9); }
         pid$target:a.out:ten:return { printf(\"%d\\n\", arg1); }",
        "-c",
        &command,
    ]);
    assert_eq!(stacked.status, Some(0), "{}", stacked.stderr);
    assert_eq!(stacked.stdout, "1 6 7 8 10\n55\n\n");

    let library = DTRACE.run(&[
        "-q",
        "-n",
        "pid$target:libc.so.6:exit:entry { printf(\"exit(%d)\\n\", arg0); }",
        "-c",
        &command,
    ]);
    assert_eq!(library.status, Some(0), "{}", library.stderr);
    assert_eq!(library.stdout, "exit(0)\n\n");
}

#[test]
fn pid_descriptions_dtrace_refuses_are_compile_errors_with_their_tags() {
    if DTRACE.must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("pid-provider-refusals");
    let Some(binary) = built_program(&scratch) else {
        return;
    };
    let command = binary.display().to_string();
    let script = scratch.write("beyond.d", "pid$target:a.out:go:ffffffff\n{\n}\n");
    let beyond = DTRACE.run(&[
        "-xerrtags",
        "-s",
        &script.display().to_string(),
        "-c",
        &command,
    ]);
    assert_eq!(beyond.status, Some(1));
    assert_eq!(
        beyond.stderr,
        "dtrace: failed to compile script beyond.d: [D_PROC_OFF] line 1: offset 0xffffffff outside of function 'go'\n"
            .replace("beyond.d", &script.display().to_string())
    );
    let nofunction = DTRACE.run(&[
        "-xerrtags",
        "-n",
        "pid$target:a.out:nosuchfunction:entry { }",
        "-c",
        &command,
    ]);
    assert_eq!(nofunction.status, Some(1));
    assert_eq!(
        nofunction.stderr,
        "dtrace: invalid probe specifier pid$target:a.out:nosuchfunction:entry { }: [D_PROC_FUNC] failed to lookup 'nosuchfunction' in module 'a.out'\n"
    );
    let nosuchprocess = DTRACE.run(&["-xerrtags", "-n", "pid2147483647:a.out:go:entry { }"]);
    assert_eq!(nosuchprocess.status, Some(1));
    assert_eq!(
        nosuchprocess.stderr,
        "dtrace: invalid probe specifier pid2147483647:a.out:go:entry { }: [D_PROC_GRAB] failed to grab process 2147483647\n"
    );
    let badname = DTRACE.run(&["-n", "pid$target:a.out:go:beginning { }", "-c", &command]);
    assert_eq!(badname.status, Some(1));
    assert_eq!(
        badname.stderr,
        "dtrace: invalid probe specifier pid$target:a.out:go:beginning { }: 'beginning' is an invalid probe name\n"
    );
}

#[test]
fn globbed_provider_names_select_the_pid_provider_of_the_process() {
    if DTRACE.must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("pid-provider-glob");
    let Some(binary) = built_program(&scratch) else {
        return;
    };
    let globbed = DTRACE.run(&[
        "-q",
        "-n",
        "p*d$target:a.out:go:entry { @[probeprov == strjoin(\"pid\", lltostr(pid))] = count(); }",
        "-c",
        &binary.display().to_string(),
    ]);
    assert_eq!(globbed.status, Some(0), "{}", globbed.stderr);
    assert_eq!(globbed.stdout, "\n        1                3\n");
}

#[test]
fn listing_with_a_command_lists_its_pid_probes() {
    if DTRACE.must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("pid-provider-listing");
    let Some(binary) = built_program(&scratch) else {
        return;
    };
    let listing = DTRACE.run(&[
        "-l",
        "-n",
        "pid$target:a.out:go:",
        "-c",
        &binary.display().to_string(),
    ]);
    assert_eq!(listing.status, Some(0), "{}", listing.stderr);
    let probes: Vec<Vec<&str>> = listing
        .stdout
        .lines()
        .skip(1)
        .map(|line| line.split_whitespace().skip(2).collect())
        .collect();
    // An empty name is `*`: entry, return, then a probe per instruction of `go`, named
    // by its hex offset, in order.
    assert!(probes.len() > 4, "{}", listing.stdout);
    assert_eq!(probes[0], vec!["pidprog", "go", "entry"]);
    assert_eq!(probes[1], vec!["pidprog", "go", "return"]);
    let offsets: Vec<u64> = probes[2..]
        .iter()
        .map(|probe| {
            assert_eq!(probe[..2], ["pidprog", "go"], "{}", listing.stdout);
            u64::from_str_radix(probe[2], 16).expect("hex offset")
        })
        .collect();
    assert_eq!(offsets[0], 0);
    assert!(offsets.windows(2).all(|pair| pair[0] < pair[1]));
    if let Some(boundaries) = objdump_boundaries(&binary, "go") {
        assert_eq!(offsets, boundaries, "{}", listing.stdout);
    }
}

#[test]
fn a_globbed_function_with_an_offset_takes_the_functions_that_have_it() {
    if DTRACE.must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("pid-provider-glob-offset");
    let Some(binary) = built_program(&scratch) else {
        return;
    };
    let command = binary.display().to_string();
    let list = |description: &str| -> Vec<(String, String)> {
        let listing = DTRACE.run(&["-l", "-n", description, "-c", &command]);
        assert_eq!(listing.status, Some(0), "{description}: {}", listing.stderr);
        listing
            .stdout
            .lines()
            .skip(1)
            .map(|line| {
                let fields: Vec<&str> = line.split_whitespace().collect();
                (fields[3].to_string(), fields[4].to_string())
            })
            .collect()
    };
    // main's last instruction: beyond the end of shorter functions, and (likely)
    // inside an instruction of longer ones; both are left out, not errors.
    let every = list("pid$target:a.out::");
    let last_of_main = every
        .iter()
        .rev()
        .find(|(function, name)| function == "main" && name != "entry" && name != "return")
        .map(|(_, name)| name.clone())
        .expect("main's instructions");
    let expected: Vec<(String, String)> = every
        .iter()
        .filter(|(_, name)| *name == last_of_main)
        .cloned()
        .collect();
    let globbed = list(&format!("pid$target:a.out:*:{last_of_main}"));
    assert!(globbed.contains(&("main".to_string(), last_of_main.clone())));
    assert_eq!(globbed, expected);
    assert!(globbed.len() < every.iter().filter(|(_, name)| name == "entry").count());
}

/// The offsets of the instructions of `function` in `binary` as `objdump -d` shows
/// them; None (after printing why) when objdump is not installed.
fn objdump_boundaries(binary: &std::path::Path, function: &str) -> Option<Vec<u64>> {
    let output = match Command::new("objdump")
        .arg("-d")
        .arg("-w")
        .arg(binary)
        .output()
    {
        Ok(output) if output.status.success() => output,
        other => {
            println!("not comparing with objdump: {other:?}");
            return None;
        }
    };
    let listing = String::from_utf8_lossy(&output.stdout);
    let header = format!("<{function}>:");
    let body = listing.split(&header).nth(1)?.split("\n\n").next()?;
    let addresses: Vec<u64> = body
        .lines()
        .filter_map(|line| line.split_once(':'))
        .filter_map(|(address, _)| u64::from_str_radix(address.trim(), 16).ok())
        .collect();
    let start = *addresses.first()?;
    Some(addresses.iter().map(|address| address - start).collect())
}

/// The offsets in `function` of its instructions whose mnemonic is `mnemonic`, as
/// `objdump -d` shows them; None when objdump is not installed.
fn objdump_offsets_of(
    binary: &std::path::Path,
    function: &str,
    mnemonic: &str,
) -> Option<Vec<u64>> {
    let output = Command::new("objdump")
        .args(["-d", "-w", "--no-show-raw-insn"])
        .arg(binary)
        .output()
        .ok()
        .filter(|output| output.status.success())?;
    let listing = String::from_utf8_lossy(&output.stdout);
    let body = listing
        .split(&format!("<{function}>:"))
        .nth(1)?
        .split("\n\n")
        .next()?;
    let instructions: Vec<(u64, &str)> = body
        .lines()
        .filter_map(|line| line.split_once(':'))
        .filter_map(|(address, text)| {
            Some((u64::from_str_radix(address.trim(), 16).ok()?, text.trim()))
        })
        .collect();
    let start = instructions.first()?.0;
    Some(
        instructions
            .iter()
            .filter(|(_, text)| text.split_whitespace().next() == Some(mnemonic))
            .map(|(address, _)| address - start)
            .collect(),
    )
}

#[test]
fn instruction_probes_everywhere_in_a_function_leave_the_process_intact() {
    if DTRACE.must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("pid-provider-instructions");
    let Some(binary) = built_program(&scratch) else {
        return;
    };
    let command = binary.display().to_string();
    // A probe on every instruction of every function of the program: each fires once
    // per execution, and go still returns 3i + 1, so none was placed inside an
    // instruction. (Hundreds of uprobes: this also keeps attaching and detaching them
    // within the deadline.)
    let everywhere = DTRACE.run(&[
        "-q",
        "-n",
        "pid$target:a.out:: { @[probefunc] = count(); }
         pid$target:a.out:go:return { printf(\"go %d\\n\", arg1); }",
        "-c",
        &command,
    ]);
    assert_eq!(everywhere.status, Some(0), "{}", everywhere.stderr);
    assert!(
        everywhere.stdout.starts_with("go 1\ngo 4\ngo 7\n\n"),
        "{}",
        everywhere.stdout
    );
    let counts: Vec<(&str, u64)> = everywhere
        .stdout
        .lines()
        .skip(4)
        .filter(|line| !line.is_empty())
        .map(|line| {
            let mut fields = line.split_whitespace();
            let function = fields.next().expect("function");
            (
                function,
                fields.next().expect("count").parse().expect("count"),
            )
        })
        .collect();
    for function in ["main", "go", "realgo", "ten"] {
        assert!(
            counts
                .iter()
                .any(|(name, count)| *name == function && *count > 10),
            "{function}: {counts:?}"
        );
    }

    // A pattern on the name selects the offsets whose hex name it matches.
    let matched = DTRACE.run(&[
        "-q",
        "-n",
        "pid$target:a.out:go:[0-4] { @[probename] = count(); }",
        "-c",
        &command,
    ]);
    assert_eq!(matched.status, Some(0), "{}", matched.stderr);
    let names: Vec<&str> = matched
        .stdout
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    assert!(names.contains(&"0"), "{}", matched.stdout);
    assert!(names
        .iter()
        .all(|name| ["0", "1", "2", "3", "4"].contains(name)));
}

#[test]
fn an_offset_inside_an_instruction_is_d_proc_align() {
    if DTRACE.must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("pid-provider-align");
    let Some(binary) = built_program(&scratch) else {
        return;
    };
    // go begins with `push %rbp; mov %rsp,%rbp` (or endbr64): offset 2 is inside an
    // instruction either way.
    let script = scratch.write("align.d", "pid$target:a.out:go:2\n{\n}\n");
    let misaligned = DTRACE.run(&[
        "-xerrtags",
        "-s",
        &script.display().to_string(),
        "-c",
        &binary.display().to_string(),
    ]);
    assert_eq!(misaligned.status, Some(1));
    assert_eq!(
        misaligned.stderr,
        format!(
            "dtrace: failed to compile script {}: [D_PROC_ALIGN] line 1: offset 0x2 is not aligned on an instruction\n",
            script.display()
        )
    );
}

/// A program whose `work` forks: the child returns from `work` too, then exits.
const FORKING_PROGRAM: &str = r#"
#include <unistd.h>
#include <sys/wait.h>
__attribute__((noinline)) int work(void) { return fork(); }
int main(void) { int child = work(); if (child == 0) _exit(0); waitpid(child, 0, 0); return 0; }
"#;

#[test]
fn return_probes_fire_in_the_traced_process_only_not_in_its_fork_child() {
    if DTRACE.must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("pid-provider-fork");
    let source = scratch.write("forker.c", FORKING_PROGRAM);
    let binary = scratch.path("forker");
    if !Command::new("cc")
        .arg("-o")
        .arg(&binary)
        .arg(&source)
        .status()
        .is_ok_and(|status| status.success())
    {
        println!("skipping: no working C compiler");
        return;
    }
    let outcome = DTRACE.run(&[
        "-q",
        "-n",
        "pid$target:a.out:work:return { printf(\"%d %d\\n\", pid == $target, arg1 != 0); }",
        "-c",
        &binary.display().to_string(),
    ]);
    assert_eq!(outcome.status, Some(0), "{}", outcome.stderr);
    assert_eq!(outcome.stdout, "1 1\n\n");
}

#[test]
fn probes_at_one_instruction_fire_in_the_order_they_were_created() {
    if DTRACE.must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("pid-provider-order");
    let Some(binary) = built_program(&scratch) else {
        return;
    };
    let command = binary.display().to_string();
    let run = |program: &str| {
        let outcome = DTRACE.run(&["-q", "-n", program, "-c", &command]);
        assert_eq!(outcome.status, Some(0), "{}", outcome.stderr);
        outcome.stdout
    };
    // entry and offset 0 share an address: the one described first fires first.
    assert_eq!(
        run("pid$target:a.out:go:entry, pid$target:a.out:go:0 { printf(\"%s \", probename); }"),
        "entry 0 entry 0 entry 0 \n"
    );
    assert_eq!(
        run("pid$target:a.out:go:0, pid$target:a.out:go:entry { printf(\"%s \", probename); }"),
        "0 entry 0 entry 0 entry \n"
    );
    // A whole function: entry, then each instruction in order, then return.
    let whole = run("pid$target:a.out:realgo: { printf(\"%s \", probename); }");
    let first_call: Vec<&str> = whole
        .split_whitespace()
        .take_while(|name| *name != "return")
        .collect();
    assert_eq!(first_call[..2], ["entry", "0"], "{whole}");
    let offsets: Vec<u64> = first_call[1..]
        .iter()
        .map(|name| u64::from_str_radix(name, 16).expect("offset"))
        .collect();
    assert!(offsets.windows(2).all(|pair| pair[0] < pair[1]), "{whole}");
}

#[test]
fn user_symbol_actions_name_the_probed_instruction() {
    if DTRACE.must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("pid-provider-symbols");
    let Some(binary) = built_program(&scratch) else {
        return;
    };
    // go's second instruction (offset 1 after `push %rbp`, or 4 after an endbr64).
    let listing = DTRACE.run(&[
        "-l",
        "-n",
        "pid$target:a.out:go:",
        "-c",
        &binary.display().to_string(),
    ]);
    let second = listing
        .stdout
        .lines()
        .skip(1)
        .filter_map(|line| line.split_whitespace().nth(4))
        .find(|name| *name != "entry" && *name != "return" && *name != "0")
        .expect("a second instruction")
        .to_string();
    let program = format!(
        "pid$target:a.out:go:{second} {{ @f[ufunc(uregs[R_PC])] = count(); @m[umod(uregs[R_PC])] = count(); \
         @s[usym(uregs[R_PC])] = count(); @a[uaddr(uregs[R_PC])] = count(); printf(\"%A\\n\", uregs[R_PC]); }}"
    );
    let outcome = DTRACE.run(&["-q", "-n", &program, "-c", &binary.display().to_string()]);
    assert_eq!(outcome.status, Some(0), "{}", outcome.stderr);
    let at = format!("pidprog`go+0x{second}");
    let lines: Vec<&str> = outcome.stdout.lines().collect();
    assert_eq!(
        lines[..4],
        [at.as_str(), at.as_str(), at.as_str(), ""],
        "{}",
        outcome.stdout
    );
    // The aggregations in the order their first entries were made, one entry each.
    let entries: Vec<Vec<&str>> = lines[4..]
        .iter()
        .map(|line| line.split_whitespace().collect())
        .collect();
    assert_eq!(
        entries,
        [
            vec!["pidprog`go", "3"],
            vec!["pidprog", "3"],
            vec!["pidprog`go", "3"],
            vec![at.as_str(), "3"]
        ],
        "{}",
        outcome.stdout
    );
}

/// A program built with -O2 whose `tail` ends in a tail call (`jmp helper`) and whose
/// `pick` has two `ret`s (one for 5, one for 7 and other values).
const TAIL_CALLING_PROGRAM: &str = r#"
__attribute__((noinline)) int helper(int a) { __asm__ volatile(""); return a * 3; }
__attribute__((noinline)) int tail(int a) { __asm__ volatile(""); return helper(a + 1); }
__attribute__((noinline)) int pick(int a) {
    __asm__ volatile("");
    if (a == 1) return 5;
    if (a == 2) return 7;
    return a * 3;
}
int main(int argc, char **argv) {
    (void)argv;
    return tail(argc) == 6 && pick(argc) == 5 && pick(argc + 1) == 7 ? 0 : 1;
}
"#;

#[test]
fn return_probes_have_the_returning_instruction_offset_in_arg0() {
    if DTRACE.must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("pid-provider-return-offset");
    let Some(binary) = built_program(&scratch) else {
        return;
    };
    // go (built -O0) leaves only through its ret: arg0 is the ret's offset, as in
    // DTrace; the probe fires once go has returned, in main (DTrace for Linux's
    // uretprobes, illumos' emulated ret), with go's caller on top of the stack.
    let returned = DTRACE.run(&[
        "-q",
        "-n",
        "pid$target:a.out:go:return { printf(\"%x %d %A\\n\", arg0, arg1, uregs[R_PC]); }",
        "-c",
        &binary.display().to_string(),
    ]);
    assert_eq!(returned.status, Some(0), "{}", returned.stderr);
    let lines: Vec<&str> = returned.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{}", returned.stdout);
    let offset = lines[0].split_whitespace().next().expect("offset");
    for (line, value) in lines.iter().zip(["1", "4", "7"]) {
        assert!(
            line.starts_with(&format!("{offset} {value} pidprog`main+0x")),
            "{}",
            returned.stdout
        );
    }
    if let Some(boundaries) = objdump_boundaries(&binary, "go") {
        let last = boundaries.last().expect("instructions");
        assert_eq!(
            u64::from_str_radix(offset, 16).expect("hex"),
            *last,
            "go ends with its only ret"
        );
    }

    // Functions with several exits: each records, for the thread, that it was taken,
    // and the return probe's arg0 is the offset of the one taken last.
    let source = scratch.write("tail.c", TAIL_CALLING_PROGRAM);
    let tail_binary = scratch.path("tail");
    if !Command::new("cc")
        .args(["-O2", "-o"])
        .arg(&tail_binary)
        .arg(&source)
        .status()
        .is_ok_and(|status| status.success())
    {
        println!("skipping the tail call: no working C compiler");
        return;
    }
    let tail = DTRACE.run(&[
        "-q",
        "-n",
        "pid$target:a.out:tail:return, pid$target:a.out:helper:return, pid$target:a.out:pick:return { printf(\"%s %x %d\\n\", probefunc, arg0, arg1); }",
        "-c",
        &tail_binary.display().to_string(),
    ]);
    assert_eq!(tail.status, Some(0), "{}", tail.stderr);
    // helper leaves by its only ret, tail by its jump to helper (a tail call, which
    // DTrace's return probes count as an exit), pick by one ret for 5 and another for 7.
    let lines: Vec<Vec<&str>> = tail
        .stdout
        .lines()
        .map(|line| line.split_whitespace().collect())
        .collect();
    assert_eq!(lines.len(), 5, "{}", tail.stdout);
    let names_and_values: Vec<(&str, &str)> =
        lines[..4].iter().map(|line| (line[0], line[2])).collect();
    assert_eq!(
        names_and_values,
        [("helper", "6"), ("tail", "6"), ("pick", "5"), ("pick", "7")],
        "{}",
        tail.stdout
    );
    assert_ne!(lines[2][1], lines[3][1], "{}", tail.stdout);
    if let (Some(helper_rets), Some(tail_jumps), Some(pick_rets)) = (
        objdump_offsets_of(&tail_binary, "helper", "ret"),
        objdump_offsets_of(&tail_binary, "tail", "jmp"),
        objdump_offsets_of(&tail_binary, "pick", "ret"),
    ) {
        let hex = |offsets: Vec<u64>| -> Vec<String> {
            offsets.iter().map(|offset| format!("{offset:x}")).collect()
        };
        assert_eq!(hex(helper_rets), [lines[0][1]], "{}", tail.stdout);
        assert_eq!(hex(tail_jumps), [lines[1][1]], "{}", tail.stdout);
        let pick_rets = hex(pick_rets);
        assert!(
            pick_rets.iter().any(|ret| ret == lines[2][1]),
            "{}",
            tail.stdout
        );
        assert!(
            pick_rets.iter().any(|ret| ret == lines[3][1]),
            "{}",
            tail.stdout
        );
    }
    for line in &lines[2..4] {
        assert_ne!(line[1], "0", "{}", tail.stdout);
    }

    // helper, entered by tail's jump and built without frame pointers, returns to main:
    // at its entry probe, ucaller and ustack()'s second frame are the return address on
    // top of the stack.
    let caller = DTRACE.run(&[
        "-q",
        "-n",
        "pid$target:a.out:helper:entry { printf(\"%A\\n\", ucaller); ustack(); }",
        "-c",
        &tail_binary.display().to_string(),
    ]);
    assert_eq!(caller.status, Some(0), "{}", caller.stderr);
    let lines: Vec<&str> = caller.stdout.lines().map(str::trim).collect();
    assert!(lines[0].starts_with("tail`main+0x"), "{}", caller.stdout);
    assert_eq!(
        lines[1..4],
        ["", "tail`helper", lines[0]],
        "{}",
        caller.stdout
    );
}

#[test]
fn the_dash_function_probes_absolute_addresses_of_the_executable() {
    if DTRACE.must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("pid-provider-dash");
    let source = scratch.write("pidprog.c", PROGRAM);
    let binary = scratch.path("pidprog");
    // Built at a fixed address, so that an address found in one run holds in the next.
    if !Command::new("cc")
        .args(["-O0", "-no-pie", "-o"])
        .arg(&binary)
        .arg(&source)
        .status()
        .is_ok_and(|status| status.success())
    {
        println!("skipping: no C compiler that builds -no-pie programs");
        return;
    }
    let command = binary.display().to_string();
    let found = DTRACE.run(&[
        "-q",
        "-n",
        "pid$target:a.out:go:entry { printf(\"%x\", uregs[R_PC]); exit(0); }",
        "-c",
        &command,
    ]);
    assert_eq!(found.status, Some(0), "{}", found.stderr);
    let address = found.stdout.trim().to_string();
    for description in [
        format!("pid$target:a.out:-:{address}"),
        format!("pid$target::-:0x{address}"),
    ] {
        let fired = DTRACE.run(&[
            "-q",
            "-n",
            &format!("{description} {{ printf(\"%s %s %s %A\\n\", probemod, probefunc, probename, uregs[R_PC]); }}"),
            "-c",
            &command,
        ]);
        assert_eq!(fired.status, Some(0), "{}", fired.stderr);
        let line = format!("pidprog - {address} pidprog`go\n");
        assert_eq!(
            fired.stdout,
            format!("{line}{line}{line}\n"),
            "{description}"
        );
    }
    let refused = |description: &str| {
        let outcome = DTRACE.run(&[
            "-xerrtags",
            "-n",
            &format!("{description} {{ }}"),
            "-c",
            &command,
        ]);
        assert_eq!(outcome.status, Some(1), "{description}");
        outcome.stderr
    };
    assert_eq!(
        refused(&format!("pid$target:libc.so.6:-:{address}")),
        format!("dtrace: invalid probe specifier pid$target:libc.so.6:-:{address} {{ }}: [D_PROC_LIB] only the a.out module is valid with the '-' function\n")
    );
    assert_eq!(
        refused("pid$target:a.out:-:*"),
        "dtrace: invalid probe specifier pid$target:a.out:-:* { }: [D_PROC_NAME] only individual addresses may be specified with the '-' function\n"
    );
    assert_eq!(
        refused("pid$target:a.out:-:entry"),
        "dtrace: invalid probe specifier pid$target:a.out:-:entry { }: [D_PROC_NAME] 'entry' is an invalid probe name\n"
    );
}

/// A program whose functions have UTF-8 names.
const UTF8_PROGRAM: &str = r#"
__attribute__((noinline)) int ünïcödé(int a) { return a + 1; }
__attribute__((noinline)) int 𝒻(int a) { return a * 2; }
volatile int sink;
int main(void) { sink = ünïcödé(1) + 𝒻(2); return 0; }
"#;

#[test]
fn functions_with_utf8_names_are_probed_by_name_and_listed_in_byte_columns() {
    if DTRACE.must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("pid-provider-utf8");
    let source = scratch.write("utf8.c", UTF8_PROGRAM);
    let binary = scratch.path("utf8");
    if !Command::new("cc")
        .args(["-O0", "-o"])
        .arg(&binary)
        .arg(&source)
        .status()
        .is_ok_and(|status| status.success())
    {
        println!("skipping: no C compiler that takes UTF-8 identifiers");
        return;
    }
    let command = binary.display().to_string();
    // The command runs for a moment only: its addresses still name its functions.
    let fired = DTRACE.run(&[
        "-q",
        "-n",
        "pid$target:a.out:ünïcödé:entry, pid$target:a.out:𝒻:return { printf(\"%s %s %A\\n\", probefunc, probename, uregs[R_PC]); }",
        "-c",
        &command,
    ]);
    assert_eq!(fired.status, Some(0), "{}", fired.stderr);
    let lines: Vec<&str> = fired.stdout.lines().collect();
    assert_eq!(lines[0], "ünïcödé entry utf8`ünïcödé", "{}", fired.stdout);
    assert!(
        lines[1].starts_with("𝒻 return utf8`main+0x"),
        "{}",
        fired.stdout
    );
    // -l pads fields to widths in bytes, as C's printf does.
    let listing = DTRACE.run(&["-l", "-n", "pid$target:a.out:ünïcödé:entry", "-c", &command]);
    assert_eq!(listing.status, Some(0), "{}", listing.stderr);
    let line = listing.stdout.lines().nth(1).expect("a probe line");
    assert!(
        line.ends_with(&format!(
            "{}ünïcödé entry",
            " ".repeat(33 - "ünïcödé".len())
        )),
        "{line}"
    );
}

/// A library the command loads with `dlopen()` from its own directory once it runs.
const LOADED_LIBRARY: &str = "int foo(int a) { return a * 7; }\n";

/// A program that loads `libfoo.so` from its own directory (or, given a name, the
/// library of that name, found through its DT_RUNPATH) and calls its `foo` three times.
const LOADING_PROGRAM: &str = r#"
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
int main(int argc, char **argv) {
    char self[PATH_MAX] = {0}, library[PATH_MAX];
    if (readlink("/proc/self/exe", self, sizeof(self) - 1) < 0) return 2;
    snprintf(library, sizeof(library), "%s/libfoo.so", dirname(self));
    void *handle = dlopen(argc > 1 ? argv[1] : library, RTLD_NOW);
    if (!handle) return 3;
    int (*foo)(int) = (int (*)(int))dlsym(handle, "foo");
    int sum = 0;
    for (int i = 0; i < 3; i++) sum += foo(i);
    return sum == 21 ? 0 : 1;
}
"#;

#[test]
fn under_dash_z_probes_in_a_library_loaded_later_fire_once_it_is_loaded() {
    if DTRACE.must_skip() {
        return;
    }
    let scratch = ScratchDirectory::new("pid-provider-dlopen");
    let library_source = scratch.write("libfoo.c", LOADED_LIBRARY);
    let program_source = scratch.write("loader.c", LOADING_PROGRAM);
    let program = scratch.path("loader");
    let built = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(scratch.path("libfoo.so"))
        .arg(&library_source)
        .status()
        .is_ok_and(|status| status.success())
        && Command::new("cc")
            .arg("-o")
            .arg(&program)
            .arg(&program_source)
            .args(["-ldl", "-Wl,-rpath,$ORIGIN/plugins"])
            .status()
            .is_ok_and(|status| status.success());
    if !built {
        println!("skipping: no C compiler that builds shared libraries");
        return;
    }
    let command = program.display().to_string();
    let description = "pid$target:libfoo.so:foo:entry";
    // Without -Z, a library not loaded yet matches nothing, as in DTrace.
    let unmatched = DTRACE.run(&[
        "-xerrtags",
        "-n",
        &format!("{description} {{ }}"),
        "-c",
        &command,
    ]);
    assert_eq!(unmatched.status, Some(1));
    assert!(
        unmatched.stderr.contains("[D_PDESC_ZERO]"),
        "{}",
        unmatched.stderr
    );
    // With -Z its functions are found in its file, and names checked against them.
    let badname = DTRACE.run(&[
        "-Z",
        "-xerrtags",
        "-n",
        "pid$target:libfoo.so:foo:bogus { }",
        "-c",
        &command,
    ]);
    assert_eq!(badname.status, Some(1));
    assert!(
        badname
            .stderr
            .ends_with("[D_PROC_NAME] 'bogus' is an invalid probe name\n"),
        "{}",
        badname.stderr
    );
    // With -Z, the probes fire once the command has loaded it.
    let deferred = DTRACE.run(&[
        "-Z",
        "-q",
        "-n",
        &format!(
            "{description} {{ printf(\"%s %s %d\\n\", probemod, probefunc, arg0); }} \
             pid$target:libfoo:foo:return {{ printf(\"%d\\n\", arg1); }}"
        ),
        "-c",
        &command,
    ]);
    assert_eq!(deferred.status, Some(0), "{}", deferred.stderr);
    assert_eq!(
        deferred.stdout,
        "libfoo.so foo 0\n0\nlibfoo.so foo 1\n7\nlibfoo.so foo 2\n14\n\n"
    );
    // A library found through the executable's DT_RUNPATH ($ORIGIN/plugins).
    let plugins = scratch.path("plugins");
    std::fs::create_dir_all(&plugins).expect("plugins directory");
    std::fs::copy(scratch.path("libfoo.so"), plugins.join("libbar.so")).expect("libbar.so");
    let through_runpath = DTRACE.run(&[
        "-Z",
        "-q",
        "-n",
        "pid$target:libbar.so:foo:entry { printf(\"%s %d\\n\", probemod, arg0); }",
        "-c",
        &format!("{command} libbar.so"),
    ]);
    assert_eq!(
        through_runpath.status,
        Some(0),
        "{}",
        through_runpath.stderr
    );
    assert_eq!(
        through_runpath.stdout,
        "libbar.so 0\nlibbar.so 1\nlibbar.so 2\n\n"
    );
}
