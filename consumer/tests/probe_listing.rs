//! The `dtrace -l` / `-lv` listing format, exact.

use consumer::probe_listing::{format_listing, listing_header, listing_line, verbose_block};
use difvm::object::ProbeDescription;
use providers::attributes::{DTRACE_ATTRIBUTES, SYSCALL_ATTRIBUTES};
use providers::provider::{DtraceProbe, ProbeEntry, ProbeKind};
use providers::registry::ListedProbe;

fn described(provider: &str, module: &str, function: &str, name: &str) -> ProbeDescription {
    ProbeDescription {
        provider: provider.to_string(),
        module: module.to_string(),
        function: function.to_string(),
        name: name.to_string(),
    }
}

/// `dtrace:::BEGIN`, probe 1.
fn begin() -> ListedProbe {
    let mut entry = ProbeEntry::new(
        described("dtrace", "", "", "BEGIN"),
        ProbeKind::Dtrace(DtraceProbe::Begin),
    );
    entry.id = 1;
    ListedProbe {
        entry,
        attributes: DTRACE_ATTRIBUTES,
    }
}

/// `syscall:vmlinux:read:entry` as probe 4, with read(2)'s argument types.
fn read_entry() -> ListedProbe {
    let mut entry = ProbeEntry::new(
        described("syscall", "vmlinux", "read", "entry"),
        ProbeKind::Syscall {
            number: Some(0),
            event: "read".to_string(),
            is_return: false,
        },
    );
    entry.id = 4;
    entry.argument_types = vec![
        "unsigned int".to_string(),
        "char *".to_string(),
        "size_t".to_string(),
    ];
    ListedProbe {
        entry,
        attributes: SYSCALL_ATTRIBUTES,
    }
}

#[test]
fn listing_format_is_exact() {
    let listed = [begin(), read_entry()];
    assert_eq!(
        format_listing(&listed, false),
        "   ID   PROVIDER            MODULE                          FUNCTION NAME\n\
         \x20   1     dtrace                                                     BEGIN\n\
         \x20   4    syscall           vmlinux                              read entry\n"
    );
    assert_eq!(
        listing_header(),
        format!(
            "{:>5} {:>10} {:>17} {:>33} {}\n",
            "ID", "PROVIDER", "MODULE", "FUNCTION", "NAME"
        )
    );
    // Long fields push the columns right, as printf's %Ns does.
    let mut long = listed[1].entry.clone();
    long.id = 123_456;
    long.description.function = "a_function_name_longer_than_33_columns".to_string();
    assert_eq!(
        listing_line(&long),
        "123456    syscall           vmlinux a_function_name_longer_than_33_columns entry\n"
    ); // Widths are in bytes, as printf's: a UTF-8 name of 7 characters takes 11 bytes.
    long.id = 7;
    long.description.function = "ünïcödé".to_string();
    assert_eq!(
        listing_line(&long),
        format!(
            "    7    syscall           vmlinux {}ünïcödé entry\n",
            " ".repeat(22)
        )
    );
}

#[test]
fn verbose_listing_format_is_exact() {
    let listed = [begin(), read_entry()];
    let expected = "   ID   PROVIDER            MODULE                          FUNCTION NAME\n\
        \x20   1     dtrace                                                     BEGIN\n\
        \n\
        \tProbe Description Attributes\n\
        \t\tIdentifier Names: Private\n\
        \t\tData Semantics:   Private\n\
        \t\tDependency Class: Unknown\n\
        \n\
        \tArgument Attributes\n\
        \t\tIdentifier Names: Stable\n\
        \t\tData Semantics:   Stable\n\
        \t\tDependency Class: Common\n\
        \n\
        \tArgument Types\n\
        \t\tNone\n\
        \n\
        \x20   4    syscall           vmlinux                              read entry\n\
        \n\
        \tProbe Description Attributes\n\
        \t\tIdentifier Names: Private\n\
        \t\tData Semantics:   Private\n\
        \t\tDependency Class: Unknown\n\
        \n\
        \tArgument Attributes\n\
        \t\tIdentifier Names: Private\n\
        \t\tData Semantics:   Private\n\
        \t\tDependency Class: ISA\n\
        \n\
        \tArgument Types\n\
        \t\targs[0]: unsigned int\n\
        \t\targs[1]: char *\n\
        \t\targs[2]: size_t\n\
        \n";
    assert_eq!(format_listing(&listed, true), expected);

    // An argument type that could not be resolved prints as (unknown).
    let mut unresolved = listed[1].clone();
    unresolved.entry.argument_types = vec![String::new()];
    assert!(verbose_block(&unresolved).contains("\t\targs[0]: (unknown)\n"));
}
