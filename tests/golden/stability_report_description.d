/* options: -q -v */
/*
 * The minimum probe description attributes are those of the fields each description
 * specifies (dt_probe_info()): dtrace:::BEGIN names the dtrace provider (Stable) and
 * leaves module and function (Private) out.
 */
dtrace:::BEGIN
{
	exit(0);
}
