//! DTrace's stability attributes (§12.8): the stability levels and dependency classes,
//! the attribute triples statements, identifiers and providers carry, and their
//! `Name/Data/Class` text form (`#pragma D attributes`, `-x amin`), and providers'
//! attributes with what dt_probe_info() derives from them for a probe description.

use crate::glob::is_glob_pattern;
use crate::object::ProbeDescription;

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
pub const STABLE_COMMON: Attribute =
    Attribute::new(Stability::Stable, Stability::Stable, DependencyClass::Common);

impl Stability {
    /// The stability named `name`, compared case-insensitively.
    pub fn from_name(name: &str) -> Option<Stability> {
        use Stability::*;
        [Internal, Private, Obsolete, External, Unstable, Evolving, Stable, Standard]
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
    /// its highest value (Standard, Common); empty text is the highest triple.
    pub fn parse(text: &str) -> Option<Attribute> {
        let mut attribute =
            Attribute::new(Stability::Standard, Stability::Standard, DependencyClass::Common);
        if text.is_empty() {
            return Some(attribute);
        }
        let parts: Vec<&str> = text.split('/').collect();
        if parts.len() > 3 {
            return None;
        }
        attribute.names = Stability::from_name(parts[0])?;
        if let Some(data) = parts.get(1) {
            attribute.data = Stability::from_name(data)?;
        }
        if let Some(class) = parts.get(2) {
            attribute.class = DependencyClass::from_name(class)?;
        }
        Some(attribute)
    }

    /// Whether any part is below the same part of `minimum` (dt_attr_cmp() < 0).
    pub fn is_below(self, minimum: Attribute) -> bool {
        self.names < minimum.names || self.data < minimum.data || self.class < minimum.class
    }
}

/// A provider's attributes for each description field and for the probe arguments,
/// as classic DTrace's providers declare them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProviderAttributes {
    pub provider: Attribute,
    pub module: Attribute,
    pub function: Attribute,
    pub name: Attribute,
    pub arguments: Attribute,
}

impl ProviderAttributes {
    /// The "Probe Description Attributes" `-v` prints: the minimum over the four fields.
    pub fn probe_description(&self) -> Attribute {
        self.provider
            .minimum(self.module)
            .minimum(self.function)
            .minimum(self.name)
    }

    /// These attributes of provider `provider` after a program's `#pragma D attributes
    /// ... provider` settings (dt_pragma_attributes() changes the provider's own).
    pub fn with_settings(
        mut self,
        provider: &str,
        settings: &[ProviderAttributeSetting],
    ) -> ProviderAttributes {
        for setting in settings.iter().filter(|setting| setting.provider == provider) {
            let part = match setting.component {
                ProviderComponent::Provider => &mut self.provider,
                ProviderComponent::Module => &mut self.module,
                ProviderComponent::Function => &mut self.function,
                ProviderComponent::Name => &mut self.name,
                ProviderComponent::Arguments => &mut self.arguments,
            };
            *part = setting.attributes;
        }
        self
    }
}

/// The attributes of a description that names no provider, or a glob for it, and of
/// the arguments of one that matches an unstable set of probes (`_dtrace_prvdesc`).
pub const UNSTABLE_DESCRIPTION: Attribute =
    Attribute::new(Stability::Unstable, Stability::Unstable, DependencyClass::Common);

/// Whether a description field is given: neither empty nor a glob.
fn specified(field: &str) -> bool {
    !field.is_empty() && !is_glob_pattern(field)
}

impl ProviderAttributes {
    /// The attributes of probe description `description` of this provider's probes,
    /// as dt_probe_info() computes them: the minimum of the attributes of the fields it
    /// specifies, the provider's always; a description whose provider is empty or a
    /// glob is Unstable.
    pub fn description(&self, description: &ProbeDescription) -> Attribute {
        if !specified(&description.provider) {
            return UNSTABLE_DESCRIPTION;
        }
        [
            (&description.module, self.module),
            (&description.function, self.function),
            (&description.name, self.name),
        ]
        .into_iter()
        .filter(|(field, _)| specified(field))
        .fold(self.provider, |minimum, (_, attribute)| {
            minimum.minimum(attribute)
        })
    }

    /// Whether dt_probe_info() describes `description` when it matched several of
    /// this provider's probes: only when the provider promises that they share their
    /// arguments (arguments' data Evolving or better, and every field of Evolving
    /// names or better given).
    pub fn shares_arguments(&self, description: &ProbeDescription) -> bool {
        let fields = [
            (&description.provider, self.provider),
            (&description.module, self.module),
            (&description.function, self.function),
            (&description.name, self.name),
        ];
        let unpromised = fields
            .iter()
            .any(|(field, attribute)| attribute.names >= Stability::Evolving && !specified(field));
        self.arguments.data >= Stability::Evolving && !unpromised
    }

    /// The attributes of the arguments of the probes `description` names, as
    /// dt_probe_info() gives them: Unstable for a description naming no provider.
    pub fn described_arguments(&self, description: &ProbeDescription) -> Attribute {
        if specified(&description.provider) {
            self.arguments
        } else {
            UNSTABLE_DESCRIPTION
        }
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
        write!(f, "{}/{}/{}", self.names.name(), self.data.name(), self.class.name())
    }
}
