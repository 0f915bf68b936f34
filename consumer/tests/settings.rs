//! Tests of the settings derived from the option set: what the compiler, the engines and
//! the session take from the options in effect.

use consumer::options::{OptionOrigin, OptionSet};
use consumer::settings::{CompileSettings, EngineChoice, TracingSettings};
use difvm::engine::BufferPolicy;

fn options(settings: &[(&str, Option<&str>)]) -> OptionSet {
    let mut options = OptionSet::new();
    for (name, value) in settings {
        options
            .set(name, *value, OptionOrigin::CommandLine)
            .expect("valid option");
    }
    options
}

#[test]
fn compile_settings_follow_the_options_and_the_listing_mode() {
    let arguments = vec!["dtrace".to_string(), "42".to_string()];
    let set = options(&[("strsize", Some("512")), ("cpp", None), ("errtags", None)]);
    let settings = CompileSettings::from_options(&set, arguments.clone(), false);
    assert_eq!(settings.compile.string_size, 512);
    assert_eq!(settings.compile.macro_arguments, arguments);
    assert!(settings.preprocessor.is_some());
    assert!(settings.error_tags);
    assert!(settings.compile.default_error_handler);
    assert!(!settings.compile.zero_matches_allowed);
    let target = settings.for_target(Some(1234));
    assert_eq!(target.macro_variables.target, 1234);
    assert!(target.user_process_attached);
    let listing = CompileSettings::from_options(&OptionSet::new(), arguments, true);
    assert!(listing.preprocessor.is_none());
    assert!(!listing.compile.default_error_handler);
    assert!(listing.compile.argument_references);
    assert!(listing.compile.zero_matches_allowed);
}

#[test]
fn tracing_settings_follow_the_options() {
    let set = options(&[
        ("bufsize", Some("8m")),
        ("bufpolicy", Some("ring")),
        ("engine", Some("vm")),
        ("quiet", None),
        ("destructive", None),
    ]);
    let settings = TracingSettings::from_options(&set, Some(7));
    assert_eq!(settings.engine.options.buffer_size, 8 << 20);
    assert_eq!(settings.engine.buffer_policy, BufferPolicy::Ring);
    assert_eq!(settings.engine_choice, EngineChoice::VirtualMachine);
    assert!(settings.quiet && settings.session.trace.quiet);
    // dtrace(1) prints the resize notices as errors: quiet does not silence them.
    assert!(settings.resize_notices);
    let quietresize = options(&[("quietresize", None), ("cleanrate", Some("1"))]);
    let quietresize = TracingSettings::from_options(&quietresize, None);
    assert!(!quietresize.resize_notices && quietresize.rate_notices.is_empty());
    assert!(settings.destructive_allowed);
    assert_eq!(settings.session.target_pid, Some(7));
    let defaults = TracingSettings::from_options(&OptionSet::new(), None);
    assert_eq!(defaults.engine_choice, EngineChoice::Automatic);
    assert_eq!(defaults.engine.buffer_policy, BufferPolicy::Switch);
    assert!(defaults.resize_notices);
}
