//! The `call` instruction: every subroutine that makes sense in user space, with its
//! arguments taken from the tuple stack (§7.3, §15.5). Kernel-only subroutines (mutex and
//! rwlock inspection, STREAMS, `getf`, `d_path`, …) and the FreeBSD/illumos extras
//! (`memref`, `memstr`, `json`) fault with `illegal operation` when DIF calls them (the
//! D compiler writes the lock inspections as reads of the lock words and refuses
//! `json()`).
//!
//! String results are written to scratch (strsize bytes each); `strchr`, `strrchr` and
//! `strstr` return pointers into their argument, NULL when nothing is found.

use super::fault::RuntimeFault;
use super::machine::Machine;
use super::memory::{Access, RegionLifetime};
use super::strings;
use crate::engine::MAX_OBJECT_SIZE;
use crate::isa::subroutine;

/// Linux `AF_INET`.
const AF_INET: u64 = 2;
/// Linux `AF_INET6`.
const AF_INET6: u64 = 10;

impl Machine<'_> {
    /// Runs subroutine `number` (the `call` instruction); `Some` is the value for the
    /// destination register, `None` leaves it unchanged (subroutines returning `void`).
    /// The machine's dispatch calls this method rather than a function of this module,
    /// so that only this module names the other.
    pub(super) fn call_subroutine(&mut self, number: u16) -> Result<Option<u64>, RuntimeFault> {
        call(self, number)
    }
}

