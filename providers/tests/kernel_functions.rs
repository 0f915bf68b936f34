//! fbt enumeration: kallsyms parsing, the minimal BTF reader (on a BTF blob built
//! here), and the fbt provider over both.

mod common;

use common::{description, ScratchDirectory};
use providers::btf_functions::BtfFunctions;
use providers::fbt_provider::FbtProvider;
use providers::kernel_symbols::{parse_kallsyms, KernelFunction};
use providers::provider::{ProbeKind, Provider};

#[test]
fn kallsyms_text_symbols() {
    let text = "ffffffff81000000 T _stext\n\
                ffffffff81000010 T __pfx_vfs_read\n\
                ffffffff81000020 T vfs_read\n\
                ffffffff81000030 t helper.isra.0\n\
                ffffffff81000040 t helper\n\
                ffffffff81000050 t helper\n\
                ffffffff81000060 D some_data\n\
                ffffffff81000070 W weak_function\n\
                garbage\n\
                \n\
                ffffffffc0000000 t mod_fn\t[mymod]\n\
                ffffffffc0000010 t helper\t[mymod]\n\
                ffffffffc0000020 t __cfi_mod_fn\t[mymod]\n";
    let functions = parse_kallsyms(text);
    let shown: Vec<(String, Option<String>)> = functions
        .into_iter()
        .map(|KernelFunction { name, module }| (name, module))
        .collect();
    assert_eq!(
        shown,
        [
            ("_stext".to_string(), None),
            ("vfs_read".to_string(), None),
            ("helper".to_string(), None),
            ("mod_fn".to_string(), Some("mymod".to_string())),
            ("helper".to_string(), Some("mymod".to_string())),
        ]
    );
}

/// Builds a little-endian BTF blob from (kind, name, info vlen/flag, size_or_type,
/// trailing words) rows.
fn btf_blob(types: &[(u32, &str, u32, u32, Vec<u32>)]) -> Vec<u8> {
    let mut strings = vec![0u8];
    let mut type_section = Vec::new();
    for (kind, name, vlen, size_or_type, trailing) in types {
        let name_offset = if name.is_empty() {
            0
        } else {
            let offset = strings.len() as u32;
            strings.extend_from_slice(name.as_bytes());
            strings.push(0);
            offset
        };
        for word in [name_offset, (kind << 24) | vlen, *size_or_type]
            .iter()
            .chain(trailing)
        {
            type_section.extend_from_slice(&word.to_le_bytes());
        }
    }
    let mut blob = Vec::new();
    blob.extend_from_slice(&0xeb9fu16.to_le_bytes());
    blob.extend_from_slice(&[1, 0]);
    for word in [
        24u32,
        0,
        type_section.len() as u32,
        type_section.len() as u32,
        strings.len() as u32,
    ] {
        blob.extend_from_slice(&word.to_le_bytes());
    }
    blob.extend_from_slice(&type_section);
    blob.extend_from_slice(&strings);
    blob
}

/// A BTF blob declaring `ssize_t vfs_read(struct file *, char *, size_t, loff_t *)`,
/// `int printk(const char *, ...)` and a function taking an array and a function
/// pointer.
fn sample_btf() -> Vec<u8> {
    btf_blob(&[
        (1, "int", 0, 4, vec![32]),                       // 1 int
        (1, "char", 0, 1, vec![8]),                       // 2 char
        (4, "file", 1, 8, vec![0, 1, 0]),                 // 3 struct file { int x; }
        (2, "", 0, 3, vec![]),                            // 4 struct file *
        (2, "", 0, 2, vec![]),                            // 5 char *
        (8, "size_t", 0, 1, vec![]),                      // 6 typedef size_t
        (8, "loff_t", 0, 1, vec![]),                      // 7 typedef loff_t
        (2, "", 0, 7, vec![]),                            // 8 loff_t *
        (13, "", 4, 1, vec![0, 4, 0, 5, 0, 6, 0, 8]),     // 9 proto(file*, char*, size_t, loff_t*)
        (12, "vfs_read", 1, 9, vec![]),                   // 10 FUNC vfs_read
        (10, "", 0, 2, vec![]),                           // 11 const char
        (2, "", 0, 11, vec![]),                           // 12 const char *
        (13, "", 2, 1, vec![0, 12, 0, 0]),                // 13 proto(const char *, ...)
        (12, "printk", 1, 13, vec![]),                    // 14 FUNC printk
        (3, "", 0, 0, vec![1, 1, 4]),                     // 15 int [4]
        (2, "", 0, 13, vec![]),                           // 16 pointer to a prototype
        (2, "", 0, 5, vec![]),                            // 17 char **
        (6, "mode", 2, 4, vec![0, 0, 0, 1]),              // 18 enum mode
        (13, "", 4, 0, vec![0, 15, 0, 16, 0, 17, 0, 18]), // 19 proto(int [4], fn *, char **, enum mode)
        (12, "odd_types", 0, 19, vec![]),                 // 20 FUNC odd_types
        (4, "", 0, 0, vec![]),                            // 21 anonymous struct
        (2, "", 0, 21, vec![]),                           // 22 pointer to it
        (13, "", 1, 0, vec![0, 22]),                      // 23 proto(anonymous *)
        (12, "anonymous_argument", 0, 23, vec![]),        // 24 FUNC anonymous_argument
    ])
}

