//! Tests of `-C` preprocessing: the cpp command line (predefined macros, user options,
//! conformance modes), and real runs of the machine's cpp on D scripts with `#define`,
//! `#include`, `#if`, `$1` and `@`, whose output must still compile and name the right
//! lines in messages, and a system header's `NULL` taking over from the built-in one. Runs of cpp are skipped, with a note, when no cpp is installed.

use std::path::{Path, PathBuf};

use consumer::options::{DVersion, DtraceOption, OptionOrigin, OptionSet};
use consumer::preprocess::{
    preprocess, version_number, Conformance, DataModel, PreprocessErrorKind, PreprocessorArgument,
    PreprocessorSettings,
};
use dlang::compile::{compile, CompileOptions, ProgramSource};
use dlang::probes::DtraceProviderCatalog;

/// Whether the default preprocessor can run here; prints why not when it cannot.
fn cpp_available(test: &str) -> bool {
    let program = PreprocessorSettings::default().program();
    let available = std::process::Command::new(&program)
        .arg("--version")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok();
    if !available {
        println!("skipping {test}: no C preprocessor ({program}) is installed");
    }
    available
}

/// A fresh scratch directory holding `files` (name, contents).
fn scratch_directory(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let directory =
        std::env::temp_dir().join(format!("preprocess-test-{}-{}", std::process::id(), name));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).expect("create scratch directory");
    for (file, contents) in files {
        std::fs::write(directory.join(file), contents).expect("write scratch file");
    }
    directory
}

/// The lines of cpp output that are not line markers or blank.
fn text_lines(output: &str) -> Vec<&str> {
    output
        .lines()
        .filter(|line| !line.starts_with('#') || line.starts_with("#pragma"))
        .filter(|line| !line.trim().is_empty())
        .collect()
}

/// Preprocesses `script` (as `directory/x.d`) with `settings` and returns the output or
/// the error with cpp's messages.
fn run(
    directory: &Path,
    script: &str,
    settings: &PreprocessorSettings,
) -> (Result<String, PreprocessErrorKind>, String) {
    let path = directory.join("x.d");
    std::fs::write(&path, script).expect("write script");
    let mut diagnostics = Vec::new();
    let result =
        preprocess(script, Some(&path), settings, &mut diagnostics).map_err(|error| error.kind);
    (result, String::from_utf8_lossy(&diagnostics).into_owned())
}

/// Checks that `script` preprocesses into `expected` text lines.
fn check_text(name: &str, script: &str, settings: &PreprocessorSettings, expected: &[&str]) {
    let directory = scratch_directory(name, &[]);
    let (result, diagnostics) = run(&directory, script, settings);
    let output = result.unwrap_or_else(|kind| panic!("{name}: {kind:?}: {diagnostics}"));
    assert_eq!(text_lines(&output), expected, "{name}\n{output}");
    let _ = std::fs::remove_dir_all(&directory);
}

/// Compiles preprocessed text as script `x.d` with `$1` = 5, returning the message
/// dtrace would print on failure.
fn compile_preprocessed(text: &str) -> Result<(), String> {
    let sources = [ProgramSource::script("x.d", text)];
    let options = CompileOptions {
        macro_arguments: vec!["x.d".to_string(), "5".to_string()],
        ..CompileOptions::default()
    };
    compile(&sources, &options, &DtraceProviderCatalog)
        .map(|_| ())
        .map_err(|error| error.message("dtrace", &sources, false))
}

#[test]
fn the_version_macro_uses_libdtrace_encoding() {
    let cases = [
        (DVersion::new(1, 13, 0), 0x0100_d000),
        (DVersion::new(1, 0, 0), 0x0100_0000),
        (DVersion::new(1, 2, 1), 0x0100_2001),
        (DVersion::new(2, 0, 0), 0x0200_0000),
    ];
    for (version, number) in cases {
        assert_eq!(version_number(version), number, "{version}");
    }
}

#[test]
fn predefined_macros_are_the_linux_set() {
    let mut settings = PreprocessorSettings::default();
    assert_eq!(
        settings.predefined_arguments(),
        [
            "-D__linux",
            "-D__unix",
            "-D__SVR4",
            "-D__SUNW_D=1",
            "-D__SUNW_D_64",
            "-D__Linux",
            "-D__SUNW_D_VERSION=0x0100d000",
            "-U__GNUC__",
            "-Ulinux",
            "-Uunix"
        ]
    );
    settings.data_model = DataModel::Ilp32;
    settings.d_version = DVersion::new(1, 5, 0);
    let arguments = settings.predefined_arguments();
    assert!(
        arguments.contains(&"-D__SUNW_D_32".to_string()),
        "{arguments:?}"
    );
    assert!(
        arguments.contains(&"-D__SUNW_D_VERSION=0x01005000".to_string()),
        "{arguments:?}"
    );
}

