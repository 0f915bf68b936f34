//! Golden tests of the aggregation display options: `aggzoom` (bars scaled to the
//! largest bucket), `agghist` (a bar per entry of count/sum/avg/stddev aggregations),
//! `aggpack` (quantize/lquantize distributions packed on one line), and the Unicode
//! bars of the `utf8` encoding, as DTrace's libdtrace prints them.

use consumer::aggregation_state::table::AggregationTable;
use consumer::options::{DtraceOption, OptionOrigin, OptionSet};
use consumer::render::aggregation::{
    packed_key_width, AggregationLayoutOptions, AggregationPrinter,
};
use consumer::render::aggregation_sorting::AggregationSortOptions;
use consumer::render::aggregation_view::AggregationView;
use consumer::render::display_options::AggregationDisplayOptions;
use consumer::render::histogram::HistogramStyle;
use consumer::render::packed_histogram::digit_width;
use consumer::render::symbols::NoSymbols;
use difvm::aggregation::{quantize_bucket, LinearQuantization, QUANTIZE_BUCKET_COUNT};
use difvm::object::{AggregationDescription, AggregationFunction, RecordSlot, ValueLayout};
use dlang::format::{FormatString, ParseFormat};

const STRING_SIZE: u32 = 32;
const TITLE: &str = "------------- Distribution -------------";

/// A key component of a test aggregation.
#[derive(Clone, Copy)]
enum Key<'a> {
    Str(&'a str),
    Int(i64),
}

/// An aggregation whose keys have the layouts of `keys` (strings, or integers of the
/// given size), laid out the way the compiler aligns them.
fn description(function: AggregationFunction, keys: &[Option<u32>]) -> AggregationDescription {
    let mut offset = 0;
    let mut slots = Vec::new();
    for key in keys {
        let (layout, size) = match key {
            None => (ValueLayout::String, STRING_SIZE),
            Some(size) => (ValueLayout::Integer { signed: true }, *size),
        };
        let alignment = size.clamp(1, 8);
        offset = u32::div_ceil(offset, alignment) * alignment;
        slots.push(RecordSlot {
            offset,
            size,
            alignment,
            layout,
        });
        offset += size;
    }
    AggregationDescription {
        id: 1,
        name: "a".into(),
        function,
        keys: slots,
        key_size: offset.div_ceil(8) * 8,
    }
}