#[test]
fn btf_functions_and_argument_types() {
    let btf = BtfFunctions::parse(&sample_btf()).expect("BTF parses");
    assert_eq!(
        btf.function_names(),
        ["vfs_read", "printk", "odd_types", "anonymous_argument"]
    );
    assert_eq!(
        btf.argument_types("vfs_read").expect("known"),
        ["struct file *", "char *", "size_t", "loff_t *"]
    );
    assert_eq!(
        btf.argument_types("printk").expect("known"),
        ["const char *"]
    );
    assert_eq!(
        btf.argument_types("odd_types").expect("known"),
        ["int [4]", "void *", "char **", "enum mode"]
    );
    assert_eq!(
        btf.argument_types("anonymous_argument").expect("known"),
        [""]
    );
    assert_eq!(btf.argument_types("nonesuch"), None);
}

#[test]
fn return_types_name_args_1_of_return_probes() {
    let blob = btf_blob(&[
        (1, "long", 0, 8, vec![1 << 24 | 64]), // 1 long
        (8, "ssize_t", 0, 1, vec![]),          // 2 typedef ssize_t
        (13, "", 0, 2, vec![]),                // 3 proto ssize_t (void)
        (12, "count", 1, 3, vec![]),           // 4 FUNC count
        (13, "", 0, 0, vec![]),                // 5 proto void (void)
        (12, "stop", 1, 5, vec![]),            // 6 FUNC stop
    ]);
    let btf = BtfFunctions::parse(&blob).expect("BTF parses");
    assert_eq!(btf.return_type("count").as_deref(), Some("ssize_t"));
    assert_eq!(btf.return_type("stop").as_deref(), Some("void"));
    assert_eq!(btf.return_type("nonesuch"), None);
    let directory = ScratchDirectory::new("fbt-return");
    directory.write(
        "kallsyms",
        "ffffffff81000020 T count\nffffffff81000040 T stop\n",
    );
    std::fs::write(directory.path().join("btf"), blob).expect("write BTF");
    let provider = FbtProvider::new(
        directory.path().join("kallsyms"),
        directory.path().join("btf"),
    );
    let types = |name: &str| {
        let entry = &provider.probes(&description(name)).expect("enumeration")[0];
        provider.argument_types(entry).expect("types")
    };
    assert_eq!(types("fbt::count:return"), ["int", "ssize_t"]);
    assert_eq!(types("fbt::stop:return"), ["int"]);
    assert_eq!(types("fbt::stop:entry"), Vec::<String>::new());
}

#[test]
fn malformed_btf_is_an_error() {
    let blob = sample_btf();
    assert!(BtfFunctions::parse(&[]).is_err());
    assert!(BtfFunctions::parse(b"not btf at all, really not").is_err());
    for length in [2, 10, 24, 40, blob.len() - 1] {
        assert!(
            BtfFunctions::parse(&blob[..length]).is_err(),
            "truncated to {length}"
        );
    }
    let mut unknown_kind = blob.clone();
    unknown_kind[24 + 7] = 31; // the first type's kind byte
    assert!(BtfFunctions::parse(&unknown_kind).is_err());
}

