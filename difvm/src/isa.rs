//! The DIF instruction set: opcodes, the 32-bit instruction word and its fields.
//!
//! The encoding is classic DTrace's (D-REFERENCE.md §15.2): `op` in bits 31–24, `r1` in
//! 23–16, `r2` in 15–8 and `rd` in 7–0; branches carry a 24-bit absolute label; `setx`,
//! `sets`, variable loads and stores and `call` carry a 16-bit index in bits 23–8.

/// Number of integer registers (`%r0`–`%r7`); `%r0` always reads as zero.
pub const DIF_REGISTER_COUNT: u8 = 8;
/// Number of entries on the tuple stack.
pub const DIF_TUPLE_STACK_DEPTH: usize = 8;

macro_rules! opcodes {
    ($($name:ident = $value:literal, $mnemonic:literal;)*) => {
        /// A DIF opcode, numbered as in classic DTrace.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum Opcode { $($name = $value,)* }

        impl Opcode {
            /// Every opcode, in numeric order.
            pub const ALL: &'static [Opcode] = &[$(Opcode::$name,)*];

            /// Decodes an opcode number; `None` for numbers that are not DIF opcodes.
            pub fn from_u8(value: u8) -> Option<Opcode> {
                match value { $($value => Some(Opcode::$name),)* _ => None }
            }

            /// The lower-case mnemonic used by the disassembler and the assembler.
            pub fn mnemonic(self) -> &'static str {
                match self { $(Opcode::$name => $mnemonic,)* }
            }

            /// Looks an opcode up by its mnemonic.
            pub fn from_mnemonic(text: &str) -> Option<Opcode> {
                match text { $($mnemonic => Some(Opcode::$name),)* _ => None }
            }
        }
    };
}

opcodes! {
    Or = 1, "or"; Xor = 2, "xor"; And = 3, "and"; Sll = 4, "sll"; Srl = 5, "srl";
    Sub = 6, "sub"; Add = 7, "add"; Mul = 8, "mul"; Sdiv = 9, "sdiv"; Udiv = 10, "udiv";
    Srem = 11, "srem"; Urem = 12, "urem"; Not = 13, "not"; Mov = 14, "mov";
    Cmp = 15, "cmp"; Tst = 16, "tst"; Ba = 17, "ba"; Be = 18, "be"; Bne = 19, "bne";
    Bg = 20, "bg"; Bgu = 21, "bgu"; Bge = 22, "bge"; Bgeu = 23, "bgeu"; Bl = 24, "bl";
    Blu = 25, "blu"; Ble = 26, "ble"; Bleu = 27, "bleu";
    Ldsb = 28, "ldsb"; Ldsh = 29, "ldsh"; Ldsw = 30, "ldsw"; Ldub = 31, "ldub";
    Lduh = 32, "lduh"; Lduw = 33, "lduw"; Ldx = 34, "ldx";
    Ret = 35, "ret"; Nop = 36, "nop"; Setx = 37, "setx"; Sets = 38, "sets";
    Scmp = 39, "scmp"; Ldga = 40, "ldga"; Ldgs = 41, "ldgs"; Stgs = 42, "stgs";
    Ldta = 43, "ldta"; Ldts = 44, "ldts"; Stts = 45, "stts"; Sra = 46, "sra";
    Call = 47, "call"; Pushtr = 48, "pushtr"; Pushtv = 49, "pushtv"; Popts = 50, "popts";
    Flushts = 51, "flushts"; Ldgaa = 52, "ldgaa"; Ldtaa = 53, "ldtaa"; Stgaa = 54, "stgaa";
    Sttaa = 55, "sttaa"; Ldls = 56, "ldls"; Stls = 57, "stls"; Allocs = 58, "allocs";
    Copys = 59, "copys"; Stb = 60, "stb"; Sth = 61, "sth"; Stw = 62, "stw"; Stx = 63, "stx";
    Uldsb = 64, "uldsb"; Uldsh = 65, "uldsh"; Uldsw = 66, "uldsw"; Uldub = 67, "uldub";
    Ulduh = 68, "ulduh"; Ulduw = 69, "ulduw"; Uldx = 70, "uldx";
    Rldsb = 71, "rldsb"; Rldsh = 72, "rldsh"; Rldsw = 73, "rldsw"; Rldub = 74, "rldub";
    Rlduh = 75, "rlduh"; Rlduw = 76, "rlduw"; Rldx = 77, "rldx";
    Xlate = 78, "xlate"; Xlarg = 79, "xlarg";
}

/// One 32-bit DIF instruction word with accessors for its fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Instruction(pub u32);

