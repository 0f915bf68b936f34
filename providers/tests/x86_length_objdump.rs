//! The x86-64 length decoder against `objdump -d` on real binaries: every instruction
//! objdump shows in the binaries' code, decoded from the start of its symbol, must
//! begin where objdump says and be as long. Skipped (with the reason printed) when
//! objdump or a binary is absent.

use std::path::{Path, PathBuf};
use std::process::Command;

use providers::x86_length::instruction_length;

/// One run of code objdump disassembled from a label (a symbol, or a PLT entry).
#[derive(Debug, Default)]
struct Block {
    label: String,
    address: u64,
    /// The bytes of the block's instructions, in order.
    bytes: Vec<u8>,
    /// The offset of each instruction in `bytes`, and objdump's text of it.
    instructions: Vec<(usize, String)>,
}

/// Parses `objdump -d -w -z` output into blocks. A block ends at the next label, at a
/// gap in addresses, or at an instruction objdump could not decode (`(bad)`, or
/// `.byte` for the bytes left at the end of a section), after which its boundaries
/// mean nothing.
fn objdump_blocks(listing: &str) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::new();
    let mut current: Option<Block> = None;
    let mut undecodable = false;
    let mut prefix_start: Option<usize> = None;
    for line in listing.lines() {
        if let Some((address, label)) = line.split_once(" <") {
            if let (Ok(address), Some(label)) = (
                u64::from_str_radix(address.trim(), 16),
                label.strip_suffix(">:"),
            ) {
                blocks.extend(current.take());
                current = Some(Block {
                    label: label.to_string(),
                    address,
                    ..Block::default()
                });
                undecodable = false;
                prefix_start = None;
                continue;
            }
        }
        let mut fields = line.splitn(3, '\t');
        let (Some(address), Some(hex), Some(text)) = (fields.next(), fields.next(), fields.next())
        else {
            continue;
        };
        let Some(Ok(address)) = address
            .trim()
            .strip_suffix(':')
            .map(|address| u64::from_str_radix(address, 16))
        else {
            continue;
        };
        let Some(block) = current.as_mut() else {
            continue;
        };
        if undecodable
            || text.contains("(bad)")
            || text.trim_start().starts_with(".byte")
            || address != block.address + block.bytes.len() as u64
        {
            undecodable = true;
            continue;
        }
        // objdump shows a REX prefix that another REX prefix follows (hand-written
        // OpenSSL code pads with them) as an instruction of its own; the processor
        // reads it as a prefix of the instruction after it.
        let text = text.trim();
        let start = prefix_start.take().unwrap_or(block.bytes.len());
        if text.starts_with("rex") && hex.split_whitespace().count() == 1 {
            prefix_start = Some(start);
        } else {
            block.instructions.push((start, text.to_string()));
        }
        block.bytes.extend(
            hex.split_whitespace()
                .map(|byte| u8::from_str_radix(byte, 16).expect("objdump byte")),
        );
    }
    blocks.extend(current);
    blocks
}

/// Whether `bytes` is one of the x87 "wait" forms objdump shows as one instruction
/// (`fstcw` is `fwait; fnstcw`): the processor executes the 9B as an instruction of its
/// own, so the decoder's boundary after it is a true one.
fn is_wait_form(bytes: &[u8]) -> bool {
    bytes.len() > 1
        && bytes[0] == 0x9B
        && instruction_length(bytes) == Some(1)
        && instruction_length(&bytes[1..]) == Some(bytes.len() - 1)
}

