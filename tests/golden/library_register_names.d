/* options: -q */
/*
 * regs.d's register names index the words of x86_64's struct pt_regs, as regs[] and
 * uregs[] hold them; the aliases name the program counter, stack and frame pointers,
 * flags and the two return-value registers.
 */
BEGIN
{
	printf("%d %d %d %d %d %d\n", R_R15, R_RBP, R_RAX, R_RDI, R_ORIG_RAX, R_SS);
	printf("%d %d %d %d %d %d\n", R_PC, R_SP, R_FP, R_PS, R_R0, R_R1);
	exit(0);
}
