//! Providers' stability attributes (for each description field and for the
//! arguments) and what dt_probe_info() derives from them for a probe description: what
//! the compiler gives `probe*` and `args[]`, and what `-v` reports.

use crate::glob::is_glob_pattern;
use crate::object::ProbeDescription;
use crate::stability::{
    Attribute, DependencyClass, ProviderAttributeSetting, ProviderComponent, Stability,
};

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
        for setting in settings
            .iter()
            .filter(|setting| setting.provider == provider)
        {
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
pub const UNSTABLE_DESCRIPTION: Attribute = Attribute::new(
    Stability::Unstable,
    Stability::Unstable,
    DependencyClass::Common,
);

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
