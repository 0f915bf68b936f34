//! The profile provider: `profile-N[unit]` (fires on every CPU) and `tick-N[unit]` (one
//! CPU) timer probes, with the units and rules of §1.4.
//!
//! A fixed set of rates is pre-listed; any other rate exists only when a description
//! names it exactly (globs match only the pre-listed probes), as in classic DTrace.

use difvm::glob::is_glob_pattern;
use difvm::object::ProbeDescription;

use crate::attributes::{ProviderAttributes, PROFILE_ATTRIBUTES};
use crate::error::ProviderError;
use crate::provider::{concrete_description, description_matches, ProbeEntry, ProbeKind, Provider};

/// The shortest period a profile probe may have: 200 µs.
pub const MINIMUM_PERIOD_NS: u64 = 200_000;

/// Rates (Hz) of the pre-listed `profile-N` probes.
const PRELISTED_PROFILE_RATES: [u64; 7] = [97, 199, 499, 997, 1999, 4001, 4999];
/// Rates (Hz) of the pre-listed `tick-N` probes.
const PRELISTED_TICK_RATES: [u64; 6] = [1, 10, 100, 500, 1000, 5000];

const NANOSECONDS_PER_SECOND: u64 = 1_000_000_000;

/// The timer a profile probe name describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProfileRate {
    /// True for `profile-*` (every CPU), false for `tick-*` (one CPU).
    pub every_cpu: bool,
    /// The period in nanoseconds (at least [`MINIMUM_PERIOD_NS`]).
    pub period_ns: u64,
    /// The rate in Hz when the name gave one (`profile-997`, `tick-100hz`).
    pub frequency_hz: Option<u64>,
}

/// Parses a profile probe name (`profile-997`, `tick-1s`, `tick-10MS`). Returns None
/// for anything that is not a profile probe: a wrong prefix, a missing or zero count,
/// an unknown unit, or a period shorter than 200 µs.
pub fn parse_profile_probe_name(name: &str) -> Option<ProfileRate> {
    let (every_cpu, rest) = if let Some(rest) = name.strip_prefix("profile-") {
        (true, rest)
    } else {
        (false, name.strip_prefix("tick-")?)
    };
    let digits_end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    if digits_end == 0 {
        return None;
    }
    let count: u64 = rest[..digits_end].parse().ok()?;
    if count == 0 {
        return None;
    }
    let unit = rest[digits_end..].to_ascii_lowercase();
    let nanoseconds_per_unit: u64 = match unit.as_str() {
        "" | "hz" => {
            let period_ns = NANOSECONDS_PER_SECOND / count;
            return (period_ns >= MINIMUM_PERIOD_NS).then_some(ProfileRate {
                every_cpu,
                period_ns,
                frequency_hz: Some(count),
            });
        }
        "ns" | "nsec" => 1,
        "us" | "usec" => 1_000,
        "ms" | "msec" => 1_000_000,
        "s" | "sec" => NANOSECONDS_PER_SECOND,
        "m" | "min" => 60 * NANOSECONDS_PER_SECOND,
        "h" | "hour" => 3_600 * NANOSECONDS_PER_SECOND,
        "d" | "day" => 86_400 * NANOSECONDS_PER_SECOND,
        _ => return None,
    };
    let period_ns = count.checked_mul(nanoseconds_per_unit)?;
    (period_ns >= MINIMUM_PERIOD_NS).then_some(ProfileRate {
        every_cpu,
        period_ns,
        frequency_hz: None,
    })
}

/// The profile provider.
#[derive(Debug, Default)]
pub struct ProfileProvider;

/// Builds the entry of a profile probe called `name` with timer `rate`.
fn profile_entry(name: &str, rate: ProfileRate) -> ProbeEntry {
    ProbeEntry::new(
        concrete_description("profile", "", "", name),
        ProbeKind::Profile {
            period_ns: rate.period_ns,
            frequency_hz: rate.frequency_hz,
            every_cpu: rate.every_cpu,
        },
    )
}

/// The pre-listed probe names, `profile-*` first, in classic DTrace's order.
fn prelisted_names() -> impl Iterator<Item = String> {
    let profiles = PRELISTED_PROFILE_RATES
        .iter()
        .map(|rate| format!("profile-{rate}"));
    let ticks = PRELISTED_TICK_RATES
        .iter()
        .map(|rate| format!("tick-{rate}"));
    profiles.chain(ticks)
}

impl Provider for ProfileProvider {
    fn name(&self) -> &str {
        "profile"
    }

    fn probes(&self, description: &ProbeDescription) -> Result<Vec<ProbeEntry>, ProviderError> {
        let mut entries: Vec<ProbeEntry> = prelisted_names()
            .filter_map(|name| {
                parse_profile_probe_name(&name).map(|rate| profile_entry(&name, rate))
            })
            .filter(|entry| description_matches(description, &entry.description))
            .collect();
        let names_one_rate = !description.name.is_empty() && !is_glob_pattern(&description.name);
        let already_listed = entries
            .iter()
            .any(|entry| entry.description.name == description.name);
        if names_one_rate && !already_listed {
            if let Some(rate) = parse_profile_probe_name(&description.name) {
                let entry = profile_entry(&description.name, rate);
                if description_matches(description, &entry.description) {
                    entries.push(entry);
                }
            }
        }
        Ok(entries)
    }

    fn attributes(&self) -> ProviderAttributes {
        PROFILE_ATTRIBUTES
    }
}
