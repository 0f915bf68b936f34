//! Attribute triples read from text as dtrace_str2attr() reads them (`amin`,
//! `#pragma D attributes`).

use difvm::stability::{Attribute, DependencyClass, Stability};

#[test]
fn parts_left_out_take_their_highest_value() {
    let highest = Attribute::new(
        Stability::Standard,
        Stability::Standard,
        DependencyClass::Common,
    );
    assert_eq!(Attribute::parse(""), Some(highest));
    assert_eq!(
        Attribute::parse("evolving/"),
        Some(Attribute::new(
            Stability::Evolving,
            Stability::Standard,
            DependencyClass::Common
        ))
    );
}

#[test]
fn a_slash_may_end_the_text() {
    assert_eq!(
        Attribute::parse("Private/Unstable/ISA/"),
        Some(Attribute::new(
            Stability::Private,
            Stability::Unstable,
            DependencyClass::Isa
        ))
    );
}

#[test]
fn empty_or_unknown_parts_are_refused() {
    for text in [
        "/Stable",
        "Stable//Common",
        "Solid",
        "Stable/Stable/Stable",
        "Stable/Stable/ISA/ISA",
    ] {
        assert_eq!(Attribute::parse(text), None, "{text}");
    }
}
