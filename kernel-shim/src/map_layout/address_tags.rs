//! The tags of tagged addresses: which of our own memory areas (scratch, globals, work
//! area, string tables) a DIF address points into, and where the tag sits.

/// Tag of scratch addresses: offsets into the work area's scratch space.
pub const TAG_SCRATCH: u64 = 0xd0;
/// Tag of by-reference global variable storage: offsets into the globals value.
pub const TAG_GLOBALS: u64 = 0xd1;
/// Tag of work-area storage other than scratch (clause-locals, built-in strings, copies
/// of dynamic variables): offsets into the work area.
pub const TAG_STATE: u64 = 0xd2;
/// Tag of DIFO string tables: offsets into the constants value.
pub const TAG_CONSTANTS: u64 = 0xd3;
/// Where the tag sits in a tagged address.
pub const TAG_SHIFT: u32 = 56;
