/* options: -x errtags */
/*
 * A histogram's increment is checked after its parameters, in
 * dt_compile_agg()'s words: D_PROTO_ARG, "increment value (argument #N)".
 */
BEGIN
{
	@a = lquantize(1, 0, 10, 1, "heavy");
}
