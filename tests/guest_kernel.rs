//! Guest-kernel tests: what the host kernel does not allow, or an older kernel than the
//! host's, runs in a Debian 6.1 kernel booted under qemu's software emulation
//! (LINUX-FACTS.md). fbt needs kprobes, which this host's kernel lacks, so its probes are
//! enabled there; and the golden corpus runs there on the kernel engine, because 6.1's BPF
//! verifier refuses some code that the host's newer one accepts. The dtrace under test, a
//! static busybox, the C libraries dtrace links and the golden programs go into an
//! initramfs whose `/init` runs each command between markers on the serial console and
//! powers the guest off.
//!
//! `.ci/install-guest-kernel` installs qemu, busybox-static and the kernel (unpacked under
//! `target/guest-kernel`); `DTRACE_GUEST_KERNEL` may name another kernel image. Without
//! them, or without root (the guest's dtrace needs none, but installing does), the test
//! prints `skipping: <reason>` and passes.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The whole guest run (boot, every command, power-off) may take this long under
/// software emulation before the test kills qemu and fails.
const GUEST_DEADLINE: Duration = Duration::from_secs(300);

/// Marks the start and the end (with the exit status) of each command's output.
const MARKER: &str = "@@dtrace-guest@@";

/// What the guest boots with.
struct GuestMachine {
    qemu: PathBuf,
    kernel: PathBuf,
    busybox: PathBuf,
}

/// The guest's requirements, or why the test cannot run here.
fn guest_machine() -> Result<GuestMachine, String> {
    let qemu = find_in_path("qemu-system-x86_64")
        .ok_or("no qemu-system-x86_64 (run .ci/install-guest-kernel)")?;
    let busybox = ["/bin/busybox", "/usr/bin/busybox"]
        .into_iter()
        .map(PathBuf::from)
        .find(|path| path.exists())
        .ok_or("no busybox (run .ci/install-guest-kernel)")?;
    let busybox_elf = std::fs::read(&busybox).map_err(|error| format!("{error}"))?;
    if has_program_interpreter(&busybox_elf) {
        return Err(format!(
            "{} is dynamically linked; the guest needs busybox-static",
            busybox.display()
        ));
    }
    let kernel = match std::env::var_os("DTRACE_GUEST_KERNEL") {
        Some(path) => PathBuf::from(path),
        None => {
            let boot = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/guest-kernel/boot");
            std::fs::read_dir(&boot)
                .ok()
                .and_then(|entries| {
                    entries
                        .filter_map(Result::ok)
                        .map(|entry| entry.path())
                        .find(|path| {
                            path.file_name()
                                .and_then(|name| name.to_str())
                                .is_some_and(|name| name.starts_with("vmlinuz-"))
                        })
                })
                .ok_or("no guest kernel under target/guest-kernel (run .ci/install-guest-kernel)")?
        }
    };
    Ok(GuestMachine {
        qemu,
        kernel,
        busybox,
    })
}

fn find_in_path(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|directory| directory.join(program))
            .find(|path| path.is_file())
    })
}

/// Whether a 64-bit little-endian ELF file has a `PT_INTERP` program header (is
/// dynamically linked).
fn has_program_interpreter(elf: &[u8]) -> bool {
    const PT_INTERP: u32 = 3;
    let read = |offset: usize, size: usize| -> Option<u64> {
        let bytes = elf.get(offset..offset + size)?;
        Some(
            bytes
                .iter()
                .rev()
                .fold(0u64, |value, byte| (value << 8) | u64::from(*byte)),
        )
    };
    let (Some(table), Some(entry_size), Some(count)) =
        (read(0x20, 8), read(0x36, 2), read(0x38, 2))
    else {
        return false;
    };
    (0..count)
        .any(|index| read((table + index * entry_size) as usize, 4) == Some(u64::from(PT_INTERP)))
}

/// The shared objects `binary` loads (the dynamic loader included), as `ldd` lists them.
fn shared_libraries(binary: &Path) -> Vec<PathBuf> {
    let output = Command::new("ldd")
        .arg(binary)
        .output()
        .expect("run ldd on dtrace");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| {
            let path = match line.split_once("=>") {
                Some((_, resolved)) => resolved.split_whitespace().next()?,
                None => line.split_whitespace().next()?,
            };
            path.starts_with('/').then(|| PathBuf::from(path))
        })
        .collect()
}