impl Instruction {
    /// The raw opcode byte (bits 31–24); may not be a valid opcode.
    pub fn opcode_byte(self) -> u8 {
        (self.0 >> 24) as u8
    }
    /// The decoded opcode, if the opcode byte is valid.
    pub fn opcode(self) -> Option<Opcode> {
        Opcode::from_u8(self.opcode_byte())
    }
    /// First source register (bits 23–16).
    pub fn r1(self) -> u8 {
        (self.0 >> 16) as u8
    }
    /// Second source register (bits 15–8).
    pub fn r2(self) -> u8 {
        (self.0 >> 8) as u8
    }
    /// Destination register (bits 7–0); also the source register of stores and pushes.
    pub fn rd(self) -> u8 {
        self.0 as u8
    }
    /// Branch label: absolute instruction index (bits 23–0).
    pub fn label(self) -> u32 {
        self.0 & 0x00ff_ffff
    }
    /// 16-bit index (bits 23–8): integer/string table offset, variable id or subroutine.
    pub fn index(self) -> u16 {
        (self.0 >> 8) as u16
    }

    /// `op r1, r2, rd` (also used with zero fields for two- and one-register forms).
    pub fn registers(op: Opcode, r1: u8, r2: u8, rd: u8) -> Instruction {
        Instruction((op as u32) << 24 | (r1 as u32) << 16 | (r2 as u32) << 8 | rd as u32)
    }
    /// A branch to the absolute instruction index `label`.
    pub fn branch(op: Opcode, label: u32) -> Instruction {
        Instruction((op as u32) << 24 | (label & 0x00ff_ffff))
    }
    /// `op index, rd`: setx, sets, ldgs, ldts, ldls, ldgaa, ldtaa, call; and with `rd`
    /// as the source register: stgs, stts, stls, stgaa, sttaa.
    pub fn indexed(op: Opcode, index: u16, rd: u8) -> Instruction {
        Instruction((op as u32) << 24 | (index as u32) << 8 | rd as u32)
    }
}

/// Branch condition codes set by `cmp`, `scmp` and `tst`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ConditionCodes {
    pub negative: bool,
    pub zero: bool,
    pub overflow: bool,
    pub carry: bool,
}

/// Type of a `pushtr`/`pushtv` tuple entry (the `r1` field).
pub const DIF_TYPE_CTF: u8 = 0;
/// A string tuple entry: its size is the string length plus NUL, bounded by strsize.
pub const DIF_TYPE_STRING: u8 = 1;

/// Built-in array variable ids (`ldga`).
pub mod builtin_array {
    pub const ARGS: u16 = 0x0000;
    pub const REGS: u16 = 0x0001;
    pub const UREGS: u16 = 0x0002;
    /// First id of user-declared scalar arrays (`int a[10];`).
    pub const FIRST_USER: u16 = 0x0080;
}

/// Built-in scalar variable ids (`ldgs`), numbered as in classic DTrace (§15.4).
pub mod builtin_variable {
    pub const CURTHREAD: u16 = 0x100;
    pub const TIMESTAMP: u16 = 0x101;
    pub const VTIMESTAMP: u16 = 0x102;
    pub const IPL: u16 = 0x103;
    pub const EPID: u16 = 0x104;
    pub const ID: u16 = 0x105;
    /// `arg0` is `ARG0`, `arg9` is `ARG0 + 9`.
    pub const ARG0: u16 = 0x106;
    pub const STACKDEPTH: u16 = 0x110;
    pub const CALLER: u16 = 0x111;
    pub const PROBEPROV: u16 = 0x112;
    pub const PROBEMOD: u16 = 0x113;
    pub const PROBEFUNC: u16 = 0x114;
    pub const PROBENAME: u16 = 0x115;
    pub const PID: u16 = 0x116;
    pub const TID: u16 = 0x117;
    pub const EXECNAME: u16 = 0x118;
    pub const ZONENAME: u16 = 0x119;
    pub const WALLTIMESTAMP: u16 = 0x11a;
    pub const USTACKDEPTH: u16 = 0x11b;
    pub const UCALLER: u16 = 0x11c;
    pub const PPID: u16 = 0x11d;
    pub const UID: u16 = 0x11e;
    pub const GID: u16 = 0x11f;
    pub const ERRNO: u16 = 0x120;
    pub const CURCPU: u16 = 0x121;
    /// `cpu` as a true built-in, numbered as FreeBSD numbers it.
    pub const CPU: u16 = 0x200;
    /// First id of user variables (globals, thread-locals, clause-locals).
    pub const FIRST_USER: u16 = 0x500;
}

