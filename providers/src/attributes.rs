//! Stability attributes of providers (§12.8): the stability and dependency-class names
//! `-v` prints, and each provider's attributes for its description fields and arguments.

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
}

use DependencyClass as C;
use Stability as S;

/// The dtrace provider's attributes.
pub const DTRACE_ATTRIBUTES: ProviderAttributes = ProviderAttributes {
    provider: Attribute::new(S::Stable, S::Stable, C::Common),
    module: Attribute::new(S::Private, S::Private, C::Unknown),
    function: Attribute::new(S::Private, S::Private, C::Unknown),
    name: Attribute::new(S::Stable, S::Stable, C::Common),
    arguments: Attribute::new(S::Stable, S::Stable, C::Common),
};

/// The syscall provider's attributes.
pub const SYSCALL_ATTRIBUTES: ProviderAttributes = ProviderAttributes {
    provider: Attribute::new(S::Evolving, S::Evolving, C::Common),
    module: Attribute::new(S::Private, S::Private, C::Unknown),
    function: Attribute::new(S::Private, S::Private, C::Isa),
    name: Attribute::new(S::Evolving, S::Evolving, C::Common),
    arguments: Attribute::new(S::Private, S::Private, C::Isa),
};

/// The profile provider's attributes.
pub const PROFILE_ATTRIBUTES: ProviderAttributes = ProviderAttributes {
    provider: Attribute::new(S::Evolving, S::Evolving, C::Common),
    module: Attribute::new(S::Unstable, S::Unstable, C::Common),
    function: Attribute::new(S::Private, S::Private, C::Unknown),
    name: Attribute::new(S::Evolving, S::Evolving, C::Common),
    arguments: Attribute::new(S::Evolving, S::Evolving, C::Common),
};

/// The sdt provider's attributes (kernel tracepoints).
pub const SDT_ATTRIBUTES: ProviderAttributes = ProviderAttributes {
    provider: Attribute::new(S::Evolving, S::Evolving, C::Isa),
    module: Attribute::new(S::Private, S::Private, C::Unknown),
    function: Attribute::new(S::Private, S::Private, C::Unknown),
    name: Attribute::new(S::Evolving, S::Evolving, C::Isa),
    arguments: Attribute::new(S::Private, S::Private, C::Isa),
};

/// The rawtp provider's attributes (raw kernel tracepoints: their arguments are the
/// kernel's own C arguments, as unstable as fbt's).
pub const RAWTP_ATTRIBUTES: ProviderAttributes = ProviderAttributes {
    provider: Attribute::new(S::Evolving, S::Evolving, C::Isa),
    module: Attribute::new(S::Private, S::Private, C::Unknown),
    function: Attribute::new(S::Private, S::Private, C::Unknown),
    name: Attribute::new(S::Evolving, S::Evolving, C::Isa),
    arguments: Attribute::new(S::Private, S::Private, C::Isa),
};

/// The fbt provider's attributes.
pub const FBT_ATTRIBUTES: ProviderAttributes = ProviderAttributes {
    provider: Attribute::new(S::Evolving, S::Evolving, C::Common),
    module: Attribute::new(S::Private, S::Private, C::Unknown),
    function: Attribute::new(S::Private, S::Private, C::Isa),
    name: Attribute::new(S::Evolving, S::Evolving, C::Common),
    arguments: Attribute::new(S::Private, S::Private, C::Isa),
};

/// The pid and usdt providers' attributes (classic fasttrap's).
pub const USER_PROBE_ATTRIBUTES: ProviderAttributes = ProviderAttributes {
    provider: Attribute::new(S::Evolving, S::Evolving, C::Isa),
    module: Attribute::new(S::Private, S::Private, C::Unknown),
    function: Attribute::new(S::Evolving, S::Evolving, C::Isa),
    name: Attribute::new(S::Evolving, S::Evolving, C::Isa),
    arguments: Attribute::new(S::Private, S::Private, C::Unknown),
};

/// The stable providers' attributes (proc, sched, io, ip, tcp, udp), as Oracle's DTrace
/// for Linux declares them: names and arguments Evolving, module and function Private.
pub const STABLE_ATTRIBUTES: ProviderAttributes = ProviderAttributes {
    provider: Attribute::new(S::Evolving, S::Evolving, C::Isa),
    module: Attribute::new(S::Private, S::Private, C::Unknown),
    function: Attribute::new(S::Private, S::Private, C::Unknown),
    name: Attribute::new(S::Evolving, S::Evolving, C::Isa),
    arguments: Attribute::new(S::Evolving, S::Evolving, C::Isa),
};
