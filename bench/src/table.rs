//! The results table: one row per measurement with our median, bpftrace's median and the
//! ratio, failures shown in their cells with the full reasons as numbered notes below.

use crate::statistics::{format_range, format_ratio, format_value, median, range, ratio, Unit};

/// Which way is better for a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Better {
    Lower,
    Higher,
}

/// Everything one tool gave for one row: the samples of the runs that worked, the
/// reasons of those that failed, or why the tool was not run at all.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Measurement {
    pub samples: Vec<f64>,
    pub failures: Vec<String>,
    pub skipped: Option<String>,
}

impl Measurement {
    /// A measurement of a tool that is not run, with the reason.
    pub fn skipped(reason: &str) -> Measurement {
        Measurement {
            skipped: Some(reason.to_string()),
            ..Measurement::default()
        }
    }

    /// Adds the outcome of one run.
    pub fn record(&mut self, outcome: Result<f64, String>) {
        match outcome {
            Ok(value) => self.samples.push(value),
            Err(reason) => self.failures.push(reason),
        }
    }

    pub fn median(&self) -> Option<f64> {
        median(&self.samples)
    }
}

/// One line of the table.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub label: String,
    pub unit: Unit,
    pub better: Better,
    pub ours: Measurement,
    pub bpftrace: Measurement,
}

impl Row {
    pub fn new(label: &str, unit: Unit, better: Better) -> Row {
        Row {
            label: label.to_string(),
            unit,
            better,
            ours: Measurement::default(),
            bpftrace: Measurement::default(),
        }
    }

    /// ours / bpftrace of the medians, when both have some.
    pub fn ratio(&self) -> Option<f64> {
        ratio(self.ours.median()?, self.bpftrace.median()?)
    }
}

/// The whole table and the notes printed under it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    pub rows: Vec<Row>,
    pub notes: Vec<String>,
}

/// The longest failure reason a cell shows; the whole reason is in the numbered note.
const CELL_REASON_LIMIT: usize = 60;

/// Renders the report as a Markdown table followed by numbered failure notes and the
/// free notes; the same text reads well in a terminal and pastes into BENCHMARKS.md.
pub fn render_report(report: &Report) -> String {
    let mut footnotes: Vec<String> = Vec::new();
    let mut text = String::new();
    text.push_str("| measurement | better | dtrace (ours) | bpftrace | ours/bpftrace |\n");
    text.push_str("|---|---|---|---|---|\n");
    for row in &report.rows {
        let ours = render_cell(&row.ours, row.unit, "ours", &mut footnotes);
        let theirs = render_cell(&row.bpftrace, row.unit, "bpftrace", &mut footnotes);
        let ratio = row
            .ratio()
            .map(format_ratio)
            .unwrap_or_else(|| "—".to_string());
        let better = match row.better {
            Better::Lower => "lower",
            Better::Higher => "higher",
        };
        text.push_str(&format!(
            "| {} | {better} | {ours} | {theirs} | {ratio} |\n",
            escape(&row.label)
        ));
    }
    if !footnotes.is_empty() {
        text.push_str("\nFailures:\n\n");
        for (index, footnote) in footnotes.iter().enumerate() {
            text.push_str(&format!("{}. {}\n", index + 1, escape(footnote)));
        }
    }
    if !report.notes.is_empty() {
        text.push_str("\nNotes:\n\n");
        for note in &report.notes {
            text.push_str(&format!("- {note}\n"));
        }
    }
    text
}

/// One cell: `median [low–high]` over the runs that worked, `failed: reason (N)` when none
/// did (N numbers the note with the whole reason), or `skipped: reason`.
fn render_cell(
    measurement: &Measurement,
    unit: Unit,
    tool: &str,
    footnotes: &mut Vec<String>,
) -> String {
    if let Some(reason) = &measurement.skipped {
        return escape(&format!("skipped: {reason}"));
    }
    let mut failure_numbers: Vec<usize> = Vec::new();
    for reason in &measurement.failures {
        let note = format!("{tool}: {reason}");
        let number = match footnotes.iter().position(|existing| *existing == note) {
            Some(position) => position + 1,
            None => {
                footnotes.push(note);
                footnotes.len()
            }
        };
        if !failure_numbers.contains(&number) {
            failure_numbers.push(number);
        }
    }
    let references = failure_numbers
        .iter()
        .map(|number| number.to_string())
        .collect::<Vec<_>>()
        .join(",");
    match measurement.median() {
        Some(value) => {
            let mut cell = format_value(value, unit);
            if let Some((low, high)) = range(&measurement.samples) {
                if measurement.samples.len() > 1 {
                    cell.push_str(&format!(" [{}]", format_range(low, high, unit)));
                }
            }
            if !measurement.failures.is_empty() {
                let total = measurement.failures.len() + measurement.samples.len();
                cell.push_str(&format!(
                    " ({} of {total} runs failed: {references})",
                    measurement.failures.len()
                ));
            }
            escape(&cell)
        }
        None => match measurement.failures.first() {
            Some(reason) => escape(&format!(
                "failed: {} ({references})",
                shorten(reason, CELL_REASON_LIMIT)
            )),
            None => "no data".to_string(),
        },
    }
}

