//! Kernel types in D through the `KernelTypes` interface: struct tags the program does
//! not define resolve to the kernel's (`curthread`'s `struct task_struct`), kernel
//! typedefs and enumerators are names, `` vmlinux` `` scopes kernel types, member access
//! reaches through any depth with the kernel's offsets and bit-fields (checked by
//! running on the reference interpreter over a described memory image), and a program
//! that names no kernel type never asks.

mod compile_support;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use compile_support::{catalog, enable, options, render};
use difvm::engine::EngineOptions;
use difvm::interp::{Engine, SimpleFiringContext};
use difvm::object::{CompiledProgram, RECORD_HEADER_SIZE};
use dlang::compile::{compile_with_kernel_types, Compilation, CompileError, ProgramSource};
use dlang::kernel_types::{
    KernelMember, KernelType, KernelTypeId, KernelTypeNamespace, KernelTypes, KernelVariable,
    KernelVariableError, KernelVariableLocation, NoKernelTypes,
};

/// A small kernel, described as BTF would describe it:
///
/// ```c
/// struct task_struct {            /* 64 bytes */
///     long state;                 /* 0 */
///     pid_t pid;                  /* 8 */
///     pid_t tgid;                 /* 12 */
///     struct task_struct *real_parent; /* 16 */
///     char comm[16];              /* 24 */
///     unsigned int in_iowait:1, flags:3; /* bits 320, 321 */
///     struct { u64 start_time; }; /* 48, anonymous */
///     struct fs_struct *fs;       /* 56 */
/// };
/// enum { TASK_COMM_LEN = 16 };
/// typedef unsigned long long u64;
/// struct fs_struct;               /* declared only */
/// ```
struct DescribedKernel {
    questions: AtomicUsize,
}

const INT: u32 = 1;
const LONG: u32 = 2;
const CHAR: u32 = 3;
const COMM: u32 = 4;
const TASK: u32 = 5;
const TASK_POINTER: u32 = 6;
const PID_T: u32 = 7;
const UNSIGNED_INT: u32 = 8;
const U64: u32 = 9;
const UNSIGNED_LONG_LONG: u32 = 10;
const ANONYMOUS: u32 = 11;
const COMM_LENGTH_ENUM: u32 = 12;
const FS_STRUCT: u32 = 13;
const FS_POINTER: u32 = 14;
const TYPE_COUNT: u32 = 15;

impl DescribedKernel {
    fn new() -> DescribedKernel {
        DescribedKernel {
            questions: AtomicUsize::new(0),
        }
    }

    fn asked(&self) {
        self.questions.fetch_add(1, Ordering::Relaxed);
    }
}

fn member(name: &str, ty: u32, bit_offset: u64, bit_width: Option<u32>) -> KernelMember {
    KernelMember {
        name: name.to_string(),
        ty: KernelTypeId(ty),
        bit_offset,
        bit_width,
    }
}

fn integer(name: &str, size: u32, signed: bool) -> KernelType {
    KernelType::Integer {
        name: name.to_string(),
        size,
        signed,
        character: name == "char",
        boolean: false,
    }
}

impl KernelTypes for DescribedKernel {
    fn unavailable_reason(&self) -> Option<String> {
        None
    }

    fn type_count(&self) -> u32 {
        self.asked();
        TYPE_COUNT
    }

    fn named(&self, namespace: KernelTypeNamespace, name: &str) -> Option<KernelTypeId> {
        self.asked();
        let id = match (namespace, name) {
            (KernelTypeNamespace::Struct, "task_struct") => TASK,
            (KernelTypeNamespace::Struct, "fs_struct") => FS_STRUCT,
            (KernelTypeNamespace::Typedef, "u64") => U64,
            (KernelTypeNamespace::Typedef, "pid_t") => PID_T,
            _ => return None,
        };
        Some(KernelTypeId(id))
    }

