//! Golden tests of aggregation output: the default layout of §8.4 (including the
//! reference's histogram examples), sort orders, printa() with and without a format,
//! joined aggregations, and clear/trunc/normalize.

use consumer::aggregation_state::table::AggregationTable;
use consumer::render::aggregation::{AggregationLayoutOptions, AggregationPrinter};
use consumer::render::aggregation_sorting::AggregationSortOptions;
use consumer::render::aggregation_view::AggregationView;
use consumer::render::bytes::render_hex_dump;
use consumer::render::symbols::{NoSymbols, SymbolLookup, SymbolName, SymbolResolver};
use difvm::aggregation::{quantize_bucket, AggregationRule, LinearQuantization};
use difvm::object::{AggregationDescription, AggregationFunction, RecordSlot, ValueLayout};
use dlang::format::{FormatString, ParseFormat};

const STRING_SIZE: u32 = 16;

fn description(
    id: u32,
    function: AggregationFunction,
    keys: &[ValueLayoutSize],
) -> AggregationDescription {
    let mut offset: u32 = 0;
    let mut slots = Vec::new();
    for (layout, size) in keys {
        let alignment = (*size).clamp(1, 8);
        offset = offset.div_ceil(alignment) * alignment;
        slots.push(RecordSlot {
            offset,
            size: *size,
            alignment,
            layout: layout.clone(),
        });
        offset += size;
    }
    AggregationDescription {
        id,
        name: format!("a{}", id),
        function,
        keys: slots,
        key_size: offset.div_ceil(8) * 8,
    }
}

type ValueLayoutSize = (ValueLayout, u32);

fn string_key() -> ValueLayoutSize {
    (ValueLayout::String, STRING_SIZE)
}

fn int_key(size: u32) -> ValueLayoutSize {
    (ValueLayout::Integer { signed: true }, size)
}