fn encode(description: &AggregationDescription, components: &[Key<'_>]) -> Vec<u8> {
    let mut key = vec![0u8; description.key_size as usize];
    for (slot, component) in description.keys.iter().zip(components) {
        let start = slot.offset as usize;
        match component {
            Key::Str(text) => key[start..start + text.len()].copy_from_slice(text.as_bytes()),
            Key::Int(value) => {
                let size = slot.size as usize;
                key[start..start + size].copy_from_slice(&value.to_le_bytes()[..size]);
            }
        }
    }
    key
}

fn table(
    description: &AggregationDescription,
    entries: &[(&[Key<'_>], Vec<i64>)],
) -> AggregationTable {
    AggregationTable {
        normalization: 1,
        entries: entries
            .iter()
            .map(|(key, words)| (encode(description, key), words.clone()))
            .collect(),
    }
}

/// Quantize buckets holding `count` samples of each `value`.
fn quantized(samples: &[(i64, i64)]) -> Vec<i64> {
    let mut buckets = vec![0; QUANTIZE_BUCKET_COUNT];
    for &(value, count) in samples {
        buckets[quantize_bucket(value)] += count;
    }
    buckets
}

fn display(zoom: bool, agghist: bool, aggpack: bool, utf8: bool) -> AggregationDisplayOptions {
    AggregationDisplayOptions {
        histogram_style: HistogramStyle { zoom, utf8 },
        value_histograms: agghist,
        packed_histograms: aggpack,
    }
}

fn printer(display: AggregationDisplayOptions) -> AggregationPrinter<'static> {
    AggregationPrinter {
        sort: AggregationSortOptions::default(),
        layout: AggregationLayoutOptions {
            display,
            ..AggregationLayoutOptions::default()
        },
        resolver: &NoSymbols,
    }
}

/// The check of this file: one aggregation printed in the default layout (as at exit)
/// with the display options, against the expected text.
fn check(
    name: &str,
    options: AggregationDisplayOptions,
    description: &AggregationDescription,
    table: &AggregationTable,
    expected: &str,
) {
    let view = AggregationView::new(description, table).unwrap();
    let mut out = String::new();
    printer(options).render_aggregation(&mut out, &view);
    assert_eq!(out, expected, "{name}:\n{out}");
}

/// A string key in the packed format, `" %16s"`.
fn packed(text: &str) -> String {
    format!(" {text:>16}")
}

/// A row of a histogram with only positive counts: label, bar of `depth` `@`, count.
fn bar(label: &str, label_width: usize, depth: usize, count: i64) -> String {
    format!(
        "{label:>label_width$} |{}{} {count:<9}\n",
        "@".repeat(depth),
        " ".repeat(40 - depth)
    )
}

#[test]
fn aggzoom_scales_histogram_bars_to_the_largest_bucket() {
    let quantize = description(AggregationFunction::Quantize, &[]);
    let data = table(&quantize, &[(&[], quantized(&[(1, 2), (2, 3), (4, 7)]))]);
    let header = format!("\n{:>16} {TITLE:>41} {:<9}\n", "value", "count");
    // Without zoom the total is 12: 2 → 6.67 → 7, 3 → 10, 7 → 23.3 → 23.
    let plain = [
        bar("0", 16, 0, 0),
        bar("1", 16, 7, 2),
        bar("2", 16, 10, 3),
        bar("4", 16, 23, 7),
        bar("8", 16, 0, 0),
    ]
    .concat();
    check(
        "quantize",
        display(false, false, false, false),
        &quantize,
        &data,
        &format!("{header}{plain}\n"),
    );
    // With zoom the total is 7 / 0.95: 2 → 10.86 → 11, 3 → 16.29 → 16, 7 → 38.
    let zoomed = [
        bar("0", 16, 0, 0),
        bar("1", 16, 11, 2),
        bar("2", 16, 16, 3),
        bar("4", 16, 38, 7),
        bar("8", 16, 0, 0),
    ]
    .concat();
    check(
        "quantize zoomed",
        display(true, false, false, false),
        &quantize,
        &data,
        &format!("{header}{zoomed}\n"),
    );

    // lquantize and both signs: half-width bars scaled to 17 / 0.95 (17.9):
    // -9 → 10.06 → 10, 17 → 19.
    let linear = description(
        AggregationFunction::Lquantize {
            low: 0,
            high: 10,
            step: 5,
        },
        &[],
    );
    let data = table(&linear, &[(&[], vec![0, -9, 17, 0])]);
    let expected = format!(
        "{header}{:>16} {}|{} {:<9}\n{:>16} {}{}|{} {:<9}\n{:>16} {}|{}{} {:<9}\n{:>16} {}|{} {:<9}\n\n",
        "< 0",
        " ".repeat(20),
        " ".repeat(20),
        0,
        "0",
        " ".repeat(10),
        "@".repeat(10),
        " ".repeat(20),
        -9,
        "5",
        " ".repeat(20),
        "@".repeat(19),
        " ",
        17,
        ">= 10",
        " ".repeat(20),
        " ".repeat(20),
        0
    );
    check(
        "lquantize zoomed",
        display(true, false, false, false),
        &linear,
        &data,
        &expected,
    );
}

#[test]
fn aggzoom_applies_to_printa_formats() {
    let quantize = description(AggregationFunction::Quantize, &[]);
    let data = table(&quantize, &[(&[], quantized(&[(1, 1)]))]);
    let view = AggregationView::new(&quantize, &data).unwrap();
    let format = FormatString::parse("%@d").unwrap();
    let mut out = String::new();
    printer(display(true, false, false, false))
        .render_printa_formatted(&mut out, &format, std::slice::from_ref(&view), None)
        .unwrap();
    let expected = format!(
        "\n{:>16} {TITLE:>41} {:<9}\n{}{}{}",
        "value",
        "count",
        bar("0", 16, 0, 0),
        bar("1", 16, 38, 1),
        bar("2", 16, 0, 0)
    );
    assert_eq!(out, expected);
}

#[test]
fn utf8_encoding_draws_block_bars() {
    let quantize = description(AggregationFunction::Quantize, &[]);
    let data = table(&quantize, &[(&[], quantized(&[(1, 1), (2, 2)]))]);
    // 1 of 3 is 13⅓ cells: 13 full blocks and a quarter block (2 eighths, U+258E);
    // 2 of 3 is 26⅔ cells: 26 full blocks and five eighths (U+258B).
    let expected = format!(
        "\n{:>16} {TITLE:>41} {:<9}\n{}{:>16} |{}▎{} 1        \n{:>16} |{}▋{} 2        \n{}\n",
        "value",
        "count",
        bar("0", 16, 0, 0),
        "1",
        "█".repeat(13),
        " ".repeat(26),
        "2",
        "█".repeat(26),
        " ".repeat(13),
        bar("4", 16, 0, 0),
    );
    check(
        "utf8",
        display(false, false, false, true),
        &quantize,
        &data,
        &expected,
    );
}

#[test]
fn agghist_prints_a_bar_per_entry() {
    let header17 = format!("\n{:>17} {TITLE:>41} {:<9}\n", "key", "count");
    let by_name = description(AggregationFunction::Count, &[None]);
    let data = table(
        &by_name,
        &[
            (&[Key::Str("bash")], vec![12]),
            (&[Key::Str("sh")], vec![4]),
        ],
    );
    // Total 16: 4 → 10, 12 → 30. String keys print as " %16s".
    check(
        "count",
        display(false, true, false, false),
        &by_name,
        &data,
        &format!(
            "{header17}{}{}",
            bar(&packed("sh"), 17, 10, 4),
            bar(&packed("bash"), 17, 30, 12)
        ),
    );
    // Zoomed, the total is trunc(12 / 0.95) = 12: 4 → 13.3 → 13, 12 → 40.
    check(
        "count zoomed",
        display(true, true, false, false),
        &by_name,
        &data,
        &format!(
            "{header17}{}{}",
            bar(&packed("sh"), 17, 13, 4),
            bar(&packed("bash"), 17, 40, 12)
        ),
    );

    // Both signs among the entries: half-width bars, total 8 (-3 → 7.5 → 8, 5 → 13).
    let sums = description(AggregationFunction::Sum, &[Some(4)]);
    let data = table(
        &sums,
        &[(&[Key::Int(1)], vec![-3]), (&[Key::Int(2)], vec![5])],
    );
    let expected = format!(
        "\n{:>9} {TITLE:>41} {:<9}\n{:>9} {}{}|{} {:<9}\n{:>9} {}|{}{} {:<9}\n",
        "key",
        "count",
        1,
        " ".repeat(12),
        "@".repeat(8),
        " ".repeat(20),
        -3,
        2,
        " ".repeat(20),
        "@".repeat(13),
        " ".repeat(7),
        5
    );
    check(
        "sum both signs",
        display(false, true, false, false),
        &sums,
        &data,
        &expected,
    );

    // Without keys the header says "value"; normalization divides the shown value.
    let keyless = description(AggregationFunction::Avg, &[]);
    let mut data = table(&keyless, &[(&[], vec![2, 30])]);
    data.normalize(5);
    check(
        "avg",
        display(false, true, false, false),
        &keyless,
        &data,
        &format!(
            "\n{:>16} {TITLE:>41} {:<9}\n{}",
            "value",
            "count",
            bar("", 0, 40, 3)
        ),
    );

    // min() and the quantizations keep their default layout.
    let minimum = description(AggregationFunction::Min, &[None]);
    let data = table(&minimum, &[(&[Key::Str("x")], vec![7])]);
    check(
        "min",
        display(false, true, true, false),
        &minimum,
        &data,
        &format!("  {:<50} {:>16}\n", "x", 7),
    );
    // An empty aggregation prints nothing, not even the header.
    check(
        "empty",
        display(false, true, false, false),
        &by_name,
        &AggregationTable::new(),
        "",
    );
}

#[test]
fn aggpack_packs_quantize_distributions() {
    let quantize = description(AggregationFunction::Quantize, &[None]);
    let data = table(
        &quantize,
        &[
            (&[Key::Str("a")], quantized(&[(1, 1), (4, 3)])),
            (&[Key::Str("b")], quantized(&[(2, 2)])),
        ],
    );
    // Buckets 1..4 hold data; one more below (0) and above (8) are printed. A count
    // picks character round(7 × count / total) of "__xxxxXX": in "a" 1 of 4 → 2 and
    // 3 of 4 → 5 ('x'), in "b" 2 of 2 → 7 ('X').
    let expected = format!(
        "\n{:>17}  min .-----. max  | count\n{}    0 :  X  : 8    | 2\n{}    0 : x x : 8    | 4\n",
        "key",
        packed("b"),
        packed("a")
    );
    check(
        "quantize",
        display(false, false, true, false),
        &quantize,
        &data,
        &expected,
    );

    // Negative counts, large values and no keys: no bucket is added below the zero
    // bucket; the range ends one bucket above the highest data. Of the total 9, 1 → '_',
    // -2 → round(5 × 2 / 9) = 1 of "vvvvVV" ('v') and 6 → round(7 × 6 / 9) = 5 ('x').
    let keyless = description(AggregationFunction::Quantize, &[]);
    let mut buckets = quantized(&[(0, 1), (1 << 20, 6)]);
    buckets[quantize_bucket(3)] = -2;
    let data = table(&keyless, &[(&[], buckets)]);
    let expected = format!(
        "\n  min .{}. max     | count\n    0 :_ v{}x : 2097152 | 5\n",
        "-".repeat(23),
        " ".repeat(18)
    );
    check(
        "quantize negative",
        display(false, false, true, false),
        &keyless,
        &data,
        &expected,
    );

    // The Unicode characters of the utf8 encoding, and zoom (2 of 2 / 0.95 → 7).
    let data = table(&keyless, &[(&[], quantized(&[(-1, 1), (1, 2)]))]);
    check(
        "quantize utf8 zoomed",
        display(true, false, true, true),
        &keyless,
        &data,
        "\n  min .-----. max  | count\n   -2 : ▄ █ : 2    | 3\n",
    );
}

#[test]
fn aggpack_packs_lquantize_over_its_whole_range() {
    let function = AggregationFunction::Lquantize {
        low: 0,
        high: 10,
        step: 5,
    };
    let linear = LinearQuantization::new(0, 10, 5).unwrap();
    let lquantize = description(function, &[Some(4)]);
    let mut first = vec![0; linear.bucket_count()];
    first[linear.bucket(3)] += 1;
    first[linear.bucket(7)] += 1;
    let mut second = vec![0; linear.bucket_count()];
    second[linear.bucket(-4)] += 3;
    let data = table(
        &lquantize,
        &[(&[Key::Int(1)], first), (&[Key::Int(2)], second)],
    );
    // Every bucket is printed, underflow and overflow included. The underflow bucket
    // weighs low - 1, so the entry with only underflow data sorts first.
    let expected = "
      key     min .----. max      | count
        2       0 :X   : 10       | 3
        1       0 : xx : 10       | 2
";
    check(
        "lquantize",
        display(false, false, true, false),
        &lquantize,
        &data,
        expected,
    );
}

#[test]
fn packed_widths() {
    for (value, width) in [
        (0, 4),
        (8, 4),
        (1024, 4),
        (9999, 4),
        (10000, 4),
        (10001, 5),
        (2097152, 7),
        (-1, 4),
        (-1024, 5),
        (i64::MAX, 19),
        (i64::MIN, 20),
    ] {
        assert_eq!(digit_width(value), width, "digit_width({value})");
    }
    let keys = description(
        AggregationFunction::Count,
        &[None, Some(8), Some(4), Some(2), Some(1)],
    );
    assert_eq!(packed_key_width(&keys), 17 + 17 + 9 + 6 + 4);
}

#[test]
fn display_options_come_from_the_option_set() {
    let mut options = OptionSet::new();
    assert_eq!(
        AggregationDisplayOptions::from_options(&options),
        AggregationDisplayOptions::default()
    );
    for (name, value) in [
        ("aggzoom", None),
        ("agghist", None),
        ("aggpack", None),
        ("encoding", Some("utf8")),
    ] {
        options.set(name, value, OptionOrigin::CommandLine).unwrap();
    }
    assert!(options.boolean(DtraceOption::AggZoom));
    assert_eq!(
        AggregationDisplayOptions::from_options(&options),
        display(true, true, true, true)
    );
}
