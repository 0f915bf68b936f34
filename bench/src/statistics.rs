//! Medians, ratios and the human formatting of measured values (milliseconds, mebibytes,
//! records per second) that the results table shows.

/// What a measured value is counted in; decides how it is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Nanoseconds, printed with one decimal (`81.3 ns`).
    Nanoseconds,
    /// Milliseconds (`13.1 ms`, `27310 ms`).
    Milliseconds,
    /// Seconds (`1.84 s`).
    Seconds,
    /// Bytes, printed in mebibytes (`11.4 MiB`).
    Bytes,
    /// Records per second (`850 k/s`, `1.23 M/s`).
    RecordsPerSecond,
    /// A plain count with thousands separators (`1,000,000`).
    Count,
}

/// The median of `samples`: the middle value, or the mean of the two middle values for an
/// even count; `None` for no samples. Values that are not numbers are left out.
pub fn median(samples: &[f64]) -> Option<f64> {
    let mut sorted: Vec<f64> = samples.iter().copied().filter(|v| !v.is_nan()).collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(|a, b| a.total_cmp(b));
    let middle = sorted.len() / 2;
    Some(if sorted.len() % 2 == 1 {
        sorted[middle]
    } else {
        (sorted[middle - 1] + sorted[middle]) / 2.0
    })
}

/// The smallest and largest of `samples`, when there are any.
pub fn range(samples: &[f64]) -> Option<(f64, f64)> {
    let mut values = samples.iter().copied().filter(|v| !v.is_nan());
    let first = values.next()?;
    Some(values.fold((first, first), |(low, high), v| (low.min(v), high.max(v))))
}

/// ours / bpftrace, when it means something: both finite, neither negative, and a
/// denominator that is not zero.
pub fn ratio(ours: f64, theirs: f64) -> Option<f64> {
    if !ours.is_finite() || !theirs.is_finite() || ours < 0.0 || theirs <= 0.0 {
        return None;
    }
    Some(ours / theirs)
}

/// A ratio as the table shows it: three significant digits and a `×`.
pub fn format_ratio(value: f64) -> String {
    format!("{}×", significant(value, 3))
}

/// `value` in `unit` with its unit symbol, e.g. `13.1 ms`.
pub fn format_value(value: f64, unit: Unit) -> String {
    format!(
        "{} {}",
        format_number(value, unit),
        unit_symbol(unit, value)
    )
    .trim_end()
    .to_string()
}

/// `low`–`high` in `unit`, the unit symbol once at the end, e.g. `12.8–14.0 ms`.
pub fn format_range(low: f64, high: f64, unit: Unit) -> String {
    let scale_from = low.abs().max(high.abs());
    format!(
        "{}–{} {}",
        format_number_at_scale(low, unit, scale_from),
        format_number_at_scale(high, unit, scale_from),
        unit_symbol(unit, scale_from)
    )
    .trim_end()
    .to_string()
}

fn format_number(value: f64, unit: Unit) -> String {
    format_number_at_scale(value, unit, value.abs())
}

/// Formats `value` with the decimals and multiple (k, M) that fit `scale`, so that the
/// two ends of a range share a multiple.
fn format_number_at_scale(value: f64, unit: Unit, scale: f64) -> String {
    match unit {
        Unit::Nanoseconds => format!("{value:.1}"),
        Unit::Milliseconds => {
            if scale >= 100.0 {
                format!("{value:.0}")
            } else {
                format!("{value:.1}")
            }
        }
        Unit::Seconds => format!("{value:.2}"),
        Unit::Bytes => {
            let mebibytes = value / (1024.0 * 1024.0);
            if scale >= 100.0 * 1024.0 * 1024.0 {
                format!("{mebibytes:.0}")
            } else {
                format!("{mebibytes:.1}")
            }
        }
        Unit::RecordsPerSecond => {
            if scale >= 1e6 {
                format!("{:.2}", value / 1e6)
            } else if scale >= 1e3 {
                format!("{:.0}", value / 1e3)
            } else {
                format!("{value:.0}")
            }
        }
        Unit::Count => thousands(value.round() as i64),
    }
}