#[test]
fn fbt_provider_from_kallsyms_or_btf() {
    let directory = ScratchDirectory::new("fbt");
    directory.write("kallsyms", "ffffffff81000020 T vfs_read\nffffffff81000040 t printk\nffffffffc0000000 t mod_fn\t[mymod]\n");
    std::fs::write(directory.path().join("btf"), sample_btf()).expect("write BTF");

    let provider = FbtProvider::new(
        directory.path().join("kallsyms"),
        directory.path().join("btf"),
    );
    let listed: Vec<String> = provider
        .probes(&description("fbt:::"))
        .expect("enumeration")
        .iter()
        .map(|entry| entry.description.to_string())
        .collect();
    assert_eq!(
        listed,
        [
            "fbt:vmlinux:vfs_read:entry",
            "fbt:vmlinux:vfs_read:return",
            "fbt:vmlinux:printk:entry",
            "fbt:vmlinux:printk:return",
            "fbt:mymod:mod_fn:entry",
            "fbt:mymod:mod_fn:return",
        ]
    );
    let entry = &provider
        .probes(&description("fbt::vfs_read:entry"))
        .expect("enumeration")[0];
    assert_eq!(
        provider.argument_types(entry).expect("types"),
        ["struct file *", "char *", "size_t", "loff_t *"]
    );
    let return_entry = &provider
        .probes(&description("fbt::vfs_read:return"))
        .expect("enumeration")[0];
    assert_eq!(
        return_entry.kind,
        ProbeKind::KernelFunction {
            module: None,
            function: "vfs_read".to_string(),
            is_return: true
        }
    );
    // A return probe's args[0] is the return offset, args[1] the returned value (the
    // sample's vfs_read returns int).
    assert_eq!(
        provider.argument_types(return_entry).expect("types"),
        ["int", "int"]
    );
    let module_entry = &provider
        .probes(&description("fbt:mymod::entry"))
        .expect("enumeration")[0];
    assert_eq!(
        provider.argument_types(module_entry).expect("types"),
        Vec::<String>::new()
    );
    assert!(provider
        .probes(&description("fbt:::BEGIN"))
        .expect("enumeration")
        .is_empty());
    assert!(provider
        .probes(&description("syscall:::entry"))
        .expect("enumeration")
        .is_empty());

    // Without kallsyms, BTF names the vmlinux functions.
    let from_btf = FbtProvider::new(
        directory.path().join("missing"),
        directory.path().join("btf"),
    );
    assert_eq!(
        from_btf
            .probes(&description("fbt:::entry"))
            .expect("enumeration")
            .len(),
        4
    );
    // Where the kernel lists its traceable functions, the others are no probes; an
    // unreadable list keeps every function.
    directory.write("available_filter_functions", "vfs_read\nmod_fn [mymod]\n");
    let traceable = FbtProvider::new(
        directory.path().join("kallsyms"),
        directory.path().join("btf"),
    )
    .with_traceable_functions(vec![
        directory.path().join("missing"),
        directory.path().join("available_filter_functions"),
    ]);
    let functions: Vec<String> = traceable
        .probes(&description("fbt:::entry"))
        .expect("enumeration")
        .iter()
        .map(|entry| entry.description.to_string())
        .collect();
    assert_eq!(
        functions,
        ["fbt:vmlinux:vfs_read:entry", "fbt:mymod:mod_fn:entry"]
    );
    let unreadable = FbtProvider::new(
        directory.path().join("kallsyms"),
        directory.path().join("btf"),
    )
    .with_traceable_functions(vec![directory.path().join("missing")]);
    assert_eq!(
        unreadable
            .probes(&description("fbt:::entry"))
            .expect("enumeration")
            .len(),
        3
    );
    // With neither, there are no fbt probes and no error.
    let neither = FbtProvider::new(
        directory.path().join("missing"),
        directory.path().join("missing"),
    );
    assert!(neither
        .probes(&description("fbt:::"))
        .expect("enumeration")
        .is_empty());
}