/// Subroutine numbers for `call` (§15.5: classic numbering, then the Linux additions).
pub mod subroutine {
    pub const RAND: u16 = 0;
    pub const MUTEX_OWNED: u16 = 1;
    pub const MUTEX_OWNER: u16 = 2;
    pub const MUTEX_TYPE_ADAPTIVE: u16 = 3;
    pub const MUTEX_TYPE_SPIN: u16 = 4;
    pub const RW_READ_HELD: u16 = 5;
    pub const RW_WRITE_HELD: u16 = 6;
    pub const RW_ISWRITER: u16 = 7;
    pub const COPYIN: u16 = 8;
    pub const COPYINSTR: u16 = 9;
    pub const SPECULATION: u16 = 10;
    pub const PROGENYOF: u16 = 11;
    pub const STRLEN: u16 = 12;
    pub const COPYOUT: u16 = 13;
    pub const COPYOUTSTR: u16 = 14;
    pub const ALLOCA: u16 = 15;
    pub const BCOPY: u16 = 16;
    pub const COPYINTO: u16 = 17;
    pub const MSGDSIZE: u16 = 18;
    pub const MSGSIZE: u16 = 19;
    pub const GETMAJOR: u16 = 20;
    pub const GETMINOR: u16 = 21;
    pub const DDI_PATHNAME: u16 = 22;
    pub const STRJOIN: u16 = 23;
    pub const LLTOSTR: u16 = 24;
    pub const BASENAME: u16 = 25;
    pub const DIRNAME: u16 = 26;
    pub const CLEANPATH: u16 = 27;
    pub const STRCHR: u16 = 28;
    pub const STRRCHR: u16 = 29;
    pub const STRSTR: u16 = 30;
    pub const STRTOK: u16 = 31;
    pub const SUBSTR: u16 = 32;
    pub const INDEX: u16 = 33;
    pub const RINDEX: u16 = 34;
    pub const HTONS: u16 = 35;
    pub const HTONL: u16 = 36;
    pub const HTONLL: u16 = 37;
    pub const NTOHS: u16 = 38;
    pub const NTOHL: u16 = 39;
    pub const NTOHLL: u16 = 40;
    pub const INET_NTOP: u16 = 41;
    pub const INET_NTOA: u16 = 42;
    pub const INET_NTOA6: u16 = 43;
    pub const TOUPPER: u16 = 44;
    pub const TOLOWER: u16 = 45;
    pub const MEMREF: u16 = 46;
    pub const SX_SHARED_HELD: u16 = 47;
    pub const SX_EXCLUSIVE_HELD: u16 = 48;
    pub const SX_ISEXCLUSIVE: u16 = 49;
    pub const MEMSTR: u16 = 50;
    pub const GETF: u16 = 51;
    pub const JSON: u16 = 52;
    pub const STRTOLL: u16 = 53;
    /// Linux additions, numbered after the classic set.
    pub const D_PATH: u16 = 54;
    pub const LINK_NTOP: u16 = 55;
    /// `__copyin_arguments(start, end)`: the current process's argument area, the NULs
    /// between arguments turned into spaces (psinfo_t's `pr_psargs` in the D library).
    pub const COPYIN_ARGUMENTS: u16 = 56;
    /// The highest valid subroutine number.
    pub const MAX: u16 = 56;

    /// Lower-case names, indexed by subroutine number.
    pub const NAMES: [&str; MAX as usize + 1] = [
        "rand",
        "mutex_owned",
        "mutex_owner",
        "mutex_type_adaptive",
        "mutex_type_spin",
        "rw_read_held",
        "rw_write_held",
        "rw_iswriter",
        "copyin",
        "copyinstr",
        "speculation",
        "progenyof",
        "strlen",
        "copyout",
        "copyoutstr",
        "alloca",
        "bcopy",
        "copyinto",
        "msgdsize",
        "msgsize",
        "getmajor",
        "getminor",
        "ddi_pathname",
        "strjoin",
        "lltostr",
        "basename",
        "dirname",
        "cleanpath",
        "strchr",
        "strrchr",
        "strstr",
        "strtok",
        "substr",
        "index",
        "rindex",
        "htons",
        "htonl",
        "htonll",
        "ntohs",
        "ntohl",
        "ntohll",
        "inet_ntop",
        "inet_ntoa",
        "inet_ntoa6",
        "toupper",
        "tolower",
        "memref",
        "sx_shared_held",
        "sx_exclusive_held",
        "sx_isexclusive",
        "memstr",
        "getf",
        "json",
        "strtoll",
        "d_path",
        "link_ntop",
        "__copyin_arguments",
    ];

    /// The name of subroutine `number`, if it exists.
    pub fn name(number: u16) -> Option<&'static str> {
        NAMES.get(number as usize).copied()
    }
}