/// An initramfs in the `newc` cpio format, which the kernel unpacks uncompressed.
#[derive(Default)]
struct Initramfs {
    archive: Vec<u8>,
    inode: u32,
    directories: std::collections::BTreeSet<String>,
}

impl Initramfs {
    fn entry(&mut self, name: &str, mode: u32, data: &[u8]) {
        self.inode += 1;
        let name_size = name.len() + 1;
        let header = format!(
            "070701{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}{:08x}",
            self.inode,
            mode,
            0,
            0,
            1,
            0,
            data.len(),
            0,
            0,
            0,
            0,
            name_size,
            0
        );
        self.archive.extend_from_slice(header.as_bytes());
        self.archive.extend_from_slice(name.as_bytes());
        self.archive.push(0);
        self.pad();
        self.archive.extend_from_slice(data);
        self.pad();
    }

    fn pad(&mut self) {
        while !self.archive.len().is_multiple_of(4) {
            self.archive.push(0);
        }
    }

    /// Adds `path`'s parent directories that are not in the archive yet.
    fn parents(&mut self, path: &str) {
        let mut prefix = String::new();
        let components: Vec<&str> = path.split('/').filter(|part| !part.is_empty()).collect();
        for component in &components[..components.len().saturating_sub(1)] {
            if !prefix.is_empty() {
                prefix.push('/');
            }
            prefix.push_str(component);
            if self.directories.insert(prefix.clone()) {
                let name = prefix.clone();
                self.entry(&name, 0o040755, &[]);
            }
        }
    }

    fn directory(&mut self, path: &str) {
        self.parents(&format!("{path}/x"));
    }

    fn file(&mut self, path: &str, data: &[u8]) {
        self.parents(path);
        self.entry(path.trim_start_matches('/'), 0o100755, data);
    }

    fn finish(mut self) -> Vec<u8> {
        self.entry("TRAILER!!!", 0, &[]);
        self.archive
    }
}

/// What one command printed in the guest and how it exited.
#[derive(Debug)]
struct GuestCommand {
    output: String,
    status: Option<i32>,
}

/// Adds the files under `host`, subdirectories included (the golden corpus's `-L`
/// library directories), to `initramfs` under `guest`.
fn add_directory_tree(initramfs: &mut Initramfs, host: &Path, guest: &str) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(host)
        .expect("read a directory for the guest")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().expect("a file name").to_string_lossy();
        let guest_path = format!("{guest}/{name}");
        if path.is_dir() {
            initramfs.directory(&guest_path);
            add_directory_tree(initramfs, &path, &guest_path);
        } else if path.is_file() {
            let data = std::fs::read(&path).expect("read a file for the guest");
            initramfs.file(&guest_path, &data);
        }
    }
}

