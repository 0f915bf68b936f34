/* options: -x errtags */
/*
 * printa() shares printf()'s prototype, void(@, ...): a call without
 * arguments fails the generic prototype check (D_PROTO_LEN).
 */
BEGIN
{
	printa();
}