    fn describe(&self, id: KernelTypeId) -> Option<KernelType> {
        self.asked();
        Some(match id.0 {
            INT => integer("int", 4, true),
            LONG => integer("long", 8, true),
            CHAR => integer("char", 1, true),
            UNSIGNED_INT => integer("unsigned int", 4, false),
            UNSIGNED_LONG_LONG => integer("unsigned long long", 8, false),
            COMM => KernelType::Array {
                element: KernelTypeId(CHAR),
                count: 16,
            },
            PID_T => KernelType::Typedef {
                name: "pid_t".to_string(),
                target: KernelTypeId(INT),
            },
            U64 => KernelType::Typedef {
                name: "u64".to_string(),
                target: KernelTypeId(UNSIGNED_LONG_LONG),
            },
            TASK_POINTER => KernelType::Pointer {
                target: KernelTypeId(TASK),
            },
            FS_POINTER => KernelType::Pointer {
                target: KernelTypeId(FS_STRUCT),
            },
            FS_STRUCT => KernelType::Forward {
                union: false,
                name: "fs_struct".to_string(),
            },
            ANONYMOUS => KernelType::Aggregate {
                union: false,
                name: None,
                size: 8,
                alignment: 8,
                members: vec![member("start_time", U64, 0, None)],
            },
            COMM_LENGTH_ENUM => KernelType::Enum {
                name: None,
                size: 4,
                signed: false,
                enumerators: vec![("TASK_COMM_LEN".to_string(), 16)],
            },
            TASK => KernelType::Aggregate {
                union: false,
                name: Some("task_struct".to_string()),
                size: 64,
                alignment: 8,
                members: vec![
                    member("state", LONG, 0, None),
                    member("pid", PID_T, 64, None),
                    member("tgid", PID_T, 96, None),
                    member("real_parent", TASK_POINTER, 128, None),
                    member("comm", COMM, 192, None),
                    member("in_iowait", UNSIGNED_INT, 320, Some(1)),
                    member("flags", UNSIGNED_INT, 321, Some(3)),
                    member("", ANONYMOUS, 384, None),
                    member("fs", FS_POINTER, 448, None),
                ],
            },
            _ => return None,
        })
    }

    fn enumerator(&self, name: &str) -> Option<(KernelTypeId, i64)> {
        self.asked();
        (name == "TASK_COMM_LEN").then_some((KernelTypeId(COMM_LENGTH_ENUM), 16))
    }

    fn variable(&self, name: &str) -> Result<KernelVariable, KernelVariableError> {
        self.asked();
        match name {
            "max_pfn" => Ok(KernelVariable {
                ty: None,
                location: KernelVariableLocation::Address(0x3000),
            }),
            "init_task" => Ok(KernelVariable {
                ty: Some(KernelTypeId(TASK)),
                location: KernelVariableLocation::Address(0x2000),
            }),
            "schedule" => Err(KernelVariableError::Unavailable(
                "kernel symbol `schedule` is a function, not a variable".to_string(),
            )),
            _ => Err(KernelVariableError::Unknown),
        }
    }
}

fn compile_against(text: &str, kernel: Arc<dyn KernelTypes>) -> Result<Compilation, CompileError> {
    let sources = [ProgramSource::script("kernel.d", text)];
    compile_with_kernel_types(&sources, &options(), &catalog(), Some(kernel))
}

fn compiled(text: &str) -> CompiledProgram {
    match compile_against(text, Arc::new(DescribedKernel::new())) {
        Ok(compilation) => compilation.program,
        Err(error) => panic!("{text}: {}", error.diagnostic.message),
    }
}

fn error_message(text: &str, kernel: Arc<dyn KernelTypes>) -> String {
    match compile_against(text, kernel) {
        Ok(_) => panic!("{text}: compiled"),
        Err(error) => error.diagnostic.message,
    }
}

/// Two tasks in kernel memory: the child at 0x1000 whose real_parent is the parent at
/// 0x2000.
fn kernel_memory() -> Vec<(u64, Vec<u8>)> {
    let task = |pid: i32, tgid: i32, parent: u64, comm: &str, bits: u32, start: u64| {
        let mut bytes = vec![0u8; 64];
        bytes[0..8].copy_from_slice(&7i64.to_le_bytes());
        bytes[8..12].copy_from_slice(&pid.to_le_bytes());
        bytes[12..16].copy_from_slice(&tgid.to_le_bytes());
        bytes[16..24].copy_from_slice(&parent.to_le_bytes());
        bytes[24..24 + comm.len()].copy_from_slice(comm.as_bytes());
        bytes[40..44].copy_from_slice(&bits.to_le_bytes());
        bytes[48..56].copy_from_slice(&start.to_le_bytes());
        bytes
    };
    vec![
        (0x1000, task(42, 40, 0x2000, "child", 0b1011, 123_456)),
        (0x2000, task(7, 7, 0, "init", 0, 1)),
        (0x3000, 0x0123_4567_89ab_cdefu64.to_le_bytes().to_vec()),
    ]
}