/// Compares the decoder with objdump on `binary`; returns the number of instructions
/// checked, or None (after printing why) when the comparison cannot be made.
fn compare_with_objdump(binary: &Path) -> Option<usize> {
    if !binary.exists() {
        println!("skipping {}: absent", binary.display());
        return None;
    }
    let output = match Command::new("objdump")
        .args(["-d", "-w", "-z"])
        .arg(binary)
        .output()
    {
        Ok(output) if output.status.success() => output,
        other => {
            println!(
                "skipping {}: objdump did not run ({other:?})",
                binary.display()
            );
            return None;
        }
    };
    let listing = String::from_utf8_lossy(&output.stdout);
    let mut checked = 0;
    let mut mismatches = Vec::new();
    for block in objdump_blocks(&listing) {
        let ends = block
            .instructions
            .iter()
            .skip(1)
            .map(|(offset, _)| *offset)
            .chain([block.bytes.len()]);
        for ((offset, text), end) in block.instructions.iter().zip(ends) {
            let decoded = instruction_length(&block.bytes[*offset..]);
            if decoded != Some(end - offset) && !is_wait_form(&block.bytes[*offset..end]) {
                mismatches.push(format!(
                    "{} <{}+{:#x}> {:02x?}: {text}: objdump {} bytes, decoded {decoded:?}",
                    binary.display(),
                    block.label,
                    offset,
                    &block.bytes[*offset..end],
                    end - offset,
                ));
            }
            checked += 1;
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {checked} instructions differ:\n{}",
        mismatches.len(),
        mismatches[..mismatches.len().min(40)].join("\n")
    );
    Some(checked)
}

/// Builds a C program using a mix of integer, floating-point and string code, so the
/// comparison covers compiler output at -O0 and -O2 as well as the system's binaries.
fn built_c_programs(directory: &Path) -> Vec<PathBuf> {
    let source = directory.join("lengths.c");
    std::fs::write(
        &source,
        r#"
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
struct point { short x; long y; double z; };
static int compare(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }
__attribute__((noinline)) double mix(struct point *p, int n) {
    double sum = 0;
    for (int i = 0; i < n; i++) {
        p[i].x = (short)(p[i].x * 3 + 0x1234);
        p[i].y ^= 0x123456789abcLL;
        sum += p[i].z * 1.5 + (p[i].y & 0x80 ? 2 : 1);
        if ((unsigned char)p[i].x & 0x40) sum -= 7;
    }
    return sum;
}
int main(int argc, char **argv) {
    struct point points[8];
    int values[16];
    memset(points, 0, sizeof points);
    for (int i = 0; i < 16; i++) values[i] = rand() % 100;
    qsort(values, 16, sizeof values[0], compare);
    switch (argc) { case 1: puts("one"); break; case 2: puts("two"); break;
    case 3: puts("three"); break; case 4: puts("four"); break; default: puts("many"); }
    printf("%f %zu\n", mix(points, 8), strlen(argv[0]));
    return values[0] & 1;
}
"#,
    )
    .expect("write C source");
    let mut programs = Vec::new();
    for level in ["-O0", "-O2"] {
        let binary = directory.join(format!("lengths{level}"));
        match Command::new("cc")
            .arg(level)
            .arg("-o")
            .arg(&binary)
            .arg(&source)
            .status()
        {
            Ok(status) if status.success() => programs.push(binary),
            other => println!("skipping the C program at {level}: cc did not run ({other:?})"),
        }
    }
    programs
}

#[test]
fn the_decoder_agrees_with_objdump_on_every_instruction_of_real_binaries() {
    if Command::new("objdump").arg("--version").output().is_err() {
        println!("skipping: objdump is not installed");
        return;
    }
    let directory = std::env::temp_dir().join(format!("x86-length-{}", std::process::id()));
    std::fs::create_dir_all(&directory).expect("scratch directory");
    let mut binaries: Vec<PathBuf> = [
        "/bin/true",
        "/bin/bash",
        "/usr/lib/x86_64-linux-gnu/libc.so.6",
        "/usr/lib/x86_64-linux-gnu/libm.so.6",
        "/usr/lib/x86_64-linux-gnu/libcrypto.so.3",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    binaries.extend(built_c_programs(&directory));
    let mut total = 0;
    for binary in &binaries {
        if let Some(checked) = compare_with_objdump(binary) {
            println!("{}: {checked} instructions agree", binary.display());
            total += checked;
        }
    }
    let _ = std::fs::remove_dir_all(&directory);
    println!("{total} instructions agree with objdump");
}
