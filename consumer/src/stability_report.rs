//! The stability reports of `dtrace -v` for programs (§12.8): each program's minimum
//! probe description and statement attributes, and with `-e` each clause's probe
//! description with what dt_probe_info() finds for it.

use difvm::object::{CompiledProgram, EnabledProbe, ProbeDescription, StatementRole};
use difvm::stability::STABLE_COMMON;
use dlang::compile::{ProgramOrigin, ProgramSource};
use providers::attributes::{Attribute, ProviderAttributes};

use crate::catalog::RegistryCatalog;
use crate::probe_listing::{probe_info_block, write_attribute};

/// The `-v` report for one program: the minimum stability of the probe descriptions
/// of its statements (over all programs of the invocation: statements do not record
/// which program they came from) and of the statements (each the minimum over the
/// identifiers its clause uses; Stable/Stable/Common when there are none).
pub fn stability_report(
    source: &ProgramSource,
    program: &CompiledProgram,
    matched: &[EnabledProbe],
    catalog: &RegistryCatalog,
) -> String {
    let statement_attributes = user_statements(program)
        .map(|(index, _)| program.statements[index].attributes)
        .fold(STABLE_COMMON, Attribute::minimum);
    let probe_attributes = user_statements(program)
        .filter_map(|(index, probe)| {
            let enabled = matched.iter().find(|enabled| enabled.statement == index)?;
            let provider = provider_attributes(program, enabled, catalog)?;
            Some(provider.description(probe))
        })
        .reduce(Attribute::minimum)
        .unwrap_or(STABLE_COMMON);
    let (kind, name) = match &source.origin {
        ProgramOrigin::Script { name } => ("script", name.clone()),
        ProgramOrigin::CommandLine(_) => ("description", source.text.clone()),
    };
    let mut report = format!("\nStability attributes for {kind} {name}:\n");
    write_attribute(
        &mut report,
        "Minimum Probe Description Attributes",
        probe_attributes,
    );
    write_attribute(
        &mut report,
        "Minimum Statement Attributes",
        statement_attributes,
    );
    report
}

/// What `-e -v` prints after the programs' reports (dtrace(1)'s info_stmt()): each
/// clause's probe description as `\nprovider:module:function:name\n`, followed, when
/// dt_probe_info() describes it, by the attribute and argument block `-l -v` prints.
pub fn clause_descriptions(
    program: &CompiledProgram,
    matched: &[EnabledProbe],
    catalog: &RegistryCatalog,
) -> String {
    let mut report = String::new();
    let mut last: Option<(u32, &ProbeDescription)> = None;
    for (index, probe) in user_statements(program) {
        let clause = (program.statements[index].clause, probe);
        if last == Some(clause) {
            continue;
        }
        last = Some(clause);
        report.push_str(&format!(
            "\n{}:{}:{}:{}\n",
            probe.provider, probe.module, probe.function, probe.name
        ));
        let enabled: Vec<&EnabledProbe> = matched
            .iter()
            .filter(|enabled| enabled.statement == index)
            .collect();
        if let Some(block) = probe_info(program, probe, &enabled, catalog) {
            report.push_str(&block);
        }
    }
    report
}

/// The user's statements of `program` with their probe descriptions, by index.
fn user_statements(program: &CompiledProgram) -> impl Iterator<Item = (usize, &ProbeDescription)> {
    program
        .statements
        .iter()
        .enumerate()
        .filter(|(_, statement)| statement.role == StatementRole::User)
        .map(|(index, statement)| (index, &statement.probe))
}

/// The attributes of the provider of `enabled`'s probe, as the program's `#pragma D
/// attributes ... provider` settings left them.
fn provider_attributes(
    program: &CompiledProgram,
    enabled: &EnabledProbe,
    catalog: &RegistryCatalog,
) -> Option<ProviderAttributes> {
    let attributes = catalog.provider_attributes(enabled.probe_id)?;
    Some(attributes.with_settings(&enabled.probe.provider, &program.provider_attributes))
}

/// print_probe_info()'s block for `description`, which matched the probes `enabled`, or
/// `None` where dt_probe_info() fails: no probe, or several probes whose arguments the
/// provider does not promise to share (arguments' data less than Evolving, or a field
/// of Evolving names or better left empty or globbed).
fn probe_info(
    program: &CompiledProgram,
    description: &ProbeDescription,
    enabled: &[&EnabledProbe],
    catalog: &RegistryCatalog,
) -> Option<String> {
    let first = *enabled.first()?;
    let provider = provider_attributes(program, first, catalog)?;
    if enabled.len() > 1 && !provider.shares_arguments(description) {
        return None;
    }
    let argument_types = catalog.argument_types(first.probe_id);
    Some(probe_info_block(
        provider.description(description),
        provider.described_arguments(description),
        &argument_types,
    ))
}