#[test]
fn command_lines_put_user_options_after_the_predefined_ones() {
    let predefined = PreprocessorSettings::default().predefined_arguments();
    let cases: Vec<(PreprocessorSettings, Option<&str>, Vec<&str>)> = vec![
        (PreprocessorSettings::default(), None, vec!["/dev/fd/0"]),
        (
            PreprocessorSettings::default(),
            Some("scripts/x.d"),
            vec!["-iquote", "scripts", "/dev/fd/0"],
        ),
        (
            PreprocessorSettings::default(),
            Some("x.d"),
            vec!["-iquote", ".", "/dev/fd/0"],
        ),
        (
            PreprocessorSettings {
                arguments: vec![
                    PreprocessorArgument::Define("FOO=1".to_string()),
                    PreprocessorArgument::Undefine("__linux".to_string()),
                    PreprocessorArgument::IncludeDirectory("/opt/include".to_string()),
                    PreprocessorArgument::Define("BAR".to_string()),
                ],
                extra_arguments: vec!["-Wundef".to_string()],
                print_included_headers: true,
                conformance: Conformance::Traditional,
                ..PreprocessorSettings::default()
            },
            Some("/d/x.d"),
            vec![
                "-traditional-cpp",
                "-H",
                "-Wundef",
                "-DFOO=1",
                "-U__linux",
                "-I/opt/include",
                "-DBAR",
                "-iquote",
                "/d",
                "/dev/fd/0",
            ],
        ),
        (
            PreprocessorSettings {
                conformance: Conformance::Strict,
                ..PreprocessorSettings::default()
            },
            None,
            vec!["/dev/fd/0"],
        ),
    ];
    for (settings, script, rest) in cases {
        let expected: Vec<String> = predefined
            .iter()
            .cloned()
            .chain(rest.iter().map(|word| word.to_string()))
            .collect();
        let directory = script.map(|script| Path::new(script).parent().unwrap_or(Path::new("")));
        assert_eq!(
            settings.command_line_arguments(directory),
            expected,
            "{settings:?}"
        );
    }
}

#[test]
fn settings_come_from_the_options() {
    let mut options = OptionSet::new();
    for (flag, value) in [
        ('D', "FOO=1"),
        ('U', "BAR"),
        ('I', "/inc"),
        ('D', "BAZ"),
        ('X', "s"),
        ('H', ""),
    ] {
        let value = if value.is_empty() { None } else { Some(value) };
        options
            .set_shorthand(flag, value)
            .unwrap_or_else(|failure| panic!("-{flag}: {failure}"));
    }
    options
        .set("cpppath", Some("/opt/bin/cpp"), OptionOrigin::CommandLine)
        .expect("cpppath");
    options
        .set("cppargs", Some("-Wall -Wundef"), OptionOrigin::CommandLine)
        .expect("cppargs");
    options
        .set("version", Some("1.6"), OptionOrigin::CommandLine)
        .expect("version");
    let settings = PreprocessorSettings::from_options(&options);
    assert_eq!(
        settings,
        PreprocessorSettings {
            cpp_path: Some("/opt/bin/cpp".to_string()),
            arguments: vec![
                PreprocessorArgument::Define("FOO=1".to_string()),
                PreprocessorArgument::Define("BAZ".to_string()),
                PreprocessorArgument::Undefine("BAR".to_string()),
                PreprocessorArgument::IncludeDirectory("/inc".to_string()),
            ],
            extra_arguments: vec!["-Wall".to_string(), "-Wundef".to_string()],
            print_included_headers: true,
            conformance: Conformance::Traditional,
            d_version: DVersion::new(1, 6, 0),
            data_model: DataModel::Lp64,
        }
    );
    assert_eq!(
        PreprocessorSettings::from_options(&OptionSet::new()),
        PreprocessorSettings::default()
    );
    assert_eq!(
        PreprocessorArgument::from_option(DtraceOption::Quiet, "x"),
        None
    );
    let words = [
        ("a", Conformance::Ansi),
        ("c", Conformance::Strict),
        ("s", Conformance::Traditional),
        ("t", Conformance::Transition),
    ];
    for (word, conformance) in words {
        assert_eq!(Conformance::from_word(word), Some(conformance));
    }
    assert_eq!(Conformance::from_word("x"), None);
}

