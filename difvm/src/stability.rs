//! DTrace's stability attributes (§12.8): the stability levels and dependency classes,
//! the attribute triples statements, identifiers and providers carry, and their
//! `Name/Data/Class` text form (`#pragma D attributes`, `-x amin`), and the provider
//! settings of `#pragma D attributes ... provider`.

/// A stability level, lowest first (the derived order is DTrace's order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stability {
    Internal,
    Private,
    Obsolete,
    External,
    Unstable,
    Evolving,
    Stable,
    Standard,
}

impl Stability {
    /// The name `-v` prints.
    pub fn name(self) -> &'static str {
        match self {
            Stability::Internal => "Internal",
            Stability::Private => "Private",
            Stability::Obsolete => "Obsolete",
            Stability::External => "External",
            Stability::Unstable => "Unstable",
            Stability::Evolving => "Evolving",
            Stability::Stable => "Stable",
            Stability::Standard => "Standard",
        }
    }
}

/// A dependency class, lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DependencyClass {
    Unknown,
    Cpu,
    Platform,
    Group,
    Isa,
    Common,
}

impl DependencyClass {
    /// The name `-v` prints.
    pub fn name(self) -> &'static str {
        match self {
            DependencyClass::Unknown => "Unknown",
            DependencyClass::Cpu => "CPU",
            DependencyClass::Platform => "Platform",
            DependencyClass::Group => "Group",
            DependencyClass::Isa => "ISA",
            DependencyClass::Common => "Common",
        }
    }
}

/// One attribute triple: identifier-name stability, data-semantics stability, class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Attribute {
    pub names: Stability,
    pub data: Stability,
    pub class: DependencyClass,
}

impl Attribute {
    /// Shorthand constructor.
    pub const fn new(names: Stability, data: Stability, class: DependencyClass) -> Attribute {
        Attribute { names, data, class }
    }

    /// The component-wise minimum, as DTrace combines attributes.
    pub fn minimum(self, other: Attribute) -> Attribute {
        Attribute {
            names: self.names.min(other.names),
            data: self.data.min(other.data),
            class: self.class.min(other.class),
        }
    }
}

/// The attributes of D's own constructs and of most built-in identifiers
/// (`DT_ATTR_STABCMN`).
pub const STABLE_COMMON: Attribute = Attribute::new(
    Stability::Stable,
    Stability::Stable,
    DependencyClass::Common,
);

impl Stability {
    /// The stability named `name`, compared case-insensitively.
    pub fn from_name(name: &str) -> Option<Stability> {
        use Stability::*;
        [
            Internal, Private, Obsolete, External, Unstable, Evolving, Stable, Standard,
        ]
        .into_iter()
        .find(|level| level.name().eq_ignore_ascii_case(name))
    }
}

impl DependencyClass {
    /// The dependency class named `name`, compared case-insensitively.
    pub fn from_name(name: &str) -> Option<DependencyClass> {
        use DependencyClass::*;
        [Unknown, Cpu, Platform, Group, Isa, Common]
            .into_iter()
            .find(|class| class.name().eq_ignore_ascii_case(name))
    }
}

impl Attribute {
    /// Parses `Name[/Data[/Class]]` as dtrace_str2attr() does: a part left out takes
    /// its highest value (Standard, Common), so empty text is the highest triple; the
    /// text may stop after any `/` (`Stable/`, `Stable/Stable/Common/`), a part may not
    /// be empty (`/Stable` is refused), and nothing may follow the third part.
    pub fn parse(text: &str) -> Option<Attribute> {
        let mut attribute = Attribute::new(
            Stability::Standard,
            Stability::Standard,
            DependencyClass::Common,
        );
        let mut rest = text;
        for index in 0..3 {
            if rest.is_empty() {
                break;
            }
            let (part, after) = rest.split_once('/').unwrap_or((rest, ""));
            match index {
                0 => attribute.names = Stability::from_name(part)?,
                1 => attribute.data = Stability::from_name(part)?,
                _ => attribute.class = DependencyClass::from_name(part)?,
            }
            rest = after;
        }
        rest.is_empty().then_some(attribute)
    }

    /// Whether any part is below the same part of `minimum` (dt_attr_cmp() < 0).
    pub fn is_below(self, minimum: Attribute) -> bool {
        self.names < minimum.names || self.data < minimum.data || self.class < minimum.class
    }
}

/// The part of a provider's attributes `#pragma D attributes ATTR provider NAME PART`
/// sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProviderComponent {
    Provider,
    Module,
    Function,
    Name,
    Arguments,
}

impl ProviderComponent {
    /// The component a pragma's PART word names (`provider`, `module`, `function`,
    /// `name`, `args`).
    pub fn from_word(word: &str) -> Option<ProviderComponent> {
        Some(match word {
            "provider" => ProviderComponent::Provider,
            "module" => ProviderComponent::Module,
            "function" => ProviderComponent::Function,
            "name" => ProviderComponent::Name,
            "args" => ProviderComponent::Arguments,
            _ => return None,
        })
    }
}

/// One `#pragma D attributes ATTR provider NAME PART` of a program: provider `provider`
/// has `attributes` for `component` from then on.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ProviderAttributeSetting {
    pub provider: String,
    pub component: ProviderComponent,
    pub attributes: Attribute,
}

impl std::fmt::Display for Attribute {
    /// `Name/Data/Class`, as dtrace_attr2str() writes it.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}/{}/{}",
            self.names.name(),
            self.data.name(),
            self.class.name()
        )
    }
}
