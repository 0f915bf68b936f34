/* options: -x errtags */
/*
 * An undefined macro variable in a probe description makes the description invalid
 * (dtrace_xstr2desc()'s EDT_BADSPCV), reported as it is parsed.
 */
dtrace:::$3
{
	trace(y);
}
