//! Writing one action value into its slot of a record (or of an aggregation key), in the
//! layout `object.rs` defines for the consumer: integers little-endian at the slot's size,
//! strings up to their NUL and zero-filled, raw bytes, stacks and symbol addresses.

use super::context::ProbeFiringContext;
use super::fault::RuntimeFault;
use super::memory::{Access, AddressSpace};
use crate::difo::{DifType, DIF_TYPE_FLAG_BY_USER_REFERENCE};
use crate::object::{RecordSlot, ValueLayout};

/// The value to record: what a DIFO returned (with its return type), or nothing when the
/// engine captures the value itself (stacks).
#[derive(Debug, Clone, Copy)]
pub enum RecordedValue {
    Computed { value: u64, ty: DifType },
    Captured,
}

fn put_integer(target: &mut [u8], value: u64) {
    let length = target.len().min(8);
    target[..length].copy_from_slice(&value.to_le_bytes()[..length]);
    target[length..].fill(0);
}

fn put_words(target: &mut [u8], words: impl IntoIterator<Item = u64>) {
    target.fill(0);
    for (chunk, word) in target.chunks_exact_mut(8).zip(words) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
}

/// Writes `value` into `buffer` at `slot`. Slots that do not fit in `buffer` are skipped
/// (the engine checks slots when it is created). A NULL string records as the empty
/// string and a NULL by-reference object as zeros; other unreadable addresses fault.
pub fn write_value(
    buffer: &mut [u8],
    slot: &RecordSlot,
    value: RecordedValue,
    memory: &AddressSpace,
    context: &dyn ProbeFiringContext,
) -> Result<(), RuntimeFault> {
    let start = slot.offset as usize;
    let Some(target) = start
        .checked_add(slot.size as usize)
        .and_then(|end| buffer.get_mut(start..end))
    else {
        return Ok(());
    };
    let (computed, ty) = match value {
        RecordedValue::Computed { value, ty } => (value, Some(ty)),
        RecordedValue::Captured => (0, None),
    };
    let access = match ty {
        Some(ty) if ty.flags & DIF_TYPE_FLAG_BY_USER_REFERENCE != 0 => Access::User,
        _ => Access::Kernel,
    };
    match &slot.layout {
        ValueLayout::Integer { .. } | ValueLayout::Pointer | ValueLayout::KernelSymbol(_) => {
            put_integer(target, computed)
        }
        ValueLayout::String => {
            target.fill(0);
            if computed != 0 && !target.is_empty() {
                let string = memory.read_string(context, computed, target.len() - 1, access)?;
                target[..string.len()].copy_from_slice(&string);
            }
        }
        ValueLayout::Bytes => {
            let null_reference = computed == 0 && ty.is_some_and(|ty| ty.is_by_reference());
            if null_reference || target.is_empty() {
                target.fill(0);
            } else {
                memory.read(context, computed, target, access)?;
            }
        }
        ValueLayout::KernelStack { frames } => {
            put_words(target, context.kernel_stack(*frames));
        }
        ValueLayout::UserStack { frames, .. } => {
            let stack = context.user_stack(*frames);
            put_words(target, std::iter::once(context.pid()).chain(stack));
        }
        ValueLayout::UserSymbol(_) => {
            put_words(target, [context.pid(), computed]);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::context::SimpleFiringContext;
    use crate::interp::memory::RegionLifetime;
    use crate::object::SymbolFormat;

    fn slot(offset: u32, size: u32, layout: ValueLayout) -> RecordSlot {
        RecordSlot {
            offset,
            size,
            alignment: 8,
            layout,
        }
    }

    #[test]
    fn layouts() {
        let mut memory = AddressSpace::new(0);
        let string = memory
            .map(RegionLifetime::Clause, b"hello\0".to_vec())
            .unwrap();
        let context = SimpleFiringContext {
            pid: 42,
            kernel_stack: vec![0x10, 0x20],
            user_stack: vec![0x30],
            ..SimpleFiringContext::default()
        };
        let integer = |value| RecordedValue::Computed {
            value,
            ty: DifType::integer(8),
        };
        let text = |value| RecordedValue::Computed {
            value,
            ty: DifType::string(8),
        };
        let mut buffer = vec![0xaa; 48];

        write_value(
            &mut buffer,
            &slot(0, 2, ValueLayout::Integer { signed: true }),
            integer(u64::MAX - 1),
            &memory,
            &context,
        )
        .unwrap();
        assert_eq!(&buffer[..3], &[0xfe, 0xff, 0xaa]);

        write_value(
            &mut buffer,
            &slot(8, 8, ValueLayout::String),
            text(string),
            &memory,
            &context,
        )
        .unwrap();
        assert_eq!(&buffer[8..16], b"hello\0\0\0");
        write_value(
            &mut buffer,
            &slot(8, 4, ValueLayout::String),
            text(string),
            &memory,
            &context,
        )
        .unwrap();
        assert_eq!(&buffer[8..12], b"hel\0");
        write_value(
            &mut buffer,
            &slot(8, 8, ValueLayout::String),
            text(0),
            &memory,
            &context,
        )
        .unwrap();
        assert_eq!(&buffer[8..16], &[0; 8]);

        write_value(
            &mut buffer,
            &slot(16, 24, ValueLayout::KernelStack { frames: 3 }),
            RecordedValue::Captured,
            &memory,
            &context,
        )
        .unwrap();
        assert_eq!(&buffer[16..24], &0x10u64.to_le_bytes());
        assert_eq!(&buffer[32..40], &[0; 8]);

        write_value(
            &mut buffer,
            &slot(
                16,
                16,
                ValueLayout::UserStack {
                    frames: 1,
                    string_size: 0,
                },
            ),
            RecordedValue::Captured,
            &memory,
            &context,
        )
        .unwrap();
        assert_eq!(&buffer[16..24], &42u64.to_le_bytes());
        assert_eq!(&buffer[24..32], &0x30u64.to_le_bytes());

        write_value(
            &mut buffer,
            &slot(32, 16, ValueLayout::UserSymbol(SymbolFormat::Symbol)),
            integer(0x1234),
            &memory,
            &context,
        )
        .unwrap();
        assert_eq!(&buffer[32..40], &42u64.to_le_bytes());
        assert_eq!(&buffer[40..48], &0x1234u64.to_le_bytes());

        let fault = write_value(
            &mut buffer,
            &slot(0, 4, ValueLayout::Bytes),
            integer(0),
            &memory,
            &context,
        )
        .unwrap_err();
        assert_eq!(fault, RuntimeFault::bad_address(0));
        // A slot outside the buffer is skipped rather than written out of bounds.
        write_value(
            &mut buffer,
            &slot(44, 8, ValueLayout::Pointer),
            integer(1),
            &memory,
            &context,
        )
        .unwrap();
    }
}