/// Encodes key components for a description built by [`description`].
enum Key<'a> {
    Str(&'a str),
    Int(i64),
    Raw(&'a [u8]),
}

fn encode(description: &AggregationDescription, components: &[Key<'_>]) -> Vec<u8> {
    let mut key = vec![0u8; description.key_size as usize];
    for (slot, component) in description.keys.iter().zip(components) {
        let start = slot.offset as usize;
        let size = slot.size as usize;
        match component {
            Key::Str(text) => key[start..start + text.len()].copy_from_slice(text.as_bytes()),
            Key::Int(value) => {
                key[start..start + size].copy_from_slice(&value.to_le_bytes()[..size])
            }
            Key::Raw(bytes) => key[start..start + bytes.len()].copy_from_slice(bytes),
        }
    }
    key
}

fn printer(sort: AggregationSortOptions) -> AggregationPrinter<'static> {
    AggregationPrinter {
        sort,
        layout: AggregationLayoutOptions::default(),
        resolver: &NoSymbols,
    }
}

fn render(description: &AggregationDescription, table: &AggregationTable) -> String {
    render_sorted(description, table, AggregationSortOptions::default())
}

fn render_sorted(
    description: &AggregationDescription,
    table: &AggregationTable,
    sort: AggregationSortOptions,
) -> String {
    let view = AggregationView::new(description, table).unwrap();
    let mut out = String::new();
    printer(sort).render_aggregation(&mut out, &view);
    out
}

fn table(entries: Vec<(Vec<u8>, Vec<i64>)>) -> AggregationTable {
    AggregationTable {
        normalization: 1,
        entries: entries.into_iter().collect(),
    }
}

#[test]
fn scalar_layouts_from_the_reference() {
    let count = description(1, AggregationFunction::Count, &[]);
    assert_eq!(
        render(&count, &table(vec![(vec![], vec![2])])),
        "                2\n"
    );

    let by_name = description(1, AggregationFunction::Count, &[string_key()]);
    let key = encode(&by_name, &[Key::Str("bash")]);
    assert_eq!(
        render(&by_name, &table(vec![(key, vec![12])])),
        "  bash                                                             12\n"
    );

    let by_int = description(1, AggregationFunction::Sum, &[int_key(4)]);
    let key = encode(&by_int, &[Key::Int(42)]);
    assert_eq!(
        render(&by_int, &table(vec![(key, vec![17])])),
        "       42               17\n"
    );

    let two_keys = description(1, AggregationFunction::Count, &[string_key(), int_key(4)]);
    let key = encode(&two_keys, &[Key::Str("bash"), Key::Int(1234)]);
    assert_eq!(
        render(&two_keys, &table(vec![(key, vec![7])])),
        "  bash                                                   1234                7\n"
    );
}

#[test]
fn key_formats_by_size() {
    let keys = description(
        1,
        AggregationFunction::Max,
        &[
            int_key(8),
            int_key(4),
            int_key(2),
            int_key(1),
            (ValueLayout::Pointer, 8),
        ],
    );
    let key = encode(
        &keys,
        &[
            Key::Int(-1),
            Key::Int(-3),
            Key::Int(-2),
            Key::Int(-2),
            Key::Int(16),
        ],
    );
    assert_eq!(
        render(&keys, &table(vec![(key, vec![-5])])),
        format!(
            " {:>16} {:>8} {:>5} {:>3} {:>16} {:>16}\n",
            -1, -3, 65534, 254, 16, -5
        )
    );
    // Bytes: printable text with NULs as a string, otherwise a hex dump.
    let bytes = description(1, AggregationFunction::Count, &[(ValueLayout::Bytes, 4)]);
    let text = encode(&bytes, &[Key::Raw(b"ab\0\0")]);
    let binary = encode(&bytes, &[Key::Raw(&[1, 2, 3, 4])]);
    assert_eq!(
        render(&bytes, &table(vec![(text, vec![1])])),
        format!("  {:<50} {:>16}\n", "ab", 1)
    );
    let mut dump = String::new();
    render_hex_dump(&mut dump, &[1, 2, 3, 4]);
    assert_eq!(
        render(&bytes, &table(vec![(binary, vec![1])])),
        format!("{} {:>16}\n", dump, 1)
    );
    // An empty string key prints as an empty string.
    let strings = description(1, AggregationFunction::Count, &[string_key()]);
    let empty = encode(&strings, &[Key::Str("")]);
    assert_eq!(
        render(&strings, &table(vec![(empty, vec![3])])),
        format!("  {:<50} {:>16}\n", "", 3)
    );
}

#[test]
fn average_and_stddev_values() {
    let avg = description(1, AggregationFunction::Avg, &[]);
    assert_eq!(
        render(&avg, &table(vec![(vec![], vec![4, 10])])),
        format!(" {:>16}\n", 2)
    );
    assert_eq!(
        render(&avg, &table(vec![(vec![], vec![2, -7])])),
        format!(" {:>16}\n", -3)
    );
    let stddev = description(1, AggregationFunction::Stddev, &[]);
    let rule = AggregationRule::new(&AggregationFunction::Stddev).unwrap();
    let mut words = rule.initial_value();
    for value in [2, 4, 4, 4, 5, 5, 7, 9] {
        rule.update(&mut words, value, 1);
    }
    assert_eq!(
        render(&stddev, &table(vec![(vec![], words)])),
        format!(" {:>16}\n", 2)
    );
}

const HISTOGRAM_HEADER: &str =
    "           value  ------------- Distribution ------------- count    \n";

#[test]
fn quantize_example_from_the_reference() {
    let quantize = description(1, AggregationFunction::Quantize, &[]);
    let mut buckets = vec![0i64; 127];
    for (value, times) in [(0, 1), (64, 1), (128, 1), (256, 3), (512, 4)] {
        buckets[quantize_bucket(value)] += times;
    }
    let expected = "
           value  ------------- Distribution ------------- count    
              -1 |                                         0        
               0 |@@@@                                     1        
               1 |                                         0        
               2 |                                         0        
               4 |                                         0        
               8 |                                         0        
              16 |                                         0        
              32 |                                         0        
              64 |@@@@                                     1        
             128 |@@@@                                     1        
             256 |@@@@@@@@@@@@                             3        
             512 |@@@@@@@@@@@@@@@@                         4        
            1024 |                                         0        

";
    assert_eq!(render(&quantize, &table(vec![(vec![], buckets)])), expected);
}

#[test]
fn lquantize_example_from_the_reference() {
    let function = AggregationFunction::Lquantize {
        low: -100,
        high: 1100,
        step: 100,
    };
    let lquantize = description(1, function, &[int_key(4)]);
    let linear = LinearQuantization::new(-100, 1100, 100).unwrap();
    let mut buckets = vec![0i64; linear.bucket_count()];
    buckets[linear.bucket(0)] += 1;
    let key = encode(&lquantize, &[Key::Int(0)]);
    let expected = "        0
           value  ------------- Distribution ------------- count    
            -100 |                                         0        
               0 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 1        
             100 |                                         0        

";
    assert_eq!(render(&lquantize, &table(vec![(key, buckets)])), expected);
}

#[test]
fn lquantize_underflow_and_overflow_labels() {
    let function = AggregationFunction::Lquantize {
        low: 0,
        high: 1000,
        step: 100,
    };
    let lquantize = description(1, function, &[]);
    let linear = LinearQuantization::new(0, 1000, 100).unwrap();
    let mut buckets = vec![0i64; linear.bucket_count()];
    buckets[linear.bucket(-5)] += 1;
    buckets[linear.bucket(5000)] += 1;
    let out = render(&lquantize, &table(vec![(vec![], buckets.clone())]));
    assert!(
        out.contains("\n             < 0 |@@@@@@@@@@@@@@@@@@@@                     1        \n"),
        "{}",
        out
    );
    assert!(
        out.contains("\n         >= 1000 |@@@@@@@@@@@@@@@@@@@@                     1        \n"),
        "{}",
        out
    );
    // The empty line, the header, 12 rows and the entry's empty line.
    assert_eq!(out.lines().count(), 2 + 12 + 1);

    // All zero: the first three rows.
    let zero = render(&lquantize, &table(vec![(vec![], vec![0; buckets.len()])]));
    assert_eq!(
        zero,
        format!(
            "\n{}{}{}{}\n",
            HISTOGRAM_HEADER,
            "             < 0 |                                         0        \n",
            "               0 |                                         0        \n",
            "             100 |                                         0        \n"
        )
    );
}

#[test]
fn negative_counts_example_from_the_reference() {
    let quantize = description(1, AggregationFunction::Quantize, &[string_key()]);
    let mut buckets = vec![0i64; 127];
    buckets[quantize_bucket(-1)] = -123;
    buckets[quantize_bucket(0)] = -123;
    buckets[quantize_bucket(1)] = 246;
    let key = encode(&quantize, &[Key::Str("l-taraval")]);
    let expected = "  l-taraval                                         
           value  ------------- Distribution ------------- count    
              -2                     |                     0        
              -1                @@@@@|                     -123     
               0                @@@@@|                     -123     
               1                     |@@@@@@@@@@           246      
               2                     |                     0        

";
    assert_eq!(render(&quantize, &table(vec![(key, buckets)])), expected);
}

#[test]
fn quantize_special_cases() {
    let quantize = description(1, AggregationFunction::Quantize, &[]);
    // All zero: rows -1, 0, 1.
    let zero = render(&quantize, &table(vec![(vec![], vec![0; 127])]));
    assert_eq!(
        zero,
        format!(
            "\n{}{}{}{}\n",
            HISTOGRAM_HEADER,
            "              -1 |                                         0        \n",
            "               0 |                                         0        \n",
            "               1 |                                         0        \n"
        )
    );
    // Only negative counts: bars grow from the right.
    let mut buckets = vec![0i64; 127];
    buckets[quantize_bucket(4)] = -2;
    let out = render(&quantize, &table(vec![(vec![], buckets)]));
    assert!(
        out.contains(&format!("               4 {}| -2       \n", "@".repeat(40))),
        "{}",
        out
    );
    assert!(
        out.contains(&format!("               8 {}| 0        \n", " ".repeat(40))),
        "{}",
        out
    );
    // Normalized counts divide; bars do not change.
    let mut buckets = vec![0i64; 127];
    buckets[quantize_bucket(1)] = 10;
    let mut normalized = table(vec![(vec![], buckets)]);
    normalized.normalize(3);
    let out = render(&quantize, &normalized);
    assert!(
        out.contains(&format!("               1 |{} 3        \n", "@".repeat(40))),
        "{}",
        out
    );
}

#[test]
fn llquantize_uses_the_signed_bucket_labels() {
    let function = AggregationFunction::Llquantize {
        factor: 10,
        low: 0,
        high: 1,
        steps: 10,
    };
    let llquantize = description(1, function, &[]);
    let rule = AggregationRule::new(&function).unwrap();
    let mut words = rule.initial_value();
    rule.update(&mut words, 5, 1);
    rule.update(&mut words, 500, 1);
    rule.update(&mut words, -20, 2);
    let out = render(&llquantize, &table(vec![(vec![], words)]));
    let rows: Vec<&str> = out
        .lines()
        .skip(2)
        .filter(|line| !line.is_empty())
        .map(|line| line[..17].trim())
        .collect();
    assert_eq!(rows[0], "-30");
    assert_eq!(rows[1], "-20");
    assert!(
        rows.contains(&"0") && rows.contains(&"5") && rows.contains(&">= 100"),
        "{}",
        out
    );
    let zero = render(&llquantize, &table(vec![(vec![], rule.initial_value())]));
    assert_eq!(
        zero,
        format!(
            "\n{}               0 |                                         0        \n\n",
            HISTOGRAM_HEADER
        )
    );
}

#[test]
fn sorting_by_value_key_and_options() {
    let by_int = description(1, AggregationFunction::Sum, &[int_key(4), int_key(4)]);
    let entry =
        |a: i64, b: i64, value: i64| (encode(&by_int, &[Key::Int(a), Key::Int(b)]), vec![value]);
    let data = table(vec![
        entry(3, 1, 5),
        entry(-1, 2, 5),
        entry(2, 3, 1),
        entry(1, 9, 7),
    ]);
    let keys = |sort: AggregationSortOptions| -> Vec<String> {
        render_sorted(&by_int, &data, sort)
            .lines()
            .map(|line| {
                line.split_whitespace()
                    .take(2)
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .collect()
    };
    let default = AggregationSortOptions::default();
    // By value; the tie (5) by key, unsigned: -1 sorts after 3.
    assert_eq!(keys(default), vec!["2,3", "3,1", "-1,2", "1,9"]);
    assert_eq!(
        keys(AggregationSortOptions {
            reverse: true,
            ..default
        }),
        vec!["1,9", "-1,2", "3,1", "2,3"]
    );
    assert_eq!(
        keys(AggregationSortOptions {
            sort_by_key: true,
            ..default
        }),
        vec!["1,9", "2,3", "3,1", "-1,2"]
    );
    assert_eq!(
        keys(AggregationSortOptions {
            sort_by_key: true,
            key_position: 1,
            ..default
        }),
        vec!["3,1", "-1,2", "2,3", "1,9"]
    );
    // Out-of-range key positions mean 0.
    assert_eq!(
        keys(AggregationSortOptions {
            sort_by_key: true,
            key_position: 5,
            ..default
        }),
        vec!["1,9", "2,3", "3,1", "-1,2"]
    );
    // Strings compare byte by byte.
    let by_name = description(1, AggregationFunction::Count, &[string_key()]);
    let names = table(vec![
        (encode(&by_name, &[Key::Str("b")]), vec![1]),
        (encode(&by_name, &[Key::Str("ab")]), vec![1]),
        (encode(&by_name, &[Key::Str("a")]), vec![1]),
    ]);
    let order: Vec<String> = render(&by_name, &names)
        .lines()
        .map(|line| line.split_whitespace().next().unwrap().to_string())
        .collect();
    assert_eq!(order, vec!["a", "ab", "b"]);
}

#[test]
fn histograms_sort_by_weighted_sum_then_zero_bucket() {
    let quantize = description(1, AggregationFunction::Quantize, &[int_key(4)]);
    let histogram = |entries: &[(i64, i64)]| {
        let mut buckets = vec![0i64; 127];
        for (value, count) in entries {
            buckets[quantize_bucket(*value)] += count;
        }
        buckets
    };
    let data = table(vec![
        (encode(&quantize, &[Key::Int(1)]), histogram(&[(8, 1)])),
        (encode(&quantize, &[Key::Int(2)]), histogram(&[(2, 1)])),
        (
            encode(&quantize, &[Key::Int(3)]),
            histogram(&[(2, 1), (0, 5)]),
        ),
    ]);
    let order: Vec<String> = render(&quantize, &data)
        .lines()
        .filter(|line| line.starts_with("        "))
        .filter(|line| !line.contains('|') && !line.contains("value"))
        .map(|line| line.trim().to_string())
        .collect();
    assert_eq!(order, vec!["2", "3", "1"]);
}

#[test]
fn printa_default_and_formatted() {
    let by_name = description(1, AggregationFunction::Count, &[string_key()]);
    let data = table(vec![
        (encode(&by_name, &[Key::Str("sshd")]), vec![3]),
        (encode(&by_name, &[Key::Str("bash")]), vec![12]),
    ]);
    let view = AggregationView::new(&by_name, &data).unwrap();
    let printer = printer(AggregationSortOptions::default());
    let mut out = String::new();
    assert!(printer.render_printa(&mut out, std::slice::from_ref(&view)));
    assert_eq!(
        out,
        format!(
            "\n  {:<50} {:>16}\n  {:<50} {:>16}\n",
            "sshd", 3, "bash", 12
        )
    );

    let format = FormatString::parse("%-20s %@d\n").unwrap();
    let mut out = String::new();
    assert!(printer
        .render_printa_formatted(&mut out, &format, std::slice::from_ref(&view), None)
        .unwrap());
    assert_eq!(out, format!("{:<20} 3\n{:<20} 12\n", "sshd", "bash"));

    // Without %@ the value is not printed; fewer conversions than keys is fine.
    let format = FormatString::parse("[%s]\n").unwrap();
    let mut out = String::new();
    printer
        .render_printa_formatted(&mut out, &format, std::slice::from_ref(&view), None)
        .unwrap();
    assert_eq!(out, "[sshd]\n[bash]\n");
    let format = FormatString::parse("-\n").unwrap();
    let mut out = String::new();
    printer
        .render_printa_formatted(&mut out, &format, std::slice::from_ref(&view), None)
        .unwrap();
    assert_eq!(out, "-\n-\n");

    // An empty aggregation prints nothing (and is not marked printed).
    let empty = AggregationTable::new();
    let empty_view = AggregationView::new(&by_name, &empty).unwrap();
    let mut out = String::new();
    assert!(!printer.render_printa(&mut out, std::slice::from_ref(&empty_view)));
    assert_eq!(out, "\n");
    let format = FormatString::parse("@b = %@u\n").unwrap();
    let no_keys = description(2, AggregationFunction::Count, &[]);
    let single = table(vec![(vec![], vec![1])]);
    let mut out = String::new();
    printer
        .render_printa_formatted(
            &mut out,
            &format,
            &[AggregationView::new(&no_keys, &single).unwrap()],
            None,
        )
        .unwrap();
    assert_eq!(out, "@b = 1\n");
}

#[test]
fn joined_printa() {
    let a = description(1, AggregationFunction::Count, &[string_key()]);
    let b = description(2, AggregationFunction::Sum, &[string_key()]);
    let key = |name: &str| encode(&a, &[Key::Str(name)]);
    let table_a = table(vec![(key("x"), vec![5]), (key("y"), vec![1])]);
    let table_b = table(vec![(key("y"), vec![100]), (key("z"), vec![-4])]);
    let views = [
        AggregationView::new(&a, &table_a).unwrap(),
        AggregationView::new(&b, &table_b).unwrap(),
    ];

    let printer_default = printer(AggregationSortOptions::default());
    let mut out = String::new();
    assert!(printer_default.render_printa(&mut out, &views));
    let row = |name: &str, first: i64, second: i64| {
        format!("  {:<50} {:>16} {:>16}\n", name, first, second)
    };
    // Sorted by @a's value (z has none: 0), then @b's, then key.
    assert_eq!(
        out,
        format!(
            "\n{}{}{}",
            row("z", 0, -4),
            row("y", 1, 100),
            row("x", 5, 0)
        )
    );

    // aggsortpos=1 sorts by @b first.
    let by_b = printer(AggregationSortOptions {
        aggregation_position: 1,
        ..Default::default()
    });
    let mut out = String::new();
    by_b.render_printa(&mut out, &views);
    assert_eq!(
        out,
        format!(
            "\n{}{}{}",
            row("z", 0, -4),
            row("x", 5, 0),
            row("y", 1, 100)
        )
    );

    let format = FormatString::parse("%s %@d %@d %@d\n").unwrap();
    let mut out = String::new();
    assert!(printer_default
        .render_printa_formatted(&mut out, &format, &views, None)
        .unwrap());
    assert_eq!(out, "z 0 -4 -4\ny 1 100 100\nx 5 0 0\n");

    let by_key = printer(AggregationSortOptions {
        sort_by_key: true,
        ..Default::default()
    });
    let mut out = String::new();
    by_key
        .render_printa_formatted(&mut out, &format, &views, None)
        .unwrap();
    assert_eq!(out, "x 5 0 0\ny 1 100 100\nz 0 -4 -4\n");
}

#[test]
fn unprinted_aggregations_at_exit() {
    let first = description(1, AggregationFunction::Count, &[]);
    let second = description(2, AggregationFunction::Sum, &[]);
    let third = description(3, AggregationFunction::Max, &[]);
    let one = table(vec![(vec![], vec![1])]);
    let two = table(vec![(vec![], vec![2])]);
    let three = table(vec![(vec![], vec![3])]);
    let views = [
        AggregationView::new(&third, &three).unwrap(),
        AggregationView::new(&first, &one).unwrap(),
        AggregationView::new(&second, &two).unwrap(),
    ];
    let mut out = String::new();
    printer(AggregationSortOptions::default()).render_unprinted(&mut out, &views, |id| id == 2);
    assert_eq!(out, format!(" {:>16}\n {:>16}\n", 1, 3));
    let mut out = String::new();
    printer(AggregationSortOptions {
        reverse: true,
        ..Default::default()
    })
    .render_unprinted(&mut out, &views, |_| false);
    assert_eq!(out, format!(" {:>16}\n {:>16}\n {:>16}\n", 3, 2, 1));
}

#[test]
fn clear_trunc_and_normalize() {
    let by_int = description(1, AggregationFunction::Sum, &[int_key(4)]);
    let rule = AggregationRule::new(&by_int.function).unwrap();
    let entry = |key: i64, value: i64| (encode(&by_int, &[Key::Int(key)]), vec![value]);
    let data = table(vec![entry(1, 10), entry(2, 30), entry(3, 20), entry(4, 30)]);
    let values = |table: &AggregationTable| -> Vec<String> {
        render(&by_int, table)
            .lines()
            .map(|line| line.split_whitespace().collect::<Vec<_>>().join(":"))
            .collect()
    };

    let mut top = data.clone();
    top.truncate(&rule, &by_int, Some(2));
    assert_eq!(values(&top), vec!["2:30", "4:30"]);
    let mut bottom = data.clone();
    bottom.truncate(&rule, &by_int, Some(-1));
    assert_eq!(values(&bottom), vec!["1:10"]);
    let mut all = data.clone();
    all.truncate(&rule, &by_int, None);
    assert!(all.entries.is_empty());
    let mut many = data.clone();
    many.truncate(&rule, &by_int, Some(10));
    assert_eq!(many.entries.len(), 4);

    let mut cleared = data.clone();
    cleared.clear_values();
    assert_eq!(values(&cleared), vec!["1:0", "2:0", "3:0", "4:0"]);

    let mut normalized = data.clone();
    normalized.normalize(10);
    assert_eq!(values(&normalized), vec!["1:1", "3:2", "2:3", "4:3"]);
    normalized.denormalize();
    assert_eq!(values(&normalized), vec!["1:10", "3:20", "2:30", "4:30"]);
    normalized.normalize(0);
    assert_eq!(normalized.normalization, 1);
}

struct Kernel;

impl SymbolResolver for Kernel {
    fn kernel_symbol(&self, address: u64) -> Option<SymbolLookup> {
        let (name, start) = match address {
            0x1000..=0x10ff => ("ksys_read", 0x1000),
            0x2000..=0x20ff => ("do_syscall_64", 0x2000),
            _ => return None,
        };
        Some(SymbolLookup {
            module: "vmlinux".into(),
            symbol: Some(SymbolName {
                name: name.into(),
                address: start,
            }),
        })
    }

    fn user_symbol(&self, _pid: u64, _address: u64) -> Option<SymbolLookup> {
        None
    }
}

#[test]
fn stack_and_symbol_keys() {
    let stacks = description(
        1,
        AggregationFunction::Count,
        &[(ValueLayout::KernelStack { frames: 3 }, 24)],
    );
    let mut frames = Vec::new();
    for pc in [0x1070u64, 0x205b, 0] {
        frames.extend_from_slice(&pc.to_le_bytes());
    }
    let data = table(vec![(frames, vec![42])]);
    let view = AggregationView::new(&stacks, &data).unwrap();
    let printer = AggregationPrinter {
        sort: AggregationSortOptions::default(),
        layout: AggregationLayoutOptions::default(),
        resolver: &Kernel,
    };
    let mut out = String::new();
    printer.render_aggregation(&mut out, &view);
    assert_eq!(
        out,
        "\n              vmlinux`ksys_read+0x70\n              vmlinux`do_syscall_64+0x5b\n               42\n"
    );

    let symbols = description(
        1,
        AggregationFunction::Count,
        &[(
            ValueLayout::KernelSymbol(difvm::object::SymbolFormat::Symbol),
            8,
        )],
    );
    let data = table(vec![(0x2010u64.to_le_bytes().to_vec(), vec![1])]);
    let view = AggregationView::new(&symbols, &data).unwrap();
    let mut out = String::new();
    printer.render_aggregation(&mut out, &view);
    assert_eq!(
        out,
        format!("  {:<50} {:>16}\n", "vmlinux`do_syscall_64", 1)
    );
    let format = FormatString::parse("%a %@d\n").unwrap();
    let mut out = String::new();
    printer
        .render_printa_formatted(&mut out, &format, std::slice::from_ref(&view), None)
        .unwrap();
    assert_eq!(out, "vmlinux`do_syscall_64+0x10 1\n");
}
