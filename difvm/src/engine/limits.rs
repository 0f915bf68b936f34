//! The sizes and charges that define DIF behaviour alike on every engine: the largest
//! object DIF handles and what a dynamic variable or an aggregation entry costs of its
//! space budget. The interpreter applies them; the kernel engine sizes its maps by them.

/// Largest by-reference object (variable, tuple entry, copy) DIF handles; larger sizes
/// fault with `invalid size` instead of allocating without bound.
pub const MAX_OBJECT_SIZE: usize = 1 << 16;

/// Bookkeeping bytes charged per dynamic variable (thread-local or associative-array
/// element) on top of its key and value, standing in for classic DTrace's per-chunk
/// header; `dynvarsize` is spent at this rate.
pub const DYNAMIC_VARIABLE_OVERHEAD: u64 = 64;

/// Bookkeeping bytes charged per aggregation entry on top of its key and value words;
/// `aggsize` is spent at this rate.
pub const AGGREGATION_ENTRY_OVERHEAD: u64 = 64;

/// Largest aggregation key an engine accepts.
pub const MAX_AGGREGATION_KEY_SIZE: u32 = 1 << 20;
