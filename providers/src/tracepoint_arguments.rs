//! The arguments of an sdt probe from its tracepoint's `format` fields: the D type of
//! each `args[N]` and what the probe program loads into `argN`.
//!
//! | field in the format             | D type of `args[N]`        | `argN` holds                       |
//! |---------------------------------|----------------------------|------------------------------------|
//! | integer (`int`, `pid_t`, `u64`) | its name when D knows it at that size, else `intN_t`/`uintN_t` by size and signedness | the value, sign-extended when signed |
//! | pointer (`const char *`)        | the pointer when D can name the pointee (basic types, `struct`/`union`/`enum` tags), else `void *` | the pointer value |
//! | `char [N]`                      | `char [N]`, usable as a string | the kernel address of the field in the trace entry |
//! | other fixed array `T [N]`       | an array of the integer type of `T`'s size (`uint8_t [16]`) | the kernel address of the field |
//! | flexible array `T []`           | a pointer to that integer type | the kernel address of the field |
//! | `__data_loc char[]`             | `string`                   | the kernel address of the string the location word points at |
//! | `__data_loc T[]`, `__data_loc cpumask_t` | a pointer to the integer type of the element (`unsigned long *` for a cpumask) | the kernel address of the data |
//!
//! Addresses point into the trace entry, which is kernel memory: reading through them
//! (`stringof`, `*`, `[]`) uses the kernel-read helper.

use kernel_shim::translate::{TracepointField, TracepointValue};

use crate::tracefs::{EventField, EventFormat};

/// The integer type names D knows, with their sizes: a field of one of these types at
/// this size keeps its name in `args[]`.
const D_INTEGER_TYPES: [(&str, u32); 30] = [
    ("char", 1),
    ("signed char", 1),
    ("unsigned char", 1),
    ("short", 2),
    ("unsigned short", 2),
    ("int", 4),
    ("unsigned int", 4),
    ("unsigned", 4),
    ("long", 8),
    ("unsigned long", 8),
    ("long long", 8),
    ("unsigned long long", 8),
    ("int8_t", 1),
    ("int16_t", 2),
    ("int32_t", 4),
    ("int64_t", 8),
    ("uint8_t", 1),
    ("uint16_t", 2),
    ("uint32_t", 4),
    ("uint64_t", 8),
    ("intptr_t", 8),
    ("uintptr_t", 8),
    ("size_t", 8),
    ("ssize_t", 8),
    ("pid_t", 4),
    ("uid_t", 4),
    ("gid_t", 4),
    ("dev_t", 4),
    ("uint_t", 4),
    ("ulong_t", 8),
];

/// One argument of an sdt probe: its D type and how the probe program loads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TracepointArgument {
    /// The D type name of `args[N]`.
    pub d_type: String,
    /// Where `argN` comes from in the trace entry.
    pub field: TracepointField,
}

/// The arguments of the event `format`: one per field after the common header, in order.
/// Fields beyond the 64 KiB a trace entry can hold are left out (they cannot exist).
pub fn tracepoint_arguments(format: &EventFormat) -> Vec<TracepointArgument> {
    format
        .argument_fields()
        .filter_map(tracepoint_argument)
        .collect()
}

/// The argument of one field; None when its offset does not fit a trace entry.
pub fn tracepoint_argument(field: &EventField) -> Option<TracepointArgument> {
    let offset = u16::try_from(field.offset).ok()?;
    let (d_type, value) = field_type_and_value(field);
    Some(TracepointArgument {
        d_type,
        field: TracepointField { offset, value },
    })
}

