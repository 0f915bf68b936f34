//! Probes built on other probes (the stable providers' `proc:::exit` on the kernel's
//! `sched_process_exit` raw tracepoint): how such a probe's guard and arguments derive
//! from the underlying probe's, written in D. Providers describe each stable probe this
//! way and the compiler applies it to every clause that enables the probe, as Oracle's
//! DTrace does with its trampolines, so no engine has to know the stable providers.

/// How a derived probe fires and what its arguments are, as D expressions over the
/// underlying probe's arguments `arg0`…`arg9`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct ProbeDerivation {
    /// A condition the underlying probe's firing must meet for this probe to fire
    /// (`proc:::exit` fires only for the last thread of a process).
    pub guard: Option<String>,
    /// `arg0`, `arg1`, … of the derived probe, in order.
    pub arguments: Vec<DerivedArgument>,
    /// The underlying argument holding the `struct task_struct *` the probe is about,
    /// when the underlying probe fires in another thread's context (`sched:::on-cpu`
    /// fires at `sched_switch`, in the thread leaving the CPU): the thread's built-in
    /// variables then describe that task.
    pub subject_task_argument: Option<u8>,
}

/// One argument of a derived probe.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct DerivedArgument {
    /// The C type of the native value (`struct task_struct *`), which `argN` holds.
    pub native_type: String,
    /// The native value, a D expression over the underlying probe's arguments.
    pub value: String,
    /// What `args[N]` is made of the native value.
    pub translation: ArgumentTranslation,
}

/// How `args[N]` of a derived probe is made from its native value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ArgumentTranslation {
    /// `args[N]` is the native value with its native type.
    Native,
    /// `args[N]` is the native value translated to this type (`psinfo_t *`) by the
    /// translator the D library defines from the native type.
    Translated(String),
    /// `args[N]` is the `string` at the user-space address the native value holds
    /// (`proc:::exec`'s path), copied in as `copyinstr()` would.
    UserString,
    /// `args[N]` is another value than `argN` translated to this type: `io:::done`'s
    /// `arg0` is the request's first bio, the key `io:::start`'s `arg0` gave, while its
    /// `args[0]` describes the whole request.
    TranslatedFrom {
        translated_type: String,
        /// The C type of `value`, which the library's translator takes.
        native_type: String,
        /// The value translated, a D expression over the underlying probe's arguments.
        value: String,
    },
}

impl DerivedArgument {
    /// The type `args[N]` has, as `dtrace -lv` lists it.
    pub fn argument_type(&self) -> &str {
        match &self.translation {
            ArgumentTranslation::Native => &self.native_type,
            ArgumentTranslation::Translated(ty) => ty,
            ArgumentTranslation::TranslatedFrom {
                translated_type, ..
            } => translated_type,
            ArgumentTranslation::UserString => "string",
        }
    }
}