const REAL_SCRIPT: &str = r#"#!/usr/sbin/dtrace -Cs
/* it's a comment with an apostrophe, and a "quote */
#include "limits.h"
#pragma D option quiet
#define PROBE dtrace:::BEGIN
#if __SUNW_D_VERSION >= 0x0100d000 && defined(__linux) && defined(__SUNW_D_64)
PROBE
/$1 > 0 || $$1 == "arg"/
{
	@counts[$$1, MAXLEN] = count(); // a line comment
	self->p = `kmem_flags;
	printf("%s's %d\n", $$1, MAXLEN);
}
#else
#error wrong version
#endif
"#;

#[test]
fn real_scripts_preprocess_into_d() {
    if !cpp_available("real_scripts_preprocess_into_d") {
        return;
    }
    let directory = scratch_directory(
        "real",
        &[("limits.h", "/* a local header */\n#define MAXLEN 64\n")],
    );
    let (result, diagnostics) = run(&directory, REAL_SCRIPT, &PreprocessorSettings::default());
    let output = result.unwrap_or_else(|kind| panic!("{kind:?}: {diagnostics}"));
    assert_eq!(
        text_lines(&output),
        [
            "#pragma D option quiet",
            "dtrace:::BEGIN",
            "/$1 > 0 || $$1 == \"arg\"/",
            "{",
            " @counts[$$1, 64] = count();",
            " self->p = `kmem_flags;",
            " printf(\"%s's %d\\n\", $$1, 64);",
            "}",
        ]
    );
    assert_eq!(diagnostics, "");
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn preprocessed_scripts_compile_and_name_the_right_lines() {
    if !cpp_available("preprocessed_scripts_compile_and_name_the_right_lines") {
        return;
    }
    let header = "/* line 1 */\n#define LIMIT 10\ninline int broken = \"text\" * 2;\n";
    let directory = scratch_directory(
        "lines",
        &[("good.h", "#define LIMIT 10\n"), ("bad.h", header)],
    );
    let good = "#!/usr/sbin/dtrace -Cs\n#include \"good.h\"\n#define TWICE(x) ((x) * 2)\n\nBEGIN\n{\n\ttrace(TWICE(LIMIT) + $1);\n\texit(0);\n}\n";
    let settings = PreprocessorSettings::default();
    let (result, diagnostics) = run(&directory, good, &settings);
    let output = result.unwrap_or_else(|kind| panic!("{kind:?}: {diagnostics}"));
    compile_preprocessed(&output).expect("the preprocessed script compiles");
    // The error is on line 8 of the script: line markers keep the numbering.
    let wrong_line =
        "#include \"good.h\"\n#define X 1\n\n#if X\n\n#endif\nBEGIN\n{ trace($1); trace(1 * \"a\"); }\n";
    let (result, diagnostics) = run(&directory, wrong_line, &settings);
    let output = result.unwrap_or_else(|kind| panic!("{kind:?}: {diagnostics}"));
    let message = compile_preprocessed(&output).expect_err("the script is wrong");
    assert!(
        message.starts_with("dtrace: failed to compile script x.d: line 8: "),
        "{message}"
    );
    // An error inside a header names the header.
    let (result, diagnostics) = run(&directory, "#include \"bad.h\"\nBEGIN { }\n", &settings);
    let output = result.unwrap_or_else(|kind| panic!("{kind:?}: {diagnostics}"));
    let message = compile_preprocessed(&output).expect_err("the header is wrong");
    let expected_prefix = format!(
        "dtrace: failed to compile script x.d: \"{}\", line 3: ",
        directory.join("bad.h").display()
    );
    assert!(message.starts_with(&expected_prefix), "{message}");
    let _ = std::fs::remove_dir_all(&directory);
}