/// The D type and the `argN` loading of `field`, by the kind of its C declaration.
fn field_type_and_value(field: &EventField) -> (String, TracepointValue) {
    let declared = field.c_type.trim();
    if let Some(located) = declared
        .strip_prefix("__data_loc ")
        .or_else(|| declared.strip_prefix("__rel_loc "))
    {
        let element = located.trim_end_matches("[]").trim();
        let d_type = if is_char(element) {
            "string".to_string()
        } else if element == "cpumask_t" {
            "unsigned long *".to_string()
        } else {
            let size = element_size_by_name(element);
            format!(
                "{} *",
                integer_type_name(element, size, is_signed_by_name(element))
            )
        };
        return (d_type, TracepointValue::DataLocation);
    }
    if let Some((element, length)) = array_parts(declared) {
        let element_size = match length {
            Some(length) if length > 0 => (field.size / length).max(1),
            _ => element_size_by_name(element),
        };
        let d_type = match length {
            Some(length) if is_char(element) => format!("char [{length}]"),
            Some(length) => format!(
                "{} [{length}]",
                integer_type_name(element, element_size, field.signed)
            ),
            None => format!(
                "{} *",
                integer_type_name(element, element_size, field.signed)
            ),
        };
        return (d_type, TracepointValue::Address);
    }
    if declared.contains('*') {
        return (
            pointer_type_name(declared),
            TracepointValue::Integer {
                size: 8,
                signed: false,
            },
        );
    }
    let size = match field.size {
        1 | 2 | 4 | 8 => field.size,
        // Scalars of another size (none exist today) read as their first 8 bytes.
        _ => 8,
    };
    (
        integer_type_name(declared, size, field.signed),
        TracepointValue::Integer {
            size: size as u8,
            signed: field.signed,
        },
    )
}

/// `TYPE [N]` as (`TYPE`, Some(N)), `TYPE []` as (`TYPE`, None); None for non-arrays.
fn array_parts(declared: &str) -> Option<(&str, Option<u32>)> {
    let open = declared.find('[')?;
    let close = declared.rfind(']')?;
    let element = declared[..open].trim();
    let length = declared[open + 1..close].trim();
    if length.is_empty() {
        return Some((element, None));
    }
    // A length the format leaves symbolic is taken as unknown: the field is then a
    // pointer to its first element.
    Some((element, length.parse().ok()))
}

/// True for the character types a string is made of.
fn is_char(element: &str) -> bool {
    matches!(without_qualifiers(element).as_str(), "char" | "signed char")
}

/// The name D gives an integer field declared as `declared`, `size` bytes wide: the
/// declared name when D knows it at that size, else the fixed-width type of that size
/// and signedness.
fn integer_type_name(declared: &str, size: u32, signed: bool) -> String {
    let name = without_qualifiers(declared);
    if D_INTEGER_TYPES.contains(&(name.as_str(), size)) {
        return name;
    }
    let bits = 8 * size.clamp(1, 8).next_power_of_two();
    if signed {
        format!("int{bits}_t")
    } else {
        format!("uint{bits}_t")
    }
}

/// The size of the elements of a flexible array, from the element's name alone.
fn element_size_by_name(element: &str) -> u32 {
    let name = without_qualifiers(element);
    D_INTEGER_TYPES
        .iter()
        .find(|(known, _)| *known == name)
        .map(|&(_, size)| size)
        .or_else(|| {
            ["8", "16", "32", "64"]
                .iter()
                .find(|bits| name.ends_with(*bits) || name.ends_with(&format!("{bits}_t")))
                .map(|bits| bits.parse::<u32>().unwrap_or(8) / 8)
        })
        .unwrap_or(1)
}

/// Whether an element type not in D's table is signed, by the kernel's naming (`s64`,
/// `__s32`); the format's `signed:` of a `__data_loc` field describes the location word,
/// not the elements.
fn is_signed_by_name(element: &str) -> bool {
    let name = without_qualifiers(element);
    name.starts_with('s') || name.starts_with("__s")
}

/// A pointer field's D type: the declared pointer when D can name what it points at,
/// else `void *`.
fn pointer_type_name(declared: &str) -> String {
    let depth = declared.matches('*').count();
    let pointee = without_qualifiers(&declared.replace('*', " "));
    let nameable = pointee == "void"
        || D_INTEGER_TYPES.iter().any(|(known, _)| *known == pointee)
        || ["struct ", "union ", "enum "]
            .iter()
            .any(|tag| pointee.starts_with(tag) && pointee.split(' ').count() == 2);
    if nameable {
        format!("{pointee} {}", "*".repeat(depth))
    } else {
        "void *".to_string()
    }
}

/// `declared` without `const`, `volatile` and address-space markers, its words joined by
/// single spaces.
fn without_qualifiers(declared: &str) -> String {
    declared
        .split_whitespace()
        .filter(|word| !matches!(*word, "const" | "volatile" | "__seg_gs" | "__seg_fs"))
        .collect::<Vec<_>>()
        .join(" ")
}