/// Runs `BEGIN { BODY }` over the memory image of [`kernel_memory`] and returns the
/// recorded values.
fn run_on_task(body: &str) -> Vec<String> {
    run_program_on_memory(&format!("BEGIN {{ {body} }}"))
}

/// Runs `text`'s BEGIN clause over the memory image of [`kernel_memory`] and returns the
/// recorded values.
fn run_program_on_memory(text: &str) -> Vec<String> {
    let program = compiled(text);
    let catalog = catalog();
    let enabled = enable(&program, &catalog);
    let mut engine = Engine::new(program.clone(), enabled.clone(), EngineOptions::default())
        .expect("engine accepts program");
    let context = SimpleFiringContext {
        kernel_memory: kernel_memory(),
        ..SimpleFiringContext::default()
    };
    let outcome = engine.fire(difvm::object::PROBE_ID_BEGIN, &context);
    assert!(outcome.faults.is_empty(), "{text}: {:?}", outcome.faults);
    let buffer = engine.take_buffer(0);
    let statement = &program.statements[enabled[0].statement];
    let data = &buffer[RECORD_HEADER_SIZE as usize..];
    statement
        .actions
        .iter()
        .flat_map(|action| action.values.iter())
        .filter_map(|value| value.slot.as_ref())
        .map(|slot| {
            render(
                &slot.layout,
                &data[slot.offset as usize..(slot.offset + slot.size) as usize],
            )
        })
        .collect()
}

#[test]
fn members_are_read_at_the_kernels_offsets_through_any_depth() {
    let task = "((struct task_struct *)0x1000)";
    assert_eq!(
        run_on_task(&format!(
            "trace({task}->pid); trace({task}->tgid); trace({task}->state);"
        )),
        ["42", "40", "7"]
    );
    assert_eq!(
        run_on_task(&format!(
            "trace({task}->real_parent->pid); trace(stringof({task}->real_parent->comm));"
        )),
        ["7", "init"]
    );
    assert_eq!(
        run_on_task(&format!("trace(stringof({task}->comm));")),
        ["child"]
    );
    // Bit-fields, and a member of an anonymous struct member.
    assert_eq!(
        run_on_task(&format!(
            "trace({task}->in_iowait); trace({task}->flags); trace({task}->start_time);"
        )),
        ["1", "5", "123456"]
    );
    // `.` on a dereferenced struct, `[]` on an array member, a scoped struct tag.
    assert_eq!(
        run_on_task(&format!(
            "trace((*{task}).pid); trace({task}->comm[1]); \
             trace(((struct vmlinux`task_struct *)0x1000)->tgid);"
        )),
        ["42", "104", "40"]
    );
}

#[test]
fn sizeof_offsetof_typedefs_and_enumerators_come_from_the_kernel() {
    assert_eq!(
        run_on_task(
            "trace(sizeof (struct task_struct)); trace(offsetof(struct task_struct, comm)); \
             trace(sizeof (u64)); trace((u64)-1); trace(TASK_COMM_LEN); \
             trace(sizeof (vmlinux`u64));"
        ),
        ["64", "24", "8", "18446744073709551615", "16", "8"]
    );
}

#[test]
fn curthread_points_to_the_kernels_task_struct() {
    let program = compiled("BEGIN { trace(curthread->pid); trace(curthread->comm); }");
    assert_eq!(
        program.kernel_type_read.as_deref(),
        Some("struct task_struct")
    );
    let program = compiled("BEGIN { trace(sizeof (struct task_struct)); trace(curthread); }");
    assert_eq!(program.kernel_type_read, None);
}

#[test]
fn the_programs_own_definitions_win_over_the_kernels() {
    assert_eq!(
        run_on_task(
            "trace(sizeof (struct task_struct)); \
             trace(sizeof (struct vmlinux`task_struct));"
        ),
        ["64", "64"]
    );
    let program = compiled(
        "struct task_struct { int only; }; BEGIN { trace(sizeof (struct task_struct)); \
         trace(sizeof (struct vmlinux`task_struct)); }",
    );
    let catalog = catalog();
    let enabled = enable(&program, &catalog);
    let mut engine =
        Engine::new(program.clone(), enabled, EngineOptions::default()).expect("engine");
    engine.fire(
        difvm::object::PROBE_ID_BEGIN,
        &SimpleFiringContext::default(),
    );
    let buffer = engine.take_buffer(0);
    let data = &buffer[RECORD_HEADER_SIZE as usize..];
    assert_eq!(data[0..8], 4u64.to_le_bytes());
    assert_eq!(data[8..16], 64u64.to_le_bytes());
}

