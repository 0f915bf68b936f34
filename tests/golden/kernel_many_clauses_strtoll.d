/* options: -q */
/*
 * Fifty strtoll() calls in twenty-five clauses: its blank and digit loops run as bpf_loop
 * callbacks on the kernel engine, which the verifier checks once.
 */
BEGIN { printf("%d %d\n", strtoll("11"), strtoll(" 0x1", 16)); }
BEGIN { printf("%d %d\n", strtoll("22"), strtoll(" 0x2", 16)); }
BEGIN { printf("%d %d\n", strtoll("33"), strtoll(" 0x3", 16)); }
BEGIN { printf("%d %d\n", strtoll("44"), strtoll(" 0x4", 16)); }
BEGIN { printf("%d %d\n", strtoll("55"), strtoll(" 0x5", 16)); }
BEGIN { printf("%d %d\n", strtoll("66"), strtoll(" 0x6", 16)); }
BEGIN { printf("%d %d\n", strtoll("77"), strtoll(" 0x7", 16)); }
BEGIN { printf("%d %d\n", strtoll("88"), strtoll(" 0x8", 16)); }
BEGIN { printf("%d %d\n", strtoll("99"), strtoll(" 0x9", 16)); }
BEGIN { printf("%d %d\n", strtoll("1010"), strtoll(" 0x10", 16)); }
BEGIN { printf("%d %d\n", strtoll("1111"), strtoll(" 0x11", 16)); }
BEGIN { printf("%d %d\n", strtoll("1212"), strtoll(" 0x12", 16)); }
BEGIN { printf("%d %d\n", strtoll("1313"), strtoll(" 0x13", 16)); }
BEGIN { printf("%d %d\n", strtoll("1414"), strtoll(" 0x14", 16)); }
BEGIN { printf("%d %d\n", strtoll("1515"), strtoll(" 0x15", 16)); }
BEGIN { printf("%d %d\n", strtoll("1616"), strtoll(" 0x16", 16)); }
BEGIN { printf("%d %d\n", strtoll("1717"), strtoll(" 0x17", 16)); }
BEGIN { printf("%d %d\n", strtoll("1818"), strtoll(" 0x18", 16)); }
BEGIN { printf("%d %d\n", strtoll("1919"), strtoll(" 0x19", 16)); }
BEGIN { printf("%d %d\n", strtoll("2020"), strtoll(" 0x20", 16)); }
BEGIN { printf("%d %d\n", strtoll("2121"), strtoll(" 0x21", 16)); }
BEGIN { printf("%d %d\n", strtoll("2222"), strtoll(" 0x22", 16)); }
BEGIN { printf("%d %d\n", strtoll("2323"), strtoll(" 0x23", 16)); }
BEGIN { printf("%d %d\n", strtoll("2424"), strtoll(" 0x24", 16)); }
BEGIN { printf("%d %d\n", strtoll("2525"), strtoll(" 0x25", 16)); }
BEGIN { exit(0); }