/// Runs subroutine `number` on `machine`.
fn call(machine: &mut Machine<'_>, number: u16) -> Result<Option<u64>, RuntimeFault> {
    let arguments = Arguments {
        values: machine.tuples.iter().map(|entry| entry.value).collect(),
        number,
    };
    let strsize = machine.state.strsize();
    let value = match number {
        subroutine::RAND => machine.state.next_random(),
        subroutine::SPECULATION => {
            let now = machine.context.timestamp();
            machine.state.speculations.allocate(now)
        }
        subroutine::PROGENYOF => machine.context.progenyof(arguments.get(0)?) as u64,
        subroutine::GETMAJOR => (arguments.get(0)? >> 20) & 0xfff,
        subroutine::GETMINOR => arguments.get(0)? & 0xf_ffff,
        subroutine::HTONS | subroutine::NTOHS => (arguments.get(0)? as u16).to_be() as u64,
        subroutine::HTONL | subroutine::NTOHL => (arguments.get(0)? as u32).to_be() as u64,
        subroutine::HTONLL | subroutine::NTOHLL => arguments.get(0)?.to_be(),
        subroutine::ALLOCA => machine.state.memory.allocate_alloca(arguments.get(0)?)?,
        subroutine::BCOPY => {
            let (source, destination, size) =
                (arguments.get(0)?, arguments.get(1)?, arguments.get(2)?);
            machine.copy_into_scratch(source, destination, size, Access::Kernel)?;
            return Ok(None);
        }
        subroutine::COPYIN => {
            let (user_address, size) = (arguments.get(0)?, arguments.get(1)?);
            let destination = machine.state.memory.allocate_scratch(size)?;
            machine.copy_into_scratch(user_address, destination, size, Access::User)?;
            destination
        }
        subroutine::COPYINTO => {
            let (user_address, size, destination) =
                (arguments.get(0)?, arguments.get(1)?, arguments.get(2)?);
            machine.copy_into_scratch(user_address, destination, size, Access::User)?;
            return Ok(None);
        }
        subroutine::COPYINSTR => {
            let user_address = arguments.get(0)?;
            let mut bound = strsize - 1;
            if let Some(maximum) = arguments.optional(1) {
                bound = bound.min(usize::try_from(maximum).unwrap_or(usize::MAX));
            }
            let string = machine.state.memory.read_string(
                machine.context,
                user_address,
                bound,
                Access::User,
            )?;
            machine.allocate_string(&string)?
        }
        subroutine::COPYOUT => {
            let (source, user_address, size) =
                (arguments.get(0)?, arguments.get(1)?, arguments.get(2)?);
            if size > MAX_OBJECT_SIZE as u64 {
                return Err(RuntimeFault::bad_size(size));
            }
            let mut bytes = vec![0; size as usize];
            machine
                .state
                .memory
                .read(machine.context, source, &mut bytes, Access::Kernel)?;
            write_user(machine, user_address, &bytes)?;
            return Ok(None);
        }
        subroutine::COPYOUTSTR => {
            let (source, user_address, maximum) =
                (arguments.get(0)?, arguments.get(1)?, arguments.get(2)?);
            let mut bytes = machine.read_string(source)?;
            bytes.push(0);
            bytes.truncate(usize::try_from(maximum).unwrap_or(usize::MAX));
            write_user(machine, user_address, &bytes)?;
            return Ok(None);
        }
        subroutine::STRLEN => machine.read_string(arguments.get(0)?)?.len() as u64,
        subroutine::STRJOIN => {
            let first = machine.read_string(arguments.get(0)?)?;
            let second = machine.read_string(arguments.get(1)?)?;
            if first.len() + second.len() >= strsize {
                return Err(RuntimeFault::no_scratch());
            }
            machine.allocate_string(&[first, second].concat())?
        }
        subroutine::LLTOSTR => {
            let value = arguments.get(0)? as i64;
            let base = arguments.optional(1).map(|base| base as i64);
            let text = strings::lltostr(value, base)
                .ok_or(RuntimeFault::illegal_operation(base.unwrap_or(10) as u64))?;
            machine.allocate_string(&text)?
        }
        subroutine::STRTOLL => {
            let base = arguments.optional(1).map(|base| base as i64);
            let string = machine.read_string(arguments.get(0)?)?;
            strings::strtoll(&string, base)
                .ok_or(RuntimeFault::illegal_operation(base.unwrap_or(10) as u64))?
                as u64
        }
        subroutine::BASENAME | subroutine::DIRNAME => {
            let string = machine.read_string(arguments.get(0)?)?;
            let result =
                strings::basename_or_dirname(&string, number == subroutine::DIRNAME, strsize);
            machine.allocate_string(&result)?
        }
        subroutine::CLEANPATH => {
            let string = machine.read_string(arguments.get(0)?)?;
            machine.allocate_string(&strings::cleanpath(&string, strsize))?
        }
        subroutine::COPYIN_ARGUMENTS => {
            let (start, end) = (arguments.get(0)?, arguments.get(1)?);
            let length = end.saturating_sub(start).min(strsize as u64 - 1) as usize;
            let mut area = vec![0; length];
            // An empty range reads nothing, so it cannot fault.
            if length > 0 {
                machine
                    .state
                    .memory
                    .read(machine.context, start, &mut area, Access::User)?;
            }
            machine.allocate_string(&strings::process_arguments(&area))?
        }
        subroutine::TOUPPER | subroutine::TOLOWER => {
            let mut string = machine.read_string(arguments.get(0)?)?;
            if number == subroutine::TOUPPER {
                string.make_ascii_uppercase();
            } else {
                string.make_ascii_lowercase();
            }
            machine.allocate_string(&string)?
        }
        subroutine::STRCHR | subroutine::STRRCHR => {
            let address = arguments.get(0)?;
            let target = arguments.get(1)? as u8;
            let mut string = machine.read_string(address)?;
            // The terminating NUL can be found too, when it is within strsize.
            if string.len() < strsize {
                string.push(0);
            }
            let position = if number == subroutine::STRCHR {
                string.iter().position(|&byte| byte == target)
            } else {
                string.iter().rposition(|&byte| byte == target)
            };
            position.map_or(0, |position| address.wrapping_add(position as u64))
        }
        subroutine::STRSTR => {
            let address = arguments.get(0)?;
            let string = machine.read_string(address)?;
            let sub = machine.read_string(arguments.get(1)?)?;
            match strings::index_of(&string, &sub, None) {
                -1 => 0,
                position => address.wrapping_add(position as u64),
            }
        }
        subroutine::STRTOK => strtok(machine, arguments.get(0)?, arguments.get(1)?)?,
        subroutine::SUBSTR => {
            let string = machine.read_string(arguments.get(0)?)?;
            let index = arguments.get(1)? as i64;
            let length = arguments.optional(2).map(|length| length as i64);
            machine.allocate_string(&strings::substr(&string, index, length, strsize))?
        }
        subroutine::INDEX | subroutine::RINDEX => {
            let string = machine.read_string(arguments.get(0)?)?;
            let sub = machine.read_string(arguments.get(1)?)?;
            let start = arguments.optional(2).map(|start| start as i64);
            let position = if number == subroutine::INDEX {
                strings::index_of(&string, &sub, start)
            } else {
                strings::rindex_of(&string, &sub, start)
            };
            position as u64
        }
        subroutine::INET_NTOA => {
            let mut address = [0u8; 4];
            read_kernel(machine, arguments.get(0)?, &mut address)?;
            machine.allocate_string(&strings::inet_ntoa(&address))?
        }
        subroutine::INET_NTOA6 => {
            let mut address = [0u8; 16];
            read_kernel(machine, arguments.get(0)?, &mut address)?;
            machine.allocate_string(&strings::inet_ntoa6(&address, false))?
        }
        subroutine::INET_NTOP => {
            let family = arguments.get(0)?;
            let pointer = arguments.get(1)?;
            let text = match family {
                AF_INET => {
                    let mut address = [0u8; 4];
                    read_kernel(machine, pointer, &mut address)?;
                    strings::inet_ntoa(&address)
                }
                AF_INET6 => {
                    let mut address = [0u8; 16];
                    read_kernel(machine, pointer, &mut address)?;
                    strings::inet_ntoa6(&address, true)
                }
                _ => return Err(RuntimeFault::illegal_operation(family)),
            };
            machine.allocate_string(&text)?
        }
        subroutine::LINK_NTOP => {
            let hardware_type = arguments.get(0)?;
            let length = strings::link_address_length(hardware_type)
                .ok_or(RuntimeFault::illegal_operation(hardware_type))?;
            let mut address = vec![0u8; length];
            read_kernel(machine, arguments.get(1)?, &mut address)?;
            machine.allocate_string(&strings::link_ntop(&address))?
        }
        _ => return Err(RuntimeFault::illegal_operation(number as u64)),
    };
    Ok(Some(value))
}