#[test]
fn what_the_kernel_does_not_define_stays_incomplete() {
    let kernel: Arc<dyn KernelTypes> = Arc::new(DescribedKernel::new());
    assert_eq!(
        error_message("BEGIN { trace(curthread->fs->users); }", kernel.clone()),
        "operator -> cannot be applied to a forward declaration: no struct fs_struct definition is available"
    );
    assert_eq!(
        error_message("BEGIN { trace(curthread->nothing); }", kernel.clone()),
        "nothing is not a member of struct task_struct"
    );
    assert_eq!(
        error_message("BEGIN { trace(sizeof (struct no_such_thing)); }", kernel),
        "cannot apply sizeof to an operand of unknown size"
    );
}

#[test]
fn without_kernel_types_curthread_cannot_be_dereferenced() {
    let none: Arc<dyn KernelTypes> = Arc::new(NoKernelTypes::default());
    assert_eq!(
        error_message("BEGIN { trace(curthread->pid); }", none),
        "operator -> cannot be applied to a forward declaration: no struct task_struct definition is available"
    );
}

#[test]
fn a_program_that_names_no_kernel_type_never_asks() {
    let kernel = Arc::new(DescribedKernel::new());
    let programs = [
        "BEGIN { exit(0); }",
        "syscall::read:entry { @[execname, probefunc] = count(); self->start = timestamp; }",
        "BEGIN { x = 1; trace(x + 1); y[1] = \"a\"; printf(\"%d %s\\n\", x, y[1]); }",
        "BEGIN { this->v = (uint64_t)pid; trace(this->v); trace(curthread); }",
        "BEGIN { trace(errno == EPERM); raise(SIGUSR1); trace(uregs[R_PC]); }",
    ];
    for text in programs {
        let before = kernel.questions.load(Ordering::Relaxed);
        let sources = [ProgramSource::script("kernel.d", text)];
        let mut compile_options = options();
        compile_options.macro_arguments = vec!["dtrace".to_string()];
        let result = compile_with_kernel_types(
            &sources,
            &compile_options,
            &catalog(),
            Some(kernel.clone() as Arc<dyn KernelTypes>),
        );
        if let Err(error) = result {
            panic!("{text}: {}", error.diagnostic.message);
        }
        assert_eq!(
            kernel.questions.load(Ordering::Relaxed),
            before,
            "{text} asked about kernel types"
        );
    }
}

#[test]
fn kernel_variables_read_with_their_type_or_the_declared_one() {
    // BTF types init_task; kallsyms alone knows max_pfn, read as an unsigned long.
    assert_eq!(
        run_on_task(
            "trace(`init_task.pid); trace(vmlinux`init_task.tgid); \
             trace(stringof(`init_task.comm)); trace(`max_pfn);"
        ),
        ["7", "7", "init", "81985529216486895"]
    );
    // An extern declaration gives the variable the program's type; its plain name
    // reads it, and its address is the kernel's.
    assert_eq!(
        run_program_on_memory(
            "extern unsigned int max_pfn; \
             BEGIN { trace(max_pfn); trace(sizeof (max_pfn)); trace((uint64_t)&max_pfn); }"
        ),
        ["2309737967", "4", "12288"]
    );
    let kernel: Arc<dyn KernelTypes> = Arc::new(DescribedKernel::new());
    // As in DTrace, declaring a symbol the kernel lacks is accepted (C headers declare
    // many); reading it is the error.
    assert!(compile_against("extern int no_such_variable; BEGIN { }", kernel.clone()).is_ok());
    assert_eq!(
        error_message(
            "extern int no_such_variable; BEGIN { trace(no_such_variable); }",
            kernel.clone()
        ),
        "failed to resolve `no_such_variable: Unknown symbol name"
    );
    assert_eq!(
        error_message("BEGIN { trace(`schedule); }", kernel.clone()),
        "failed to resolve `schedule: kernel symbol `schedule` is a function, not a variable"
    );
    assert_eq!(
        error_message("BEGIN { trace(genunix`max_pfn); }", kernel),
        "failed to resolve genunix`max_pfn: Unknown symbol name"
    );
}
