//! The `dtrace -l` listing (§12.8): the header, one line per probe in the
//! `"%5s %10s %17s %33s %s\n"` layout, and the `-v` attribute and argument block.

use std::fmt::Write;

use providers::attributes::Attribute;
use providers::provider::ProbeEntry;
use providers::registry::ListedProbe;

/// The header line of `dtrace -l`.
pub fn listing_header() -> String {
    format!(
        "{:>5} {:>10} {:>17} {:>33} {}\n",
        "ID", "PROVIDER", "MODULE", "FUNCTION", "NAME"
    )
}

/// The listing line of one probe. Fields are padded to their widths in bytes, as C's
/// `printf` pads them, so a UTF-8 function name takes as many columns as DTrace gives it.
pub fn listing_line(entry: &ProbeEntry) -> String {
    let description = &entry.description;
    format!(
        "{:>5} {} {} {} {}\n",
        entry.id,
        right_aligned(&description.provider, 10),
        right_aligned(&description.module, 17),
        right_aligned(&description.function, 33),
        description.name
    )
}

/// `text` right-aligned in `width` bytes (`%*s`).
fn right_aligned(text: &str, width: usize) -> String {
    format!("{}{text}", " ".repeat(width.saturating_sub(text.len())))
}

/// The `-v` block printed after a probe's line: its description and argument
/// attributes, then its argument types.
pub fn verbose_block(probe: &ListedProbe) -> String {
    probe_info_block(
        probe.attributes.probe_description(),
        probe.attributes.arguments,
        &probe.entry.argument_types,
    )
}

/// What dtrace(1)'s print_probe_info() prints: the probe description and argument
/// attributes, then the argument types (`None` when there are none; `(unknown)` for a
/// type that could not be resolved, which providers report as an empty string).
pub fn probe_info_block(
    description: Attribute,
    arguments: Attribute,
    argument_types: &[String],
) -> String {
    let mut text = String::new();
    write_attribute(&mut text, "Probe Description Attributes", description);
    write_attribute(&mut text, "Argument Attributes", arguments);
    text.push_str("\n\tArgument Types\n");
    for (index, argument_type) in argument_types.iter().enumerate() {
        let shown = if argument_type.is_empty() {
            "(unknown)"
        } else {
            argument_type
        };
        let _ = writeln!(text, "\t\targs[{index}]: {shown}");
    }
    if argument_types.is_empty() {
        text.push_str("\t\tNone\n");
    }
    text.push('\n');
    text
}

/// Appends one attribute triple under `title` (also used by the `-v` stability report of
/// programs).
pub fn write_attribute(text: &mut String, title: &str, attribute: Attribute) {
    let _ = write!(
        text,
        "\n\t{title}\n\t\tIdentifier Names: {}\n\t\tData Semantics:   {}\n\t\tDependency Class: {}\n",
        attribute.names.name(),
        attribute.data.name(),
        attribute.class.name()
    );
}

/// The whole `dtrace -l` (or `-lv` when `verbose`) output for `probes`.
pub fn format_listing(probes: &[ListedProbe], verbose: bool) -> String {
    let mut text = listing_header();
    for probe in probes {
        text.push_str(&listing_line(&probe.entry));
        if verbose {
            text.push_str(&verbose_block(probe));
        }
    }
    text
}