/// `text` cut to at most `limit` characters, ending in `…` when cut.
fn shorten(text: &str, limit: usize) -> String {
    if text.chars().count() <= limit {
        return text.to_string();
    }
    let mut cut: String = text.chars().take(limit.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// Keeps a cell from splitting the Markdown row: `|` is escaped and newlines become
/// spaces.
fn escape(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn measured(samples: &[f64]) -> Measurement {
        Measurement {
            samples: samples.to_vec(),
            ..Measurement::default()
        }
    }

    fn failed(reasons: &[&str]) -> Measurement {
        Measurement {
            failures: reasons.iter().map(|reason| reason.to_string()).collect(),
            ..Measurement::default()
        }
    }

    fn row(label: &str, unit: Unit, better: Better, ours: Measurement, theirs: Measurement) -> Row {
        Row {
            label: label.to_string(),
            unit,
            better,
            ours,
            bpftrace: theirs,
        }
    }

    fn check(report: &Report, expected: &str) {
        let rendered = render_report(report);
        assert_eq!(rendered, expected, "\n{rendered}");
    }

    #[test]
    fn measured_rows_show_medians_ranges_and_ratios() {
        check(
            &Report {
                rows: vec![
                    row(
                        "start-up: wall time",
                        Unit::Milliseconds,
                        Better::Lower,
                        measured(&[13.0, 12.0, 14.0]),
                        measured(&[370.0, 360.0, 400.0]),
                    ),
                    row(
                        "throughput",
                        Unit::RecordsPerSecond,
                        Better::Higher,
                        measured(&[1_500_000.0]),
                        measured(&[750_000.0]),
                    ),
                ],
                notes: vec!["baseline getppid(): 80.0 ns".to_string()],
            },
            "| measurement | better | dtrace (ours) | bpftrace | ours/bpftrace |\n\
             |---|---|---|---|---|\n\
             | start-up: wall time | lower | 13.0 ms [12.0–14.0 ms] | 370 ms [360–400 ms] | 0.0351× |\n\
             | throughput | higher | 1.50 M/s | 750 k/s | 2.00× |\n\
             \n\
             Notes:\n\
             \n\
             - baseline getppid(): 80.0 ns\n",
        );
    }

    #[test]
    fn failures_become_numbered_notes_shared_between_cells() {
        let kernel = "dtrace: could not enable tracing: the kernel engine is not available yet";
        check(
            &Report {
                rows: vec![
                    row(
                        "enable all syscalls",
                        Unit::Milliseconds,
                        Better::Lower,
                        failed(&[kernel, kernel]),
                        measured(&[27000.0]),
                    ),
                    row(
                        "teardown | after SIGINT",
                        Unit::Milliseconds,
                        Better::Lower,
                        failed(&[kernel]),
                        Measurement::skipped("time budget"),
                    ),
                    row(
                        "probe effect",
                        Unit::Nanoseconds,
                        Better::Lower,
                        Measurement {
                            samples: vec![100.0, 120.0],
                            failures: vec!["timed out".to_string()],
                            skipped: None,
                        },
                        Measurement::default(),
                    ),
                ],
                notes: vec![],
            },
            "| measurement | better | dtrace (ours) | bpftrace | ours/bpftrace |\n\
             |---|---|---|---|---|\n\
             | enable all syscalls | lower | failed: dtrace: could not enable tracing: the kernel engine is not … (1) | 27000 ms | — |\n\
             | teardown \\| after SIGINT | lower | failed: dtrace: could not enable tracing: the kernel engine is not … (1) | skipped: time budget | — |\n\
             | probe effect | lower | 110.0 ns [100.0–120.0 ns] (1 of 3 runs failed: 2) | no data | — |\n\
             \n\
             Failures:\n\
             \n\
             1. ours: dtrace: could not enable tracing: the kernel engine is not available yet\n\
             2. ours: timed out\n",
        );
    }

    #[test]
    fn measurements_collect_outcomes() {
        let mut measurement = Measurement::default();
        measurement.record(Ok(2.0));
        measurement.record(Err("boom".to_string()));
        measurement.record(Ok(4.0));
        assert_eq!(measurement.samples, [2.0, 4.0]);
        assert_eq!(measurement.failures, ["boom"]);
        assert_eq!(measurement.median(), Some(3.0));
    }

    #[test]
    fn reasons_are_shortened_on_character_boundaries() {
        assert_eq!(shorten("abc", 3), "abc");
        assert_eq!(shorten("abcdef", 4), "abc…");
        assert_eq!(shorten("ééééé", 3), "éé…");
    }
}
