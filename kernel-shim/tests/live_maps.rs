//! Live tests of maps: every map type the engine uses is created, values round-trip through
//! array, hash and per-CPU maps, iteration and batch lookup see every element, and an
//! mmapped array shows what a program wrote.

mod common;

use common::{bpf_available, emit_increment, emit_return_zero};
use kernel_shim::ebpf::{Assembler, Insn, MemSize, Reg};
use kernel_shim::sys::{
    bpf_map_create, bpf_prog_load, possible_cpu_count, MapType, ProgramLoadRequest, ProgramType,
    SysError, TestRunRequest, BPF_ANY, BPF_EXIST, BPF_F_MMAPABLE, BPF_F_NO_PREALLOC, BPF_NOEXIST,
};

fn key(index: u32) -> [u8; 4] {
    index.to_ne_bytes()
}

#[test]
fn every_map_type_the_engine_uses_can_be_created() {
    if !bpf_available("every_map_type_the_engine_uses_can_be_created") {
        return;
    }
    let cpus = possible_cpu_count().expect("possible CPUs") as u32;
    let cases = [
        (MapType::Array, 4, 16, 8, 0),
        (MapType::Array, 4, 4096, 2, BPF_F_MMAPABLE),
        (MapType::PercpuArray, 4, 12, 4, 0),
        (MapType::Hash, 8, 16, 64, 0),
        (MapType::Hash, 8, 16, 64, BPF_F_NO_PREALLOC),
        (MapType::PercpuHash, 8, 8, 64, 0),
        (MapType::LruHash, 8, 8, 64, 0),
        (MapType::LruPercpuHash, 8, 8, 64, 0),
        (MapType::Ringbuf, 0, 0, 64 << 10, 0),
        (MapType::PerfEventArray, 4, 4, cpus, 0),
        (MapType::StackTrace, 4, 8 * 127, 64, 0),
        (MapType::ProgArray, 4, 4, 4, 0),
    ];
    for (map_type, key_size, value_size, max_entries, flags) in cases {
        let map = bpf_map_create(
            map_type,
            key_size,
            value_size,
            max_entries,
            flags,
            "dtrace_test",
        )
        .unwrap_or_else(|error| panic!("{error}"));
        let info = map.info().expect("map info");
        assert!(info.id > 0);
        assert_eq!(
            (
                info.map_type,
                info.key_size,
                info.value_size,
                info.max_entries
            ),
            (map_type.number(), key_size, value_size, max_entries)
        );
        assert_eq!(info.name, "dtrace_test");
    }
    let error = bpf_map_create(MapType::Array, 4, 8, 0, 0, "bad").expect_err("no entries");
    assert_eq!(error.errno(), Some(libc::EINVAL));
    assert!(
        error
            .to_string()
            .starts_with("bpf(BPF_MAP_CREATE) of array map \"bad\""),
        "{error}"
    );
}

#[test]
fn array_values_round_trip() {
    if !bpf_available("array_values_round_trip") {
        return;
    }
    let map = bpf_map_create(MapType::Array, 4, 12, 4, 0, "dtrace_array").expect("array");
    assert_eq!(map.lookup(&key(2)).expect("lookup"), Some(vec![0; 12]));
    let value: Vec<u8> = (1..=12).collect();
    map.update(&key(2), &value, BPF_ANY).expect("update");
    assert_eq!(map.lookup(&key(2)).expect("lookup"), Some(value.clone()));
    assert_eq!(map.lookup(&key(4)).expect("lookup"), None, "out of range");
    assert_eq!(
        map.keys().expect("keys"),
        (0..4).map(|index| key(index).to_vec()).collect::<Vec<_>>()
    );
    let batch = map.lookup_batch_all().expect("batch lookup");
    assert_eq!(batch.len(), 4);
    assert_eq!(batch[2], (key(2).to_vec(), value));

    let short_key = map.lookup(&[0, 0]).expect_err("short key");
    assert!(matches!(short_key, SysError::Invalid { .. }), "{short_key}");
    let short_value = map
        .update(&key(0), &[1, 2, 3], BPF_ANY)
        .expect_err("short value");
    assert!(
        matches!(short_value, SysError::Invalid { .. }),
        "{short_value}"
    );
}

#[test]
fn hash_elements_round_trip_and_iterate() {
    if !bpf_available("hash_elements_round_trip_and_iterate") {
        return;
    }
    let map = bpf_map_create(MapType::Hash, 8, 8, 1000, 0, "dtrace_hash").expect("hash");
    assert_eq!(map.next_key(None).expect("first key"), None);
    for index in 0..300u64 {
        map.update(
            &index.to_ne_bytes(),
            &(index * 10).to_ne_bytes(),
            BPF_NOEXIST,
        )
        .expect("insert");
    }
    let duplicate = map
        .update(&5u64.to_ne_bytes(), &0u64.to_ne_bytes(), BPF_NOEXIST)
        .expect_err("exists");
    assert_eq!(duplicate.errno(), Some(libc::EEXIST));
    let missing = map
        .update(&5000u64.to_ne_bytes(), &0u64.to_ne_bytes(), BPF_EXIST)
        .expect_err("absent");
    assert_eq!(missing.errno(), Some(libc::ENOENT));
    assert_eq!(
        map.lookup(&7u64.to_ne_bytes()).expect("lookup"),
        Some(70u64.to_ne_bytes().to_vec())
    );

    let mut keys: Vec<u64> = map
        .keys()
        .expect("keys")
        .iter()
        .map(|key| u64::from_ne_bytes(key[..].try_into().expect("8 bytes")))
        .collect();
    keys.sort_unstable();
    assert_eq!(keys, (0..300).collect::<Vec<_>>());

    let mut batch: Vec<(u64, u64)> = map
        .lookup_batch_all()
        .expect("batch lookup")
        .iter()
        .map(|(key, value)| {
            (
                u64::from_ne_bytes(key[..].try_into().expect("8 bytes")),
                u64::from_ne_bytes(value[..].try_into().expect("8 bytes")),
            )
        })
        .collect();
    batch.sort_unstable();
    assert_eq!(
        batch,
        (0..300)
            .map(|index| (index, index * 10))
            .collect::<Vec<_>>()
    );

    assert!(map.delete(&7u64.to_ne_bytes()).expect("delete"));
    assert!(!map.delete(&7u64.to_ne_bytes()).expect("delete again"));
    assert_eq!(map.lookup(&7u64.to_ne_bytes()).expect("lookup"), None);
}

