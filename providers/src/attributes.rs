//! Stability attributes of providers (§12.8): the stability and dependency-class names
//! `-v` prints, and each provider's attributes for its description fields and arguments.

pub use difvm::provider_attributes::ProviderAttributes;
pub use difvm::stability::{Attribute, DependencyClass, Stability};

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
