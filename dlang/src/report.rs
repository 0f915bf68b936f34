//! Rendering of compile errors as dtrace prints them (D-REFERENCE.md §12.3, §14): the
//! one-line message, and an optional excerpt of the source with the span marked, for
//! terminals.

use ariadne::{Config, IndexType, Label, Report, ReportKind, Source};

use crate::diagnostics::{Diagnostic, Region, Span};
use crate::lex::SourceMap;

/// Where the program that failed came from, as the message names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgramSource<'a> {
    /// A `-s` script, by the name given on the command line.
    Script { name: &'a str },
    /// A `-n/-P/-m/-f/-i` argument, quoted in full.
    CommandLine { argument: &'a str },
}

/// The error text after `failed to compile script NAME: ` or `invalid probe specifier
/// SPEC: `: `[TAG] ` when `errtags` is set, then the location, then the message.
///
/// The location is `"file", line N: ` when a `#line` directive named a file, else
/// `line N: ` in scripts; command-line programs have no line numbers, so they get
/// `in predicate: ` or `in action list: ` when the error was found while checking one,
/// and nothing otherwise. Errors without a span have no line.
pub fn compile_error_text(
    diagnostic: &Diagnostic,
    source_map: &SourceMap,
    program: &ProgramSource,
    errtags: bool,
) -> String {
    let mut text = String::new();
    if errtags {
        text.push_str(&format!("[{}] ", diagnostic.tag.name()));
    }
    match program {
        ProgramSource::Script { .. } => {
            if let Some(span) = &diagnostic.span {
                match source_map.line_of(reported_offset(span)) {
                    (Some(file), line) => text.push_str(&format!("\"{file}\", line {line}: ")),
                    (None, line) => text.push_str(&format!("line {line}: ")),
                }
            }
        }
        // An error in a library file loaded for a command-line program is located in
        // the file, which a line directive names.
        ProgramSource::CommandLine { .. } if located_in_named_file(diagnostic, source_map) => {
            if let Some(span) = &diagnostic.span {
                if let (Some(file), line) = source_map.line_of(reported_offset(span)) {
                    text.push_str(&format!("\"{file}\", line {line}: "));
                }
            }
        }
        ProgramSource::CommandLine { .. } => match diagnostic.region {
            Region::Predicate => text.push_str("in predicate: "),
            Region::ActionList => text.push_str("in action list: "),
            Region::Program | Region::Parsing => {}
        },
    }
    text.push_str(&diagnostic.message);
    text
}

/// The offset whose line an error reports: the last byte of its span. DTrace reports
/// the line its parser had reached when it built the offending node (dt_node_cook()
/// sets the line to the node's), which is the end of a construct written over several
/// lines: the `)` of a call, the right operand of an operator.
fn reported_offset(span: &Span) -> usize {
    span.end.saturating_sub(1).max(span.start)
}

/// Whether the diagnostic lies in a file a line directive names.
fn located_in_named_file(diagnostic: &Diagnostic, source_map: &SourceMap) -> bool {
    diagnostic
        .span
        .as_ref()
        .is_some_and(|span| source_map.line_of(span.start).0.is_some())
}

/// The whole message line, without a trailing newline:
/// `COMMAND: failed to compile script NAME: TEXT` for scripts and
/// `COMMAND: invalid probe specifier SPEC: TEXT` for command-line programs, where
/// COMMAND is the program name as invoked (normally `dtrace`).
pub fn compile_failure_message(
    command: &str,
    diagnostic: &Diagnostic,
    source_map: &SourceMap,
    program: &ProgramSource,
    errtags: bool,
) -> String {
    let text = compile_error_text(diagnostic, source_map, program, errtags);
    match program {
        ProgramSource::Script { name } => {
            format!("{command}: failed to compile script {name}: {text}")
        }
        ProgramSource::CommandLine { argument } => {
            format!("{command}: invalid probe specifier {argument}: {text}")
        }
    }
}

/// A multi-line rendering for terminals: the message line followed by an excerpt of
/// `source` with the diagnostic's span marked. Colour is used only if `colour` is set.
/// A diagnostic without a span renders as its message line alone.
pub fn render_with_source(
    command: &str,
    diagnostic: &Diagnostic,
    source: &str,
    source_map: &SourceMap,
    program: &ProgramSource,
    errtags: bool,
    colour: bool,
) -> String {
    let line = compile_failure_message(command, diagnostic, source_map, program, errtags);
    let Some(span) = &diagnostic.span else {
        return format!("{line}\n");
    };
    let name = match program {
        ProgramSource::Script { name } => name.to_string(),
        ProgramSource::CommandLine { .. } => "probe specifier".to_string(),
    };
    // Keep the span on character boundaries inside the source; an error at the end of
    // the input marks the last character.
    let mut start = span.start.min(source.len());
    while !source.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = span.end.clamp(start, source.len());
    while !source.is_char_boundary(end) {
        end += 1;
    }
    if start == end && start == source.len() && start > 0 {
        start = source[..start]
            .char_indices()
            .next_back()
            .map_or(0, |(offset, _)| offset);
    }
    let label = diagnostic.message.lines().next().unwrap_or("").to_string();
    let report = Report::build(ReportKind::Error, (name.clone(), start..end))
        .with_config(
            Config::default()
                .with_color(colour)
                .with_index_type(IndexType::Byte),
        )
        .with_label(Label::new((name.clone(), start..end)).with_message(label))
        .finish();
    let mut rendered = Vec::new();
    if report
        .write((name, Source::from(source)), &mut rendered)
        .is_err()
    {
        return format!("{line}\n");
    }
    // Ariadne's own header line names the report kind; the dtrace message line takes
    // its place.
    let rendered = String::from_utf8_lossy(&rendered);
    let excerpt = rendered.split_once('\n').map_or("", |(_, excerpt)| excerpt);
    let line = match line.strip_prefix(command) {
        Some(rest) if colour => format!("\x1b[31m{command}\x1b[0m{rest}"),
        _ => line,
    };
    format!("{line}\n{excerpt}")
}
