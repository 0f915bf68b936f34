/* options: -q -L user_libraries/chain */
/*
 * -L: every .d file of the directory is declared before the program, each after the
 * libraries it depends on, so their inlines, types and translators are the program's.
 */
BEGIN
{
	printf("%d %d %d\n", CHAIN_A, CHAIN_B, CHAIN_C);
	printf("%d\n", CHAIN_PAIR_SIZE);
	this->in = (chain_input_t *)alloca(sizeof (chain_input_t));
	this->in->ci_value = 21;
	printf("%d\n", xlate <chain_output_t> (this->in).co_double);
	exit(0);
}