#[test]
fn per_cpu_values_have_one_slot_per_possible_cpu() {
    if !bpf_available("per_cpu_values_have_one_slot_per_possible_cpu") {
        return;
    }
    let cpus = possible_cpu_count().expect("possible CPUs");
    for (map_type, key_bytes) in [
        (MapType::PercpuArray, key(1).to_vec()),
        (MapType::PercpuHash, key(77).to_vec()),
        (MapType::LruPercpuHash, key(78).to_vec()),
    ] {
        let map = bpf_map_create(map_type, 4, 12, 4, 0, "dtrace_percpu").expect("per-CPU map");
        assert_eq!(map.value_copies(), cpus);
        assert_eq!(
            map.value_buffer_size(),
            16 * cpus,
            "12 bytes round up to 16"
        );
        let values: Vec<Vec<u8>> = (0..cpus).map(|cpu| vec![cpu as u8 + 1; 12]).collect();
        map.update_per_cpu(&key_bytes, &values, BPF_ANY)
            .expect("per-CPU update");
        assert_eq!(
            map.lookup_per_cpu(&key_bytes).expect("per-CPU lookup"),
            Some(values.clone())
        );
        let raw = map.lookup(&key_bytes).expect("lookup").expect("present");
        assert_eq!(map.split_per_cpu_value(&raw), values);
        let wrong_count = map
            .update_per_cpu(&key_bytes, &values[..cpus - 1], BPF_ANY)
            .expect_err("one value short");
        assert!(
            matches!(wrong_count, SysError::Invalid { .. }),
            "{wrong_count}"
        );
    }
    let plain = bpf_map_create(MapType::Array, 4, 8, 1, 0, "dtrace_plain").expect("array");
    assert!(plain.lookup_per_cpu(&key(0)).is_err());
}

#[test]
fn mmapped_array_shows_a_programs_writes() {
    if !bpf_available("mmapped_array_shows_a_programs_writes") {
        return;
    }
    let map = bpf_map_create(MapType::Array, 4, 32, 1, BPF_F_MMAPABLE, "dtrace_mmap")
        .expect("mmapable array");
    let mapping = map.mmap().expect("mmap");
    assert_eq!((mapping.len(), mapping.value_stride()), (32, 32));

    // The program bumps word 0 and stores a constant into word 1 through a direct value
    // pointer; it runs with BPF_PROG_TEST_RUN, attached to nothing.
    let mut assembler = Assembler::new();
    let done = assembler.new_label();
    emit_increment(&mut assembler, &map, 0);
    assembler.emit_all(&Insn::ld_map_value(Reg::R1, map.raw_fd(), 8));
    assembler.emit_all(&Insn::ld_imm64(Reg::R2, 0x1122_3344_5566_7788));
    assembler.emit(Insn::stx_mem(MemSize::DW, Reg::R1, Reg::R2, 0));
    emit_return_zero(&mut assembler, done);
    let program = assembler.finish().expect("assembles");
    let loaded = bpf_prog_load(&ProgramLoadRequest::new(
        ProgramType::RawTracepoint,
        &program,
    ))
    .unwrap_or_else(|error| panic!("{error}"));
    let context = [0u8; 8];
    for _ in 0..5 {
        loaded
            .test_run(&TestRunRequest {
                context: &context,
                ..TestRunRequest::default()
            })
            .expect("test run");
    }
    assert_eq!(mapping.read_u64(0), Some(5));
    assert_eq!(mapping.load_u64_acquire(0), Some(5));
    assert_eq!(mapping.read_u64(8), Some(0x1122_3344_5566_7788));
    let mut bytes = [0u8; 8];
    mapping.read_bytes(8, &mut bytes).expect("in range");
    assert_eq!(u64::from_ne_bytes(bytes), 0x1122_3344_5566_7788);

    // Writes through the mapping are what the map holds.
    mapping.write_u64(16, 99).expect("in range");
    mapping.write_bytes(24, &[7; 8]).expect("in range");
    let value = map.lookup(&key(0)).expect("lookup").expect("element 0");
    assert_eq!(&value[16..24], &99u64.to_ne_bytes());
    assert_eq!(&value[24..32], &[7; 8]);
    assert_eq!(mapping.swap_u64(16, 5), Some(99));

    // Checked access: out of range and misaligned offsets are refused, not undefined.
    assert_eq!(mapping.read_u64(32), None);
    assert_eq!(mapping.read_u64(4), None);
    assert_eq!(mapping.read_u32(4), Some(0));
    assert_eq!(mapping.write_u32(30, 1), None);
    assert_eq!(mapping.read_bytes(30, &mut bytes), None);

    // The mapping outlives the descriptor: the map stays alive while mapped.
    drop(map);
    assert_eq!(mapping.read_u64(0), Some(5));

    let unmappable = bpf_map_create(MapType::Array, 4, 8, 1, 0, "dtrace_nommap").expect("array");
    assert!(matches!(unmappable.mmap(), Err(SysError::Invalid { .. })));
}
