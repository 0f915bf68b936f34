//! Which drops to report and when, in dtrace(1)'s order (D-REFERENCE §12.9): each pass
//! of its work loop first reads the status (the dynamic-variable, speculation and
//! ERROR-probe counters), then snapshots the aggregations (aggregation drops, per CPU),
//! then consumes each CPU's buffer, reporting that CPU's principal-buffer drops after
//! its records; `dtrace_stop()` reads the status one last time, before the final
//! consumption. Counts are the deltas since the last report of the same counter.

use std::collections::BTreeMap;

use difvm::engine::DropCounters;

use crate::messages::{drop_message, DropKind};

/// The counters reported so far, and the message texts of new drops.
#[derive(Debug, Default)]
pub struct DropReporter {
    reported: DropCounters,
    droptags: bool,
}

impl DropReporter {
    /// A reporter that has reported nothing yet; `droptags` prefixes each message with
    /// its `[DTRACEDROP_…]` tag.
    pub fn new(droptags: bool) -> DropReporter {
        DropReporter {
            reported: DropCounters::default(),
            droptags,
        }
    }

    /// Follows a change of the `droptags` option.
    pub fn set_droptags(&mut self, droptags: bool) {
        self.droptags = droptags;
    }

    /// The status counters' new drops, in the order of libdtrace's drop table.
    pub fn status(&mut self, current: &DropCounters) -> Vec<String> {
        let counters = [
            (
                DropKind::Dynamic,
                current.dynamic,
                &mut self.reported.dynamic,
            ),
            (
                DropKind::Speculative,
                current.speculative,
                &mut self.reported.speculative,
            ),
            (
                DropKind::SpeculationBusy,
                current.speculation_busy,
                &mut self.reported.speculation_busy,
            ),
            (
                DropKind::SpeculationUnavailable,
                current.speculation_unavailable,
                &mut self.reported.speculation_unavailable,
            ),
            (
                DropKind::DoubleError,
                current.error_in_error_probe,
                &mut self.reported.error_in_error_probe,
            ),
        ];
        let mut messages = Vec::new();
        for (kind, now, reported) in counters {
            if now > *reported {
                messages.push(drop_message(kind, now - *reported, 0, self.droptags));
                *reported = now;
            }
        }
        messages
    }

    /// New aggregation drops, CPU by CPU.
    pub fn aggregation(&mut self, current: &DropCounters) -> Vec<String> {
        per_cpu(
            DropKind::Aggregation,
            &current.aggregation,
            &mut self.reported.aggregation,
            None,
            self.droptags,
        )
    }

    /// New principal-buffer drops of `cpu`, or of every CPU when `cpu` is `None`.
    pub fn principal(&mut self, current: &DropCounters, cpu: Option<u32>) -> Vec<String> {
        per_cpu(
            DropKind::Principal,
            &current.principal,
            &mut self.reported.principal,
            cpu,
            self.droptags,
        )
    }
}

fn per_cpu(
    kind: DropKind,
    current: &BTreeMap<u32, u64>,
    reported: &mut BTreeMap<u32, u64>,
    only: Option<u32>,
    droptags: bool,
) -> Vec<String> {
    let mut messages = Vec::new();
    for (&cpu, &count) in current {
        if only.is_some_and(|only| only != cpu) {
            continue;
        }
        let before = reported.entry(cpu).or_insert(0);
        if count > *before {
            messages.push(drop_message(kind, count - *before, cpu, droptags));
            *before = count;
        }
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_each_counter_once_by_its_delta() {
        let mut reporter = DropReporter::new(false);
        let mut counters = DropCounters {
            dynamic: 2,
            error_in_error_probe: 1,
            ..DropCounters::default()
        };
        counters.principal.insert(0, 3);
        counters.principal.insert(1, 1);
        assert_eq!(
            reporter.status(&counters),
            vec![
                "2 dynamic variable drops".to_string(),
                "1 error in ERROR probe enabling".to_string()
            ]
        );
        assert!(reporter.status(&counters).is_empty());
        assert_eq!(
            reporter.principal(&counters, Some(1)),
            vec!["1 drop on CPU 1".to_string()]
        );
        counters.principal.insert(1, 4);
        assert_eq!(
            reporter.principal(&counters, None),
            vec![
                "3 drops on CPU 0".to_string(),
                "3 drops on CPU 1".to_string()
            ]
        );
    }

    #[test]
    fn droptags_prefix_the_messages() {
        let mut reporter = DropReporter::new(true);
        let mut counters = DropCounters::default();
        counters.aggregation.insert(2, 5);
        assert_eq!(
            reporter.aggregation(&counters),
            vec!["[DTRACEDROP_AGGREGATION] 5 aggregation drops on CPU 2".to_string()]
        );
    }
}