/// Boots the guest once with the files of `directories` (host path, guest path) added,
/// runs each shell command line in it and returns what each did.
fn run_in_guest(
    machine: &GuestMachine,
    directories: &[(&Path, &str)],
    commands: &[&str],
) -> Vec<GuestCommand> {
    let dtrace = Path::new(env!("CARGO_BIN_EXE_dtrace"));
    let mut initramfs = Initramfs::default();
    for (host, guest) in directories {
        add_directory_tree(&mut initramfs, host, guest);
    }
    for directory in ["proc", "sys", "dev", "tmp", "bin"] {
        initramfs.directory(directory);
    }
    let mut init = String::from(
        "#!/bin/busybox sh\n/bin/busybox --install -s /bin\n\
         mount -t proc proc /proc\nmount -t sysfs sys /sys\nmount -t devtmpfs dev /dev\n",
    );
    for (index, command) in commands.iter().enumerate() {
        init.push_str(&format!(
            "echo {MARKER} start {index}\n{command} 2>&1\necho {MARKER} end {index} $?\n"
        ));
    }
    init.push_str("poweroff -f\n");
    initramfs.file("init", init.as_bytes());
    initramfs.file(
        "bin/busybox",
        &std::fs::read(&machine.busybox).expect("read busybox"),
    );
    initramfs.file("dtrace", &std::fs::read(dtrace).expect("read dtrace"));
    for library in shared_libraries(dtrace) {
        let data = std::fs::read(&library).expect("read a shared library");
        initramfs.file(&library.to_string_lossy(), &data);
    }
    let directory = std::env::temp_dir().join(format!("dtrace-guest-{}", std::process::id()));
    std::fs::create_dir_all(&directory).expect("create the guest directory");
    let archive = directory.join("initramfs.cpio");
    std::fs::write(&archive, initramfs.finish()).expect("write the initramfs");

    let mut qemu = Command::new(&machine.qemu)
        .args(["-accel", "tcg", "-cpu", "max", "-m", "1024", "-smp", "1"])
        .args(["-nographic", "-no-reboot", "-kernel"])
        .arg(&machine.kernel)
        .arg("-initrd")
        .arg(&archive)
        .args(["-append", "console=ttyS0 quiet panic=-1"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start qemu");
    let mut console_pipe = qemu.stdout.take().expect("piped");
    let reader = std::thread::spawn(move || {
        let mut console = Vec::new();
        let _ = console_pipe.read_to_end(&mut console);
        console
    });
    let start = Instant::now();
    while qemu.try_wait().expect("wait for qemu").is_none() {
        if start.elapsed() > GUEST_DEADLINE {
            let _ = qemu.kill();
            let _ = qemu.wait();
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let console =
        String::from_utf8_lossy(&reader.join().expect("console reader")).replace('\r', "");
    let _ = std::fs::remove_dir_all(&directory);
    (0..commands.len())
        .map(|index| command_output(&console, index))
        .collect()
}

/// The output and status of command `index` on the guest's console.
fn command_output(console: &str, index: usize) -> GuestCommand {
    let start = format!("{MARKER} start {index}\n");
    let end = format!("{MARKER} end {index} ");
    let Some(begin) = console.find(&start).map(|at| at + start.len()) else {
        return GuestCommand {
            output: format!("(command {index} never started; console:\n{console})"),
            status: None,
        };
    };
    let Some(finish) = console[begin..].find(&end).map(|at| begin + at) else {
        return GuestCommand {
            output: console[begin..].to_string(),
            status: None,
        };
    };
    let status = console[finish + end.len()..]
        .lines()
        .next()
        .and_then(|word| word.trim().parse().ok());
    GuestCommand {
        output: console[begin..finish].to_string(),
        status,
    }
}

#[test]
fn a_debian_6_1_guest_kernel_runs_fbt_probes_and_the_golden_corpus() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        println!("skipping: not running as root");
        return;
    }
    let machine = match guest_machine() {
        Ok(machine) => machine,
        Err(reason) => {
            println!("skipping: {reason}");
            return;
        }
    };
    // busybox's dd reads with read(2) (its cat uses sendfile(2)); three 10-byte blocks are
    // three calls of vfs_read().
    let dd = "'/bin/dd if=/proc/version of=/dev/null bs=10 count=3'";
    let commands = [
        "/dtrace -l -n fbt::vfs_read:".to_string(),
        format!(
            "/dtrace -q -n 'fbt::vfs_read:entry /pid == $target/ {{ printf(\"entry %d\\n\", arg2); }} \
             fbt::vfs_read:return /pid == $target/ {{ printf(\"return %d\\n\", arg1); }}' -c {dd}"
        ),
        format!(
            "/dtrace -q -n 'fbt::vfs_read:entry /pid == $target/ {{ @entries = count(); }} \
             fbt::vfs_read:return /pid == $target/ {{ @returns = count(); }} \
             END {{ printa(\"entries %@d returns \", @entries); printa(\"%@d\\n\", @returns); }}' -c {dd}"
        ),
        format!("/dtrace -q -n 'fbt::vfs_read:entry /pid == $target/ {{ stack(); exit(0); }}' -c {dd}"),
        // A glob over many functions: the kernel refuses kprobes on some functions that
        // kallsyms lists, so only those it lists as traceable may be probes.
        format!(
            "/dtrace -q -n 'fbt::vfs_*:entry /pid == $target/ {{ @[probefunc] = count(); }}' -c {dd}"
        ),
        GOLDEN_CORPUS_ON_THE_KERNEL_ENGINE.to_string(),
        // fbt arguments typed from the function's BTF prototype.
        "/dtrace -lv -n fbt::vfs_read:entry".to_string(),
        format!(
            "/dtrace -q -n 'fbt::vfs_read:entry /pid == $target/ {{ \
             printf(\"file %s\\n\", stringof(args[0]->f_path.dentry->d_name.name)); }}' -c {dd}"
        ),
        // Kernel variables: one kallsyms lists (this kernel has CONFIG_KALLSYMS_ALL), and
        // a per-CPU one.
        "/dtrace -q -n 'extern unsigned long max_pfn; BEGIN { \
         printf(\"variables %d %d %d\\n\", `max_pfn > 0, max_pfn == `max_pfn, \
         `cpu_number == cpu); exit(0); }'"
            .to_string(),
        // sched:::on-cpu about the thread switched in: its ids, and its kernel stack as it
        // went off CPU (bpf_get_task_stack, which 6.1's verifier lets it reach).
        format!(
            "/dtrace -q -n 'sched:::on-cpu /pid == $target/ {{ \
             printf(\"on-cpu %d %d\\n\", pid == $target, tid == pid); stack(); exit(0); }}' -c {dd}"
        ),
        // The stable providers where kprobes exist: sched:::enqueue is listed and fires
        // (on enqueue_task_fair) for the target waking from its sleep.
        "/dtrace -l -n sched:::enqueue".to_string(),
        "/dtrace -q -n 'sched:::enqueue /args[1]->pr_pid == $target/ { \
         printf(\"enqueue %d\\n\", args[0]->pr_lwpid == args[1]->pr_pid); exit(0); }' \
         -c '/bin/sleep 0.2'"
            .to_string(),
        // proc:::exec-success with the arguments, and the translators on 6.1's
        // structures (pr_rssize reads 6.1's atomic counters; d_path() its dentries).
        // The command's own exec happens before tracing starts (it is held at its
        // entry point, as DTrace holds it), so `env` execs the traced image.
        "/dtrace -q -n 'proc:::exec-success /pid == $target/ { \
         printf(\"exec %s|%s\\n\", execname, curpsinfo->pr_psargs); }' \
         -c '/bin/busybox env /bin/busybox echo hi there'"
            .to_string(),
        "/dtrace -q -n 'BEGIN { printf(\"members %d %d %d %s %s\\n\", \
         curpsinfo->pr_rssize > 0, curpsinfo->pr_size > 0, curlwpsinfo->pr_onpro == cpu, \
         cwd, d_path(&curthread->mm->exe_file->f_path)); exit(0); }'"
            .to_string(),
    ];
    let command_lines: Vec<&str> = commands.iter().map(String::as_str).collect();
    let golden = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let runs = run_in_guest(&machine, &[(&golden, "golden")], &command_lines);

    let listing = &runs[0];
    assert_eq!(listing.status, Some(0), "{listing:?}");
    for name in ["entry", "return"] {
        assert!(
            listing.output.lines().any(|line| {
                let words: Vec<&str> = line.split_whitespace().collect();
                words.get(1..) == Some(&["fbt", "vmlinux", "vfs_read", name][..])
            }),
            "no fbt:vmlinux:vfs_read:{name} in {:?}",
            listing.output
        );
    }

    let arguments = &runs[1];
    assert_eq!(arguments.status, Some(0), "{arguments:?}");
    let traced: Vec<&str> = arguments
        .output
        .lines()
        .filter(|line| line.starts_with("entry ") || line.starts_with("return "))
        .collect();
    assert_eq!(
        traced,
        [
            "entry 10",
            "return 10",
            "entry 10",
            "return 10",
            "entry 10",
            "return 10"
        ],
        "{arguments:?}"
    );

    let counts = &runs[2];
    assert_eq!(counts.status, Some(0), "{counts:?}");
    assert!(
        counts
            .output
            .lines()
            .any(|line| line == "entries 3 returns 3"),
        "{counts:?}"
    );

    let stack = &runs[3];
    assert_eq!(stack.status, Some(0), "{stack:?}");
    assert!(
        stack.output.contains("vmlinux`ksys_read+"),
        "no ksys_read frame under vfs_read: {stack:?}"
    );

    let glob = &runs[4];
    assert_eq!(glob.status, Some(0), "{glob:?}");
    assert!(
        glob.output
            .lines()
            .any(|line| { line.split_whitespace().collect::<Vec<_>>() == ["vfs_read", "3"] }),
        "{glob:?}"
    );

    let corpus = &runs[5];
    assert!(
        corpus
            .output
            .lines()
            .any(|line| line.starts_with("golden programs: ")),
        "the corpus did not run: {corpus:?}"
    );
    assert_eq!(
        corpus.status,
        Some(0),
        "golden programs that differ on the guest kernel:\n{}",
        corpus.output
    );

    let typed_listing = &runs[6];
    assert_eq!(typed_listing.status, Some(0), "{typed_listing:?}");
    assert!(
        typed_listing
            .output
            .lines()
            .any(|line| line.trim() == "args[0]: struct file *"),
        "{typed_listing:?}"
    );

    let file_names = &runs[7];
    assert_eq!(file_names.status, Some(0), "{file_names:?}");
    let names: Vec<&str> = file_names
        .output
        .lines()
        .filter(|line| line.starts_with("file "))
        .collect();
    assert_eq!(
        names,
        ["file version", "file version", "file version"],
        "{file_names:?}"
    );

    let variables = &runs[8];
    assert_eq!(variables.status, Some(0), "{variables:?}");
    assert!(
        variables
            .output
            .lines()
            .any(|line| line == "variables 1 1 1"),
        "{variables:?}"
    );

    let on_cpu = &runs[9];
    assert_eq!(on_cpu.status, Some(0), "{on_cpu:?}");
    assert!(
        on_cpu.output.lines().any(|line| line == "on-cpu 1 1"),
        "{on_cpu:?}"
    );
    // The stack is where the thread last blocked (the scheduler's own frames are left
    // out by the kernel's unwinder), e.g. the pipe the forked child waits on before exec.
    assert!(
        on_cpu
            .output
            .lines()
            .any(|line| line.trim_start().starts_with("vmlinux`")),
        "no kernel stack of the thread switched in: {on_cpu:?}"
    );

    let enqueue_listing = &runs[10];
    assert_eq!(enqueue_listing.status, Some(0), "{enqueue_listing:?}");
    assert!(
        enqueue_listing
            .output
            .lines()
            .any(|line| line.split_whitespace().collect::<Vec<_>>()[1..]
                == ["sched", "vmlinux", "enqueue"]),
        "{enqueue_listing:?}"
    );
    let enqueue = &runs[11];
    assert_eq!(enqueue.status, Some(0), "{enqueue:?}");
    assert!(
        enqueue.output.lines().any(|line| line == "enqueue 1"),
        "{enqueue:?}"
    );
    let exec = &runs[12];
    assert_eq!(exec.status, Some(0), "{exec:?}");
    assert!(
        exec.output
            .lines()
            .any(|line| line == "exec busybox|/bin/busybox echo hi there"),
        "{exec:?}"
    );
    let members = &runs[13];
    assert_eq!(members.status, Some(0), "{members:?}");
    assert!(
        members
            .output
            .lines()
            .any(|line| line == "members 1 1 1 / /dtrace"),
        "{members:?}"
    );
}

/// Runs every golden program (tests/golden, see its README) on the kernel engine in the
/// guest, as tests/golden.rs runs them on the interpreter, and prints what differs; exits
/// 1 when anything does. One CPU, so records say CPU 0 as the expected output does.
/// Programs run with `-C` are left out (the guest has no C preprocessor or headers), and
/// so are programs that choose a CPU with `-x cpu=N` (the guest has only CPU 0, and
/// tracing on a CPU that does not exist never ends, as in DTrace), and programs marked
/// `/* needs: Linux 6.4 … */` (their jumps need `gotol`, which 6.1 lacks; there they are
/// refused with the assembler's message). Each program runs
/// under a time limit, so one that hangs fails alone instead of the whole corpus.
const GOLDEN_CORPUS_ON_THE_KERNEL_ENGINE: &str = r#"(
cd /golden
passed=0; failed=0; skipped=0
for program in *.d; do
    name=${program%.d}
    options=$(head -n 1 "$program" | sed -n 's|^/\* options: \(.*\) \*/$|\1|p')
    case " $options " in *" -C "*|*" cpu="*) skipped=$((skipped + 1)); continue;; esac
    if grep -q '^/\* needs: Linux 6\.4' "$program"; then skipped=$((skipped + 1)); continue; fi
    timeout 60 /dtrace -x engine=kernel $options -s "$program" > /tmp/stdout 2> /tmp/stderr
    status=$?
    expected_status=0; [ -f "$name.status" ] && expected_status=$(cat "$name.status")
    [ -f "$name.out" ] && cp "$name.out" /tmp/expected_stdout || : > /tmp/expected_stdout
    [ -f "$name.err" ] && cp "$name.err" /tmp/expected_stderr || : > /tmp/expected_stderr
    if [ "$status" = "$expected_status" ] && cmp -s /tmp/stdout /tmp/expected_stdout         && cmp -s /tmp/stderr /tmp/expected_stderr; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "== $name: exit $status (expected $expected_status)"
        diff /tmp/expected_stdout /tmp/stdout | head -n 20
        diff /tmp/expected_stderr /tmp/stderr | head -n 20
    fi
done
echo "golden programs: $passed passed, $failed failed, $skipped with -C, cpu= or needs: Linux 6.4 left out"
[ "$failed" = 0 ]
)"#;
