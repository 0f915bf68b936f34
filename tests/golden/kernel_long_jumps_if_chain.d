/* options: -q */
/* needs: Linux 6.4 (jumps longer than a 16-bit offset become gotol) */
/*
 * A long BEGIN clause: eighty if/else chains whose eBPF spans more than a 16-bit jump
 * offset can hold, so the kernel engine relaxes the long jumps into gotol.
 */
BEGIN
{
	v = 7;
	if (v == 0) { printf("v is 0\n"); } else if (v > 0) { trace(0); } else { trace("no"); }
	if (v == 1) { printf("v is 1\n"); } else if (v > 1) { trace(1); } else { trace("no"); }
	if (v == 2) { printf("v is 2\n"); } else if (v > 2) { trace(2); } else { trace("no"); }
	if (v == 3) { printf("v is 3\n"); } else if (v > 3) { trace(3); } else { trace("no"); }
	if (v == 4) { printf("v is 4\n"); } else if (v > 4) { trace(4); } else { trace("no"); }
	if (v == 5) { printf("v is 5\n"); } else if (v > 5) { trace(5); } else { trace("no"); }
	if (v == 6) { printf("v is 6\n"); } else if (v > 6) { trace(6); } else { trace("no"); }
	if (v == 7) { printf("v is 7\n"); } else if (v > 7) { trace(7); } else { trace("no"); }
	if (v == 8) { printf("v is 8\n"); } else if (v > 8) { trace(8); } else { trace("no"); }
	if (v == 9) { printf("v is 9\n"); } else if (v > 9) { trace(9); } else { trace("no"); }
	if (v == 10) { printf("v is 10\n"); } else if (v > 10) { trace(10); } else { trace("no"); }
	if (v == 11) { printf("v is 11\n"); } else if (v > 11) { trace(11); } else { trace("no"); }
	if (v == 12) { printf("v is 12\n"); } else if (v > 12) { trace(12); } else { trace("no"); }
	if (v == 13) { printf("v is 13\n"); } else if (v > 13) { trace(13); } else { trace("no"); }
	if (v == 14) { printf("v is 14\n"); } else if (v > 14) { trace(14); } else { trace("no"); }
	if (v == 15) { printf("v is 15\n"); } else if (v > 15) { trace(15); } else { trace("no"); }
	if (v == 16) { printf("v is 16\n"); } else if (v > 16) { trace(16); } else { trace("no"); }
	if (v == 17) { printf("v is 17\n"); } else if (v > 17) { trace(17); } else { trace("no"); }
	if (v == 18) { printf("v is 18\n"); } else if (v > 18) { trace(18); } else { trace("no"); }
	if (v == 19) { printf("v is 19\n"); } else if (v > 19) { trace(19); } else { trace("no"); }
	if (v == 20) { printf("v is 20\n"); } else if (v > 20) { trace(20); } else { trace("no"); }
	if (v == 21) { printf("v is 21\n"); } else if (v > 21) { trace(21); } else { trace("no"); }
	if (v == 22) { printf("v is 22\n"); } else if (v > 22) { trace(22); } else { trace("no"); }
	if (v == 23) { printf("v is 23\n"); } else if (v > 23) { trace(23); } else { trace("no"); }
	if (v == 24) { printf("v is 24\n"); } else if (v > 24) { trace(24); } else { trace("no"); }
	if (v == 25) { printf("v is 25\n"); } else if (v > 25) { trace(25); } else { trace("no"); }
	if (v == 26) { printf("v is 26\n"); } else if (v > 26) { trace(26); } else { trace("no"); }
	if (v == 27) { printf("v is 27\n"); } else if (v > 27) { trace(27); } else { trace("no"); }
	if (v == 28) { printf("v is 28\n"); } else if (v > 28) { trace(28); } else { trace("no"); }
	if (v == 29) { printf("v is 29\n"); } else if (v > 29) { trace(29); } else { trace("no"); }
	if (v == 30) { printf("v is 30\n"); } else if (v > 30) { trace(30); } else { trace("no"); }
	if (v == 31) { printf("v is 31\n"); } else if (v > 31) { trace(31); } else { trace("no"); }
	if (v == 32) { printf("v is 32\n"); } else if (v > 32) { trace(32); } else { trace("no"); }
	if (v == 33) { printf("v is 33\n"); } else if (v > 33) { trace(33); } else { trace("no"); }
	if (v == 34) { printf("v is 34\n"); } else if (v > 34) { trace(34); } else { trace("no"); }
	if (v == 35) { printf("v is 35\n"); } else if (v > 35) { trace(35); } else { trace("no"); }
	if (v == 36) { printf("v is 36\n"); } else if (v > 36) { trace(36); } else { trace("no"); }
	if (v == 37) { printf("v is 37\n"); } else if (v > 37) { trace(37); } else { trace("no"); }
	if (v == 38) { printf("v is 38\n"); } else if (v > 38) { trace(38); } else { trace("no"); }
	if (v == 39) { printf("v is 39\n"); } else if (v > 39) { trace(39); } else { trace("no"); }
	if (v == 40) { printf("v is 40\n"); } else if (v > 40) { trace(40); } else { trace("no"); }
	if (v == 41) { printf("v is 41\n"); } else if (v > 41) { trace(41); } else { trace("no"); }
	if (v == 42) { printf("v is 42\n"); } else if (v > 42) { trace(42); } else { trace("no"); }
	if (v == 43) { printf("v is 43\n"); } else if (v > 43) { trace(43); } else { trace("no"); }
	if (v == 44) { printf("v is 44\n"); } else if (v > 44) { trace(44); } else { trace("no"); }
	if (v == 45) { printf("v is 45\n"); } else if (v > 45) { trace(45); } else { trace("no"); }
	if (v == 46) { printf("v is 46\n"); } else if (v > 46) { trace(46); } else { trace("no"); }
	if (v == 47) { printf("v is 47\n"); } else if (v > 47) { trace(47); } else { trace("no"); }
	if (v == 48) { printf("v is 48\n"); } else if (v > 48) { trace(48); } else { trace("no"); }
	if (v == 49) { printf("v is 49\n"); } else if (v > 49) { trace(49); } else { trace("no"); }
	if (v == 50) { printf("v is 50\n"); } else if (v > 50) { trace(50); } else { trace("no"); }
	if (v == 51) { printf("v is 51\n"); } else if (v > 51) { trace(51); } else { trace("no"); }
	if (v == 52) { printf("v is 52\n"); } else if (v > 52) { trace(52); } else { trace("no"); }
	if (v == 53) { printf("v is 53\n"); } else if (v > 53) { trace(53); } else { trace("no"); }
	if (v == 54) { printf("v is 54\n"); } else if (v > 54) { trace(54); } else { trace("no"); }
	if (v == 55) { printf("v is 55\n"); } else if (v > 55) { trace(55); } else { trace("no"); }
	if (v == 56) { printf("v is 56\n"); } else if (v > 56) { trace(56); } else { trace("no"); }
	if (v == 57) { printf("v is 57\n"); } else if (v > 57) { trace(57); } else { trace("no"); }
	if (v == 58) { printf("v is 58\n"); } else if (v > 58) { trace(58); } else { trace("no"); }
	if (v == 59) { printf("v is 59\n"); } else if (v > 59) { trace(59); } else { trace("no"); }
	if (v == 60) { printf("v is 60\n"); } else if (v > 60) { trace(60); } else { trace("no"); }
	if (v == 61) { printf("v is 61\n"); } else if (v > 61) { trace(61); } else { trace("no"); }
	if (v == 62) { printf("v is 62\n"); } else if (v > 62) { trace(62); } else { trace("no"); }
	if (v == 63) { printf("v is 63\n"); } else if (v > 63) { trace(63); } else { trace("no"); }
	if (v == 64) { printf("v is 64\n"); } else if (v > 64) { trace(64); } else { trace("no"); }
	if (v == 65) { printf("v is 65\n"); } else if (v > 65) { trace(65); } else { trace("no"); }
	if (v == 66) { printf("v is 66\n"); } else if (v > 66) { trace(66); } else { trace("no"); }
	if (v == 67) { printf("v is 67\n"); } else if (v > 67) { trace(67); } else { trace("no"); }
	if (v == 68) { printf("v is 68\n"); } else if (v > 68) { trace(68); } else { trace("no"); }
	if (v == 69) { printf("v is 69\n"); } else if (v > 69) { trace(69); } else { trace("no"); }
	if (v == 70) { printf("v is 70\n"); } else if (v > 70) { trace(70); } else { trace("no"); }
	if (v == 71) { printf("v is 71\n"); } else if (v > 71) { trace(71); } else { trace("no"); }
	if (v == 72) { printf("v is 72\n"); } else if (v > 72) { trace(72); } else { trace("no"); }
	if (v == 73) { printf("v is 73\n"); } else if (v > 73) { trace(73); } else { trace("no"); }
	if (v == 74) { printf("v is 74\n"); } else if (v > 74) { trace(74); } else { trace("no"); }
	if (v == 75) { printf("v is 75\n"); } else if (v > 75) { trace(75); } else { trace("no"); }
	if (v == 76) { printf("v is 76\n"); } else if (v > 76) { trace(76); } else { trace("no"); }
	if (v == 77) { printf("v is 77\n"); } else if (v > 77) { trace(77); } else { trace("no"); }
	if (v == 78) { printf("v is 78\n"); } else if (v > 78) { trace(78); } else { trace("no"); }
	if (v == 79) { printf("v is 79\n"); } else if (v > 79) { trace(79); } else { trace("no"); }
	printf("\n");
	exit(0);
}