fn unit_symbol(unit: Unit, scale: f64) -> &'static str {
    match unit {
        Unit::Nanoseconds => "ns",
        Unit::Milliseconds => "ms",
        Unit::Seconds => "s",
        Unit::Bytes => "MiB",
        Unit::RecordsPerSecond => {
            if scale.abs() >= 1e6 {
                "M/s"
            } else if scale.abs() >= 1e3 {
                "k/s"
            } else {
                "/s"
            }
        }
        Unit::Count => "",
    }
}

/// An integer with `,` between groups of three digits.
pub fn thousands(value: i64) -> String {
    let digits = value.unsigned_abs().to_string();
    let mut grouped = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    if value < 0 {
        format!("-{grouped}")
    } else {
        grouped
    }
}

/// `value` rounded to `digits` significant digits, without a trailing exponent.
fn significant(value: f64, digits: i32) -> String {
    if value == 0.0 || !value.is_finite() {
        return format!("{value}");
    }
    let magnitude = value.abs().log10().floor() as i32;
    let decimals = (digits - 1 - magnitude).max(0) as usize;
    format!("{value:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        for (samples, expected) in [
            (vec![], None),
            (vec![3.0], Some(3.0)),
            (vec![5.0, 1.0, 3.0], Some(3.0)),
            (vec![4.0, 1.0, 3.0, 2.0], Some(2.5)),
            (vec![f64::NAN, 2.0], Some(2.0)),
        ] {
            assert_eq!(median(&samples), expected, "{samples:?}");
        }
    }

    #[test]
    fn ranges() {
        assert_eq!(range(&[]), None);
        assert_eq!(range(&[2.0, -1.0, 7.5]), Some((-1.0, 7.5)));
    }

    #[test]
    fn ratios() {
        for (ours, theirs, expected) in [
            (1.0, 4.0, Some(0.25)),
            (10.0, 0.0, None),
            (-1.0, 4.0, None),
            (1.0, f64::NAN, None),
            (0.0, 2.0, Some(0.0)),
        ] {
            assert_eq!(ratio(ours, theirs), expected, "{ours} / {theirs}");
        }
        for (value, expected) in [
            (0.03523, "0.0352×"),
            (1.0, "1.00×"),
            (12.345, "12.3×"),
            (1234.5, "1234×"),
        ] {
            assert_eq!(format_ratio(value), expected);
        }
    }

    fn check_value(value: f64, unit: Unit, expected: &str) {
        assert_eq!(format_value(value, unit), expected, "{value} {unit:?}");
    }

    #[test]
    fn values_format() {
        check_value(81.26, Unit::Nanoseconds, "81.3 ns");
        check_value(-3.04, Unit::Nanoseconds, "-3.0 ns");
        check_value(13.14, Unit::Milliseconds, "13.1 ms");
        check_value(27310.4, Unit::Milliseconds, "27310 ms");
        check_value(1.8449, Unit::Seconds, "1.84 s");
        check_value(11.94 * 1024.0 * 1024.0, Unit::Bytes, "11.9 MiB");
        check_value(300.0 * 1024.0 * 1024.0, Unit::Bytes, "300 MiB");
        check_value(850_400.0, Unit::RecordsPerSecond, "850 k/s");
        check_value(1_234_000.0, Unit::RecordsPerSecond, "1.23 M/s");
        check_value(12.0, Unit::RecordsPerSecond, "12 /s");
        check_value(1_000_000.0, Unit::Count, "1,000,000");
        check_value(999.0, Unit::Count, "999");
        check_value(-1234.0, Unit::Count, "-1,234");
    }

    #[test]
    fn ranges_format() {
        assert_eq!(
            format_range(12.84, 14.0, Unit::Milliseconds),
            "12.8–14.0 ms"
        );
        assert_eq!(
            format_range(900_000.0, 1_100_000.0, Unit::RecordsPerSecond),
            "0.90–1.10 M/s"
        );
        assert_eq!(format_range(0.0, 5.0, Unit::Count), "0–5");
    }
}