/// The subroutine's arguments: the values of the tuple stack's entries.
struct Arguments {
    values: Vec<u64>,
    number: u16,
}

impl Arguments {
    /// A required argument; a DIFO that pushed too few faults with `illegal operation`.
    fn get(&self, index: usize) -> Result<u64, RuntimeFault> {
        self.values
            .get(index)
            .copied()
            .ok_or(RuntimeFault::illegal_operation(self.number as u64))
    }

    fn optional(&self, index: usize) -> Option<u64> {
        self.values.get(index).copied()
    }
}

fn read_kernel(machine: &Machine<'_>, address: u64, buffer: &mut [u8]) -> Result<(), RuntimeFault> {
    machine
        .state
        .memory
        .read(machine.context, address, buffer, Access::Kernel)
}

fn write_user(machine: &Machine<'_>, address: u64, bytes: &[u8]) -> Result<(), RuntimeFault> {
    if machine.context.write_user_memory(address, bytes) {
        Ok(())
    } else {
        Err(RuntimeFault::bad_address(address))
    }
}

/// `strtok(s, delimiters)`: with `s` NULL, continues from the position saved by the
/// previous call of this firing. A new string is first copied to a firing region, so that
/// later clauses of the firing can continue even though the string itself (in a string
/// table or scratch) only lives as long as its clause.
fn strtok(machine: &mut Machine<'_>, address: u64, delimiters: u64) -> Result<u64, RuntimeFault> {
    let delimiters = machine.read_string(delimiters)?;
    let address = if address == 0 {
        // No saved position (no string yet, or the last one ran out): DTrace goes on
        // from a NULL position, finds no token and returns NULL.
        let Some(saved) = machine.state.strtok else {
            return Ok(0);
        };
        saved
    } else {
        let mut copy = machine.read_string(address)?;
        copy.push(0);
        machine.state.memory.map(RegionLifetime::Firing, copy)?
    };
    let string = machine.read_string(address)?;
    let is_delimiter = |byte: &u8| delimiters.contains(byte);
    let Some(start) = string.iter().position(|byte| !is_delimiter(byte)) else {
        machine.state.strtok = None;
        return Ok(0);
    };
    let end = string[start..]
        .iter()
        .position(is_delimiter)
        .map_or(string.len(), |length| start + length);
    let token = machine.allocate_string(&string[start..end])?;
    machine.state.strtok = Some(address.wrapping_add(end as u64));
    Ok(token)
}
