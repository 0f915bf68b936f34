//! Every program in examples/ compiles with `dtrace -e -s FILE` plus the operands its
//! first line names (`/* args: … */`, where `PID` stands for a running process and
//! `$target` means "run with -p PID").

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

/// A process the examples can name: a Python interpreter (it carries libc's malloc and
/// USDT probes), killed when the test ends.
struct TargetProcess(Child);

impl Drop for TargetProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_target() -> TargetProcess {
    // Debian's interpreter carries the USDT probes the python examples use; a python3
    // elsewhere on PATH (pyenv) may not.
    let python = ["/usr/bin/python3.11", "/usr/bin/python3"]
        .into_iter()
        .find(|path| std::path::Path::new(path).exists())
        .unwrap_or("python3");
    let child = Command::new(python)
        .args(["-c", "import time; time.sleep(120)"])
        .stdin(Stdio::null())
        .spawn()
        .or_else(|_| Command::new("sleep").arg("120").spawn())
        .expect("start a target process");
    // Give the interpreter a moment to map its libraries.
    std::thread::sleep(std::time::Duration::from_millis(300));
    TargetProcess(child)
}

fn operands_of(source: &str) -> Option<Vec<String>> {
    let first = source.lines().next()?.trim();
    let inner = first.strip_prefix("/* args:")?.strip_suffix("*/")?;
    Some(inner.split_whitespace().map(str::to_string).collect())
}

#[test]
fn every_example_compiles() {
    let directory = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut scripts: Vec<PathBuf> = std::fs::read_dir(&directory)
        .expect("examples/")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|extension| extension == "d"))
        .collect();
    scripts.sort();
    assert!(
        scripts.len() >= 40,
        "examples/ holds {} programs, want at least 40",
        scripts.len()
    );
    let target = start_target();
    let pid = target.0.id().to_string();
    let mut failures = Vec::new();
    for script in &scripts {
        let source = std::fs::read_to_string(script).expect("read example");
        let mut arguments = vec![
            "-e".to_string(),
            "-s".to_string(),
            script.display().to_string(),
        ];
        for operand in operands_of(&source).unwrap_or_default() {
            match operand.as_str() {
                "$target" => arguments.extend(["-p".to_string(), pid.clone()]),
                "PID" => arguments.push(pid.clone()),
                _ => arguments.push(operand),
            }
        }
        let output = Command::new(env!("CARGO_BIN_EXE_dtrace"))
            .args(&arguments)
            .output()
            .expect("run dtrace");
        let stderr = String::from_utf8_lossy(&output.stderr);
        if !output.status.success() || !stderr.is_empty() {
            failures.push(format!(
                "dtrace {}: status {:?}: {}",
                arguments.join(" "),
                output.status.code(),
                stderr.trim_end()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} examples failed:\n{}",
        failures.len(),
        scripts.len(),
        failures.join("\n")
    );
}
