//! Compiler diagnostics: DTrace's stable `D_*` error tags, spans, and the message text.
//!
//! A diagnostic carries the tag DTrace uses for the same error (printed with
//! `-x errtags`), the byte span of the offending source, and the message in DTrace's
//! words. Rendering into `dtrace: failed to compile script …` lines lives in
//! [`crate::report`].

use std::ops::Range;

macro_rules! error_tags {
    ($($tag:ident)*) => {
        /// DTrace's compile error tags (D-REFERENCE.md §14), spelled as DTrace spells them.
        #[allow(non_camel_case_types)]
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum ErrorTag { $($tag,)* }

        impl ErrorTag {
            /// Every tag, in alphabetical order.
            pub const ALL: &'static [ErrorTag] = &[$(ErrorTag::$tag,)*];

            /// The tag DTrace prints as `name`, e.g. `D_SYNTAX`.
            pub fn from_name(name: &str) -> Option<ErrorTag> {
                ErrorTag::ALL.iter().copied().find(|tag| tag.name() == name)
            }

            /// The tag as DTrace prints it, e.g. `D_SYNTAX`.
            pub fn name(self) -> &'static str {
                match self { $(ErrorTag::$tag => stringify!($tag),)* }
            }
        }
    };
}

error_tags! {
    D_ACT_SPEC D_ADDROF_BITFIELD D_ADDROF_LVAL D_ADDROF_VAR D_AGG_COMM D_AGG_FUNC D_AGG_MDIM
    D_AGG_NULL D_AGG_REDEF D_AGG_SCALAR D_AGG_SPEC D_ALLOCA_INCOMPAT D_ALLOCA_SIZE D_ARGS_IDX
    D_ARGS_MULTI D_ARGS_NONE D_ARGS_TYPE D_ARGS_XLATOR D_ARR_BADREF D_ARR_BOUNDS D_ARR_LOCAL
    D_ASRELO D_ATTR_MIN D_CAST_INVAL D_CG_DYN D_CG_EXPR D_CHR_NL D_CHR_NULL D_CHR_OFLOW
    D_CLEAR_AGGARG D_CLEAR_AGGBAD D_CLEAR_PROTO D_COMM_COMM D_COMM_DREC D_DECL_ARRBIG
    D_DECL_ARRNULL D_DECL_ARRSUB D_DECL_BADCLASS D_DECL_BFCONST D_DECL_BFSIZE D_DECL_BFTYPE
    D_DECL_CHARATTR D_DECL_CLASS D_DECL_COMBO D_DECL_DYNOBJ D_DECL_ENCONST D_DECL_ENOFLOW
    D_DECL_IDENT D_DECL_IDRED D_DECL_INCOMPLETE D_DECL_LOCASSC D_DECL_LONGINT D_DECL_MNAME
    D_DECL_PARMCLASS D_DECL_PROTO_FORM D_DECL_PROTO_NAME D_DECL_PROTO_TYPE
    D_DECL_PROTO_VARARGS D_DECL_PROTO_VOID D_DECL_SCOPE D_DECL_SIGNINT D_DECL_TYPERED
    D_DECL_USELESS D_DECL_VOIDATTR D_DECL_VOIDOBJ D_DEREF_FUNC D_DEREF_NONPTR D_DEREF_VOID
    D_DIV_ZERO D_DREC_COMM D_EMPTY D_EXIT_SPEC D_FREOPEN_INVALID D_FUNC_IDENT D_FUNC_IDKIND
    D_FUNC_UNDEF D_IDENT_AMBIG D_IDENT_BADREF D_IDENT_UNDEF D_ID_OFLOW D_INT_DIGIT
    D_INT_OFLOW D_KEY_TYPE D_LLQUANT_FACTOREVEN D_LLQUANT_FACTORMATCH D_LLQUANT_FACTORNSTEPS
    D_LLQUANT_FACTORSMALL D_LLQUANT_FACTORTYPE D_LLQUANT_FACTORVAL D_LLQUANT_HIGHMATCH
    D_LLQUANT_HIGHTYPE D_LLQUANT_HIGHVAL D_LLQUANT_HMAGTYPE D_LLQUANT_HMAGVAL
    D_LLQUANT_LMAGTYPE D_LLQUANT_LMAGVAL D_LLQUANT_LOWMATCH D_LLQUANT_LOWTYPE
    D_LLQUANT_LOWVAL D_LLQUANT_MAGRANGE D_LLQUANT_MAGTOOBIG D_LLQUANT_MATCHFACTOR
    D_LLQUANT_MATCHHMAG D_LLQUANT_MATCHLMAG D_LLQUANT_MATCHSTEPS D_LLQUANT_NSTEPMATCH
    D_LLQUANT_NSTEPTYPE D_LLQUANT_NSTEPVAL D_LLQUANT_STEPTYPE D_LLQUANT_STEPVAL
    D_LQUANT_BASETYPE D_LQUANT_BASEVAL D_LQUANT_LIMTYPE D_LQUANT_LIMVAL D_LQUANT_MATCHBASE
    D_LQUANT_MATCHLIM D_LQUANT_MATCHSTEP D_LQUANT_MISMATCH D_LQUANT_STEPLARGE
    D_LQUANT_STEPSMALL D_LQUANT_STEPTYPE D_LQUANT_STEPVAL D_MACRO_OFLOW D_MACRO_UNDEF
    D_MACRO_UNUSED D_NOREG D_NORMALIZE_AGGARG D_NORMALIZE_AGGBAD D_NORMALIZE_PROTO
    D_NORMALIZE_SCALAR D_OFFSETOF_BITFIELD D_OFFSETOF_TYPE D_OP_ACT D_OP_ARITH D_OP_ARRFUN
    D_OP_DYN D_OP_IDENT D_OP_INCOMPAT D_OP_INCOMPLETE D_OP_INT D_OP_LVAL D_OP_PTR D_OP_SCALAR
    D_OP_SOU D_OP_VFPTR D_OP_WRITE D_PCAP_ADDR D_PCAP_PROTO D_PCAP_SIZE D_PDESC_INVAL
    D_PDESC_ZERO D_PRAGCTL_INVAL D_PRAGERR D_PRAGMA_DEPEND D_PRAGMA_INVAL D_PRAGMA_MALFORM
    D_PRAGMA_OPTSET D_PRAGMA_SCOPE D_PRAGMA_UNUSED D_PRED_SCALAR D_PRINTA_AGGARG
    D_PRINTA_AGGBAD D_PRINTA_AGGKEY D_PRINTA_AGGPROTO D_PRINTA_PROTO D_PRINTF_AGG_CONV
    D_PRINTF_ARG_EXTRA D_PRINTF_ARG_FMT D_PRINTF_ARG_PROTO D_PRINTF_ARG_TYPE
    D_PRINTF_DYN_PROTO D_PRINTF_DYN_TYPE D_PRINTF_FMT_EMPTY D_PRINT_AGG D_PRINT_DYN
    D_PRINT_SIZE D_PRINT_VOID D_PROC_ALIGN D_PROC_BADPID D_PROC_BADPROV D_PROC_CREATEFAIL
    D_PROC_DYN D_PROC_FUNC D_PROC_GRAB D_PROC_LIB D_PROC_NAME D_PROC_NODEV D_PROC_OFF
    D_PROC_USDT D_PROTO_ARG D_PROTO_LEN D_PROV_BADNAME D_PROV_INCOMPAT D_PROV_PRARGLEN
    D_PROV_PRDUP D_PROV_PRXLATOR D_QUANT_PROTO D_REGS_IDX D_SIZEOF_BITFIELD D_SIZEOF_TYPE
    D_SPEC_COMM D_SPEC_DREC D_SPEC_SPEC D_STACK_PROTO D_STACK_SIZE D_STRINGOF_TYPE D_STR_NL
    D_SYM_BADREF D_SYM_MODEL D_SYM_NOTYPES D_SYNTAX D_TRACEMEM_ADDR D_TRACEMEM_ARGS
    D_TRACEMEM_DYNSIZE D_TRACEMEM_SIZE D_TRACE_AGG D_TRACE_DYN D_TRACE_VOID D_TRUNC_AGGARG
    D_TRUNC_AGGBAD D_TRUNC_PROTO D_TRUNC_SCALAR D_TYPE_ERR D_TYPE_MEMBER D_UNKNOWN
    D_USTACK_FRAMES D_USTACK_PROTO D_USTACK_STRSIZE D_VAR_UNDEF D_VAR_UNSUP D_XLATE_INCOMPAT
    D_XLATE_MEMB D_XLATE_NOCONV D_XLATE_NONE D_XLATE_REDECL D_XLATE_SOU
}

