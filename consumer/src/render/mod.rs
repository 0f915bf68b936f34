//! Rendering: pure formatting of what the session hands over, with no session state.
//! Byte data and hex dumps ([`bytes`]), the C library's conversions ([`c_format`]),
//! stacks and symbols from a [`symbols::SymbolResolver`] ([`symbols`]), the printf engine
//! over the compiled program's parsed formats ([`printf`]), the per-firing output
//! ([`trace`]) with `print()`'s structural layout ([`print_layout`]), histograms
//! ([`histogram`], [`packed_histogram`], [`value_histogram`]), and the aggregation printers ([`aggregation`]) with their sort orders
//! ([`aggregation_sorting`]) and display options ([`display_options`]) over a view of the
//! aggregation state ([`aggregation_view`]).
//!
//! Printers append to the `String` they are given; the session writes it to its output.
//! Bytes of traced data that are not UTF-8 are held in that `String` as [`raw_text`]
//! escapes, which the session turns back into the raw bytes when it writes.

pub mod aggregation;
pub mod aggregation_sorting;
pub mod aggregation_view;
pub mod bytes;
pub mod c_format;
pub mod display_options;
pub mod histogram;
pub mod packed_histogram;
pub mod print_layout;
pub mod printf;
pub mod raw_text;
pub mod symbols;
pub mod trace;
pub mod value_histogram;