/// The system header's NULL, `((void *)0)`, replaces the name before the compiler sees
/// it and is used as the built-in one is (pointer and string comparisons, assignment).
#[test]
fn a_system_header_null_replaces_the_built_in_one() {
    if !cpp_available("a_system_header_null_replaces_the_built_in_one") {
        return;
    }
    let directory = scratch_directory("null", &[]);
    let script = "#define __need_NULL\n#include <stddef.h>\nBEGIN\n{\n\tp = (int *)0;\n\ts = \"a\";\n\tx = NULL;\n\ttrace(p == NULL && s != NULL && NULL == 0 && x == p && $1 == 5);\n\texit(0);\n}\n";
    let (result, diagnostics) = run(&directory, script, &PreprocessorSettings::default());
    let output = result.unwrap_or_else(|kind| panic!("{kind:?}: {diagnostics}"));
    assert!(!output.contains("NULL"), "{output}");
    assert!(output.contains("((void *)0)"), "{output}");
    compile_preprocessed(&output).expect("the preprocessed script compiles");
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn predefined_and_user_macros_reach_the_script() {
    if !cpp_available("predefined_and_user_macros_reach_the_script") {
        return;
    }
    let probe = "linux unix\n#ifdef __STDC__\nstdc\n#endif\n#ifdef __GNUC__\ngnuc\n#endif\n#ifdef __linux\nlinux\n#endif\n\
                 __SUNW_D __SUNW_D_VERSION\n#ifdef __Linux\nsysname\n#endif\n#ifdef FOO\nfoo FOO\n#endif\n";
    check_text(
        "predefined",
        probe,
        &PreprocessorSettings::default(),
        &["linux unix", "stdc", "linux", "1 0x0100d000", "sysname"],
    );
    let user = PreprocessorSettings {
        arguments: vec![
            PreprocessorArgument::Define("FOO=42".to_string()),
            PreprocessorArgument::Undefine("__linux".to_string()),
        ],
        ..PreprocessorSettings::default()
    };
    check_text(
        "user",
        probe,
        &user,
        &["linux unix", "stdc", "1 0x0100d000", "sysname", "foo 42"],
    );
    let traditional = PreprocessorSettings {
        conformance: Conformance::Traditional,
        ..PreprocessorSettings::default()
    };
    check_text(
        "traditional",
        probe,
        &traditional,
        &["linux unix", "linux", "1 0x0100d000", "sysname"],
    );
    for conformance in [Conformance::Strict, Conformance::Transition] {
        let settings = PreprocessorSettings {
            conformance,
            ..PreprocessorSettings::default()
        };
        check_text("stdc modes", "__STDC__\n", &settings, &["1"]);
    }
}

#[test]
fn include_directories_and_header_listing() {
    if !cpp_available("include_directories_and_header_listing") {
        return;
    }
    let include = scratch_directory("include-dir", &[("shared.h", "#define SHARED 7\n")]);
    let directory = scratch_directory("include-user", &[]);
    let settings = PreprocessorSettings {
        arguments: vec![PreprocessorArgument::IncludeDirectory(
            include.display().to_string(),
        )],
        print_included_headers: true,
        ..PreprocessorSettings::default()
    };
    let (result, diagnostics) = run(&directory, "#include <shared.h>\nSHARED\n", &settings);
    let output = result.unwrap_or_else(|kind| panic!("{kind:?}: {diagnostics}"));
    assert_eq!(text_lines(&output), ["7"]);
    assert!(
        diagnostics.contains(&format!(". {}", include.join("shared.h").display())),
        "{diagnostics}"
    );
    let _ = std::fs::remove_dir_all(&include);
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn cpp_failures_are_reported() {
    if !cpp_available("cpp_failures_are_reported") {
        return;
    }
    let directory = scratch_directory("failures", &[]);
    let script_path = directory.join("x.d").display().to_string();
    let settings = PreprocessorSettings::default();
    let (result, diagnostics) = run(&directory, "BEGIN\n#include \"nope.h\"\n", &settings);
    assert_eq!(result, Err(PreprocessErrorKind::Failed));
    assert!(
        diagnostics.contains(&format!(
            "{script_path}:2:10: fatal error: nope.h: No such file or directory"
        )),
        "{diagnostics}"
    );
    assert!(!diagnostics.contains("/dev/fd/0"), "{diagnostics}");
    let (result, diagnostics) = run(&directory, "#error stop here\n", &settings);
    assert_eq!(result, Err(PreprocessErrorKind::Failed));
    assert!(diagnostics.contains("stop here"), "{diagnostics}");
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn missing_or_unrunnable_preprocessors_are_reported() {
    let directory = scratch_directory("bad-cpp", &[("not-executable", "")]);
    let cases = [
        (
            directory.join("no-such-cpp"),
            PreprocessErrorKind::NotFound,
            "Preprocessor not found",
        ),
        (
            directory.join("not-executable"),
            PreprocessErrorKind::CannotExecute,
            "Failed to exec preprocessor",
        ),
    ];
    for (path, kind, message) in cases {
        let settings = PreprocessorSettings {
            cpp_path: Some(path.display().to_string()),
            ..PreprocessorSettings::default()
        };
        let error =
            preprocess("BEGIN {}\n", None, &settings, &mut Vec::new()).expect_err("cpp cannot run");
        assert_eq!(error.kind, kind, "{}", path.display());
        assert_eq!(error.message(), message);
    }
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn large_scripts_pass_through_the_pipes() {
    if !cpp_available("large_scripts_pass_through_the_pipes") {
        return;
    }
    let clause = "BEGIN { @a[\"key\"] = count(); }\n";
    let script: String = std::iter::repeat_n(clause, 20_000).collect();
    let mut diagnostics = Vec::new();
    let output = preprocess(
        &script,
        None,
        &PreprocessorSettings::default(),
        &mut diagnostics,
    )
    .expect("preprocess");
    assert_eq!(text_lines(&output).len(), 20_000);
}