/// A byte range in one source text.
pub type Span = Range<usize>;

/// Where in the program the error was found, which selects the `in predicate: ` /
/// `in action list: ` prefix for command-line programs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    /// Outside clause bodies (declarations, probe descriptions), or unknown.
    Program,
    /// Found while DTrace parses the program, before it checks any clause (its
    /// lexer, its grammar and the constant folding done as nodes are built): such an
    /// error has no region even inside a clause.
    Parsing,
    Predicate,
    ActionList,
}

/// One compile error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub tag: ErrorTag,
    /// The message in DTrace's words, without location or tag; may span several lines
    /// (prototype mismatches add tab-indented detail lines).
    pub message: String,
    /// The offending source bytes; `None` when the error has no place in the source
    /// (e.g. an unused macro argument).
    pub span: Option<Span>,
    pub region: Region,
}

impl Diagnostic {
    /// A diagnostic at `span` in the program region.
    pub fn new(tag: ErrorTag, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            tag,
            message: message.into(),
            span: Some(span),
            region: Region::Program,
        }
    }

    /// A diagnostic that has no place in the source.
    pub fn without_span(tag: ErrorTag, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            tag,
            message: message.into(),
            span: None,
            region: Region::Program,
        }
    }

    /// The same diagnostic, found while checking `region`.
    pub fn in_region(mut self, region: Region) -> Diagnostic {
        self.region = region;
        self
    }
}
