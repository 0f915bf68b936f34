//! DTrace's kernel bounds on the `cleanrate` and `statusrate` intervals, and dtrace(1)'s
//! notices when a rate it was asked for was changed (`cleaning rate reduced to 5000
//! hz`, D-REFERENCE.md §11.1–§11.2). Both engines run with the bounded rates.

use crate::options::{DtraceOption, OptionSet};

const NANOSECONDS_PER_SECOND: u64 = 1_000_000_000;
/// The cleaner runs at most 5000 times a second…
const SHORTEST_CLEAN_INTERVAL: u64 = NANOSECONDS_PER_SECOND / 5000;
/// …and at least once a minute; a `cleanrate` of 0 means once a minute.
const LONGEST_CLEAN_INTERVAL: u64 = 60 * NANOSECONDS_PER_SECOND;
/// The status is read at least every ten seconds.
const LONGEST_STATUS_INTERVAL: u64 = 10 * NANOSECONDS_PER_SECOND;

/// The interval (ns) DTrace's kernel cleans at for a `cleanrate` interval of `requested`.
pub fn bounded_clean_interval(requested: u64) -> u64 {
    if requested == 0 {
        return LONGEST_CLEAN_INTERVAL;
    }
    requested.clamp(SHORTEST_CLEAN_INTERVAL, LONGEST_CLEAN_INTERVAL)
}

/// The interval (ns) DTrace's kernel reads the status at for a `statusrate` of
/// `requested`.
fn bounded_status_interval(requested: u64) -> u64 {
    requested.min(LONGEST_STATUS_INTERVAL)
}

/// A rate dtrace(1) reports on: its name in the notice, its option, and its bound.
type BoundedRate = (&'static str, DtraceOption, fn(u64) -> u64);

/// dtrace(1)'s notices (without `dtrace: `) for the rates set in `options` that the
/// bounds changed, in its order: the cleaning rate, then the status rate.
pub fn rate_notices(options: &OptionSet) -> Vec<String> {
    let rates: [BoundedRate; 2] = [
        (
            "cleaning rate",
            DtraceOption::CleanRate,
            bounded_clean_interval,
        ),
        (
            "status rate",
            DtraceOption::StatusRate,
            bounded_status_interval,
        ),
    ];
    rates
        .into_iter()
        .filter(|(_, option, _)| options.is_set(*option))
        .filter_map(|(name, option, bound)| {
            let requested = options.rate_ns(option)?;
            rate_notice(name, requested, bound(requested))
        })
        .collect()
}

/// The notice for a rate whose interval went from `requested` to `granted` (ns), worded
/// as dtrace(1) words it: in hz when the new interval divides a second, else in whole
/// seconds, else in nanoseconds. None when it did not change.
fn rate_notice(name: &str, requested: u64, granted: u64) -> Option<String> {
    if granted == 0 || granted == requested {
        return None;
    }
    let direction = if granted > requested {
        "reduced"
    } else {
        "increased"
    };
    Some(
        if granted <= NANOSECONDS_PER_SECOND && NANOSECONDS_PER_SECOND.is_multiple_of(granted) {
            format!(
                "{name} {direction} to {} hz",
                NANOSECONDS_PER_SECOND / granted
            )
        } else if granted.is_multiple_of(NANOSECONDS_PER_SECOND) {
            format!(
                "{name} {direction} to once every {} seconds",
                granted / NANOSECONDS_PER_SECOND
            )
        } else {
            format!("{name} {direction} to once every {granted} nanoseconds")
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::OptionOrigin;

    fn notices(assignments: &[(&str, &str)]) -> Vec<String> {
        let mut options = OptionSet::new();
        for (name, value) in assignments {
            options
                .set(name, Some(value), OptionOrigin::CommandLine)
                .unwrap();
        }
        rate_notices(&options)
    }

    #[test]
    fn rates_outside_the_bounds_are_reported_as_dtrace_words_them() {
        assert_eq!(
            notices(&[("cleanrate", "10000hz")]),
            ["cleaning rate reduced to 5000 hz"]
        );
        assert_eq!(
            notices(&[("cleanrate", "2m")]),
            ["cleaning rate increased to once every 60 seconds"]
        );
        assert_eq!(
            notices(&[("cleanrate", "0")]),
            ["cleaning rate reduced to once every 60 seconds"]
        );
        assert_eq!(
            notices(&[("statusrate", "20s"), ("cleanrate", "1")]),
            [
                "cleaning rate reduced to 5000 hz",
                "status rate increased to once every 10 seconds"
            ]
        );
        assert_eq!(
            rate_notice("cleaning rate", 1, 300_001),
            Some("cleaning rate reduced to once every 300001 nanoseconds".to_string())
        );
    }

    #[test]
    fn rates_within_the_bounds_and_defaults_are_not_reported() {
        assert!(notices(&[("cleanrate", "3000hz"), ("statusrate", "5s")]).is_empty());
        assert!(notices(&[]).is_empty());
        assert_eq!(bounded_clean_interval(1), 200_000);
    }
}
